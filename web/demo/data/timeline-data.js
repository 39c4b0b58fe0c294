// What the decoding timeline draws at each step, from the finished trace or from the step
// events of a translation still decoding: both attention matrices of one head (an SSRU decoder:
// cross-attention and the layer's forget gates), the pieces, the steps (with their top
// candidates) and the probabilities. No DOM here.

import { headMatrix, decoderInputs, sliceHead } from './attention-data.js';
import { isSsru, forgetMatrix, liveForgetMatrix } from './ssru-data.js';

/** One head's row of a step event's [L][H][n] tensor, or the mean over heads ('avg'). */
function rowOf(tensor, layer, head) {
  const [, H, n] = tensor.shape;
  return sliceHead({ shape: [tensor.shape[0], H, 1, n], data: tensor.data }, layer, head);
}

/** The timeline's data of a finished result's trace. */
export function traceData(r, layer, head) {
  const ssru = isSsru(r);
  return {
    cross: headMatrix(r, 'cross', layer, head),
    self: ssru ? null : headMatrix(r, 'decoder', layer, head),
    forget: ssru ? forgetMatrix(r, layer) : null,
    targets: r.targetTokens,
    steps: r.attention.steps,
    probs: r.tokenProbs,
  };
}

/**
 * The timeline's data of the step events decoded so far (`live`: {events, sourceTokens}); null
 * before the first. Source labels are numbers until the events name the source pieces.
 */
export function liveData(live, layer, head) {
  if (!live?.events.length) return null;
  const evs = live.events;
  const T = evs.length;
  const S = evs[0].cross.shape[2];
  const targets = evs[T - 1].tokens.slice(0, T);
  const crossVals = new Float32Array(T * S);
  const selfVals = new Float32Array(T * T);
  evs.forEach((ev, t) => {
    const c = rowOf(ev.cross, layer, head);
    crossVals.set(c.subarray(0, S), t * S);
    const d = rowOf(ev.decoderSelf, layer, head);
    selfVals.set(d.subarray(0, Math.min(T, d.length)), t * T);
  });
  const src =
    live.sourceTokens?.length === S
      ? live.sourceTokens
      : Array.from({ length: S }, (_, j) => `#${j + 1}`);
  const forget = liveForgetMatrix(evs, layer, targets);
  return {
    cross: { rows: T, cols: S, values: crossVals, rowLabels: targets, colLabels: src },
    self: forget
      ? null
      : {
          rows: T,
          cols: T,
          values: selfVals,
          rowLabels: targets,
          colLabels: decoderInputs(targets),
        },
    forget,
    targets,
    steps: evs,
    probs: evs.map((e) => e.prob),
    live: true,
  };
}
