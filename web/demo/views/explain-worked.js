// The worked cell under each step of "Inside one head": the followed query's numbers at that
// step written out (a dot product, the scaling, the mask, the softmax, the weighted sum, …).
// Text only, from one HeadExplanation; no DOM here.

import { fmt } from '../widgets/ui.js';
import { dims } from '../data/attention-data.js';

/** Row i of a [rows × cols] tensor. */
const row = (t, i) => t.data.subarray(i * dims(t)[1], (i + 1) * dims(t)[1]);

/** The first three products of a dot product, and how many terms it has. */
function terms(a, b) {
  const parts = [];
  for (let d = 0; d < Math.min(3, a.length); d++) parts.push(`(${fmt(a[d], 2)}×${fmt(b[d], 2)})`);
  return parts.join(' + ') + (a.length > 3 ? ` + … (${a.length} terms)` : '');
}

/** The softmax of query row qi's key j written out, with the row's sum. */
function softmaxCell(ex, qi, j, names) {
  const Lk = dims(ex.scores)[1];
  const w = row(ex.weights, qi);
  const sr = row(ex.scaled, qi);
  const mr = row(ex.mask, qi);
  let m = -Infinity;
  let z = 0;
  for (let c = 0; c < Lk; c++) if (mr[c] < 0.5) m = Math.max(m, sr[c]);
  for (let c = 0; c < Lk; c++) if (mr[c] < 0.5) z += Math.exp(sr[c] - m);
  if (mr[j] > 0.5) return `w(${names}) = 0 (masked)`;
  const scl = sr[j];
  const sum = fmt(
    w.reduce((a, b) => a + b, 0),
    4,
  );
  return `w(${names}) = exp(${fmt(scl, 3)} − max ${fmt(m, 3)}) / Σₖ exp(s′ₖ − max)\n= ${fmt(Math.exp(scl - m), 4)} / ${fmt(z, 4)} = ${fmt(w[j], 4)}\nrow ${qi + 1} sums to ${sum}`;
}

/**
 * The worked text of step `s` for query row `qi` and key column `kj` (-1: the key the row
 * weighs most); `head` numbers the head among the concatenated ones.
 */
export function workedText(ex, s, qi, kj, head) {
  const Lk = dims(ex.scores)[1];
  const w = row(ex.weights, qi);
  const j = kj >= 0 && kj < Lk ? kj : [...w.keys()].reduce((a, b) => (w[b] > w[a] ? b : a), 0);
  const qt = ex.queryTokens[qi];
  const kt = ex.keyTokens[j];
  const q = row(ex.q, qi);
  const sc = row(ex.scores, qi)[j];
  const scl = row(ex.scaled, qi)[j];
  const blockedCell = row(ex.mask, qi)[j] > 0.5;
  if (s <= 1)
    return `Follow the query “${qt}” (row ${qi + 1}). Its query vector q has ${q.length} numbers: ${Array.from(q.subarray(0, 4), (x) => fmt(x, 2)).join(', ')}${q.length > 4 ? ', …' : ''}`;
  if (s === 2)
    return `score(“${qt}” → “${kt}”) = q·k = ${terms(q, row(ex.k, j))}\n                      = ${fmt(sc, 4)}`;
  if (s === 3)
    return `scaled = ${fmt(sc, 4)} / √${ex.dk} = ${fmt(sc, 4)} / ${fmt(Math.sqrt(ex.dk), 3)} = ${fmt(scl, 4)}`;
  if (s === 4)
    return blockedCell
      ? `“${qt}” → “${kt}” is blocked: key position ${j + 1} comes after query position ${qi + 1}, so the score becomes −∞.`
      : `“${qt}” → “${kt}” is allowed: the score stays ${fmt(scl, 4)}.`;
  if (s === 5) return softmaxCell(ex, qi, j, `“${qt}” → “${kt}”`);
  if (s === 6) {
    const vcol = (c) => ex.v.data[c * dims(ex.v)[1]];
    const top = [...w.keys()].sort((a, b) => w[b] - w[a]).slice(0, 3);
    return `output(“${qt}”)[1] = Σⱼ wⱼ·vⱼ[1] = ${top.map((c) => `${fmt(w[c], 3)}×${fmt(vcol(c), 3)}`).join(' + ')} + …\n= ${fmt(row(ex.output, qi)[0], 4)}`;
  }
  if (s === 7)
    return `Row “${qt}”: columns ${head * ex.dk + 1}–${(head + 1) * ex.dk} hold this head’s output; the other columns come from the other heads.`;
  return `Row “${qt}” after W_O: ${Array.from(row(ex.projected, qi).subarray(0, 4), (x) => fmt(x, 3)).join(', ')}, …`;
}
