// The whole translation as one JSON-ready object (the "Whole trace" download): every sentence
// with its pieces, ids, probabilities, steps and attention, and the beam tree under beam search.
// No DOM here; app/export.js downloads it.

/** A tensor {shape, data} as JSON-ready numbers (4 decimals keep the file a sensible size). */
const plain = (t) =>
  t && { shape: t.shape, data: Array.from(t.data, (x) => Math.round(x * 1e4) / 1e4) };

/** One sentence's result as the trace keeps it. */
function sentenceTrace(s) {
  return {
    source: s.source ?? null,
    text: s.text,
    sourceTokens: s.sourceTokens,
    targetTokens: s.targetTokens,
    sourceIds: s.sourceIds,
    targetIds: s.targetIds,
    tokenProbs: s.tokenProbs,
    truncated: Boolean(s.truncated),
    steps: s.attention?.steps ?? [],
    attention: s.attention && {
      encoderSelf: plain(s.attention.encoderSelf),
      decoderSelf: plain(s.attention.decoderSelf),
      cross: plain(s.attention.cross),
      layout: '[layers][heads][queries][keys], row-major',
      // an SSRU decoder (decoderSelf is then zeros): its forget gates, [layers][steps][dims]
      ...(s.attention.forget && { forget: plain(s.attention.forget) }),
    },
    // beam search: every hypothesis kept at every step, and the winner's index at its last step
    ...(s.attention?.beam && { beam: s.attention.beam, beamWinner: s.attention.beamWinner }),
  };
}

/**
 * The trace of TranslationResult `doc`: `about` says which model, text and options made it,
 * `url` the page's link to it. Attention weights are rounded to 4 decimals.
 */
export function traceOf(doc, about, url) {
  return {
    app: 'heed-demo',
    ...about,
    url,
    translation: doc.text,
    stopped: Boolean(doc.stopped),
    interventions: doc.interventions ?? null,
    sentences: doc.sentences.map(sentenceTrace),
  };
}
