// Attention that flags its own failures: after decoding, source words that received almost no
// cross-attention over the whole output ("probably untranslated") and runs of target steps that
// kept looking at one source piece or at </s> ("probably invented"), each with the steps that
// show it. Heuristics over the trace the engine returned; pure functions, no DOM.

/**
 * Cross-attention of the last decoder layer, averaged over its heads: T rows of S weights.
 * why: on the shipped models the last layer's heads align most sharply (its argmax follows
 * the source word being translated); the lower layers spread their weight.
 */
export function lastLayerCross(result) {
  const { shape, data } = result.attention.cross; // [L, H, T, S]
  const [L, H, T, S] = shape;
  const out = new Float32Array(T * S);
  const at = (L - 1) * H * T * S;
  for (let h = 0; h < H; h++)
    for (let i = 0; i < T * S; i++) out[i] += data[at + h * T * S + i] / H;
  return { T, S, values: out };
}

/**
 * Source words as piece ranges {from, to, text}: a word starts at a "▁" piece; pieces of
 * punctuation only, </s> and words of fewer than three letters (mostly function words, which
 * a translation often drops rightly) are left out.
 */
export function sourceWords(pieces) {
  const words = [];
  let open = false;
  pieces.forEach((p, j) => {
    const bare = p.replace(/^▁/, '');
    if (p === '</s>' || /^[\p{P}\p{S}]*$/u.test(bare)) {
      open = false;
      return;
    }
    if (p.startsWith('▁') || !open) words.push({ from: j, to: j, text: bare });
    else {
      words.at(-1).to = j;
      words.at(-1).text += bare;
    }
    open = true;
  });
  return words.filter((w) => (w.text.match(/\p{L}/gu) ?? []).length >= 3);
}

// why: an even share gives each source piece 1/S of every step's attention; a word that over
// the whole output got under a fifth of its even share was hardly looked at
const UNTRANSLATED = 0.3;
// why: three steps in a row that give one source piece (or </s>) the largest share, a third
// or more of their weight: the decoder writes on without moving through the source
const STUCK_RUN = 3;
const STUCK_WEIGHT = 0.35;

/**
 * Findings of one sentence's result (with attention): [{kind: 'untranslated' | 'invented',
 * text, steps (0-based, the ones to look at), source (piece indices), share}].
 */
export function findings(result) {
  if (!result?.attention?.cross) return [];
  const { T, S, values } = lastLayerCross(result);
  const src = result.sourceTokens;
  const tgt = result.targetTokens;
  const out = [];
  // steps that write something: the final </s> looks at </s> by design
  const steps = tgt[T - 1] === '</s>' ? T - 1 : T;
  if (steps < 2) return out;
  for (const w of sourceWords(src)) {
    let got = 0;
    const per = [];
    for (let t = 0; t < steps; t++) {
      let a = 0;
      for (let j = w.from; j <= w.to; j++) a += values[t * S + j];
      got += a;
      per.push([a, t]);
    }
    const even = (steps * (w.to - w.from + 1)) / S;
    if (got < UNTRANSLATED * even) {
      const most = per
        .sort((a, b) => b[0] - a[0])
        .slice(0, 2)
        .map(([, t]) => t)
        .sort((a, b) => a - b);
      out.push({
        kind: 'untranslated',
        text: w.text,
        source: [w.from, w.to],
        steps: most,
        share: got / even,
      });
    }
  }
  // runs of steps led by one source piece with most of their attention
  let run = [];
  const flush = () => {
    if (run.length >= STUCK_RUN) {
      const j = run[0].j;
      const written = tgt
        .slice(run[0].t, run.at(-1).t + 1)
        .join('')
        .replace(/▁/g, ' ')
        .trim();
      out.push({
        kind: 'invented',
        text: written,
        source: [j, j],
        piece: src[j],
        steps: run.map((r) => r.t),
        share: run.reduce((a, r) => a + r.w, 0) / run.length,
      });
    }
    run = [];
  };
  for (let t = 0; t < steps; t++) {
    let j = 0;
    for (let k = 1; k < S; k++) if (values[t * S + k] > values[t * S + j]) j = k;
    const w = values[t * S + j];
    if (w < STUCK_WEIGHT) {
      flush();
      continue;
    }
    if (run.length && run[0].j !== j) flush();
    run.push({ t, j, w });
  }
  flush();
  return out;
}
