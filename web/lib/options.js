// translate()'s engine options checked against the engine's defaults and limits() (bindings.cpp
// value_object), each wrong option named as the caller wrote it, and the interventions (attention
// surgery) completed. Internal; nothing runs at import. Not the JS-only options (common.js).

import { BLOCKS, badInput, checkObject, describe } from './common.js';

/** `value` if it is an integer in lo..hi, else BAD_INPUT naming options.`name`. */
export function checkInt(value, name, lo, hi) {
  if (!Number.isInteger(value) || value < lo || value > hi)
    throw badInput(`options.${name} must be an integer in ${lo}..${hi}, got ${describe(value)}`);
  return value;
}

/**
 * The engine's TranslateOptions from the caller's, under the same names (bindings.cpp
 * value_object): defaults and limits come from the C++ definitions, checked here once so that
 * a wrong option is named as the caller wrote it.
 */
export function engineOptions(options, { defaults, limits, blocks, vocab }) {
  for (const key of Object.keys(options))
    if (!(key in defaults))
      throw badInput(
        `unknown option '${key}' (known: ${Object.keys(defaults).join(', ')}, ` + 'onStep, signal)',
      );
  const o = { ...defaults };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) o[key] = value;
  checkInt(o.beam, 'beam', 1, limits.beam);
  if (options.maxLength !== undefined) checkInt(o.maxLength, 'maxLength', 1, limits.maxLength);
  checkInt(o.topK, 'topK', 0, limits.topK);
  const p = o.lengthPenalty;
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > limits.lengthPenalty)
    throw badInput(
      `options.lengthPenalty must be a number in 0..${limits.lengthPenalty}, ` +
        `got ${describe(p)}`,
    );
  if (typeof o.attention !== 'boolean')
    throw badInput(`options.attention must be a boolean, got ${describe(o.attention)}`);
  const prefix = o.forcedPrefix;
  if (!Array.isArray(prefix) || prefix.length > limits.maxLength)
    throw badInput(
      `options.forcedPrefix must be an array of at most ${limits.maxLength} target ids ` +
        `(non-negative integers), got ${describe(prefix)}`,
    );
  // why: Embind converts each id to a 32-bit int (2**31 wrapped to -2147483648) and reads a
  // hole as undefined; every id is checked here against the model's vocabulary instead
  denseArray(prefix, 'options.forcedPrefix').forEach((id, i) => {
    if (!Number.isSafeInteger(id) || id < 0 || id >= vocab)
      throw badInput(
        `options.forcedPrefix[${i}] must be a target id of this model (an integer in ` +
          `0..${vocab - 1}), got ${describe(id)}`,
      );
  });
  checkInt(o.threads, 'threads', 1, defaults.threads);
  if (typeof o.shortlist !== 'boolean')
    throw badInput(`options.shortlist must be a boolean, got ${describe(o.shortlist)}`);
  if (typeof o.copyGuard !== 'boolean')
    throw badInput(`options.copyGuard must be a boolean, got ${describe(o.copyGuard)}`);
  if (typeof o.split !== 'boolean')
    throw badInput(`options.split must be a boolean, got ${describe(o.split)}`);
  // why: a language code is short; a megabyte of text is not one, and is not copied into WASM
  if (typeof o.to !== 'string' || !/^([a-z]{1,8})?$/.test(o.to))
    throw badInput(
      `options.to must be a language code string (1 to 8 letters a-z, e.g. 'de'; '' for the ` +
        `model's first direction), got ${describe(o.to)}` +
        (typeof o.to === 'string' && o.to.length > 40 ? ` (${o.to.length} characters)` : ''),
    );
  o.surgery = checkInterventions(options.interventions ?? {}, defaults.interventions, limits);
  o.interventions = { ...o.surgery, ablate: o.surgery.ablate.map((a) => ({ ...a })) };
  for (const a of o.interventions.ablate) a.block = blocks[a.block];
  return o;
}

/** The elements of `array`, refusing a hole (map and every skip holes; Embind does not). */
function denseArray(array, name) {
  for (let i = 0; i < array.length; i++)
    if (!Object.prototype.hasOwnProperty.call(array, i))
      throw badInput(`${name}[${i}] is a hole: sparse arrays are not accepted`);
  return array;
}

const INTERVENTIONS = ['temperature', 'window', 'noPositions', 'ablate', 'sparse', 'linear'];
const SPARSE = ['enabled', 'randomBlocks', 'block', 'seed'];
const LINEAR = ['kind', 'features', 'seed'];
const LINEAR_KINDS = ['none', 'favor', 'elu'];

/**
 * options.interventions (attention surgery) completed with the engine's defaults, in the
 * public form (block names); the engine checks layers and heads against the model.
 */
function checkInterventions(given, defaults, limits) {
  checkObject(given, 'options.interventions');
  for (const key of Object.keys(given))
    if (!INTERVENTIONS.includes(key))
      throw badInput(`unknown option 'interventions.${key}' (known: ${INTERVENTIONS.join(', ')})`);
  const iv = { ...defaults, ...given, ablate: given.ablate ?? [] };
  checkObject(iv.sparse, 'options.interventions.sparse');
  for (const key of Object.keys(iv.sparse))
    if (!SPARSE.includes(key))
      throw badInput(`unknown option 'interventions.sparse.${key}' (known: ${SPARSE.join(', ')})`);
  iv.sparse = { ...defaults.sparse, ...iv.sparse };
  if (typeof iv.sparse.enabled !== 'boolean')
    throw badInput(
      `options.interventions.sparse.enabled must be a boolean, got ${describe(iv.sparse.enabled)}`,
    );
  checkInt(iv.sparse.randomBlocks, 'interventions.sparse.randomBlocks', 0, limits.randomBlocks);
  checkInt(iv.sparse.block, 'interventions.sparse.block', 1, limits.sparseBlock);
  checkInt(iv.sparse.seed, 'interventions.sparse.seed', 0, limits.seed);
  checkObject(iv.linear, 'options.interventions.linear');
  for (const key of Object.keys(iv.linear))
    if (!LINEAR.includes(key))
      throw badInput(`unknown option 'interventions.linear.${key}' (known: ${LINEAR.join(', ')})`);
  iv.linear = { ...defaults.linear, ...iv.linear };
  if (!LINEAR_KINDS.includes(iv.linear.kind))
    throw badInput(
      `options.interventions.linear.kind must be one of ${LINEAR_KINDS.join(', ')}, ` +
        `got ${describe(iv.linear.kind)}`,
    );
  const features = iv.linear.features;
  if (!Number.isInteger(features) || features < 1 || features > limits.linearFeatures)
    throw badInput(
      `options.interventions.linear.features must be an integer in [1, ${limits.linearFeatures}], ` +
        `got ${describe(features)}`,
    );
  checkInt(iv.linear.seed, 'interventions.linear.seed', 0, limits.seed);
  const t = iv.temperature;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > limits.temperature)
    throw badInput(
      `options.interventions.temperature must be a number in (0, ${limits.temperature}], ` +
        `got ${describe(t)}`,
    );
  checkInt(iv.window, 'interventions.window', -1, limits.window);
  if (typeof iv.noPositions !== 'boolean')
    throw badInput(
      `options.interventions.noPositions must be a boolean, got ${describe(iv.noPositions)}`,
    );
  if (!Array.isArray(iv.ablate))
    throw badInput(
      `options.interventions.ablate must be an array of {block, layer, head, mean?}, ` +
        `got ${describe(iv.ablate)}`,
    );
  iv.ablate = denseArray(iv.ablate, 'options.interventions.ablate').map((a, i) => {
    const field = `interventions.ablate[${i}]`;
    checkObject(a, `options.${field}`);
    if (!BLOCKS.includes(a.block))
      throw badInput(
        `options.${field}.block must be one of ${BLOCKS.join(', ')}, got ${describe(a.block)}`,
      );
    checkInt(a.layer, `${field}.layer`, 0, limits.layers - 1);
    checkInt(a.head, `${field}.head`, 0, limits.heads - 1);
    if (a.mean !== undefined && typeof a.mean !== 'boolean')
      throw badInput(`options.${field}.mean must be a boolean, got ${describe(a.mean)}`);
    return { block: a.block, layer: a.layer, head: a.head, mean: a.mean ?? false };
  });
  return iv;
}
