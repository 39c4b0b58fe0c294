// Attention beside what mattered, as numbers: the source sentence's words and the text with one
// of them dropped, a cross-attention row summed per word, the norm-weighted row α·‖f(x)‖ of
// Kobayashi et al. 2020, the probability drops of a rescored output, Spearman's rank
// correlation, and the sentence saying where the three agree. Pure functions, no DOM.

import { wordGroups, isSpecial } from './attention-data.js';

/** The whitespace-separated words of a source text. */
export function sourceWords(text) {
  return text.split(/\s+/).filter(Boolean);
}

/** The text with word k left out (the others joined by one space). */
export function withoutWord(words, k) {
  return words.filter((_, i) => i !== k).join(' ');
}

/**
 * Which word each source piece belongs to: a piece starting with "▁" starts a word, as in
 * wordGroups; special tokens (</s>) belong to none (-1). Returns {wordOf, labels}.
 */
export function pieceWords(tokens) {
  const wordOf = new Array(tokens.length).fill(-1);
  const labels = [];
  for (const g of wordGroups(tokens)) {
    if (g.members.some((i) => isSpecial(tokens[i]))) continue;
    for (const i of g.members) wordOf[i] = labels.length;
    labels.push(g.label);
  }
  return { wordOf, labels };
}

/** A row over pieces summed per word: {words: number[n], special: the specials' share}. */
export function perWord(row, wordOf, n) {
  const words = new Array(n).fill(0);
  let special = 0;
  row.forEach((v, j) => {
    if (wordOf[j] < 0) special += v;
    else words[wordOf[j]] += v;
  });
  return { words, special };
}

/**
 * The norm-weighted row (Kobayashi et al. 2020, §3): α_j·‖f(x_j)‖ per key, renormalised to
 * sum to 1 over the row, so it reads on the same scale as the weights α.
 */
export function normWeighted(row, norms) {
  const w = Array.from(row, (a, j) => a * norms[j]);
  const sum = w.reduce((s, x) => s + x, 0);
  return w.map((x) => (sum > 0 ? x / sum : 0));
}

/** Row t of a [L][H][T][S] tensor for one head, or the mean over the layer's heads ('avg'). */
export function attentionRow(tensor, layer, head, t) {
  const [, H, T, S] = tensor.shape;
  const heads = head === 'avg' ? [...Array(H).keys()] : [head];
  const out = new Array(S).fill(0);
  for (const h of heads) {
    const base = ((layer * H + h) * T + t) * S;
    for (let j = 0; j < S; j++) out[j] += tensor.data[base + j] / heads.length;
  }
  return out;
}

/** How much piece t's probability falls when each word is dropped: base[t] − dropped[k][t]. */
export function probDrops(base, dropped, t) {
  return dropped.map((probs) => base[t] - probs[t]);
}

/** Ranks 1..n, ties sharing their mean rank. */
function ranks(xs) {
  const order = [...xs.keys()].sort((a, b) => xs[a] - xs[b]);
  const r = new Array(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && xs[order[j + 1]] === xs[order[i]]) j++;
    for (let k = i; k <= j; k++) r[order[k]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

/** Spearman's rank correlation of a and b (NaN under two items or when one is constant). */
export function spearman(a, b) {
  if (a.length < 2) return NaN;
  const ra = ranks(a),
    rb = ranks(b);
  const mean = (ra.length + 1) / 2;
  let num = 0,
    da = 0,
    db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i] - mean) * (rb[i] - mean);
    da += (ra[i] - mean) ** 2;
    db += (rb[i] - mean) ** 2;
  }
  return da && db ? num / Math.sqrt(da * db) : NaN;
}

const argmax = (xs) => xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);
const fixed = (x) => (Number.isNaN(x) ? 'undefined' : x.toFixed(2));

/**
 * Where the three measures agree: their top words and the rank correlations of attention and
 * of the norm-weighted attention with the drop. `m` = {attn, norm, drop} (one value per word).
 */
export function agreement(words, { attn, norm, drop }) {
  const top = { attn: argmax(attn), norm: argmax(norm), drop: argmax(drop) };
  return {
    top,
    rhoAttn: spearman(attn, drop),
    rhoNorm: spearman(norm, drop),
    rhoAttnNorm: spearman(attn, norm),
    same: top.attn === top.drop && top.norm === top.drop,
  };
}

/** One sentence saying where raw attention, norm-weighted attention and removal agree. */
export function agreementText(words, m) {
  const a = agreement(words, m);
  const w = (k) => `“${words[k]}”`;
  const hurts =
    m.drop[a.top.drop] > 0
      ? `removing ${w(a.top.drop)} hurts it most`
      : 'removing no single word lowers it';
  const tops =
    a.same && m.drop[a.top.drop] > 0
      ? `All three agree: attention's top word ${w(a.top.attn)} is also the one whose removal hurts this piece most`
      : `Attention's top word is ${w(a.top.attn)}, weighted by value norms ${w(a.top.norm)}; ${hurts}`;
  return (
    `${tops}. Rank correlation with the drop over the ${words.length} words ` +
    `(Spearman): raw attention ${fixed(a.rhoAttn)}, norm-weighted ${fixed(a.rhoNorm)}.`
  );
}
