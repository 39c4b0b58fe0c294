#!/usr/bin/env node
// Heed against onnxruntime-web running THE SAME MODEL in the same Node process (the comparison
// /work/shared/ANCHORS.md asks for). Not a test: it prints, and exits non-zero only when the
// ONNX graphs do not match the model (wrong numerics, or a model file changed since export).
//
//   npm install --prefix bench/ort                      # once: onnxruntime-web, pinned
//   /usr/bin/python3 bench/ort/export_onnx.py           # once per model: writes bench/ort/onnx/
//   node bench/ort/bench.mjs [--onnx DIR] [--rounds N] [--skip-gemm] [--json]
//   (--json: the greedy figures also as one last line "JSON {...}", read by npm run bench)
//
// Both engines are single-threaded WASM with SIMD (ORT: the wasm backend, numThreads = 1).
// 1. Numerics: ORT's graphs against PyTorch outputs saved by the export (reference.json).
// 2. Greedy decoding of the 16 sentences of `heed bench` (src/cli/main.cpp): Heed's npm API
//    (beam 1, one sentence per call) and two ORT loops on Heed's own source ids:
//    - "ORT, no cache": encoder once, then decoder.onnx on the whole prefix at every step
//      (an export without past_key_values has no KV cache: step t recomputes t positions);
//    - "ORT, KV cache": encoder_kv.onnx once (memory and cross-attention K/V), then
//      decoder_step.onnx on one token with the cached self-attention K/V.
//    Both stop as Heed does: at EOS or after 2·|source ids| + 10 tokens (capped by max_positions).
//    Agreement: ORT's greedy ids against Heed's targetIds, sentence by sentence.
//    Speed: after a warm-up, `--rounds` rounds; each round times one pass of every engine over
//    the sentences (the order rotates per round); words/s counts source words.
// 3. GEMM: Heed's linear layer (LinearBench: y = x·Wᵀ + b, packed W) against an ORT graph with
//    one MatMul (constant W), GFLOP/s, on the decode-step shapes 1×256×8000 and 1×256×1024 and
//    the two reference shapes the anchors quote, in alternating trials (the machine may be shared).

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { loadTranslator } from '../../web/lib/heed.js';
import { SENTENCES, WORDS } from '../sentences.mjs';

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
const maxAbsDiff = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
function argmax(x) {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}
/** top-1 minus top-2 logit: how close a step was to a tie */
function margin(x) {
  let a = -Infinity,
    b = -Infinity;
  for (const v of x) {
    if (v > a) {
      b = a;
      a = v;
    } else if (v > b) b = v;
  }
  return a - b;
}
const ids = (list) => new ort.Tensor('int64', BigInt64Array.from(list, BigInt), [1, list.length]);

// ---- ORT greedy decoders ----

class OrtNoCache {
  constructor(encoder, decoder, cfg) {
    Object.assign(this, { encoder, decoder, cfg });
  }
  name = 'ORT, no cache (prefix re-run)';
  async translate(src, maxLength, onLogits) {
    const { memory } = await this.encoder.run({ src: ids(src) });
    const out = [this.cfg.decoder_start_id];
    for (let t = 0; t < maxLength; t++) {
      const { logits } = await this.decoder.run({ tgt: ids(out), memory });
      const best = argmax(logits.data);
      if (onLogits) onLogits(t, logits.data);
      out.push(best);
      if (best === this.cfg.eos_id) break;
    }
    return out.slice(1);
  }
}

class OrtKvCache {
  constructor(encoderKv, step, cfg, kv) {
    Object.assign(this, { encoderKv, step, cfg, kv });
  }
  name = 'ORT, KV cache';
  async translate(src, maxLength, onLogits) {
    const cross = await this.encoderKv.run({ src: ids(src) });
    const feeds = {};
    for (const n of this.kv.cross) feeds[n] = cross[n];
    const empty = [1, this.kv.heads, 0, this.kv.head_dim];
    for (const n of this.kv.past) feeds[n] = new ort.Tensor('float32', new Float32Array(0), empty);
    const out = [];
    let token = this.cfg.decoder_start_id;
    for (let t = 0; t < maxLength; t++) {
      feeds.token = ids([token]);
      const r = await this.step.run(feeds);
      this.kv.past.forEach((n, i) => {
        feeds[n] = r[this.kv.present[i]];
      });
      token = argmax(r.logits.data);
      if (onLogits) onLogits(t, r.logits.data);
      out.push(token);
      if (token === this.cfg.eos_id) break;
    }
    return out;
  }
}

// ---- GEMM ----

async function loadHeedCore() {
  const { default: createHeedCore } = await import('../../web/lib/heed-core.mjs');
  const wasmBinary = await readFile(path.join(ROOT, 'web', 'lib', 'heed.wasm'));
  return createHeedCore({ wasmBinary });
}

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
  const core = await loadHeedCore();
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
    const flops = 2 * s.M * s.K * s.N;
    const reps = Math.max(1, Math.round((0.1 * 5e9) / flops));
    // Heed: the loop inside WASM (run(reps)), as scripts/bench.mjs times it, and one JS -> WASM
    // call per product (run(1)), as ORT is called
    const lb = new core.LinearBench(s.M, s.K, s.N);
    const heedLoop = () => {
      lb.run(reps);
    };
    const heedCall = () => lb.run(1);
    const m = manifest.matmuls.find((x) => x.K === s.K && x.N === s.N);
    const sess = await ort.InferenceSession.create(path.join(ONNX, m.file), sessionOptions);
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
      heedLoop: g(Math.min(...t.loop)),
      heedCall: g(Math.min(...t.call)),
      ort: g(Math.min(...t.ort)),
      ratio: median(t.ort.map((o, i) => o / t.call[i])),
    });
  }
  return { rows, fixedUs: median(fixed) * 1e6, fixedBestUs: Math.min(...fixed) * 1e6 };
}

// ---- main ----

async function main() {
  const manifestPath = path.join(ONNX, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new Error(
      `${path.relative(ROOT, manifestPath)} is missing: run ` +
        '/usr/bin/python3 bench/ort/export_onnx.py first',
    );
  }
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  const modelPath = path.join(ROOT, manifest.model);
  const modelBytes = await readFile(modelPath);
  const sha = createHash('sha256').update(modelBytes).digest('hex');
  if (sha !== manifest.sha256) {
    throw new Error(
      `${manifest.model} changed since the ONNX export (sha256 ${sha.slice(0, 12)} ` +
        `!= ${manifest.sha256.slice(0, 12)}): run /usr/bin/python3 bench/ort/export_onnx.py again`,
    );
  }
  const cfg = manifest.config;

  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  const sessionOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const session = (g) =>
    ort.InferenceSession.create(path.join(ONNX, manifest.graphs[g]), sessionOptions);
  const [encoder, decoder, encoderKv, step] = await Promise.all(
    ['encoder', 'decoder', 'encoder_kv', 'decoder_step'].map(session),
  );
  const heed = await loadTranslator({ model: new Uint8Array(modelBytes) });

  console.log(
    `model ${manifest.model} (${manifest.name}; sha256 ${sha.slice(0, 12)}); ` +
      `${(manifest.parameters / 1e6).toFixed(2)} M params; d ${cfg.d_model}, heads ${cfg.heads}, ` +
      `layers ${cfg.encoder_layers}+${cfg.decoder_layers}, vocab ${cfg.vocab_size}`,
  );
  console.log(
    `node ${process.version}; onnxruntime-web ${ort.env.versions.web} (wasm backend, ` +
      `numThreads ${ort.env.wasm.numThreads}, SIMD); ONNX opset ${manifest.opset} from torch ` +
      `${manifest.torch}; Heed web/lib/heed.js`,
  );
  console.log(`${SENTENCES.length} sentences, ${WORDS} source words\n`);

  // 1. numerics of the graphs against PyTorch
  const ref = JSON.parse(await readFile(path.join(ONNX, 'reference.json'), 'utf8'));
  const { memory } = await encoder.run({ src: ids(ref.src) });
  const { logits } = await decoder.run({ tgt: ids(ref.tgt), memory });
  const kvOrt = new OrtKvCache(encoderKv, step, cfg, manifest.kv);
  let stepLast = null;
  {
    const cross = await encoderKv.run({ src: ids(ref.src) });
    const feeds = {};
    for (const n of manifest.kv.cross) feeds[n] = cross[n];
    for (const n of manifest.kv.past) {
      feeds[n] = new ort.Tensor('float32', new Float32Array(0), [
        1,
        manifest.kv.heads,
        0,
        manifest.kv.head_dim,
      ]);
    }
    for (const tok of ref.tgt) {
      // teacher-forced over the reference prefix
      feeds.token = ids([tok]);
      const r = await step.run(feeds);
      manifest.kv.past.forEach((n, i) => {
        feeds[n] = r[manifest.kv.present[i]];
      });
      stepLast = r.logits.data;
    }
  }
  const num = {
    memory: maxAbsDiff(memory.data, ref.memory),
    decoder: maxAbsDiff(logits.data, ref.logits_last),
    step: maxAbsDiff(stepLast, ref.logits_last),
  };
  console.log(
    `ORT vs PyTorch, max |diff|: encoder memory ${num.memory.toExponential(2)}, ` +
      `decoder logits ${num.decoder.toExponential(2)}, decoder_step logits ` +
      `${num.step.toExponential(2)}`,
  );
  if (Math.max(num.memory, num.decoder, num.step) > 1e-2)
    throw new Error('ORT graphs disagree with PyTorch');

  // 2a. Heed's tokens and greedy ids; ORT's greedy ids on the same source ids
  const heedResults = [];
  for (const s of SENTENCES) heedResults.push(await heed.translate(s, { beam: 1 }));
  const maxLength = (src) => Math.min(2 * src.length + 10, cfg.max_positions);
  const noCache = new OrtNoCache(encoder, decoder, cfg);
  const ortEngines = [noCache, kvOrt];
  for (const e of ortEngines) {
    let same = 0;
    const notes = [];
    for (const [i, r] of heedResults.entries()) {
      const margins = [];
      const got = await e.translate(r.sourceIds, maxLength(r.sourceIds), (t, l) => {
        margins[t] = margin(l);
      });
      const want = r.targetIds;
      if (got.length === want.length && got.every((x, j) => x === want[j])) {
        same++;
        continue;
      }
      let j = 0;
      while (j < got.length && got[j] === want[j]) j++;
      notes.push(
        `  sentence ${i + 1}: first difference at step ${j} (ORT ${got[j]}, Heed ${want[j]}; ` +
          `ORT's top-2 logit margin there ${margins[j]?.toExponential(2)})`,
      );
    }
    console.log(`greedy ids, ${e.name} vs Heed: ${same}/${SENTENCES.length} sentences identical`);
    for (const n of notes) console.log(n);
  }
  const targetTokens = heedResults.reduce((n, r) => n + r.targetIds.length, 0);
  console.log(`(Heed: ${targetTokens} target tokens in all, EOS included)\n`);

  // 2b. speed
  const srcIds = heedResults.map((r) => r.sourceIds);
  const engines = [
    {
      name: 'Heed (npm API, beam 1, one sentence per call)',
      pass: async () => {
        for (const s of SENTENCES) await heed.translate(s, { beam: 1 });
      },
    },
    ...ortEngines.map((e) => ({
      name: e.name,
      pass: async () => {
        for (const src of srcIds) await e.translate(src, maxLength(src));
      },
    })),
  ];
  for (const e of engines) {
    await e.pass();
    await e.pass();
  } // warm-up
  const times = engines.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < engines.length; k++) {
      const i = (k + round) % engines.length;
      const t0 = performance.now();
      await engines[i].pass();
      times[i].push((performance.now() - t0) / 1000);
    }
  }
  const wps = times.map((ts) => ts.map((t) => WORDS / t));
  console.log(
    `greedy translation, ${ROUNDS} rounds after warm-up ` +
      `(words/s = source words / time of one pass)`,
  );
  console.log(
    `${'engine'.padEnd(48)} ${'median w/s'.padStart(10)} ${'best w/s'.padStart(9)}` +
      ` ${'Heed / it (median of rounds)'.padStart(29)}`,
  );
  engines.forEach((e, i) => {
    const ratios = times[i].map((t, r) => t / times[0][r]);
    console.log(
      `${e.name.padEnd(48)} ${median(wps[i]).toFixed(1).padStart(10)} ` +
        `${Math.max(...wps[i])
          .toFixed(1)
          .padStart(9)} ` +
        `${(i === 0 ? '' : `${median(ratios).toFixed(2)}×`).padStart(29)}`,
    );
  });
  heed.dispose();
  if (args.includes('--json'))
    console.log(
      'JSON ' +
        JSON.stringify(
          engines.map((e, i) => ({
            name: e.name,
            wordsPerSecond: median(wps[i]),
            heedOverIt: median(times[i].map((t, r) => t / times[0][r])),
          })),
        ),
    );

  // 3. GEMM
  if (SKIP_GEMM) return;
  const g = await gemm(manifest, sessionOptions);
  console.log(
    `\nGEMM, GFLOP/s (best of ${GEMM_TRIALS} alternating trials). Heed: LinearBench ` +
      `y = x·Wᵀ + b (packed W), the loop inside WASM, and one JS call per product; ORT: a graph ` +
      `of one MatMul (constant W), one session.run() per product`,
  );
  console.log(
    `${'shape M×K×N'.padEnd(14)} ${'what'.padEnd(20)} ${'Heed loop'.padStart(9)} ` +
      `${'Heed call'.padStart(9)} ${'ORT run'.padStart(8)}  ${'Heed call / ORT run (median of trials)'}`,
  );
  for (const r of g.rows) {
    console.log(
      `${`${r.M}×${r.K}×${r.N}`.padEnd(14)} ${r.what.padEnd(20)} ` +
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
