#!/usr/bin/env node
// Heed against onnxruntime-web running THE SAME MODEL (the comparison /work/shared/ANCHORS.md
// asks for), in Node and in headless Chromium. Not a test: it prints, and exits non-zero only
// when the ONNX graphs do not match the model (wrong numerics, or a model file changed since export).
//
//   npm install --prefix bench/ort                      # once: onnxruntime-web, pinned
//   /usr/bin/python3 -m bench.ort.export_onnx           # once per model: writes bench/ort/onnx/
//   bash scripts/build-wasm.sh --bench                  # for the GEMM part: the bench module
//   node bench/ort/bench.mjs [--onnx DIR] [--rounds N] [--skip-gemm] [--node-only | --browser-only] [--json]
//   (--json: the figures also as one last line "JSON {...}", read by npm run bench)
//
// Both engines are single-threaded WASM with SIMD (ORT: the wasm backend, numThreads = 1), each
// in two computes, compared like with like: Heed int8 (the file's int8 weights, the default)
// against ORT's int8 graphs (dynamic quantisation: DynamicQuantizeLinear + MatMulInteger on the
// same int8 weights and scales), Heed f32 (loadTranslator({ compute: 'f32' })) against ORT's
// float32 graphs. Every table says which compute each row is. What is compared, and how
// (numerics against PyTorch, greedy agreement, words/s), is compare.mjs, the same code in both
// runtimes (page.html hosts the Chromium run). Then, in Node only:
// 3. GEMM: Heed's linear layer (LinearBench: y = x·Wᵀ + b, packed W; f32, and int8 weights with
//    int16 activations) against an ORT graph of one product with a constant W (f32: MatMul;
//    int8: DynamicQuantizeLinear + MatMulInteger + scales), GFLOP/s, on the decode-step shapes
//    1×256×8000 and 1×256×1024 and the two reference shapes the anchors quote, in alternating
//    trials.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { loadTranslator } from '../../web/lib/heed.js';
import { loadHeedBench } from '../heed_bench_module.mjs';
import { inBenchPage } from '../serve_repo.mjs';
import { SENTENCES, WORDS } from '../sentences.mjs';
import { compareOrt } from './compare.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const ONNX = path.resolve(value('--onnx', path.join(HERE, 'onnx')));
const ROUNDS = Number(value('--rounds', '7'));
const SKIP_GEMM = args.includes('--skip-gemm');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

// ---- GEMM ----

/** Seconds per call of `call` over `reps` calls (awaited: ORT's run() is async). */
async function perCall(call, reps) {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await call();
  return (performance.now() - t0) / 1000 / reps;
}

async function warm(call, ms) {
  const until = performance.now() + ms;
  while (performance.now() < until) await call();
}

// why: the machine is shared (other jobs hold the cores), so single timings swing by 2-4×;
// the engines are timed in alternating trials and compared trial by trial
const GEMM_TRIALS = 7;

async function gemm(manifest, sessionOptions) {
  const core = await loadHeedBench(ROOT);
  const shapes = [
    { what: 'decode step logits', M: 1, K: 256, N: 8000 },
    { what: 'decode step ffn up', M: 1, K: 256, N: 1024 },
    { what: 'reference (anchors)', M: 64, K: 256, N: 1024 },
    { what: 'reference (anchors)', M: 256, K: 256, N: 256 },
  ];
  const add = await ort.InferenceSession.create(
    path.join(ONNX, manifest.graphs.add),
    sessionOptions,
  );
  const addFeeds = { x: new ort.Tensor('float32', new Float32Array(256), [1, 256]) };
  const addRun = () => add.run(addFeeds);
  await warm(addRun, 300);
  const fixed = [];
  for (let t = 0; t < GEMM_TRIALS; t++) fixed.push(await perCall(addRun, 1000));
  await add.release();
  const rows = [];
  for (const s of shapes) {
    const m = manifest.matmuls.find((x) => x.K === s.K && x.N === s.N);
    // like with like: LinearBench's kernel 0 (f32) against MatMul, kernel 1 (int8 weights,
    // int16 activations) against the dynamically quantised product
    for (const [compute, kernel, file] of [
      ['int8', 1, m.int8_file],
      ['f32', 0, m.file],
    ]) {
      const flops = 2 * s.M * s.K * s.N;
      const reps = Math.max(1, Math.round((0.1 * 5e9) / flops));
      // Heed: the loop inside WASM (run(reps)), as scripts/bench.mjs times it, and one JS -> WASM
      // call per product (run(1)), as ORT is called
      const lb = new core.LinearBench(s.M, s.K, s.N, kernel);
      const heedLoop = () => {
        lb.run(reps);
      };
      const heedCall = () => lb.run(1);
      const sess = await ort.InferenceSession.create(path.join(ONNX, file), sessionOptions);
      const x = new Float32Array(s.M * s.K).map((_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
      const feeds = { x: new ort.Tensor('float32', x, [s.M, s.K]) };
      const ortRun = () => sess.run(feeds);
      // why: V8 tiers a wasm function up between calls, never inside a running loop
      await warm(heedCall, 300);
      await warm(ortRun, 300);
      const t = { loop: [], call: [], ort: [] };
      for (let trial = 0; trial < GEMM_TRIALS; trial++) {
        t.loop.push((await perCall(heedLoop, 1)) / reps);
        t.call.push(await perCall(heedCall, reps));
        t.ort.push(await perCall(ortRun, reps));
      }
      lb.delete();
      await sess.release();
      const g = (sec) => flops / sec / 1e9;
      rows.push({
        ...s,
        compute,
        heedLoop: g(Math.min(...t.loop)),
        heedCall: g(Math.min(...t.call)),
        ort: g(Math.min(...t.ort)),
        ratio: median(t.ort.map((o, i) => o / t.call[i])),
      });
    }
  }
  return { rows, fixedUs: median(fixed) * 1e6, fixedBestUs: Math.min(...fixed) * 1e6 };
}

// ---- the two runtimes ----

/** The export's manifest and reference, checked against the model file. */
async function exportFiles() {
  const manifestPath = path.join(ONNX, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new Error(
      `${path.relative(ROOT, manifestPath)} is missing: run ` +
        '/usr/bin/python3 -m bench.ort.export_onnx first',
    );
  }
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  if (!manifest.graphs_int8) {
    throw new Error(
      `${path.relative(ROOT, manifestPath)} has no int8 graphs (an older export): run ` +
        '/usr/bin/python3 -m bench.ort.export_onnx again',
    );
  }
  const model = new Uint8Array(await readFile(path.join(ROOT, manifest.model)));
  const sha = createHash('sha256').update(model).digest('hex');
  if (sha !== manifest.sha256) {
    throw new Error(
      `${manifest.model} changed since the ONNX export (sha256 ${sha.slice(0, 12)} ` +
        `!= ${manifest.sha256.slice(0, 12)}): run /usr/bin/python3 -m bench.ort.export_onnx again`,
    );
  }
  const reference = JSON.parse(await readFile(path.join(ONNX, 'reference.json'), 'utf8'));
  return { manifest, model, sha, reference };
}

async function inNode({ manifest, model, reference }) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  return compareOrt({
    ort,
    loadTranslator,
    graph: async (file) => new Uint8Array(await readFile(path.join(ONNX, file))),
    manifest,
    reference,
    model,
    sentences: SENTENCES,
    rounds: ROUNDS,
  });
}

async function inChromium({ manifest }) {
  const extra = {
    '/model.heed': path.resolve(ROOT, manifest.model),
    '/reference.json': path.join(ONNX, 'reference.json'),
  };
  return inBenchPage('/bench/ort/page.html', extra, async (page) => {
    const version = await page.evaluate(() => navigator.userAgent.match(/Chrom\w+\/[\d.]+/)?.[0]);
    const result = await page.evaluate((a) => window.runComparison(a), {
      onnx: `/${path.relative(ROOT, ONNX)}/`,
      manifest,
      sentences: SENTENCES,
      rounds: ROUNDS,
    });
    return { ...result, version };
  });
}

async function main() {
  const files = await exportFiles();
  const { manifest, sha } = files;
  const cfg = manifest.config;
  const loadAtStart = load();
  console.log(
    `model ${manifest.model} (${manifest.name}; sha256 ${sha.slice(0, 12)}); ` +
      `${(manifest.parameters / 1e6).toFixed(2)} M params; d ${cfg.d_model}, heads ${cfg.heads}, ` +
      `layers ${cfg.encoder_layers}+${cfg.decoder_layers}, vocab ${cfg.vocab_size}`,
  );
  console.log(
    `onnxruntime-web ${ort.env.versions.web} (wasm backend, numThreads 1, SIMD); ONNX opset ` +
      `${manifest.opset} from torch ${manifest.torch}; Heed web/lib/heed.js`,
  );
  console.log(
    `computes compared like with like: int8 = Heed's int8 weights (int16 activations per row) vs ` +
      `ORT's dynamic quantisation of the same int8 weights (uint8 activations per tensor); ` +
      `f32 = Heed compute 'f32' vs ORT's float32 graphs`,
  );
  console.log(`${SENTENCES.length} sentences, ${WORDS} source words; load average ${loadAtStart}`);
  const results = {};
  const runtimes = [];
  if (!args.includes('--node-only')) runtimes.push(['chromium', inChromium]);
  if (!args.includes('--browser-only')) runtimes.push(['node', inNode]);
  for (const [name, run] of runtimes) {
    const before = load();
    let r;
    try {
      r = results[name] = await run(files);
    } catch (e) {
      // why: Chromium may be missing (apt install chromium); the Node run still stands
      if (name === 'node') throw e;
      console.log(`\n== Chromium: not run (${e.message.split('\n')[0]})`);
      continue;
    }
    const label = name === 'node' ? `Node ${process.version}` : `Chromium (${r.version})`;
    console.log(`\n== ${label}; load average ${before} at its start, ${load()} at its end`);
    for (const line of r.lines) console.log(line);
    r.load = { start: before, end: load() };
  }
  if (args.includes('--json'))
    console.log(
      'JSON ' +
        JSON.stringify(
          Object.fromEntries(
            Object.entries(results).map(([k, r]) => [
              k,
              {
                load: r.load,
                rounds: ROUNDS,
                numerics: r.numerics,
                agreement: r.agreement,
                rows: r.rows,
              },
            ]),
          ),
        ),
    );

  // 3. GEMM (Node only: the bench module is loaded from the build folder)
  if (SKIP_GEMM || !results.node) return;
  const g = await gemm(manifest, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  console.log(
    `\nGEMM, GFLOP/s (best of ${GEMM_TRIALS} alternating trials; load average ${load()}). ` +
      `Heed: LinearBench y = x·Wᵀ + b (packed W; int8: int8 weights, int16 activations), ` +
      `the loop inside WASM, and one JS call per product; ORT: a graph of one product with a ` +
      `constant W (f32: MatMul; int8: DynamicQuantizeLinear + MatMulInteger + scales), ` +
      `one session.run() per product`,
  );
  console.log(
    `${'shape M×K×N'.padEnd(14)} ${'compute'.padEnd(8)}${'what'.padEnd(20)} ` +
      `${'Heed loop'.padStart(9)} ${'Heed call'.padStart(9)} ${'ORT run'.padStart(8)}  ` +
      `${'Heed call / ORT run (median of trials)'}`,
  );
  for (const r of g.rows) {
    console.log(
      `${`${r.M}×${r.K}×${r.N}`.padEnd(14)} ${r.compute.padEnd(8)}${r.what.padEnd(20)} ` +
        `${r.heedLoop.toFixed(2).padStart(9)} ${r.heedCall.toFixed(2).padStart(9)} ` +
        `${r.ort.toFixed(2).padStart(8)}  ${r.ratio.toFixed(2)}×`,
    );
  }
  console.log(
    `(ORT's fixed cost of one session.run(), an x + 1 graph on 256 floats: ` +
      `${g.fixedUs.toFixed(1)} µs median, ${g.fixedBestUs.toFixed(1)} µs best)`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
