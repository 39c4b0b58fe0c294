#!/usr/bin/env node
// `npm run bench`: translation speed of the WASM engine under Node beside the native CLI
// (`heed bench`) on the same model and sentences, and the GFLOP/s of the model's linear layers
// (y = x·Wᵀ + b, the GEMM the forward pass runs) under WASM, in V8's default tiering and with
// `--no-liftoff` (optimizing tier only) for the ceiling. Not a test: it prints, it asserts nothing.
//
//   node scripts/bench.mjs [--model PATH] [--seconds S] [--skip-native] [--skip-gemm]
//   (the GEMM table needs the bench-only module: bash scripts/build-wasm.sh --bench)
//   (internal) --gemm-json: print only the GEMM table as JSON (used for the --no-liftoff run)

import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHeedBench } from '../bench/heed_bench_module.mjs';
import { threadRounds } from '../bench/sentence_threads_rounds.mjs';
import { SENTENCES, WORDS } from '../bench/sentences.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};

const defaultModel = ['en-fr.heed', 'en-de.heed', 'tiny/tiny.heed']
  .map((m) => path.join(ROOT, 'models', m))
  .find((m) => existsSync(m));
const MODEL = path.resolve(value('--model', defaultModel));
const SECONDS = Number(value('--seconds', '2'));

const MODES = [
  { name: 'greedy, one sentence at a time', beam: 1, batched: false },
  { name: 'greedy, whole set as one batch', beam: 1, batched: true },
  { name: 'beam 4, one sentence at a time', beam: 4, batched: false },
  { name: 'greedy + shortlist, one at a time', beam: 1, batched: false, shortlist: true },
  { name: 'beam 4 + shortlist, one at a time', beam: 4, batched: false, shortlist: true },
  { name: 'greedy, whole set as one batch, 2 threads', beam: 1, batched: true, threads: 2 },
];

/** Runs `run` once to warm up, then repeatedly for at least `seconds`; -> runs per second. */
async function rate(run, seconds) {
  await run();
  let reps = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    await run();
    reps++;
    elapsed = (performance.now() - t0) / 1000;
  } while (elapsed < seconds);
  return reps / elapsed;
}

async function wasmTranslation() {
  const { loadTranslator } = await import('heed');
  const single = await loadTranslator({ model: MODEL });
  const threaded = await loadTranslator({ model: MODEL, threads: 2 });
  const rows = [];
  for (const m of MODES) {
    const t = m.threads ? threaded : single;
    if (m.shortlist && !t.info.shortlists.length) continue;
    const options = { beam: m.beam, ...(m.shortlist && { shortlist: true }) };
    const perSecond = await rate(async () => {
      if (m.batched) await t.translate(SENTENCES, options);
      else for (const s of SENTENCES) await t.translate(s, options);
    }, SECONDS);
    rows.push({ mode: m.name, sentences: perSecond * SENTENCES.length, words: perSecond * WORDS });
  }
  const config = single.info.config;
  single.dispose();
  threaded.dispose();
  return { rows, config };
}

/**
 * One long sentence (bench/long_sentence.txt) on 1 and 2 threads in the pthreads build, the
 * threads sharing each product (bench/sentence_threads.mjs has the full run and --browser).
 */
async function oneSentenceThreads() {
  const { loadTranslator } = await import('heed');
  const sentence = (await readFile(path.join(ROOT, 'bench', 'long_sentence.txt'), 'utf8')).trim();
  const t = await loadTranslator({ model: MODEL, threads: 2 });
  try {
    const to = t.info.directions[0]?.split('-')[1] ?? '';
    console.log(
      `\none ${sentence.split(/\s+/).length}-word sentence, int8, 2 threads against 1 ` +
        `(bench/sentence_threads_rounds.mjs, 7 rounds; load average ${loadAverage()}):`,
    );
    for (const line of await threadRounds(t, sentence, { to, rounds: 7 })) console.log(`  ${line}`);
  } finally {
    t.dispose();
  }
}

/**
 * The other engines on the same model and sentences, greedy, one sentence at a time, each run in
 * its own process with Heed beside it (bench/ort, bench/bergamot), like with like: Heed int8
 * against the other engine's int8, Heed f32 against its float32. Their words/s and Heed's speed
 * over theirs (the Heed of the same compute, alternating rounds of that run). Skipped, saying
 * why, when not installed.
 */
function others() {
  const ort = path.join(ROOT, 'bench', 'ort');
  console.log(
    `\n${pad('other engines, greedy, one sentence at a time', 62)} ${'w/s'.padStart(9)}` +
      `  Heed / it, same compute`,
  );
  if (
    !existsSync(path.join(ort, 'node_modules', 'onnxruntime-web')) ||
    !existsSync(path.join(ort, 'onnx', 'manifest.json'))
  ) {
    console.log(
      '  onnxruntime-web: not installed (npm install --prefix bench/ort; ' +
        '/usr/bin/python3 -m bench.ort.export_onnx)',
    );
  } else {
    try {
      const out = execFileSync(
        process.execPath,
        [path.join(ort, 'bench.mjs'), '--json', '--skip-gemm', '--rounds', '5'],
        { encoding: 'utf8', cwd: ROOT },
      );
      const results = JSON.parse(
        out
          .split('\n')
          .find((l) => l.startsWith('JSON '))
          .slice(5),
      );
      for (const [runtime, { load, rounds, rows, agreement }] of Object.entries(results)) {
        console.log(
          `  onnxruntime-web in ${runtime === 'node' ? 'Node' : 'Chromium'} (bench/ort/bench.mjs, ` +
            `${rounds} rounds; load average ${load.start} at its start, ${load.end} at its end):`,
        );
        for (const r of rows) {
          const same = r.heed
            ? ''
            : `, greedy ids = Heed's ${agreement[r.name]}/${SENTENCES.length}`;
          console.log(
            `  ${pad(`${r.compute}: ${r.name}`, 60)} ${num(r.wordsPerSecond)}  ` +
              `${r.heed ? '' : `${r.heedOverIt.toFixed(2)}×`}${same}`,
          );
        }
      }
    } catch (e) {
      console.log(`  onnxruntime-web: bench/ort/bench.mjs failed: ${e.message.split('\n')[0]}`);
    }
  }
  bergamot();
}

/**
 * Bergamot (Firefox's engine) beside Heed on models/en-fr-marian.heed — the model both can
 * compute (bench/bergamot/export_marian.py) — in Node, one sentence per call, greedy and beam 4,
 * float32 and int8. The Chromium run and the agreement check: node bench/bergamot/bench.mjs.
 */
function bergamot() {
  const dir = path.join(ROOT, 'bench', 'bergamot');
  if (
    !existsSync(path.join(dir, 'node_modules', '@browsermt', 'bergamot-translator')) ||
    !existsSync(path.join(dir, 'marian', 'manifest.json'))
  ) {
    console.log(
      '  Bergamot: not installed (npm install --prefix bench/bergamot; ' +
        '/usr/bin/python3 -m bench.bergamot.export_marian)',
    );
    return;
  }
  try {
    const loadBefore = loadAverage();
    const out = execFileSync(
      process.execPath,
      [path.join(dir, 'bench.mjs'), '--json', '--node-only', '--rounds', '5', '--agreement', '16'],
      { encoding: 'utf8', cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const { node } = JSON.parse(
      out
        .split('\n')
        .find((l) => l.startsWith('JSON '))
        .slice(5),
    );
    console.log(
      `  Bergamot (bench/bergamot/bench.mjs --node-only, 5 rounds; load average ${loadBefore} ` +
        `at its start, ${loadAverage()} at its end):`,
    );
    const model = 'en-fr-marian';
    for (const beam of [1, 4])
      for (const compute of ['int8', 'f32']) {
        const find = (engine) =>
          node.configs.find(
            (c) => c.engine === engine && c.compute === compute && c.beam === beam && !c.batch,
          );
        const h = find('heed');
        const b = find('bergamot');
        const what = `${beam === 1 ? 'greedy' : 'beam 4'}, ${model}`;
        console.log(
          `  ${pad(`${compute}: Heed ${compute}, ${what}`, 60)} ${num(h.wordsPerSecond)}`,
        );
        console.log(
          `  ${pad(`${compute}: Bergamot ${compute}, ${what}`, 60)} ${num(b.wordsPerSecond)}  ` +
            `${(h.wordsPerSecond / b.wordsPerSecond).toFixed(2)}×`,
        );
      }
  } catch (e) {
    console.log(`  Bergamot: bench/bergamot/bench.mjs failed: ${e.message.split('\n')[0]}`);
  }
}

/** Median ms from loadTranslator (model bytes in memory) to the first translation's result. */
async function firstTranslation(compute, rounds = 5) {
  const { loadTranslator } = await import('heed');
  const bytes = await readFile(MODEL);
  const times = [];
  let weightBytes = 0;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const t = await loadTranslator({ model: bytes, compute });
    await t.translate(SENTENCES[0]);
    times.push(performance.now() - t0);
    weightBytes = t.info.weightBytes;
    t.dispose();
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(rounds / 2)], weightBytes };
}

function nativeTranslation() {
  const cli = [
    process.env.HEED_CLI,
    path.join(ROOT, 'build-js', 'heed'),
    path.join(ROOT, 'build', 'heed'),
  ]
    .filter(Boolean)
    .find((p) => existsSync(p));
  if (!cli) return { error: 'native CLI not built (cmake --build build-js --target heed)' };
  const out = execFileSync(cli, ['bench', '-m', MODEL], { encoding: 'utf8' });
  const rows = [];
  for (const line of out.split('\n')) {
    const m = line.match(/^(.*?)\s+([\d.]+) sentences\/s\s+([\d.]+) words\/s/);
    if (m) rows.push({ mode: m[1].trim(), sentences: Number(m[2]), words: Number(m[3]) });
  }
  return { rows, cli: path.relative(ROOT, cli) };
}

/** The linear layers of one encoder/decoder layer and the output projection. */
function layerShapes(c) {
  const D = c.d_model,
    F = c.ffn_dim,
    V = c.vocab_size,
    S = 24;
  return [
    { what: 'encoder q/k/v/o', M: S, K: D, N: D },
    { what: 'encoder ffn up', M: S, K: D, N: F },
    { what: 'encoder ffn down', M: S, K: F, N: D },
    { what: 'decode step q/k/v/o', M: 1, K: D, N: D },
    { what: 'decode step ffn up', M: 1, K: D, N: F },
    { what: 'decode step ffn down', M: 1, K: F, N: D },
    { what: 'decode step logits', M: 1, K: D, N: V },
    // why: a shipped model's shortlist averages ~1,650 pieces per dev sentence
    { what: 'decode step logits, shortlist', M: 1, K: D, N: Math.min(V, 1664) },
    { what: 'beam 4 step ffn up', M: 4, K: D, N: F },
    { what: 'beam 4 step logits', M: 4, K: D, N: V },
    // why: the shapes the project's anchors quote for onnxruntime-web and the SIMD128 ceiling
    { what: 'reference 64x256x1024', M: 64, K: 256, N: 1024 },
    { what: 'reference 256x256x256', M: 256, K: 256, N: 256 },
    { what: 'reference decode 1x256x1024', M: 1, K: 256, N: 1024 },
  ];
}

/** LinearBench's kernels: f32 panels, int8 (int16 activations, int32 dots), int8 widened. */
const KERNELS = ['f32', 'int8', 'int8 widened'];

/** GFLOP/s of one shape with one kernel (index into KERNELS). */
function gflops(core, s, kernel) {
  const bench = new core.LinearBench(s.M, s.K, s.N, kernel);
  try {
    const flops = 2 * s.M * s.K * s.N;
    // why: V8 tiers a wasm function up between calls, never inside a running loop, so warm up
    // with many short calls before timing
    const perCall = Math.max(1, Math.round(2e6 / flops));
    const warmUntil = performance.now() + 300;
    while (performance.now() < warmUntil) bench.run(perCall);
    const reps = Math.max(1, Math.round((0.4 * 5e9) / flops));
    let best = Infinity;
    for (let trial = 0; trial < 3; trial++) {
      const t0 = performance.now();
      bench.run(reps);
      best = Math.min(best, (performance.now() - t0) / 1000);
    }
    return (flops * reps) / best / 1e9;
  } finally {
    bench.delete();
  }
}

async function gemm(config, kernels = [0]) {
  const core = await loadHeedBench(ROOT);
  return layerShapes(config).map((s) => ({
    ...s,
    gflops: gflops(core, s, 0),
    ...(kernels.length > 1 && { byKernel: kernels.map((k) => gflops(core, s, k)) }),
  }));
}

function loadAverage() {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
}
function pad(s, n) {
  return String(s).padEnd(n);
}
function num(x, digits = 1) {
  return x.toFixed(digits).padStart(9);
}

async function main() {
  if (flag('--gemm-json')) {
    const { loadTranslator } = await import('heed');
    const t = await loadTranslator({ model: MODEL });
    const config = t.info.config;
    t.dispose();
    process.stdout.write(JSON.stringify(await gemm(config)));
    return;
  }
  console.log(
    `model ${path.relative(ROOT, MODEL)}; ${SENTENCES.length} sentences, ${WORDS} words;` +
      ` node ${process.version}; load average ${loadAverage()}`,
  );
  const wasm = await wasmTranslation();
  const c = wasm.config;
  console.log(
    `d_model ${c.d_model}, heads ${c.heads}, ffn ${c.ffn_dim}, layers ` +
      `${c.encoder_layers}+${c.decoder_layers}, vocab ${c.vocab_size}\n`,
  );
  const nat = flag('--skip-native') ? { error: 'skipped' } : nativeTranslation();
  console.log(
    `${pad('translation, Heed int8', 34)} ${'WASM w/s'.padStart(9)} ${'native w/s'.padStart(11)}` +
      `  WASM/native`,
  );
  for (const row of wasm.rows) {
    const n = nat.rows?.find((r) => r.mode === row.mode);
    console.log(
      `${pad(row.mode, 34)} ${num(row.words)} ${
        n ? num(n.words).padStart(11) : 'n/a'.padStart(11)
      }  ${n ? (row.words / n.words).toFixed(2).padStart(11) : ''}`,
    );
  }
  if (nat.error) console.log(`(native: ${nat.error})`);
  else console.log(`(native: ${nat.cli} bench, same model and sentences)`);
  await oneSentenceThreads();
  others();
  const mb = (b) => (b / 1e6).toFixed(1);
  for (const compute of ['int8', 'f32']) {
    const f = await firstTranslation(compute);
    console.log(
      `load → first translation, ${compute} compute: ${f.ms.toFixed(0)} ms (median of 5); ` +
        `weights in memory ${mb(f.weightBytes)} MB (file ${mb(statSync(MODEL).size)} MB)`,
    );
  }
  if (flag('--skip-gemm')) return;

  const tiered = await gemm(c, [0, 1, 2]);
  let ceiling = null;
  try {
    ceiling = JSON.parse(
      execFileSync(
        process.execPath,
        ['--no-liftoff', fileURLToPath(import.meta.url), '--gemm-json', '--model', MODEL],
        { encoding: 'utf8', cwd: ROOT },
      ),
    );
  } catch (e) {
    console.log(`(--no-liftoff run failed: ${e.message})`);
  }
  console.log(
    `\n${pad('linear layer y = x·Wᵀ + b (WASM)', 34)} ${pad('M x K x N', 16)}` +
      ` ${'f32'.padStart(9)} ${'no-liftoff'.padStart(11)} ${'int8'.padStart(9)}` +
      ` ${'int8/f32'.padStart(9)} ${'widened'.padStart(9)}`,
  );
  tiered.forEach((r, i) => {
    const [, int8, widened] = r.byKernel;
    console.log(
      `${pad(r.what, 34)} ${pad(`${r.M} x ${r.K} x ${r.N}`, 16)} ${num(r.gflops, 2)}` +
        ` ${ceiling ? num(ceiling[i].gflops, 2).padStart(11) : ''.padStart(11)}` +
        ` ${num(int8, 2)} ${(int8 / r.gflops).toFixed(2).padStart(9)} ${num(widened, 2)}`,
    );
  });
  const full = tiered.find((r) => r.what === 'decode step logits');
  const short = tiered.find((r) => r.what === 'decode step logits, shortlist');
  const us = (r, gf) => (2 * r.M * r.K * r.N) / gf / 1e3;
  console.log(
    `decode step logits: f32 ${us(full, full.gflops).toFixed(1)} µs, int8 ` +
      `${us(full, full.byKernel[1]).toFixed(1)} µs, int8 + shortlist (${short.N} rows) ` +
      `${us(short, short.byKernel[1]).toFixed(1)} µs: ` +
      `${(us(full, full.gflops) / us(short, short.byKernel[1])).toFixed(1)}× the f32 speed`,
  );
  console.log(
    `(GFLOP/s count 2·M·K·N; int8: weights int8, activations rounded to int16, i32x4.dot_i16x8;` +
      ` widened: int8 weights converted to f32 in the loop; load average ${loadAverage()})`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
