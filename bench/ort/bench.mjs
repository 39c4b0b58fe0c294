#!/usr/bin/env node
// Heed against onnxruntime-web running THE SAME MODEL in the same Node process (the comparison
// /work/shared/ANCHORS.md asks for). Not a test: it prints, and exits non-zero only when the
// ONNX graphs do not match the model (wrong numerics, or a model file changed since export).
//
//   npm install --prefix bench/ort                      # once: onnxruntime-web, pinned
//   /usr/bin/python3 -m bench.ort.export_onnx           # once per model: writes bench/ort/onnx/
//   bash scripts/build-wasm.sh --bench                  # for the GEMM part: the bench module
//   node bench/ort/bench.mjs [--onnx DIR] [--rounds N] [--skip-gemm] [--json]
//   (--json: the greedy figures also as one last line "JSON {...}", read by npm run bench)
//
// Both engines are single-threaded WASM with SIMD (ORT: the wasm backend, numThreads = 1), each
// in two computes, compared like with like: Heed int8 (the file's int8 weights, the default)
// against ORT's int8 graphs (dynamic quantisation: DynamicQuantizeLinear + MatMulInteger on the
// same int8 weights and scales), Heed f32 (loadTranslator({ compute: 'f32' })) against ORT's
// float32 graphs. Every table says which compute each row is.
// 1. Numerics: ORT's graphs against PyTorch outputs saved by the export (reference.json); the
//    int8 graphs against the torch forward of the same quantised modules.
// 2. Greedy decoding of the 16 sentences of `heed bench` (src/cli/main.cpp): Heed's npm API
//    (beam 1, one sentence per call) and two ORT loops per compute on Heed's own source ids:
//    - "ORT, no cache": encoder once, then decoder.onnx on the whole prefix at every step
//      (an export without past_key_values has no KV cache: step t recomputes t positions);
//    - "ORT, KV cache": encoder_kv.onnx once (memory and cross-attention K/V), then
//      decoder_step.onnx on one token with the cached self-attention K/V.
//    Both stop as Heed does: at EOS or after 2·|source ids| + 10 tokens (capped by max_positions).
//    Agreement: ORT's greedy ids against the targetIds of Heed with the same compute, sentence
//    by sentence.
//    Speed: after a warm-up, `--rounds` rounds; each round times one pass of every engine over
//    the sentences (the order rotates per round); words/s counts source words; Heed / it is the
//    median of per-round ratios against the Heed of the same compute. The load average is
//    printed before and after (the machine may be shared: then the figures are not benchmarks).
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
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
const ids = (list) => new ort.Tensor('int64', BigInt64Array.from(list, BigInt), [1, list.length]);

// ---- ORT greedy decoders ----

class OrtNoCache {
  constructor(encoder, decoder, cfg, compute) {
    Object.assign(this, { encoder, decoder, cfg, compute });
    this.name = `ORT ${compute}, no cache (prefix re-run)`;
  }
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
  constructor(encoderKv, step, cfg, kv, compute) {
    Object.assign(this, { encoderKv, step, cfg, kv, compute });
    this.name = `ORT ${compute}, KV cache`;
  }
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

// ---- numerics ----

/** Max |ORT - PyTorch| of one compute's four graphs on the reference ids (reference.json). */
async function numerics(g, kv, want) {
  const { memory } = await g.encoder.run({ src: ids(want.src) });
  const { logits } = await g.decoder.run({ tgt: ids(want.tgt), memory });
  const cross = await g.encoderKv.run({ src: ids(want.src) });
  const feeds = {};
  for (const n of kv.cross) feeds[n] = cross[n];
  for (const n of kv.past)
    feeds[n] = new ort.Tensor('float32', new Float32Array(0), [1, kv.heads, 0, kv.head_dim]);
  let stepLast = null;
  for (const tok of want.tgt) {
    // teacher-forced over the reference prefix
    feeds.token = ids([tok]);
    const r = await g.step.run(feeds);
    kv.past.forEach((n, i) => {
      feeds[n] = r[kv.present[i]];
    });
    stepLast = r.logits.data;
  }
  return {
    memory: maxAbsDiff(memory.data, want.memory),
    decoder: maxAbsDiff(logits.data, want.logits_last),
    step: maxAbsDiff(stepLast, want.step_logits_last),
  };
}

/** Greedy ids of `engine` against Heed's of the same compute; prints the count and the notes. */
async function agreement(engine, heedResults, maxLength, against) {
  let same = 0;
  const notes = [];
  for (const [i, r] of heedResults.entries()) {
    const margins = [];
    const got = await engine.translate(r.sourceIds, maxLength(r.sourceIds), (t, l) => {
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
  console.log(
    `greedy ids, ${engine.name} vs ${against}: ${same}/${heedResults.length} sentences identical`,
  );
  for (const n of notes) console.log(n);
  return same;
}

// ---- main ----

// why: the integer part of an int8 graph is exact, but its float parts (layer norm, softmax)
// round in another order than PyTorch's, and an activation within float noise of a rounding tie
// (x/scale = k + ½) then lands one quantisation step away and moves all that follows: on the
// reference ids one such flip moves PyTorch's own int8 logits by 6.9e-2 (the export's
// tie_spread, printed), against 1.8e-1 between int8 and float32 and whole units for a wrong
// graph. So int8 gets 0.1, and each quantised product alone must match exactly (PRODUCT_TOLERANCE
// of its largest output: one tie on 24×256 random inputs at most).
const TOLERANCE = { f32: 1e-2, int8: 0.1 };
const PRODUCT_TOLERANCE = 1e-5;

async function main() {
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
  const modelPath = path.join(ROOT, manifest.model);
  const modelBytes = await readFile(modelPath);
  const sha = createHash('sha256').update(modelBytes).digest('hex');
  if (sha !== manifest.sha256) {
    throw new Error(
      `${manifest.model} changed since the ONNX export (sha256 ${sha.slice(0, 12)} ` +
        `!= ${manifest.sha256.slice(0, 12)}): run /usr/bin/python3 -m bench.ort.export_onnx again`,
    );
  }
  const cfg = manifest.config;
  const kv = manifest.kv;
  const loadAtStart = load();

  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  const sessionOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const sessions = async (graphs) => {
    const names = ['encoder', 'decoder', 'encoderKv', 'step'];
    const files = [graphs.encoder, graphs.decoder, graphs.encoder_kv, graphs.decoder_step];
    const s = await Promise.all(
      files.map((f) => ort.InferenceSession.create(path.join(ONNX, f), sessionOptions)),
    );
    return Object.fromEntries(names.map((n, i) => [n, s[i]]));
  };
  const graphs = {
    int8: await sessions(manifest.graphs_int8),
    f32: await sessions(manifest.graphs),
  };
  const heed = {
    int8: await loadTranslator({ model: new Uint8Array(modelBytes), compute: 'int8' }),
    f32: await loadTranslator({ model: new Uint8Array(modelBytes), compute: 'f32' }),
  };

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
  console.log(
    `computes compared like with like: int8 = Heed's int8 weights (int16 activations per row) vs ` +
      `ORT's dynamic quantisation of the same int8 weights (uint8 activations per tensor); ` +
      `f32 = Heed compute 'f32' vs ORT's float32 graphs`,
  );
  console.log(
    `${SENTENCES.length} sentences, ${WORDS} source words; load average ${loadAtStart}\n`,
  );

  // 1. numerics of the graphs against PyTorch
  const ref = JSON.parse(await readFile(path.join(ONNX, 'reference.json'), 'utf8'));
  const want = {
    f32: { src: ref.src, tgt: ref.tgt, memory: ref.memory, logits_last: ref.logits_last },
    int8: { src: ref.src, tgt: ref.tgt, ...ref.int8 },
  };
  want.f32.step_logits_last = ref.logits_last;
  const num = {};
  for (const compute of ['int8', 'f32']) {
    const n = (num[compute] = await numerics(graphs[compute], kv, want[compute]));
    console.log(
      `ORT ${compute} vs PyTorch ${compute}, max |diff|: encoder memory ` +
        `${n.memory.toExponential(2)}, decoder logits ${n.decoder.toExponential(2)}, ` +
        `decoder_step logits ${n.step.toExponential(2)} (tolerance ${TOLERANCE[compute]})`,
    );
    if (Math.max(n.memory, n.decoder, n.step) > TOLERANCE[compute])
      throw new Error(`ORT ${compute} graphs disagree with PyTorch`);
  }
  console.log(
    `(PyTorch int8 against itself, every quantised input jittered by 1e-7: memory ` +
      `${ref.int8.tie_spread.memory.toExponential(2)}, logits ` +
      `${ref.int8.tie_spread.logits.toExponential(2)}: the spread of one rounding tie)`,
  );
  const products = [];
  for (const p of ref.int8.products) {
    const s = await ort.InferenceSession.create(path.join(ONNX, p.file), sessionOptions);
    const { y } = await s.run({ x: new ort.Tensor('float32', Float32Array.from(p.x), [p.M, p.K]) });
    await s.release();
    const rel = maxAbsDiff(y.data, p.y) / p.y.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    products.push(`${p.file.replace(/^matmul_int8_|\.onnx$/g, '')} ${rel.toExponential(1)}`);
    if (rel > PRODUCT_TOLERANCE) throw new Error(`ORT's ${p.file} disagrees with PyTorch`);
  }
  console.log(
    `ORT int8 product alone vs PyTorch (x [24, K]), max |diff| / max |y|: ${products.join(', ')}`,
  );

  // 2a. Heed's tokens and greedy ids; ORT's greedy ids on the same source ids
  const heedResults = { int8: [], f32: [] };
  for (const compute of ['int8', 'f32'])
    for (const s of SENTENCES)
      heedResults[compute].push(await heed[compute].translate(s, { beam: 1 }));
  const maxLength = (src) => Math.min(2 * src.length + 10, cfg.max_positions);
  const ortEngines = {};
  for (const compute of ['int8', 'f32']) {
    const g = graphs[compute];
    ortEngines[compute] = [
      new OrtNoCache(g.encoder, g.decoder, cfg, compute),
      new OrtKvCache(g.encoderKv, g.step, cfg, kv, compute),
    ];
  }
  const agree = {};
  for (const compute of ['int8', 'f32'])
    for (const e of ortEngines[compute])
      agree[e.name] = await agreement(e, heedResults[compute], maxLength, `Heed ${compute}`);
  const same = heedResults.int8.filter((r, i) => {
    const f = heedResults.f32[i].targetIds;
    return r.targetIds.length === f.length && r.targetIds.every((x, j) => x === f[j]);
  }).length;
  console.log(
    `(for scale: Heed int8 vs Heed f32: ${same}/${SENTENCES.length} sentences identical)`,
  );
  for (const compute of ['int8', 'f32']) {
    const n = heedResults[compute].reduce((k, r) => k + r.targetIds.length, 0);
    console.log(`(Heed ${compute}: ${n} target tokens in all, EOS included)`);
  }
  console.log();

  // 2b. speed
  const srcIds = heedResults.int8.map((r) => r.sourceIds);
  const engines = [];
  for (const compute of ['int8', 'f32']) {
    engines.push({
      name: `Heed ${compute} (npm API, beam 1, one sentence per call)`,
      compute,
      heed: true,
      pass: async () => {
        for (const s of SENTENCES) await heed[compute].translate(s, { beam: 1 });
      },
    });
    for (const e of ortEngines[compute])
      engines.push({
        name: e.name,
        compute,
        pass: async () => {
          for (const src of srcIds) await e.translate(src, maxLength(src));
        },
      });
  }
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
  const loadAtEnd = load();
  const wps = times.map((ts) => ts.map((t) => WORDS / t));
  const heedOf = (compute) => engines.findIndex((e) => e.heed && e.compute === compute);
  const ratio = (i) => {
    const h = times[heedOf(engines[i].compute)];
    return median(times[i].map((t, r) => t / h[r]));
  };
  console.log(
    `greedy translation, ${ROUNDS} rounds after warm-up (words/s = source words / time of one ` +
      `pass); load average ${loadAtStart} at the start, ${loadAtEnd} at the end`,
  );
  console.log(
    `${'compute'.padEnd(8)}${'engine'.padEnd(52)} ${'median w/s'.padStart(10)} ` +
      `${'best w/s'.padStart(9)} ${'Heed / it, same compute'.padStart(24)}`,
  );
  engines.forEach((e, i) => {
    console.log(
      `${e.compute.padEnd(8)}${e.name.padEnd(52)} ${median(wps[i]).toFixed(1).padStart(10)} ` +
        `${Math.max(...wps[i])
          .toFixed(1)
          .padStart(9)} ` +
        `${(e.heed ? '' : `${ratio(i).toFixed(2)}×`).padStart(24)}`,
    );
  });
  heed.int8.dispose();
  heed.f32.dispose();
  if (args.includes('--json'))
    console.log(
      'JSON ' +
        JSON.stringify({
          load: { start: loadAtStart, end: loadAtEnd },
          rounds: ROUNDS,
          numerics: num,
          agreement: agree,
          rows: engines.map((e, i) => ({
            name: e.name,
            compute: e.compute,
            heed: Boolean(e.heed),
            wordsPerSecond: median(wps[i]),
            heedOverIt: e.heed ? 1 : ratio(i),
          })),
        }),
    );

  // 3. GEMM
  if (SKIP_GEMM) return;
  const g = await gemm(manifest, sessionOptions);
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
