// A stopped translation, rebuilt from the step events the page received, so Stop keeps what
// was decoded and every view shows it. Not the decoding (the engine) nor the views.

/** The text of target pieces as SentencePiece writes it (▁ starts a word), without </s>. */
export function piecesText(pieces) {
  return pieces
    .filter((p) => p !== '</s>')
    .join('')
    .replace(/▁/g, ' ')
    .trim();
}

/**
 * A sentence's result (the TranslationResult fields the views read) from its step events;
 * `stopped`: decoding was cut off by Stop. Greedy events are exactly the trace; under beam
 * search they follow the best hypothesis of each step, which the caller says.
 */
export function resultFromEvents(events, stopped) {
  const T = events.length;
  const lastEvent = events[T - 1];
  const [L, H, S] = lastEvent.cross.shape;
  const cross = new Float32Array(L * H * T * S);
  const self = new Float32Array(L * H * T * T);
  events.forEach((e, t) => {
    const w = e.decoderSelf.shape[2];
    for (let lh = 0; lh < L * H; lh++) {
      cross.set(e.cross.data.subarray(lh * S, lh * S + S), (lh * T + t) * S);
      self.set(e.decoderSelf.data.subarray(lh * w, lh * w + Math.min(w, T)), (lh * T + t) * T);
    }
  });
  const targetTokens = events.map((e) => e.token);
  const attention = {
    cross: { shape: [L, H, T, S], data: cross },
    decoderSelf: { shape: [L, H, T, T], data: self },
    steps: events.map((e, t) => ({ step: t, token: e.token, id: e.id, prob: e.prob, top: e.top })),
  };
  if (events[0].encoderSelf) attention.encoderSelf = events[0].encoderSelf;
  return {
    text: piecesText(targetTokens),
    sourceTokens: lastEvent.sourceTokens,
    sourceIds: lastEvent.sourceIds,
    targetTokens,
    targetIds: events.map((e) => e.id),
    tokenProbs: events.map((e) => e.prob),
    scores: events.reduce((sum, e) => sum + Math.log(e.prob), 0),
    truncated: stopped,
    stopped,
    attention,
  };
}

/**
 * The page's TranslationResult of a stopped text: the sentences finished before Stop, then
 * the one it cut, each from its events. Sentences never started are left out (`of` says how
 * many the text had).
 */
export function stoppedResult(finished, current, of) {
  const sentences = [...finished.map((evs) => resultFromEvents(evs, false))];
  if (current.length) sentences.push(resultFromEvents(current, true));
  if (!sentences.length) return null;
  const doc = sentences.length === 1 ? { ...sentences[0] } : { text: '', truncated: true };
  doc.text = sentences.map((s) => s.text).join(' ');
  doc.sentences = sentences;
  doc.stopped = true;
  doc.sentenceCount = of;
  doc.targetTokens = sentences.flatMap((s) => s.targetTokens);
  doc.sourceTokens = sentences.flatMap((s) => s.sourceTokens);
  doc.tokenProbs = sentences.flatMap((s) => s.tokenProbs);
  return doc;
}
