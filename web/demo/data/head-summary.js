// What one head does, in numbers a thumbnail can carry: entropy, weight on </s>, diagonal,
// previous-token and first-token patterns. Pure data, no DOM.

/**
 * Summary of an attention matrix m ({rows, cols, values, colLabels}, rows summing to 1),
 * every figure a mean over rows in 0..1:
 *  entropy   row entropy / log(cols): 0 = one key per row, 1 = uniform;
 *  eos       weight on </s> keys;
 *  diagonal  weight on the key at the row's own position (for cross-attention: the source
 *            position proportional to the step, ±1, a monotonic alignment);
 *  previous  weight on the key just before (decoder self: the previous input);
 *  first     weight on the first key.
 * `pattern` names the strongest of them when it takes at least half the weight, else
 * 'broad' (entropy ≥ 0.8) or 'mixed'.
 */
export function headSummary(m, { cross = false } = {}) {
  const { rows, cols, values, colLabels } = m;
  let entropy = 0,
    eos = 0,
    diagonal = 0,
    previous = 0,
    first = 0;
  const logK = Math.log(Math.max(2, cols));
  for (let i = 0; i < rows; i++) {
    const row = values.subarray(i * cols, (i + 1) * cols);
    let h = 0;
    for (let j = 0; j < cols; j++) {
      const p = row[j];
      if (p > 0) h -= p * Math.log(p);
      if (colLabels[j] === '</s>') eos += p;
    }
    entropy += h / logK;
    if (cross) {
      const c = Math.round((i * (cols - 1)) / Math.max(1, rows - 1));
      for (let j = Math.max(0, c - 1); j <= Math.min(cols - 1, c + 1); j++) diagonal += row[j];
    } else {
      if (i < cols) diagonal += row[i];
      if (i >= 1 && i - 1 < cols) previous += row[i - 1];
    }
    first += row[0];
  }
  const n = Math.max(1, rows);
  const s = {
    entropy: entropy / n,
    eos: eos / n,
    diagonal: diagonal / n,
    previous: previous / n,
    first: first / n,
  };
  const named = [
    ['</s>', s.eos],
    [cross ? 'monotonic' : 'diagonal', s.diagonal],
    ['previous', s.previous],
    ['first', s.first],
  ].sort((a, b) => b[1] - a[1]);
  s.pattern = named[0][1] >= 0.5 ? named[0][0] : s.entropy >= 0.8 ? 'broad' : 'mixed';
  s.strength = named[0][1];
  return s;
}

/** A short caption for a thumbnail: the pattern and its share, or the entropy. */
export function summaryCaption(s) {
  if (s.pattern === 'broad' || s.pattern === 'mixed') return `H ${s.entropy.toFixed(2)}`;
  const short = { diagonal: 'diag', monotonic: 'mono', previous: 'prev', first: 'first' };
  return `${short[s.pattern] ?? s.pattern} ${Math.round(s.strength * 100)}%`;
}

/** Every figure of a summary, for a tooltip or a screen reader. */
export function summaryText(s, { cross = false } = {}) {
  const pct = (x) => `${Math.round(x * 100)}%`;
  return (
    `entropy ${s.entropy.toFixed(2)} (0 = one key, 1 = uniform), on </s> ${pct(s.eos)}, ` +
    `${cross ? 'monotonic' : 'diagonal'} ${pct(s.diagonal)}` +
    `${cross ? '' : `, previous ${pct(s.previous)}`}, first ${pct(s.first)}`
  );
}
