// npx heed's command line read through the one table both CLIs share, src/cli/cli.json: the
// command, each option found by flag with its value read by the table's kind into `given` (the
// object src/cli/args.cpp builds), then the table's rules. The kinds that need more than a type
// are one function each, as in args.cpp, with its messages; numbers are read as std::stoi,
// std::stof and std::stoll read them. Not the engine's range checks. Nothing runs at import.
import { readFileSync } from 'node:fs';

let cached = null;

/** src/cli/cli.json, read once when first needed. */
export function table() {
  cached ??= JSON.parse(readFileSync(new URL('../../src/cli/cli.json', import.meta.url), 'utf8'));
  return cached;
}

/** A command line the table refuses (build/heed: exit 2, with the usage). */
export class UsageError extends Error {}

const fail = (message) => {
  throw new UsageError(message);
};

// ---- value kinds -------------------------------------------------------------------------

const SPACE = '[ \\t\\n\\v\\f\\r]*'; // what strtol and strtof skip first (C's isspace)
const INTEGER = new RegExp(`^${SPACE}([+-]?\\d+)$`);

/** std::stoi(v) with every character used. */
function parseInt32(flag, v) {
  const m = INTEGER.exec(v);
  const x = m ? Number(m[1]) + 0 : NaN; // + 0: -0 is 0
  if (x >= -(2 ** 31) && x < 2 ** 31) return x;
  return fail(`${flag} expects an integer, got '${v}'`);
}

/** std::stof(v) with every character used: decimal, hex, inf, nan; out of range refused. */
function parseFloat32(flag, v) {
  const s = v.replace(new RegExp(`^${SPACE}`), '');
  const sign = s[0] === '-' ? -1 : 1;
  const body = s.replace(/^[+-]/, '');
  let x = NaN;
  if (/^(inf|infinity)$/i.test(body)) return sign * Infinity;
  if (/^nan(\([0-9a-z_]*\))?$/i.test(body)) return NaN;
  if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body)) x = Number(body);
  const hex = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/i.exec(body);
  if (hex && hex[1] + hex[2] !== '')
    x = Number(BigInt(`0x${hex[1]}${hex[2]}`)) * 2 ** (Number(hex[3] ?? 0) - 4 * hex[2].length);
  const f = Math.fround(x);
  // why: strtof's ERANGE: overflow, or a value below FLT_MIN that float cannot hold exactly
  if (Number.isFinite(f) && !(Math.abs(f) < 2 ** -126 && f !== x)) return sign * f;
  return fail(`${flag} expects a number, got '${v}'`);
}

/** A seed: an integer in [0, 4294967295] (no sign, no wrapping), as std::stoll reads it. */
function parseSeed(flag, v) {
  const m = INTEGER.exec(v);
  if (m && BigInt(m[1]) >= 0n && BigInt(m[1]) <= 4294967295n) return Number(m[1]);
  return fail(`${flag}: the seed must be an integer in [0, 4294967295], got '${v}'`);
}

/** "enc:2:1" or "cross:0:3:mean" -> {block: encoder | decoder | cross, layer, head, mean}. */
function parseAblation(v) {
  const parts = v.split(':');
  const mean = parts.length === 4 && parts[3] === 'mean';
  if (parts.length !== 3 && !mean)
    fail(`--ablate expects BLOCK:LAYER:HEAD[:mean] (BLOCK enc, dec or cross), got '${v}'`);
  const block = { enc: 'encoder', dec: 'decoder', cross: 'cross' }[parts[0]];
  if (!Object.hasOwn({ enc: 1, dec: 1, cross: 1 }, parts[0]))
    fail(`--ablate: the block must be enc, dec or cross, got '${parts[0]}'`);
  return {
    block,
    layer: parseInt32('--ablate (layer)', parts[1]),
    head: parseInt32('--ablate (head)', parts[2]),
    mean,
  };
}

/** "favor:256", "favor:256:7", "elu" or "none" -> {kind, features?, seed?} (the rest default). */
function parseLinear(v) {
  const parts = v.split(':');
  if (parts.length === 1 && (parts[0] === 'elu' || parts[0] === 'none')) return { kind: parts[0] };
  if (parts[0] === 'favor' && (parts.length === 2 || parts.length === 3)) {
    const l = { kind: 'favor', features: parseInt32('--linear (features)', parts[1]) };
    if (parts.length === 3) l.seed = parseSeed('--linear', parts[2]);
    return l;
  }
  return fail(`--linear expects favor:FEATURES[:SEED], elu or none, got '${v}'`);
}

/** "12,7,3" -> [12, 7, 3] (std::getline's fields: a trailing comma adds none). */
function parseIds(flag, v) {
  const fields = v === '' ? [] : v.split(',');
  if (fields.at(-1) === '') fields.pop();
  return fields.map((id) => parseInt32(flag, id));
}

/** "a, b or c" */
function either(words, lastJoint) {
  return words.length < 2
    ? words.join('')
    : `${words.slice(0, -1).join(', ')}${lastJoint}${words.at(-1)}`;
}

function readValue(option, flag, next) {
  if (option.kind === 'none') return option.value;
  const v = next();
  switch (option.kind) {
    case 'string':
      return v;
    case 'int':
      return parseInt32(flag, v);
    case 'float':
      return parseFloat32(flag, v);
    case 'seed':
      return parseSeed(flag, v);
    case 'ids':
      return parseIds(flag, v);
    case 'ablation':
      return parseAblation(v);
    case 'linear':
      return parseLinear(v);
    case 'choice':
      if (option.choices.includes(v)) return v;
      return fail(`${flag} expects ${either(option.choices, ' or ')}, got '${v}'`);
  }
  return fail(`cli.json: unknown kind '${option.kind}'`);
}

// ---- the table ---------------------------------------------------------------------------

/** Sets (or, `repeat`, appends to) the `path` of `given` ("options.interventions.window"). */
function set(given, path, value, repeat) {
  const keys = path.split('.');
  const last = keys.pop();
  let at = given;
  for (const k of keys) at = at[k] ??= {};
  if (repeat) (at[last] ??= []).push(value);
  else at[last] = value;
}

/** Whether `path` is set to something other than '' or []. */
function isGiven(given, path) {
  const v = path.split('.').reduce((at, k) => at?.[k], given);
  return (
    v !== undefined && v !== null && !((typeof v === 'string' || Array.isArray(v)) && !v.length)
  );
}

function findOption(flag, present) {
  return table().options.find(
    (o) =>
      o.flags.includes(flag) &&
      (o.if === undefined || present.has(o.if)) &&
      (o.unless === undefined || !present.has(o.unless)),
  );
}

function checkRules(command, given) {
  for (const rule of table().rules) {
    if (rule.command !== undefined && rule.command !== command) continue;
    if (
      (rule.given ?? []).every((p) => isGiven(given, p)) &&
      (rule.missing ?? []).every((p) => !isGiven(given, p))
    )
      fail(rule.error);
  }
}

/**
 * argv (after `heed`) read through the table: {command, given, texts}, `given` holding the
 * table's `sets` paths (options.* under TranslateOptions' JavaScript names). Throws UsageError.
 */
export function parseArgs(argv) {
  if (argv.length < 1) fail('missing command');
  const command = argv[0];
  if (!table().commands.includes(command)) fail(`unknown command '${command}'`);
  const present = new Set(argv.slice(1));
  const given = {};
  const texts = [];
  for (let i = 1; i < argv.length; i++) {
    const s = argv[i];
    const option = findOption(s, present);
    if (option) {
      const takes = option.commands;
      if (!takes.includes(command))
        fail(`${s} goes with the ${either(takes, ' and ')} command${takes.length > 1 ? 's' : ''}`);
      const next = () => (i + 1 < argv.length ? argv[++i] : fail(`${s} needs a value`));
      set(given, option.sets, readValue(option, s, next), option.repeat);
      for (const [path, value] of Object.entries(option.also ?? {})) set(given, path, value, false);
    } else if (s === '--') {
      texts.push(...argv.slice(i + 1));
      break;
    } else if (s.length > 1 && s[0] === '-' && texts.length === 0) fail(`unknown option ${s}`);
    else texts.push(s);
  }
  checkRules(command, given);
  return { command, given, texts };
}

/** The usage text, one line per entry of the table's "usage". */
export function usage() {
  return table()
    .usage.map((line) => `${line}\n`)
    .join('');
}

/** What `heed bench` times: {sentences, modes: [{name, beam, batched, shortlist, threads}]}. */
export function benchSet() {
  return table().bench;
}
