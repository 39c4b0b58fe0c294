// The forget gates of an SSRU decoder (Kim et al. 2019, "From Research to Production and Back:
// Ludicrously Fast Neural Machine Translation"), the cell Firefox's models use instead of the
// decoder's self-attention: f_t = σ(W_f x_t + b_f), c_t = f_t ⊙ c_{t−1} + (1 − f_t) ⊙ W x_t.
// As display matrices [step × dimension] from a trace or from step events. No DOM here.

import { matrix } from './attention-data.js';

/** Whether a result comes from an SSRU decoder (its trace has forget gates, nothing attends). */
export const isSsru = (result) => Boolean(result?.attention?.forget);

const dims = (D) => Array.from({ length: D }, (_, d) => `d${d + 1}`);

/** Decoder layer `layer`'s forget gates of a finished result, [T × D], rows the pieces written. */
export function forgetMatrix(result, layer) {
  const { shape, data } = result.attention.forget; // [L][T][D]
  const [, T, D] = shape;
  const values = data.slice(layer * T * D, (layer + 1) * T * D);
  return matrix(T, D, values, result.targetTokens.slice(0, T), dims(D));
}

/**
 * The same from the step events decoded so far (each `forget` [L][D]), rows labelled by
 * `targets`; null when the events carry no gates (not an SSRU decoder).
 */
export function liveForgetMatrix(events, layer, targets) {
  if (!events.length || !events[0].forget) return null;
  const D = events[0].forget.shape[1];
  const values = new Float32Array(events.length * D);
  events.forEach((e, t) => values.set(e.forget.data.subarray(layer * D, (layer + 1) * D), t * D));
  return matrix(events.length, D, values, targets, dims(D));
}

/** Each row's mean gate: how much of its past the cell keeps at that step, on average. */
export function meanGates(m) {
  const out = new Float32Array(m.rows);
  for (let i = 0; i < m.rows; i++) {
    let s = 0;
    for (let j = 0; j < m.cols; j++) s += m.values[i * m.cols + j];
    out[i] = s / Math.max(1, m.cols);
  }
  return out;
}
