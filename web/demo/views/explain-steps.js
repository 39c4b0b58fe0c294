// The nine steps of "Inside one head": each step's name, formula, explanation and the matrices
// it shows, drawn from one HeadExplanation (translator.explainHead()). No view state here: a
// step gets what it draws with from the view (`c`, below) and returns {text, views}.

import { fmt } from '../widgets/ui.js';
import { dims } from '../data/attention-data.js';

/** A [rows × cols] tensor as a matrix for a MatrixView, with labels. */
export function asMatrix(t, rowLabels, colLabels) {
  const [r, cols] = dims(t);
  return {
    rows: r,
    cols,
    values: t.data,
    rowLabels,
    colLabels: colLabels ?? Array.from({ length: cols }, (_, k) => String(k + 1)),
  };
}

/** Labels p1 … pn of n dimensions. */
const dimLabels = (n, p) => Array.from({ length: n }, (_, k) => `${p}${k + 1}`);

/** A [token × dimension] view with signed values. */
const vectors = (c, role, title, rowAxis, extra = {}) =>
  c.mv(role, { title, map: 'diverging', rowAxis, colAxis: 'dimension', ...extra });

/*
 * c: {ex, state, blocked, mv(role, opts), scores(role, title, opts), weights(role, title, opts)}
 * — the explanation, app.state, the mask (Uint8Array or null) and the view's MatrixView makers.
 */

function inputs(c) {
  const { ex } = c;
  const cross = c.state.block === 'cross';
  const views = [
    vectors(c, 'xq', cross ? 'Decoder states X_q' : 'Input X', 'token').set(
      asMatrix(ex.xq, ex.queryTokens, dimLabels(dims(ex.xq)[1], 'd')),
    ),
  ];
  if (cross)
    views.push(
      vectors(c, 'xkv', 'Encoder output X_kv', 'token').set(
        asMatrix(ex.xkv, ex.keyTokens, dimLabels(dims(ex.xkv)[1], 'd')),
      ),
    );
  const text = cross
    ? 'Cross-attention has two inputs: the decoder’s states (queries come from them) and the encoder’s output (keys and values come from it). Each row is one token’s vector of width D.'
    : 'The block’s input: one row per token, the token embedding plus its positional encoding after the previous layers and this block’s layer norm. Queries, keys and values are all made from it (self-attention).';
  return { text, views };
}

function projections(c) {
  const { ex } = c;
  const dk = ex.dk;
  return {
    text: `Three learned matrices project every input row to this head’s query, key and value vectors of width d_k = ${dk}. The query says what a token is looking for, the key what it offers, the value what it passes on.`,
    views: [
      vectors(c, 'q', 'Q (queries)', 'query').set(
        asMatrix(ex.q, ex.queryTokens, dimLabels(dk, 'q')),
      ),
      vectors(c, 'k', 'K (keys)', 'key').set(asMatrix(ex.k, ex.keyTokens, dimLabels(dk, 'k'))),
      vectors(c, 'v', 'V (values)', 'key').set(asMatrix(ex.v, ex.keyTokens, dimLabels(dk, 'v'))),
    ],
  };
}

function scores(c) {
  const { ex } = c;
  return {
    text: 'Each score is the dot product of one query with one key: large when they point the same way. This is multiplicative (dot-product) attention.',
    views: [
      c
        .scores('scores', 'Scores Q·Kᵀ', { follow: true })
        .set(asMatrix(ex.scores, ex.queryTokens, ex.keyTokens)),
    ],
  };
}

function scaled(c) {
  const { ex, blocked } = c;
  const qk = (t) => asMatrix(t, ex.queryTokens, ex.keyTokens);
  const views = [
    c
      .scores('scaled', 'Scaled scores Q·Kᵀ/√d_k', { follow: true })
      .set(qk(ex.scaled), { blocked: null }),
  ];
  if (c.state.unscaled)
    views.push(
      c
        .weights('w-scaled', 'softmax(Q·Kᵀ/√d_k)', { rowSums: true })
        .set(qk(ex.weights), { blocked }),
      c
        .weights('w-unscaled', 'softmax(Q·Kᵀ) — no scaling', { rowSums: true })
        .set(qk(ex.weightsUnscaled), { blocked }),
    );
  return {
    text:
      `Dividing by √d_k = √${ex.dk} = ${fmt(Math.sqrt(ex.dk), 3)} keeps the scores’ spread independent of d_k, so the softmax does not saturate into a near one-hot row. ` +
      (c.state.unscaled
        ? 'Below: the softmax with and without the scaling — without it, rows are sharper.'
        : 'Tick “compare” above to see the softmax without the scaling.'),
    views,
  };
}

function mask(c) {
  const { ex, blocked } = c;
  const qk = (t) => asMatrix(t, ex.queryTokens, ex.keyTokens);
  const n = blocked ? blocked.reduce((a, b) => a + b, 0) : 0;
  return {
    text:
      c.state.block === 'decoder'
        ? `Masked (causal) self-attention: a decoder position may not look at later positions, which do not exist yet when it is generated. The ${n} blocked scores are set to −∞, so the softmax gives them weight 0 — a lower-triangular matrix.`
        : 'Nothing is masked in this block: a single sentence has no padding, and the encoder (and cross-attention) may look at every source position. In a batch, padding positions would be set to −∞ here.',
    views: [
      c.weights('mask', 'Mask (1 = blocked)', { values: true }).set(qk(ex.mask)),
      c.scores('masked', 'Masked scaled scores', { follow: true }).set(qk(ex.scaled), { blocked }),
    ],
  };
}

function softmax(c) {
  const { ex, blocked } = c;
  const qk = (t) => asMatrix(t, ex.queryTokens, ex.keyTokens);
  const views = [
    c
      .weights('weights', 'Attention weights', { rowSums: true, follow: true })
      .set(qk(ex.weights), { blocked }),
  ];
  if (c.state.unscaled)
    views.push(
      c
        .weights('w-unscaled5', 'Without ÷√d_k', { rowSums: true })
        .set(qk(ex.weightsUnscaled), { blocked }),
    );
  return {
    text: 'The softmax turns each row of scores into weights between 0 and 1 that sum to 1 (see the Σ column): how much each query token takes from each key token.',
    views,
  };
}

function weightedSum(c) {
  const { ex, blocked } = c;
  return {
    text: 'Each output row is the weighted average of the value vectors, with the row’s attention weights: the token’s new representation, in context.',
    views: [
      c
        .weights('weights6', 'Weights W')
        .set(asMatrix(ex.weights, ex.queryTokens, ex.keyTokens), { blocked }),
      vectors(c, 'v6', 'Values V', 'key').set(asMatrix(ex.v, ex.keyTokens, dimLabels(ex.dk, 'v'))),
      vectors(c, 'out', 'This head’s output W·V', 'query', { follow: true }).set(
        asMatrix(ex.output, ex.queryTokens, dimLabels(ex.dk, 'o')),
      ),
    ],
  };
}

function concat(c) {
  const { ex } = c;
  const h = c.state.head;
  const dk = ex.dk;
  return {
    text: `Every head runs the same computation with its own W_Q, W_K, W_V; their outputs are laid side by side into one row of width D. This head fills columns ${h * dk + 1}–${(h + 1) * dk} (outlined).`,
    views: [
      vectors(c, 'concat', 'Concatenated heads', 'query', { maxCell: 12 }).set(
        asMatrix(ex.concat, ex.queryTokens, dimLabels(dims(ex.concat)[1], 'd')),
        { colBand: [h * dk, (h + 1) * dk] },
      ),
    ],
  };
}

function projection(c) {
  const { ex } = c;
  return {
    text: 'A last learned matrix W_O mixes the heads’ outputs back into the model width D. The result is added to the block’s input (residual connection) and goes on to the feed-forward layer.',
    views: [
      vectors(c, 'proj', 'Output projection Concat·W_O', 'query', { maxCell: 12 }).set(
        asMatrix(ex.projected, ex.queryTokens, dimLabels(dims(ex.projected)[1], 'd')),
      ),
    ],
  };
}

export const STEPS = [
  { name: 'Inputs', formula: 'X (after layer norm)', draw: inputs },
  { name: 'Q, K, V', formula: 'Q = X·W_Q,  K = X·W_K,  V = X·W_V', draw: projections },
  { name: 'Scores QKᵀ', formula: 'S = Q·Kᵀ', draw: scores },
  { name: '÷ √d_k', formula: 'S′ = Q·Kᵀ / √d_k', draw: scaled },
  { name: 'Mask', formula: 'S′ᵢⱼ = −∞ where blocked', draw: mask },
  { name: 'Softmax', formula: 'Wᵢⱼ = exp(S′ᵢⱼ) / Σₖ exp(S′ᵢₖ)', draw: softmax },
  { name: 'Weighted sum of V', formula: 'headₕ = W·V', draw: weightedSum },
  { name: 'Concatenate heads', formula: 'Concat(head₁, …, head_H)', draw: concat },
  { name: 'Output projection', formula: 'MultiHead = Concat(…)·W_O', draw: projection },
];
