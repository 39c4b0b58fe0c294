#!/usr/bin/env node
// How far the f32 one-row product (the greedy decode step: M = 1) is from the memory's read
// speed, in V8. Every f32 weight of a decode step is read once per step, so no f32 kernel can
// run a step's products faster than the machine reads those floats: LinearBench's kernel 3 reads
// the same number of floats as a layer's weights, summed in eight SIMD accumulators, and that
// time is the ceiling. Not a test: it prints, with the load average.
//
//   bash scripts/build-wasm.sh --bench        # the bench-only module (BUILD_DIR, default build-wasm)
//   node bench/f32_ceiling.mjs [--trials N]
//
// Columns: the f32 kernel (LinearBench kernel 0, packed W, y = x·Wᵀ + b) and the read ceiling
// (kernel 3), both as GFLOP/s of the product (2 flops per weight) and the ceiling as GB/s, each
// the best of N alternating trials; f32 / ceiling is the share of the memory's speed the kernel
// reaches, the median over the trials of the two timed back to back. The last lines time, for each model shape, one product holding all of a greedy
// decode step's weights.

import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHeedBench } from './heed_bench_module.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--trials');
const TRIALS = at >= 0 ? Number(args[at + 1]) : 15;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

/**
 * One greedy decode step's products of a model with d 256 (`per`: how many of each a step
 * runs): self-attention's q, k, v as one 256 × 768 product; self-attention's output,
 * cross-attention's query and output (its keys and values are made once per sentence); the FFN;
 * the logits.
 */
const stepProducts = ({ layers, ffn, vocab }) => [
  { K: 256, N: 768, per: layers },
  { K: 256, N: 256, per: 3 * layers },
  { K: 256, N: ffn, per: layers },
  { K: ffn, N: 256, per: layers },
  { K: 256, N: vocab, per: 1 },
];

// why: the two model shapes the benchmarks use
const MODELS = [
  { name: 'en-fr.heed', products: stepProducts({ layers: 1, ffn: 1024, vocab: 8000 }) },
  { name: 'multi.heed', products: stepProducts({ layers: 3, ffn: 2048, vocab: 16000 }) },
];

/** Seconds per run of `bench` over one timed call of `reps` runs. */
function secondsPerRun(bench, reps) {
  const t0 = performance.now();
  bench.run(reps);
  return (performance.now() - t0) / 1000 / reps;
}

function measure(core, K, N) {
  const f32 = new core.LinearBench(1, K, N, 0);
  const read = new core.LinearBench(1, K, N, 3);
  try {
    // why: V8 tiers a wasm function up between calls, never inside a running loop
    const reps = Math.max(1, Math.round(2e8 / (2 * K * N)));
    const warmUntil = performance.now() + 300;
    while (performance.now() < warmUntil) {
      f32.run(Math.ceil(reps / 20));
      read.run(Math.ceil(reps / 20));
    }
    const best = { f32: Infinity, read: Infinity };
    const ratios = [];
    for (let t = 0; t < TRIALS; t++) {
      const a = secondsPerRun(f32, reps);
      const b = secondsPerRun(read, reps);
      best.f32 = Math.min(best.f32, a);
      best.read = Math.min(best.read, b);
      ratios.push(b / a);
    }
    if (!Number.isFinite(f32.checksum()) || !Number.isFinite(read.checksum()))
      throw new Error(`non-finite checksum at ${K}x${N}`);
    // why: this machine's memory speed swings by 2x over seconds (shared host), so the two are
    // also compared trial by trial: each trial times both back to back
    ratios.sort((x, y) => x - y);
    return { ...best, ratio: ratios[ratios.length >> 1] };
  } finally {
    f32.delete();
    read.delete();
  }
}

const core = await loadHeedBench(ROOT);
console.log(
  `f32 one-row product against the memory's read speed (WASM SIMD128, Node ${process.versions.node}, ` +
    `best of ${TRIALS} alternating trials), load average at start ${load()}`,
);
console.log('| 1×K×N | weights MB | f32 GFLOP/s | read ceiling GFLOP/s (GB/s) | f32 / ceiling |');
console.log('|---|---:|---:|---:|---:|');
const seen = new Set();
const shapes = [{ K: 256, N: 256 }, ...MODELS.flatMap((m) => m.products)];
for (const { K, N } of shapes) {
  if (seen.has(`${K}x${N}`)) continue;
  seen.add(`${K}x${N}`);
  const t = measure(core, K, N);
  const flops = 2 * K * N;
  const mb = (4 * K * N) / 1e6;
  console.log(
    `| 1×${K}×${N} | ${mb.toFixed(2)} | ${(flops / t.f32 / 1e9).toFixed(1)} | ` +
      `${(flops / t.read / 1e9).toFixed(1)} (${((4 * K * N) / t.read / 1e9).toFixed(1)}) | ` +
      `${t.ratio.toFixed(2)} |`,
  );
}
// why: in a decode step every product's weights stream through the caches once, so a step
// behaves like one product as large as all of them together, not like its products timed one
// at a time (whose weights, when they fit in L2, stay there between runs)
for (const m of MODELS) {
  const floats = m.products.reduce((sum, p) => sum + p.per * p.K * p.N, 0);
  const N = Math.round(floats / 256);
  const t = measure(core, 256, N);
  console.log(
    `${m.name}, one greedy step's weights (${((4 * floats) / 1e6).toFixed(1)} MB) as one ` +
      `1×256×${N} product: f32 ${(t.f32 * 1e6).toFixed(0)} µs, read ceiling ` +
      `${(t.read * 1e6).toFixed(0)} µs (${((4 * floats) / t.read / 1e9).toFixed(1)} GB/s) (best of ` +
      `each): no f32 kernel can run these products more than ${(1 / t.ratio).toFixed(2)}× faster ` +
      `(median of the trials)`,
  );
}
console.log(`load average at end ${load()}`);
