#!/usr/bin/env node
// What relaxed SIMD would buy Heed's decode-step products, measured before building it into the
// engine (issue #27, item 3): the one-row product y = x·W (M = 1, the greedy decode step) as
// four small kernels written in the WebAssembly text format, each pair the same loop with and
// without the relaxed instruction, assembled here with Debian's wabt (`wat2wasm
// --enable-relaxed-simd`: the standard opcodes, which Emscripten 3.1.6's clang cannot emit) and
// timed in headless Chromium (Node 20 refuses the opcodes). Not a test: it prints.
//
//   apt-get install wabt chromium; node bench/relaxed_simd.mjs [--trials N]
//
// float32: 16 columns of packed 8-wide panels per pass (Heed's f32 layout), f32x4.mul + add
//   against f32x4.relaxed_madd, one accumulator set (k in order) and two (even and odd k).
// int8: 4 output rows per pass over int8 weights [N, K]: Heed's SIMD128 product (int16
//   activations, v128.load8x8_s + i32x4.dot_i16x8_s + add) against i32x4.dot_i8x16_i7x16_add_s
//   (the relaxed dot; its second operand must fit 7 bits, so the activations are 0..127 here:
//   both kernels give the same integers, which the run checks).
// GFLOP/s count 2·K·N per product; best of N trials, kernels alternating within each trial.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { launchChromium } from '../tests/browser/helpers.mjs';

const args = process.argv.slice(2);
const TRIALS = Number(args[args.indexOf('--trials') + 1] || 9);
const SHAPES = [
  [256, 256],
  [256, 1024],
  [1024, 256],
  [256, 8000],
];

/** f32: a = x [K], b = panels (8 columns × K rows each), c = y; two panels per pass. */
function f32Kernel(name, fused, sets) {
  const accs = Array.from({ length: 4 * sets }, (_, i) => `$c${i}`);
  const madd = (acc, x, ptr, off) =>
    fused
      ? `(local.set ${acc} (f32x4.relaxed_madd (local.get ${x}) (v128.load offset=${off} (local.get ${ptr})) (local.get ${acc})))`
      : `(local.set ${acc} (f32x4.add (local.get ${acc}) (f32x4.mul (local.get ${x}) (v128.load offset=${off} (local.get ${ptr})))))`;
  const body = [];
  for (let u = 0; u < sets; u++) {
    body.push(`(local.set $x (v128.load32_splat offset=${4 * u} (local.get $ak)))`);
    const [a0, a1, a2, a3] = accs.slice(4 * u, 4 * u + 4);
    body.push(madd(a0, '$x', '$b0', 32 * u), madd(a1, '$x', '$b0', 32 * u + 16));
    body.push(madd(a2, '$x', '$b1', 32 * u), madd(a3, '$x', '$b1', 32 * u + 16));
  }
  const fold = [];
  for (let i = 4; i < accs.length; i++)
    fold.push(`(local.set $c${i % 4} (f32x4.add (local.get $c${i % 4}) (local.get $c${i})))`);
  const store = [0, 1, 2, 3].map(
    (i) =>
      `(v128.store offset=${16 * i} (i32.add (local.get $c) (i32.shl (local.get $p) (i32.const 5))) (local.get $c${i}))`,
  );
  return `
 (func (export "${name}") (param $a i32) (param $b i32) (param $c i32) (param $K i32) (param $np i32)
   (local $p i32) (local $k i32) (local $ak i32) (local $b0 i32) (local $b1 i32) (local $x v128)
   ${accs.map((a) => `(local ${a} v128)`).join(' ')}
   (block $done (loop $pass
     (br_if $done (i32.ge_u (local.get $p) (local.get $np)))
     ${accs.map((a) => `(local.set ${a} (v128.const i32x4 0 0 0 0))`).join(' ')}
     (local.set $b0 (i32.add (local.get $b) (i32.mul (local.get $p) (i32.shl (local.get $K) (i32.const 5)))))
     (local.set $b1 (i32.add (local.get $b0) (i32.shl (local.get $K) (i32.const 5))))
     (local.set $ak (local.get $a))
     (local.set $k (local.get $K))
     (loop $ks ${body.join(' ')}
       (local.set $ak (i32.add (local.get $ak) (i32.const ${4 * sets})))
       (local.set $b0 (i32.add (local.get $b0) (i32.const ${32 * sets})))
       (local.set $b1 (i32.add (local.get $b1) (i32.const ${32 * sets})))
       (br_if $ks (local.tee $k (i32.sub (local.get $k) (i32.const ${sets})))))
     ${fold.join(' ')} ${store.join(' ')}
     (local.set $p (i32.add (local.get $p) (i32.const 2)))
     (br $pass))))`;
}

/** int8: x [K] (int16, or int8 of 7 bits), w [N, K] int8, y [N] int32; 4 rows of w per pass. */
function int8Kernel(name, relaxed) {
  const rows = [0, 1, 2, 3];
  const kStep = relaxed ? 16 : 8;
  const dot = (j) =>
    relaxed
      ? `(local.set $c${j} (i32x4.dot_i8x16_i7x16_add_s (v128.load (local.get $w${j})) (local.get $x) (local.get $c${j})))`
      : `(local.set $c${j} (i32x4.add (local.get $c${j}) (i32x4.dot_i16x8_s (v128.load8x8_s (local.get $w${j})) (local.get $x))))`;
  const lanes = (j) =>
    `(i32.add (i32.add (i32x4.extract_lane 0 (local.get $c${j})) (i32x4.extract_lane 1 (local.get $c${j}))) (i32.add (i32x4.extract_lane 2 (local.get $c${j})) (i32x4.extract_lane 3 (local.get $c${j}))))`;
  return `
 (func (export "${name}") (param $x0 i32) (param $w i32) (param $y i32) (param $K i32) (param $N i32)
   (local $n i32) (local $k i32) (local $xk i32) (local $x v128)
   ${rows.map((j) => `(local $w${j} i32) (local $c${j} v128)`).join(' ')}
   (block $done (loop $pass
     (br_if $done (i32.ge_u (local.get $n) (local.get $N)))
     ${rows.map((j) => `(local.set $c${j} (v128.const i32x4 0 0 0 0))`).join(' ')}
     ${rows.map((j) => `(local.set $w${j} (i32.add (local.get $w) (i32.mul (i32.add (local.get $n) (i32.const ${j})) (local.get $K))))`).join(' ')}
     (local.set $xk (local.get $x0))
     (local.set $k (local.get $K))
     (loop $ks (local.set $x (v128.load (local.get $xk))) ${rows.map(dot).join(' ')}
       (local.set $xk (i32.add (local.get $xk) (i32.const 16)))
       ${rows.map((j) => `(local.set $w${j} (i32.add (local.get $w${j}) (i32.const ${kStep})))`).join(' ')}
       (br_if $ks (local.tee $k (i32.sub (local.get $k) (i32.const ${kStep})))))
     ${rows.map((j) => `(i32.store offset=${4 * j} (i32.add (local.get $y) (i32.shl (local.get $n) (i32.const 2))) ${lanes(j)})`).join(' ')}
     (local.set $n (i32.add (local.get $n) (i32.const 4)))
     (br $pass))))`;
}

function assemble() {
  const wat = `(module (memory (import "env" "memory") 1)
${f32Kernel('f32_muladd', false, 1)}${f32Kernel('f32_madd', true, 1)}
${f32Kernel('f32_muladd_2sets', false, 2)}${f32Kernel('f32_madd_2sets', true, 2)}
${int8Kernel('i8_dot_i16x8', false)}${int8Kernel('i8_relaxed_dot', true)})`;
  const dir = mkdtempSync(path.join(tmpdir(), 'heed-relaxed-'));
  try {
    writeFileSync(path.join(dir, 'k.wat'), wat);
    execFileSync('wat2wasm', ['--enable-relaxed-simd', 'k.wat', '-o', 'k.wasm'], { cwd: dir });
    return readFileSync(path.join(dir, 'k.wasm'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs in the page: GFLOP/s of every kernel on every shape. */
async function measure({ b64, shapes, trials }) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const memory = new WebAssembly.Memory({ initial: 400 });
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  const f32 = new Float32Array(memory.buffer);
  const [i8, i16, i32] = [Int8Array, Int16Array, Int32Array].map((T) => new T(memory.buffer));
  const time = (fn, reps) => {
    fn();
    const t0 = performance.now();
    for (let r = 0; r < reps; r++) fn();
    return performance.now() - t0;
  };
  const rows = [];
  for (const [K, N] of shapes) {
    const reps = Math.round(3e8 / (2 * K * N));
    const flops = (ms) => (2 * K * N * reps) / ms / 1e6;
    // float32
    const a = 0,
      b = 16384,
      c = b + 4 * K * N + 64;
    for (let k = 0; k < K; k++) f32[a / 4 + k] = Math.sin(k);
    for (let i = 0; i < K * N; i++) f32[b / 4 + i] = Math.cos(i * 0.37);
    // int8: the same activations as int16 and as 7-bit int8
    const x16 = 0,
      x8 = 8192,
      w = 16384,
      y = w + K * N + 64;
    const best = {};
    const f32Names = ['f32_muladd', 'f32_madd', 'f32_muladd_2sets', 'f32_madd_2sets'];
    const i8Names = ['i8_dot_i16x8', 'i8_relaxed_dot'];
    let same = true;
    for (let t = 0; t < trials; t++) {
      for (const name of f32Names) {
        const ms = time(() => instance.exports[name](a, b, c, K, N / 8), reps);
        best[name] = Math.min(best[name] ?? Infinity, ms);
      }
      for (let k = 0; k < K; k++) {
        const v = (k * 37) % 128;
        i16[x16 / 2 + k] = v;
        i8[x8 + k] = v;
      }
      for (let i = 0; i < K * N; i++) i8[w + i] = ((i * 7919) % 255) - 127;
      const outs = [];
      for (const [name, x] of [
        ['i8_dot_i16x8', x16],
        ['i8_relaxed_dot', x8],
      ]) {
        const ms = time(() => instance.exports[name](x, w, y, K, N), reps);
        best[name] = Math.min(best[name] ?? Infinity, ms);
        outs.push(i32.slice(y / 4, y / 4 + N));
      }
      same &&= outs[0].every((v, i) => v === outs[1][i]);
    }
    rows.push({
      shape: `1×${K}×${N}`,
      gflops: Object.fromEntries([...f32Names, ...i8Names].map((n) => [n, flops(best[n])])),
      int8Same: same,
    });
  }
  return rows;
}

const wasm = assemble();
try {
  await WebAssembly.compile(wasm);
  console.log('Node: compiles the relaxed opcodes (unexpected for Node 20)');
} catch (e) {
  console.log(`Node ${process.version}: refuses them (${e.message.split('\n')[0]})`);
}
const before = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
const browser = await launchChromium();
let rows, version;
try {
  const page = await browser.newPage();
  version = await page.evaluate(() => navigator.userAgent.match(/Chrom\w+\/[\d.]+/)?.[0]);
  rows = await page.evaluate(measure, {
    b64: wasm.toString('base64'),
    shapes: SHAPES,
    trials: TRIALS,
  });
} finally {
  await browser.close();
}
const after = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(
  `${version} headless; best of ${TRIALS} trials; load average ${before} before, ${after} after`,
);
console.log(
  `${'M×K×N'.padEnd(12)}${'f32 mul+add'.padStart(12)}${'relaxed_madd'.padStart(13)}${'ratio'.padStart(7)}` +
    `${'2 sets'.padStart(9)}${'madd 2 sets'.padStart(12)}${'ratio'.padStart(7)}` +
    `${'int8 SIMD128'.padStart(14)}${'relaxed dot'.padStart(12)}${'ratio'.padStart(7)}  same ints`,
);
for (const r of rows) {
  const g = r.gflops;
  const f = (x) => x.toFixed(1);
  console.log(
    `${r.shape.padEnd(12)}${f(g.f32_muladd).padStart(12)}${f(g.f32_madd).padStart(13)}` +
      `${(g.f32_madd / g.f32_muladd).toFixed(2).padStart(6)}×` +
      `${f(g.f32_muladd_2sets).padStart(9)}${f(g.f32_madd_2sets).padStart(12)}` +
      `${(g.f32_madd_2sets / g.f32_muladd).toFixed(2).padStart(6)}×` +
      `${f(g.i8_dot_i16x8).padStart(14)}${f(g.i8_relaxed_dot).padStart(12)}` +
      `${(g.i8_relaxed_dot / g.i8_dot_i16x8).toFixed(2).padStart(6)}×  ${r.int8Same ? 'yes' : 'NO'}`,
  );
}
console.log(
  '(GFLOP/s, 2·K·N per product; f32 ratios against the mul+add kernel with one accumulator set; ' +
    'int8: int16 activations vs 7-bit int8 activations, same integer results)',
);
