#!/usr/bin/env node
// npx heed: the `heed` command line on the WebAssembly engine in Node — translate, info, bench,
// convert — with build/heed's options (one table, src/cli/cli.json), output, messages and exit
// codes (0 done, 1 a text, the model or a file failed, 2 a bad command line or option). It
// follows src/cli/main.cpp function by function and calls the engine's Embind objects directly
// (web/lib/engine.js), so the engine's own messages reach the user unchanged. Not the library's
// typed API (web/lib/heed.js); nothing here is imported by it.
import { getCore, growPool, locateModel, unwrap } from '../lib/engine.js';
import { isPackageFile } from '../lib/common.js';
import { UsageError, benchSet, parseArgs, usage } from './args.mjs';
import { AttentionFile, CliError, LineReader, err, out, readFile, readModelFile } from './io.mjs';
import { Real, dump, parse } from './json.mjs';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// ---- the records of --attention (main.cpp's *_json) --------------------------------------

const reals = (xs) => Float64Array.from(xs);

/** The attention surgery applied, as the trace records it. */
function interventionsJson(iv) {
  return {
    temperature: new Real(iv.temperature),
    window: iv.window,
    noPositions: iv.noPositions,
    ablate: iv.ablate.map(({ block, layer, head, mean }) => ({ block, layer, head, mean })),
    sparse: { ...iv.sparse },
    linear: { ...iv.linear },
  };
}

const costsJson = (costs) =>
  costs.map((c) => ({
    block: c.block,
    layer: c.layer,
    macs: new Real(c.macs),
    stateBytes: new Real(c.stateBytes),
  }));

function translationJson(source, t) {
  const j = {
    source,
    text: t.text,
    sourceTokens: t.sourceTokens,
    targetTokens: t.targetTokens,
    sourceIds: t.sourceIds,
    targetIds: t.targetIds,
    tokenProbs: reals(t.tokenProbs),
    score: new Real(t.score),
  };
  if (t.attention) {
    const a = t.attention;
    const tensor = ({ shape, data }) => ({ shape, data });
    j.attention = {
      encoderSelf: tensor(a.encoderSelf),
      decoderSelf: tensor(a.decoderSelf),
      cross: tensor(a.cross),
      steps: a.steps.map((s) => ({
        token: s.id,
        prob: new Real(s.prob),
        top: s.top.map((c) => ({ id: c.id, piece: c.piece, prob: new Real(c.prob) })),
      })),
    };
  }
  return j;
}

// ---- translate -----------------------------------------------------------------------------

/** A message for the user (heed::Error natively): the engine's BAD_INPUT/BAD_MODEL, ours. */
const isUserError = (e) =>
  e instanceof CliError || e instanceof UsageError || ['BAD_INPUT', 'BAD_MODEL'].includes(e?.code);

/** Says on stderr when the model caps --max-length (its positions end there). */
function noteCaps(run) {
  const positions = JSON.parse(run.info.config).max_positions;
  if (run.options.maxLength > positions)
    err(
      `heed: note: --max-length ${run.options.maxLength} is capped at ${positions}, ` +
        "the model's max_positions\n",
    );
}

/**
 * Translates one input (`text`: its bytes) as main.cpp's translate_one: the joined translation
 * on one line, notes and costs on stderr, each sentence appended to the attention file. False
 * when it was refused (the line stays empty, the error goes to stderr).
 */
function translateOne(run, text, where, attention) {
  try {
    const [r] = unwrap(run.handle.translateTexts([text], run.engineOptions, null));
    if (r.error) throw new CliError(r.error.message);
    const n = r.sentences.length;
    const within = (i) => (n === 1 ? where : `${where}, sentence ${i + 1} of ${n}`);
    let line = r.text.replace(/[\n\r\v\f]/g, ' '); // one line per input
    if (run.args.given.ids)
      line += r.sentences
        .flatMap((s) => s.targetIds)
        .map((id, k) => (k === 0 ? '\t' : ' ') + id)
        .join('');
    out(`${line}\n`);
    r.sentences.forEach((done, i) => {
      if (done.truncated)
        err(
          `heed: note: ${within(i)}: decoding stopped at the length limit (` +
            `${done.targetIds.length} pieces) before </s>; the translation may be cut ` +
            '(see --max-length)\n',
        );
      if (run.args.given.costs) {
        const rows = done.costs.map(
          (c) => `\n  ${c.block} ${c.layer}: ${c.macs.toFixed(0)}, ${c.stateBytes.toFixed(0)}`,
        );
        err(`costs of ${within(i)} (block layer: multiply-adds, state bytes):${rows.join('')}\n`);
      }
      if (!attention) return;
      const j = translationJson(n === 1 ? text.toString('utf8') : done.source, done);
      j.interventions = interventionsJson(run.options.interventions);
      j.costs = costsJson(done.costs);
      if (n > 1) {
        j.sentence = i;
        j.sentences = n;
      }
      attention.add(dump(j));
    });
    return true;
  } catch (e) {
    if (!isUserError(e)) throw e;
    out('\n'); // why: keep output lines aligned with input lines
    err(`heed: error: ${e.message.startsWith(where) ? '' : `${where}: `}${e.message}\n`);
    return false;
  }
}

/** The TEXT arguments, or stdin read and translated line by line as it arrives. */
function runTranslate(run) {
  noteCaps(run);
  const path = run.args.given.attentionFile;
  const attention = path ? new AttentionFile(path) : null;
  let failures = 0;
  run.args.texts.forEach((text, i) => {
    failures += !translateOne(run, Buffer.from(text, 'utf8'), `text ${i + 1}`, attention);
  });
  if (run.args.texts.length === 0) {
    const limit = run.core.limits().textBytes;
    const lines = new LineReader(0, limit);
    for (let n = 1; ; n++) {
      const got = lines.next();
      if (!got) break;
      const where = `line ${n}`;
      if (got.tooLong) {
        failures++;
        out('\n');
        err(`heed: error: ${where}: text is too long (more than ${limit} bytes)\n`);
        continue;
      }
      failures += !translateOne(run, got.line, where, attention);
    }
  }
  attention?.close();
  return failures ? 1 : 0;
}

// ---- info, bench ---------------------------------------------------------------------------

function runInfo({ info }) {
  out(`directions: ${info.directions.join(', ') || '(not named by the model)'}\n`);
  const j = {
    directions: info.directions,
    config: parse(info.config),
    parameters: info.parameters,
    weight_bytes: info.weightBytes,
    compute: info.compute,
    shortlists: info.shortlists,
    metadata: parse(info.metadata),
  };
  out(`${dump(j, 2)}\n`);
  return 0;
}

async function runBench(run) {
  const { sentences: texts, modes } = benchSet();
  const sentences = texts.map((s) => Buffer.from(s, 'utf8'));
  const words = texts.reduce((sum, s) => sum + s.split(/\s+/).filter(Boolean).length, 0);
  const defaults = run.core.defaultOptions();
  const hasShortlist = !run.handle.translateTexts([], { ...defaults, shortlist: true }, null).code;
  for (const { name, beam, batched, shortlist, threads } of modes) {
    if (shortlist && !hasShortlist) continue;
    // why: more than one thread is the pthreads build's (web/lib/mt), the model loaded there too
    const handle =
      threads > 1 ? loadHandle(await threadedCore(threads), run.bytes, run.int8) : run.handle;
    const o = { ...defaults, beam, shortlist, threads, split: false };
    const translate = (batch) => unwrap(handle.translateTexts(batch, o, null));
    const once = () => (batched ? translate(sentences) : sentences.forEach((s) => translate([s])));
    once(); // warm-up
    let reps = 0,
      secs = 0;
    const t0 = performance.now();
    do {
      once();
      ++reps;
      secs = (performance.now() - t0) / 1000;
    } while (secs < 2);
    const n = reps * sentences.length;
    out(
      `${name.padEnd(34)} ${(n / secs).toFixed(1).padStart(8)} sentences/s ` +
        `${((reps * words) / secs).toFixed(1).padStart(9)} words/s  ` +
        `(${sentences.length} sentences, ${words} words, x${reps})\n`,
    );
  }
  return 0;
}

// ---- models ----------------------------------------------------------------------------------

/** The pthreads engine with a pool for `threads` (web/lib/engine.js, as loadTranslator). */
async function threadedCore(threads) {
  const core = await getCore(undefined, true);
  await growPool(core, threads - 1);
  return core;
}

function loadHandle(core, bytes, int8) {
  const handle = new core.Translator();
  try {
    unwrap(handle.load(bytes, int8));
    return handle;
  } catch (e) {
    handle.delete();
    throw e;
  }
}

/**
 * `-m MODEL`'s bytes. A path that names no file but reads as an installed package's file
 * ('heed-models/multi.heed') is that file, as loadTranslator finds it; else the native messages.
 */
async function modelFile(path, limit) {
  if (!existsSync(path) && isPackageFile(path)) {
    const url = await locateModel(path, '-m').catch(() => null);
    if (url) return readModelFile(fileURLToPath(url), limit);
  }
  return readModelFile(path, limit);
}

/** The --marian bundle as a Heed model file, with the summary line build/heed prints. */
function heedFileOfMarian(core, g) {
  const limit = core.limits().modelBytes;
  const bundle = {
    model: readFile(g.marian, limit, 'Marian model'),
    vocabs: (g.vocabs ?? []).map((v) => readFile(v, limit, 'vocabulary')),
    shortlist: g.marianShortlist ? readFile(g.marianShortlist, limit, 'shortlist') : null,
    source: g.from || 'und',
    target: g.options?.to || 'und',
  };
  const file = unwrap(core.marianToHeed(bundle));
  // why: the conversion's summary is in the file's metadata ("heed.marian", models/FORMAT.md)
  const size = Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + size)));
  const s = JSON.parse(header.__metadata__['heed.marian']);
  const summary =
    `heed: Marian model ${g.marian}: ${s.weights} weights, ` +
    `${s.decoder === 'ssru' ? 'SSRU decoder' : 'self-attention decoder'}` +
    `${s.shortlist ? ', lexical shortlist' : ''}\n`;
  return { file, summary };
}

/** `heed convert`: written whole to a temporary name, then renamed over `path`. */
function writeConverted(file, path) {
  const tmp = `${path}.part`;
  try {
    writeFileSync(tmp, file);
  } catch {
    throw new CliError(`cannot write '${tmp}'`);
  }
  try {
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
    throw new CliError(`cannot write '${path}'`);
  }
  out(`wrote ${path} (${file.length} bytes)\n`);
  return 0;
}

/** The engine's TranslateOptions: its defaults under the table's options.* (public names). */
function translateOptions(core, given) {
  const merge = (base, over) => {
    const o = { ...base };
    for (const [k, v] of Object.entries(over ?? {}))
      o[k] = v?.constructor === Object && base[k]?.constructor === Object ? merge(base[k], v) : v;
    return o;
  };
  return merge(core.defaultOptions(), given.options);
}

/** The options with the engine's enums in place of block names. */
const withEnums = (core, o) => ({
  ...o,
  interventions: {
    ...o.interventions,
    ablate: o.interventions.ablate.map((a) => ({ ...a, block: core.AttentionBlock[a.block] })),
  },
});

// ---- main ----------------------------------------------------------------------------------

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`heed: ${e.message}\n${usage()}`);
    return 2;
  }
  const g = args.given;
  const int8 = g.compute !== 'f32';
  let core, options, bytes, handle, marian;
  try {
    core = await getCore();
    options = translateOptions(core, g);
    const threads = options.threads;
    if (threads > 1 && threads <= core.limits().threads) core = await threadedCore(threads);
    if (g.marian) {
      marian = heedFileOfMarian(core, g);
      if (args.command === 'convert') {
        err(marian.summary);
        return writeConverted(marian.file, g.out);
      }
      bytes = marian.file;
    } else bytes = await modelFile(g.model, core.limits().modelBytes);
    try {
      handle = loadHandle(core, bytes, int8);
    } catch (e) {
      if (marian) err(marian.summary);
      throw e;
    }
  } catch (e) {
    if (!isUserError(e) && !['LOAD_FAILED', 'NO_SIMD'].includes(e?.code)) throw e;
    err(`heed: error: ${e.message}\n`);
    return 1;
  }
  // why: the engine checks options with a model at hand: first alone (check_options, which
  // build/heed calls before loading: usage, exit 2), then against the model (exit 2)
  const engineOptions = withEnums(core, options);
  const alone = {
    ...engineOptions,
    to: '',
    shortlist: false,
    interventions: { ...engineOptions.interventions, ablate: [] },
    forcedPrefix:
      engineOptions.forcedPrefix.length > core.limits().maxLength ? engineOptions.forcedPrefix : [],
  };
  for (const [opts, withUsage] of [
    [alone, true],
    [engineOptions, false],
  ]) {
    const checked = handle.translateTexts([], opts, null);
    if (checked.code) {
      err(`heed: ${checked.message}\n${withUsage ? usage() : ''}`);
      return 2;
    }
    if (withUsage && marian) err(marian.summary);
  }
  const run = {
    args,
    core,
    handle,
    options,
    engineOptions,
    bytes,
    int8,
    info: unwrap(handle.info()),
  };
  try {
    if (args.command === 'info') return runInfo(run);
    if (args.command === 'bench') return await runBench(run);
    return runTranslate(run);
  } catch (e) {
    err(`heed: error: ${e.message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    err(`heed: error: ${e?.message ?? e}\n`);
    process.exit(1);
  },
);
