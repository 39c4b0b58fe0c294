// Pure data helpers for the attention views: slice a trace into one matrix, average heads,
// roll attention out across encoder layers, hide special tokens (renormalising rows), merge
// SentencePiece pieces into words. No DOM here.

/** A matrix for display: row-major values with row/column labels. */
export function matrix(rows, cols, values, rowLabels, colLabels) {
  return { rows, cols, values, rowLabels, colLabels };
}

const SPECIALS = new Set(['</s>', '<s>', '<pad>']);
export const isSpecial = (token) => SPECIALS.has(token);

/** Decoder inputs: the start token, then every emitted token but the last. */
export function decoderInputs(targetTokens) {
  return ['<s>', ...targetTokens.slice(0, Math.max(0, targetTokens.length - 1))];
}

/** Tensor [L][H][Q][K] -> Float32Array [Q*K] of one head, or the mean over heads ('avg'). */
export function sliceHead(tensor, layer, head) {
  const [, H, Q, K] = tensor.shape;
  const size = Q * K;
  if (head !== 'avg')
    return tensor.data.slice((layer * H + head) * size, (layer * H + head + 1) * size);
  const out = new Float32Array(size);
  for (let h = 0; h < H; h++) {
    const base = (layer * H + h) * size;
    for (let i = 0; i < size; i++) out[i] += tensor.data[base + i] / H;
  }
  return out;
}

/**
 * Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3)
 * of encoder self-attention [L][H][S][S] through layers 0..upTo: each layer's head average
 * with the residual added, Ã = ½A + ½I (rows still sum to 1), then R = Ã_upTo · … · Ã_0.
 * Row i says how much each input position flows into position i after those layers.
 */
export function rollout(tensor, upTo) {
  const [, , S] = tensor.shape;
  let r = new Float32Array(S * S);
  for (let i = 0; i < S; i++) r[i * S + i] = 1;
  for (let l = 0; l <= upTo; l++) {
    const a = sliceHead(tensor, l, 'avg');
    for (let i = 0; i < S; i++) {
      a[i * S + i] += 1;
      for (let j = 0; j < S; j++) a[i * S + j] *= 0.5;
    }
    const next = new Float32Array(S * S);
    for (let i = 0; i < S; i++)
      for (let k = 0; k < S; k++) {
        const w = a[i * S + k];
        if (w) for (let j = 0; j < S; j++) next[i * S + j] += w * r[k * S + j];
      }
    r = next;
  }
  return r;
}

/** The tensor and labels of one attention block of a finished result. */
export function blockInfo(result, block) {
  const a = result.attention;
  if (block === 'encoder')
    return {
      tensor: a.encoderSelf,
      rowLabels: result.sourceTokens,
      colLabels: result.sourceTokens,
    };
  // why: decoder rows are labelled by the piece each step produced (as in the trace and
  // explainHead's queryTokens); its keys by the piece each position consumed.
  if (block === 'decoder')
    return {
      tensor: a.decoderSelf,
      rowLabels: result.targetTokens,
      colLabels: decoderInputs(result.targetTokens),
    };
  return { tensor: a.cross, rowLabels: result.targetTokens, colLabels: result.sourceTokens };
}

/**
 * One head (or 'avg', the head average) of one block as a display matrix; 'rollout' is the
 * encoder's attention rollout through layers 0..layer (the head average elsewhere).
 */
export function headMatrix(result, block, layer, head) {
  const { tensor, rowLabels, colLabels } = blockInfo(result, block);
  const [, , Q, K] = tensor.shape;
  const values =
    head === 'rollout'
      ? block === 'encoder'
        ? rollout(tensor, layer)
        : sliceHead(tensor, layer, 'avg')
      : sliceHead(tensor, layer, head);
  return matrix(Q, K, values, rowLabels.slice(0, Q), colLabels.slice(0, K));
}

/**
 * Removes special-token rows and columns and renormalises each remaining row to sum to 1
 * (a row whose kept weights sum to 0 stays 0). Returns the matrix and what was hidden.
 */
export function hideSpecials(m) {
  const keepR = [],
    keepC = [];
  m.rowLabels.forEach((t, i) => {
    if (!isSpecial(t)) keepR.push(i);
  });
  m.colLabels.forEach((t, j) => {
    if (!isSpecial(t)) keepC.push(j);
  });
  const hidden = [...new Set([...m.rowLabels, ...m.colLabels].filter(isSpecial))];
  const out = new Float32Array(keepR.length * keepC.length);
  keepR.forEach((i, r) => {
    let sum = 0;
    for (const j of keepC) sum += m.values[i * m.cols + j];
    keepC.forEach((j, c) => {
      out[r * keepC.length + c] = sum > 0 ? m.values[i * m.cols + j] / sum : 0;
    });
  });
  return {
    matrix: matrix(
      keepR.length,
      keepC.length,
      out,
      keepR.map((i) => m.rowLabels[i]),
      keepC.map((j) => m.colLabels[j]),
    ),
    hidden,
    rowIndex: keepR,
    colIndex: keepC,
  };
}

/** Groups pieces into words: a piece starting with "▁" (or a special token) starts a word. */
export function wordGroups(tokens) {
  const groups = [];
  tokens.forEach((t, i) => {
    const starts =
      groups.length === 0 || t.startsWith('▁') || isSpecial(t) || isSpecial(tokens[i - 1]);
    if (starts) groups.push({ label: '', members: [] });
    const g = groups[groups.length - 1];
    g.members.push(i);
    g.label += t.replace(/^▁/, '');
  });
  for (const g of groups) if (g.label === '') g.label = '▁';
  return groups;
}

/**
 * Merges pieces into words: weights are summed over the key pieces of a word and averaged over
 * its query pieces, so rows still sum to what they summed to before.
 */
export function mergeWords(m) {
  const rg = wordGroups(m.rowLabels),
    cg = wordGroups(m.colLabels);
  const out = new Float32Array(rg.length * cg.length);
  rg.forEach((r, a) => {
    cg.forEach((c, b) => {
      let s = 0;
      for (const i of r.members) for (const j of c.members) s += m.values[i * m.cols + j];
      out[a * cg.length + b] = s / r.members.length;
    });
  });
  return {
    matrix: matrix(
      rg.length,
      cg.length,
      out,
      rg.map((g) => g.label),
      cg.map((g) => g.label),
    ),
    rowGroups: rg,
    colGroups: cg,
  };
}

/**
 * Applies the display options in a fixed order (hide specials, then merge words) and returns
 * the matrix and human-readable notes saying what was done.
 */
export function prepare(m, { hide = false, merge = false, blocked = null } = {}) {
  const notes = [];
  let cur = m;
  // which raw rows / columns each displayed row / column stands for
  let rowsOf = Array.from({ length: m.rows }, (_, i) => [i]);
  let colsOf = Array.from({ length: m.cols }, (_, j) => [j]);
  if (hide) {
    const h = hideSpecials(cur);
    if (h.hidden.length) {
      notes.push(
        `Hidden special tokens ${h.hidden.join(', ')}; each row renormalised to sum to 1.`,
      );
      cur = h.matrix;
      rowsOf = h.rowIndex.map((i) => rowsOf[i]);
      colsOf = h.colIndex.map((j) => colsOf[j]);
    }
  }
  if (merge) {
    const before = [cur.rows, cur.cols];
    const w = mergeWords(cur);
    cur = w.matrix;
    rowsOf = w.rowGroups.map((g) => g.members.flatMap((i) => rowsOf[i]));
    colsOf = w.colGroups.map((g) => g.members.flatMap((j) => colsOf[j]));
    if (cur.rows !== before[0] || cur.cols !== before[1]) {
      notes.push(
        `Merged subword pieces into words (${before[0]}×${before[1]} pieces → ${cur.rows}×${cur.cols} words): ` +
          'weights summed over the key pieces of a word, averaged over its query pieces.',
      );
    }
  }
  // a displayed cell is masked when every raw cell behind it is masked
  let outBlocked = null;
  if (blocked) {
    outBlocked = new Uint8Array(cur.rows * cur.cols);
    rowsOf.forEach((rs, a) =>
      colsOf.forEach((cs, b) => {
        outBlocked[a * cur.cols + b] = rs.every((i) => cs.every((j) => blocked[i * m.cols + j]))
          ? 1
          : 0;
      }),
    );
  }
  return { matrix: cur, notes, blocked: outBlocked };
}

/** The causal mask of a [T][T] decoder self-attention matrix: 1 where key j > query i. */
export function causalMask(rows, cols) {
  const b = new Uint8Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = i + 1; j < cols; j++) b[i * cols + j] = 1;
  return b;
}

/** Text of a piece sequence, for tooltips and summaries ("▁le ▁chat" -> "le chat"). */
export function showPiece(t) {
  return t.startsWith('▁') ? t.slice(1) || '▁' : t;
}

/** Row-major Float32Array -> array of row arrays (for JSON export). */
export function toRows(values, rows, cols) {
  return Array.from({ length: rows }, (_, i) =>
    Array.from(values.subarray(i * cols, (i + 1) * cols)),
  );
}

/** Tensor [n][m] (or [n]) -> rows, cols. */
export function dims(t) {
  return t.shape.length === 1 ? [1, t.shape[0]] : [t.shape[0], t.shape[1]];
}
