// Pure data helpers of the Surgery view: the piece diff of two translations, the ablation list
// in the URL, the ranking of heads, and the shuffled-source check (a seeded word shuffle, the
// piece permutation it implies, and how far the shuffled run's encoder attention is from the
// original's re-ordered), and what a surgery run sends (its text and interventions). No DOM and
// no engine calls here.

import { blockShape } from './blocks.js';

const BLOCK_LETTERS = { encoder: 'e', decoder: 'd', cross: 'c' };
const LETTER_BLOCKS = { e: 'encoder', d: 'decoder', c: 'cross' };

/** [{block, layer, head}] as "e0.1_c1.2" (block letter, layer, head; 0-based), for the URL. */
export function formatAblate(list) {
  return list.map((a) => `${BLOCK_LETTERS[a.block]}${a.layer}.${a.head}`).join('_');
}

/** The inverse of formatAblate; bad or repeated items are dropped, at most 64 kept. */
export function parseAblate(text) {
  const out = [];
  const seen = new Set();
  for (const part of String(text ?? '').split('_')) {
    const m = part.match(/^([edc])(\d{1,2})\.(\d{1,2})$/);
    if (!m || seen.has(part)) continue;
    seen.add(part);
    out.push({ block: LETTER_BLOCKS[m[1]], layer: Number(m[2]), head: Number(m[3]) });
    if (out.length === 64) break;
  }
  return out;
}

/** Whether `list` holds block/layer/head. */
export function hasHead(list, block, layer, head) {
  return list.some((a) => a.block === block && a.layer === layer && a.head === head);
}

/** `list` with block/layer/head added, or removed when it was there (a new array). */
export function toggleHead(list, block, layer, head) {
  return hasHead(list, block, layer, head)
    ? list.filter((a) => !(a.block === block && a.layer === layer && a.head === head))
    : [...list, { block, layer, head }];
}

/**
 * Longest-common-subsequence diff of two piece lists: for each side, whether each piece is
 * shared with the other side (same: true) or changed. O(|a|·|b|), fine for sentences.
 */
export function pieceDiff(a, b) {
  const n = a.length,
    m = b.length;
  const L = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const sameA = new Array(n).fill(false);
  const sameB = new Array(m).fill(false);
  for (let i = 0, j = 0; i < n && j < m;) {
    if (a[i] === b[j]) {
      sameA[i++] = true;
      sameB[j++] = true;
    } else if (L[i + 1][j] >= L[i][j + 1]) i++;
    else j++;
  }
  return { a: sameA, b: sameB, common: L[0][0] };
}

/** A small seeded generator (mulberry32), so a shuffle can be shared by its seed. */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The text's whitespace-separated words in a seeded random order (Fisher–Yates), never the
 * original order when the words allow another. Returns {text, words, order}: order[k] is the
 * index of the original word now at place k.
 */
export function shuffleWords(text, seed) {
  const words = text.trim().split(/\s+/u).filter(Boolean);
  const order = words.map((_, i) => i);
  const next = rng(seed);
  const distinct = new Set(words).size > 1;
  for (let attempt = 0; attempt < 20; attempt++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    if (!distinct || order.some((o, k) => words[o] !== words[k])) break;
  }
  return { text: order.map((o) => words[o]).join(' '), words, order };
}

/** Pieces grouped into words: a piece starting with ▁ opens a word; </s> and friends stand alone. */
export function pieceWords(pieces) {
  const groups = [];
  pieces.forEach((p, i) => {
    const special = /^<\/?[a-z0-9_]*>$/i.test(p);
    if (special || p.startsWith('▁') || !groups.length || groups[groups.length - 1].special)
      groups.push({ start: i, pieces: [p], special });
    else groups[groups.length - 1].pieces.push(p);
  });
  return groups;
}

/**
 * The piece permutation implied by a word shuffle: p[i] is the original piece that shuffled
 * piece i is a copy of; null when the shuffled text did not cut into the same pieces per word
 * (then the two runs cannot be compared piece by piece).
 */
export function piecePermutation(originalPieces, shuffledPieces, order) {
  if (originalPieces.length !== shuffledPieces.length) return null;
  const ow = pieceWords(originalPieces).filter((w) => !w.special);
  const sw = pieceWords(shuffledPieces).filter((w) => !w.special);
  if (ow.length !== order.length || sw.length !== order.length) return null;
  const p = new Array(shuffledPieces.length).fill(-1);
  for (let k = 0; k < order.length; k++) {
    const from = ow[order[k]],
      to = sw[k];
    if (from.pieces.join(' ') !== to.pieces.join(' ')) return null;
    for (let q = 0; q < to.pieces.length; q++) p[to.start + q] = from.start + q;
  }
  // the special pieces (</s>) keep their place
  for (let i = 0; i < p.length; i++) {
    if (p[i] !== -1) continue;
    if (originalPieces[i] !== shuffledPieces[i]) return null;
    p[i] = i;
  }
  return p;
}

/**
 * Max |shuffled[l][h][i][j] − original[l][h][p[i]][p[j]]| over every layer and head of two
 * [L][H][S][S] tensors: 0 when the shuffled run's attention is the original's, permuted.
 */
export function permutedMaxDiff(original, shuffled, p) {
  const [L, H, S] = original.shape;
  let worst = 0;
  for (let lh = 0; lh < L * H; lh++) {
    const base = lh * S * S;
    for (let i = 0; i < S; i++)
      for (let j = 0; j < S; j++) {
        const d = Math.abs(shuffled.data[base + i * S + j] - original.data[base + p[i] * S + p[j]]);
        if (d > worst) worst = d;
      }
  }
  return worst;
}

/** A shuffled run's S×S matrix put back into the original order: back[p[i]][p[j]] = m[i][j]. */
export function unpermute(values, S, p) {
  const back = new Float32Array(S * S);
  for (let i = 0; i < S; i++) for (let j = 0; j < S; j++) back[p[i] * S + p[j]] = values[i * S + j];
  return back;
}

/** Element-wise |a − b| of two equal-length arrays, and its maximum. */
export function absDiff(a, b) {
  const out = new Float32Array(a.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    out[i] = Math.abs(a[i] - b[i]);
    if (out[i] > max) max = out[i];
  }
  return { values: out, max };
}

/** Mean of the token probabilities of a result (its average confidence), 0 when empty. */
export function meanConfidence(result) {
  const p = result?.tokenProbs ?? [];
  return p.length ? p.reduce((s, x) => s + x, 0) / p.length : 0;
}

/** Sum of the logs of some probabilities (the log-probability of a sequence of choices). */
export function logProb(probs) {
  let sum = 0;
  for (const p of probs) sum += Math.log(Math.max(p, 1e-30));
  return sum;
}

/**
 * Heads ranked by how much ablating each changed the output: the chrF drop against the
 * unmodified output first; ties (within 1e-9) go to the larger change of the unmodified
 * output's log-probability under the ablation (`logProbChange`). Rows: {block, layer, head,
 * drop, logProbChange, ...}; returns a new, sorted array.
 */
export function rankHeads(rows) {
  const tie = (r) => Math.abs(r.logProbChange);
  return [...rows].sort((x, y) => {
    const d = y.drop - x.drop;
    return Math.abs(d) > 1e-9 ? d : tie(y) - tie(x);
  });
}

/**
 * What the Surgery view re-translates so that its runs line up with the one shown: the shown
 * sentence's source (`result.source`; a one-sentence text's result names it in its one sentence)
 * and `forced`, the pieces a "what if" run forced (result.whatIf), for runs that force them too.
 */
export function surgeryInput(result, resultText) {
  const sentence =
    result?.source ?? (result?.sentences?.length === 1 ? result.sentences[0].source : null);
  const forced = result?.whatIf ? result.targetIds.slice(0, result.whatIf.step + 1) : [];
  return { text: sentence ?? resultText, forced };
}

/**
 * options.interventions for the state's surgery (only the fields that differ from none); an
 * ablated head the result's model lacks is left out.
 */
export function interventionsOf(s, result) {
  const iv = {};
  const ablate = parseAblate(s.ablate)
    .filter((a) => {
      const { layers, heads } = blockShape(result, a.block);
      return a.layer < layers && a.head < heads;
    })
    .map((a) => ({ ...a, mean: s.amean }));
  if (ablate.length) iv.ablate = ablate;
  if (s.temp !== 1) iv.temperature = s.temp;
  if (s.win >= 0) iv.window = s.win;
  if (s.nopos) iv.noPositions = true;
  if (s.sparse) iv.sparse = { enabled: true, randomBlocks: s.rblocks, block: 4, seed: 1 };
  if (s.lin !== 'none') iv.linear = { kind: s.lin, features: s.feat, seed: 1 };
  return iv;
}
