// The demo's pure data helpers (web/demo, no DOM): per-head summaries on known patterns, and
// attention rollout against the definition (Abnar & Zuidema 2020 §3) computed longhand.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { headSummary, summaryCaption } from '../../web/demo/data/head-summary.js';
import { rollout, headMatrix } from '../../web/demo/data/attention-data.js';
import { assertClose } from './helpers.mjs';

const labels = (n) => Array.from({ length: n }, (_, i) => (i === n - 1 ? '</s>' : `p${i}`));
const square = (n, f) => {
  const values = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) values[i * n + j] = f(i, j);
  return { rows: n, cols: n, values, rowLabels: labels(n), colLabels: labels(n) };
};

test('head summaries name diagonal, previous, first, </s> and broad heads', () => {
  const n = 6;
  const diag = headSummary(square(n, (i, j) => (i === j ? 1 : 0)));
  assert.equal(diag.pattern, 'diagonal');
  assertClose([diag.entropy, diag.diagonal], [0, 1], 1e-6, 'identity');
  const prev = headSummary(
    square(n, (i, j) => (i === 0 ? (j === 0 ? 1 : 0) : j === i - 1 ? 1 : 0)),
  );
  assert.equal(prev.pattern, 'previous');
  assertClose([prev.previous], [5 / 6], 1e-6, 'previous');
  assert.equal(headSummary(square(n, (i, j) => (j === 0 ? 1 : 0))).pattern, 'first');
  const eos = headSummary(square(n, (i, j) => (j === n - 1 ? 0.9 : 0.02)));
  assert.equal(eos.pattern, '</s>');
  assert.equal(summaryCaption(eos), '</s> 90%');
  const uniform = headSummary(square(n, () => 1 / n));
  assert.equal(uniform.pattern, 'broad');
  assertClose([uniform.entropy], [1], 1e-6, 'uniform entropy');
});

test('cross-attention summaries look for a monotonic alignment', () => {
  // 3 target rows over 7 source keys, each row on the proportional source position
  const values = new Float32Array(3 * 7);
  [0, 3, 6].forEach((j, i) => (values[i * 7 + j] = 1));
  const s = headSummary(
    { rows: 3, cols: 7, values, rowLabels: ['a', 'b', 'c'], colLabels: labels(7) },
    { cross: true },
  );
  assert.equal(s.pattern, 'monotonic');
  assert.equal(s.diagonal, 1);
});

test('rollout equals (½A₂+½I)(½A₁+½I) of the head averages, computed longhand', () => {
  const S = 3,
    H = 2,
    L = 2;
  const data = new Float32Array(L * H * S * S);
  let seed = 7;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let lh = 0; lh < L * H; lh++)
    for (let i = 0; i < S; i++) {
      const row = Array.from({ length: S }, rand);
      const sum = row.reduce((a, b) => a + b);
      row.forEach((x, j) => (data[(lh * S + i) * S + j] = x / sum));
    }
  const tensor = { shape: [L, H, S, S], data };
  const avg = (l) =>
    Array.from({ length: S }, (_, i) =>
      Array.from({ length: S }, (_, j) => {
        let m = 0;
        for (let h = 0; h < H; h++) m += data[((l * H + h) * S + i) * S + j] / H;
        return 0.5 * m + (i === j ? 0.5 : 0);
      }),
    );
  const mul = (a, b) =>
    a.map((row) => b[0].map((_, j) => row.reduce((sum, x, k) => sum + x * b[k][j], 0)));
  const want = mul(avg(1), avg(0)).flat();
  assertClose(rollout(tensor, 1), want, 1e-6, 'rollout through 2 layers');
  assertClose(rollout(tensor, 0), avg(0).flat(), 1e-6, 'rollout through 1 layer');
  const rows = rollout(tensor, 1);
  for (let i = 0; i < S; i++)
    assertClose([rows.subarray(i * S, i * S + S).reduce((a, b) => a + b)], [1], 1e-6, 'row sum');
  const result = {
    attention: { encoderSelf: tensor },
    sourceTokens: labels(S),
  };
  assertClose(headMatrix(result, 'encoder', 1, 'rollout').values, want, 1e-6, 'headMatrix');
});
