// The attention primitives through the package's public exports (loadAttentionLab): small cases
// worked by hand, and the committed float64 PyTorch/NumPy goldens of tests/data.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { HeedError, loadAttentionLab } from 'heed';
import { DATA, assertClose, readJson, rowSums } from './helpers.mjs';

const lab = await loadAttentionLab();
const GOLDENS = path.join(DATA, 'attention_goldens.json');

test('dot attention on a 2x2 case worked by hand', () => {
  // q1 = [1, 0] scores [1, 0] against k; softmax = [e/(e+1), 1/(e+1)]
  const r = lab.attention({
    q: [
      [1, 0],
      [0, 1],
    ],
    k: [
      [1, 0],
      [0, 1],
    ],
    v: [
      [1, 2],
      [3, 4],
    ],
    score: 'dot',
  });
  const a = Math.E / (Math.E + 1),
    b = 1 / (Math.E + 1);
  assert.deepEqual(r.weights.shape, [2, 2]);
  assertClose(r.scores.data, [1, 0, 0, 1], 0, 'scores');
  assertClose(r.weights.data, [a, b, b, a], 1e-6, 'weights');
  assertClose(
    r.output.data,
    [a * 1 + b * 3, a * 2 + b * 4, b * 1 + a * 3, b * 2 + a * 4],
    1e-6,
    'output',
  );
});

test('scaled dot divides by sqrt(dk); causal masks the future with -inf and zero weight', () => {
  const r = lab.attention({
    q: [
      [2, 0],
      [0, 2],
    ],
    k: [
      [2, 0],
      [0, 2],
    ],
    v: [
      [1, 0],
      [0, 1],
    ],
    score: 'scaled_dot',
    mask: { kind: 'causal' },
  });
  assert.equal(r.scores.data[1], -Infinity);
  assert.equal(r.weights.data[1], 0);
  assertClose(r.scores.data.slice(2), [0, 4 / Math.SQRT2], 1e-6, 'scaled scores');
  const e = Math.exp(4 / Math.SQRT2);
  assertClose(r.weights.data, [1, 0, 1 / (1 + e), e / (1 + e)], 1e-6, 'weights');
});

test('a fully masked row gives zero weights and zero output, never NaN', () => {
  const r = lab.attention({
    q: [[1, 0]],
    k: [
      [1, 0],
      [0, 1],
    ],
    v: [
      [1, 1],
      [1, 1],
    ],
    score: 'dot',
    mask: { kind: 'padding', keyPadding: [true, true] },
  });
  assert.deepEqual([...r.weights.data], [0, 0]);
  assert.deepEqual([...r.output.data], [0, 0]);
});

test('inputs may be Tensors as well as number[][]', () => {
  const t = { shape: [1, 2], data: new Float32Array([1, 0]) };
  const r = lab.attention({ q: t, k: t, v: t, score: 'dot' });
  assert.deepEqual([...r.weights.data], [1]);
});

test('sinusoidal positions: PE(pos, 2i) = sin(pos / 10000^(2i/d)), cos on odd columns', () => {
  const pe = lab.sinusoidalPositions(3, 4);
  assert.deepEqual(pe.shape, [3, 4]);
  const want = [];
  for (let pos = 0; pos < 3; pos++)
    for (let i = 0; i < 4; i++) {
      const angle = pos / 10000 ** ((2 * Math.floor(i / 2)) / 4);
      want.push(i % 2 ? Math.cos(angle) : Math.sin(angle));
    }
  assertClose(pe.data, want, 1e-6, 'positions');
  const sim = lab.positionSimilarity(3, 4);
  assert.deepEqual(sim.shape, [3, 3]);
  assertClose([sim.data[0], sim.data[4], sim.data[8]], [1, 1, 1], 1e-6, 'self-similarity');
});

test('linear attention weights are rows summing to 1 (causal: zero above the diagonal)', () => {
  const r = lab.linearAttention({
    q: [
      [1, 0],
      [0, 1],
      [1, 1],
    ],
    k: [
      [1, 0],
      [0, 1],
      [1, 1],
    ],
    v: [[1], [2], [3]],
    causal: true,
  });
  for (const s of rowSums(r.weights)) assert.ok(Math.abs(s - 1) < 1e-6, `row sum ${s}`);
  assert.equal(r.weights.data[1], 0);
  assert.equal(r.scores.data[1], -Infinity);
});

test('bad inputs throw HeedError BAD_INPUT with the C++ or JS message', () => {
  const bad = (inputs, pattern) =>
    assert.throws(
      () => lab.attention(inputs),
      (e) => e instanceof HeedError && e.code === 'BAD_INPUT' && pattern.test(e.message),
    );
  bad({ q: [[1, 0]], k: [[1, 0, 0]], v: [[1]], score: 'dot' }, /dims/);
  bad({ q: [[1, 0]], k: [[1, 0]], v: [[1]], score: 'cosine' }, /score must be one of/);
  bad({ q: [[1, 0], [1]], k: [[1, 0]], v: [[1]], score: 'dot' }, /rows of equal length/);
  bad({ q: [[1, 0]], k: [[1, 0]], v: [[1]], score: 'general' }, /.+/);
  bad(
    {
      q: [[1, 0]],
      k: [[1, 0]],
      v: [[1]],
      score: 'dot',
      mask: { kind: 'padding', keyPadding: [true, false] },
    },
    /keyPadding must be 1 booleans/,
  );
  assert.throws(
    () => lab.sinusoidalPositions(-1, 4),
    (e) => e.code === 'BAD_INPUT',
  );
});

/** MaskSpec of a golden's mask record. */
function maskOf(m) {
  const keyPadding = m.key_padding.length ? m.key_padding.map(Boolean) : undefined;
  switch (m.kind) {
    case 'none':
      return { kind: 'none', keyPadding };
    case 'key_padding':
      return { kind: 'padding', keyPadding };
    case 'causal':
      return { kind: 'causal', offset: m.causal_offset, keyPadding };
    case 'local_window':
      return { kind: 'local', window: m.window, offset: m.causal_offset, keyPadding };
    case 'custom':
      return { kind: 'custom', blocked: m.custom.map((r) => r.map(Boolean)), keyPadding };
    default:
      throw new Error(`unknown golden mask ${m.kind}`);
  }
}

test(
  'attention matches the float64 goldens (every score function and mask)',
  { skip: !existsSync(GOLDENS) && 'tests/data/attention_goldens.json not present' },
  () => {
    const goldens = readJson(GOLDENS);
    for (const g of goldens.attention) {
      const r = lab.attention({
        q: g.q,
        k: g.k,
        v: g.v,
        score: g.score,
        mask: maskOf(g.mask),
        params: g.params,
      });
      assertClose(r.scores.data, g.scores, 1e-4, `${g.name} scores`);
      assertClose(r.weights.data, g.weights, 1e-5, `${g.name} weights`);
      assertClose(r.output.data, g.output, 1e-4, `${g.name} output`);
    }
    for (const g of goldens.linear) {
      const r = lab.linearAttention({ q: g.q, k: g.k, v: g.v, causal: g.causal });
      assertClose(r.weights.data, g.weights, 1e-5, `${g.name} weights`);
      assertClose(r.output.data, g.output, 1e-4, `${g.name} output`);
    }
    for (const g of goldens.positions) {
      assertClose(
        lab.sinusoidalPositions(g.length, g.d_model).data,
        g.pe,
        1e-5,
        `positions ${g.length}x${g.d_model}`,
      );
      assertClose(
        lab.positionSimilarity(g.length, g.d_model).data,
        g.similarity,
        1e-5,
        `similarity ${g.length}x${g.d_model}`,
      );
    }
  },
);
