// The hypotheses of a beam search trace (attention.beam) as paths: the nodes a hypothesis went
// through, the target ids that re-decode it with forcedPrefix, and how its cross-attention row
// differs from the winner's. Pure functions, no DOM.

/** Node indices of the hypothesis ending at node k of step `step`, from step 0 to it. */
export function hypothesisPath(beam, step, k) {
  const path = [];
  for (let s = step, j = k; s >= 0 && j >= 0; s--) {
    path.unshift(j);
    j = beam[s][j].parent;
  }
  return path;
}

/**
 * The forcedPrefix that re-decodes that hypothesis: its pieces' ids from step 0 to `step`
 * (`</s>` last only when the hypothesis ended there), and its pieces.
 */
export function hypothesisIds(beam, step, k) {
  const nodes = hypothesisPath(beam, step, k).map((j, s) => beam[s][j]);
  return { ids: nodes.map((n) => n.token), pieces: nodes.map((n) => n.piece) };
}

/**
 * How two attention rows over the same keys differ: the total variation distance ½·Σ|a − b|
 * and the key where they differ most.
 */
export function rowGap(a, b) {
  let tv = 0,
    at = 0;
  for (let j = 0; j < a.length; j++) {
    const d = Math.abs(a[j] - b[j]);
    tv += d / 2;
    if (d > Math.abs(a[at] - b[at])) at = j;
  }
  return { tv, at };
}

/** The cache key of a beam node for one result: "resultId/step/k". */
export const nodeKey = (resultId, step, k) => `${resultId}/${step}/${k}`;
