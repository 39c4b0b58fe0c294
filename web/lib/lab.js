// The attention lab (loadAttentionLab; types: heed.d.ts): the attention primitives of ops/ on
// small matrices, with the conversion of the caller's matrices and masks into the engine's.
// Nothing runs at import. Not the translator (heed.js).

import { badInput, checkObject, describe } from './common.js';
import { getCore, unwrap } from './engine.js';
import { checkLabMask } from './validate.js';

/** number[][] or {shape, data} -> {shape: [rows, cols], data: Float32Array}. */
function toMatrix(x, name) {
  if (x && !Array.isArray(x) && Array.isArray(x.shape)) {
    const [rows, cols] = x.shape;
    if (
      x.shape.length !== 2 ||
      !Number.isInteger(rows) ||
      !Number.isInteger(cols) ||
      rows < 0 ||
      cols < 0
    )
      throw badInput(`${name}.shape must be [rows, cols], got ${JSON.stringify(x.shape)}`);
    if (!(x.data instanceof Float32Array) && !Array.isArray(x.data))
      throw badInput(`${name}.data must be a Float32Array or number[]`);
    if (x.data.length !== rows * cols)
      throw badInput(`${name}.data has ${x.data.length} values, shape needs ${rows * cols}`);
    return { shape: [rows, cols], data: Float32Array.from(x.data) };
  }
  if (!Array.isArray(x) || x.length === 0 || !Array.isArray(x[0]))
    throw badInput(`${name} must be a non-empty number[][] or a Tensor, got ${describe(x)}`);
  const rows = x.length,
    cols = x[0].length;
  const data = new Float32Array(rows * cols);
  x.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== cols)
      throw badInput(`${name}[${i}] must be an array of ${cols} numbers (rows of equal length)`);
    row.forEach((v, j) => {
      if (typeof v !== 'number') throw badInput(`${name}[${i}][${j}] must be a number`);
      data[i * cols + j] = v;
    });
  });
  return { shape: [rows, cols], data };
}

function toFlags(x, length, name) {
  if (!Array.isArray(x) || x.length !== length || x.some((b) => typeof b !== 'boolean'))
    throw badInput(`${name} must be ${length} booleans`);
  return Uint8Array.from(x, Number);
}

function intOr(value, fallback, name, lo) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < lo)
    throw badInput(`${name} must be an integer >= ${lo}, got ${describe(value)}`);
  return value;
}

/** MaskSpec -> {kind (a name of MaskKind), offset, window, keyPadding?, blocked?}. */
function toMask(mask, Lq, Lk) {
  if (mask === undefined) return { kind: 'none', offset: 0, window: 0 };
  checkObject(mask, 'inputs.mask');
  const out = {
    kind: mask.kind,
    offset: intOr(mask.offset, 0, 'mask.offset', -Lk - Lq),
    window: 0,
  };
  switch (mask.kind) {
    case 'none':
    case 'causal':
      break;
    case 'padding':
      if (mask.keyPadding === undefined) throw badInput('a padding mask needs keyPadding');
      break;
    case 'local':
      out.window = intOr(mask.window, undefined, 'mask.window', 0);
      if (out.window === undefined) throw badInput('a local mask needs window');
      break;
    case 'custom':
      if (!Array.isArray(mask.blocked) || mask.blocked.length !== Lq)
        throw badInput(`mask.blocked must be ${Lq} rows of ${Lk} booleans`);
      out.blocked = new Uint8Array(Lq * Lk);
      mask.blocked.forEach((row, i) =>
        out.blocked.set(toFlags(row, Lk, `mask.blocked[${i}]`), i * Lk),
      );
      break;
    default:
      throw badInput(
        `mask.kind must be none, causal, padding, local or custom, ` + `got ${describe(mask.kind)}`,
      );
  }
  if (mask.keyPadding !== undefined)
    out.keyPadding = toFlags(mask.keyPadding, Lk, 'mask.keyPadding');
  return out;
}

const SCORES = ['dot', 'scaled_dot', 'general', 'additive'];

function qkv(inputs) {
  checkObject(inputs, 'inputs');
  return [toMatrix(inputs.q, 'q'), toMatrix(inputs.k, 'k'), toMatrix(inputs.v, 'v')];
}

function checkSize(value, name, hi) {
  if (!Number.isInteger(value) || value < 0 || value > hi)
    throw badInput(`${name} must be an integer in 0..${hi}, got ${describe(value)}`);
}

/** The attention primitives of ops/ on small matrices; see heed.d.ts. */
export async function loadAttentionLab(options) {
  checkObject(options, 'options', true);
  const core = await getCore(options?.wasmUrl);
  const limits = core.limits();
  return Object.freeze({
    attention(inputs) {
      const [q, k, v] = qkv(inputs);
      checkLabMask(inputs.mask, limits);
      if (!SCORES.includes(inputs.score))
        throw badInput(`score must be one of ${SCORES.join(', ')}, got ${describe(inputs.score)}`);
      checkObject(inputs.params, 'inputs.params', true);
      const p = inputs.params ?? {};
      const params = {};
      if (p.w !== undefined) params.w = toMatrix(p.w, 'params.w');
      if (p.u !== undefined) params.u = toMatrix(p.u, 'params.u');
      if (p.v !== undefined) {
        if (!Array.isArray(p.v) || p.v.some((x) => typeof x !== 'number'))
          throw badInput('params.v must be a number[]');
        params.v = { shape: [p.v.length], data: Float32Array.from(p.v) };
      }
      const mask = toMask(inputs.mask, q.shape[0], k.shape[0]);
      mask.kind = core.MaskKind[mask.kind];
      return unwrap(core.attention(q, k, v, core.ScoreFunction[inputs.score], mask, params));
    },
    linearAttention(inputs) {
      const [q, k, v] = qkv(inputs);
      if (inputs.causal !== undefined && typeof inputs.causal !== 'boolean')
        throw badInput('causal must be a boolean');
      return unwrap(core.linearAttention(q, k, v, inputs.causal === true));
    },
    sinusoidalPositions(length, dModel) {
      checkSize(length, 'length', limits.labSize);
      checkSize(dModel, 'dModel', limits.labSize);
      return unwrap(core.sinusoidalPositions(length, dModel, false)).positions;
    },
    positionSimilarity(length, dModel) {
      checkSize(length, 'length', limits.labSize);
      checkSize(dModel, 'dModel', limits.labSize);
      return unwrap(core.sinusoidalPositions(length, dModel, true)).similarity;
    },
  });
}
