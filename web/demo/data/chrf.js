// chrF between two strings (Popović 2015): character n-grams of orders 1..6 with whitespace
// removed, precision and recall averaged over the orders both strings have, then the F-score
// with β = 2 (recall weighted twice), on 0..100. The same definition as models/pipeline/metrics.py's
// corpus_chrf for one sentence pair. No DOM here.

/** Counts of the character n-grams of order n in the code-point array `chars`. */
function ngrams(chars, n) {
  const counts = new Map();
  for (let i = 0; i + n <= chars.length; i++) {
    const g = chars.slice(i, i + n).join('');
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

/**
 * chrF of `hypothesis` against `reference` in 0..100 (100 = identical up to whitespace).
 * Two empty strings score 100 (nothing differs); one empty string scores 0.
 */
export function chrf(hypothesis, reference, { order = 6, beta = 2 } = {}) {
  // why: code points, not UTF-16 units, so “é” or an emoji counts as one character
  const h = [...hypothesis.replace(/\s+/gu, '')];
  const r = [...reference.replace(/\s+/gu, '')];
  if (!h.length && !r.length) return 100;
  let precision = 0,
    recall = 0,
    orders = 0;
  for (let n = 1; n <= order; n++) {
    const hc = ngrams(h, n);
    const rc = ngrams(r, n);
    const nh = Math.max(0, h.length - n + 1);
    const nr = Math.max(0, r.length - n + 1);
    if (!nh || !nr) continue; // an order one side lacks is left out of the averages
    let match = 0;
    for (const [g, c] of hc) match += Math.min(c, rc.get(g) ?? 0);
    precision += match / nh;
    recall += match / nr;
    orders++;
  }
  if (!orders) return 0;
  precision /= orders;
  recall /= orders;
  if (precision + recall === 0) return 0;
  const b2 = beta * beta;
  return (100 * (1 + b2) * precision * recall) / (b2 * precision + recall);
}
