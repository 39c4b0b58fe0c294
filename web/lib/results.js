// The public shape of the engine's translations (types: heed.d.ts TranslationResult): one
// sentence's result, and a text's from its sentences'. Shared by heed.js and the demo (which
// joins the sentences it translated one call each); nothing runs at import. Not the decoding.

/** Public shape of the engine's translation object (see bindings.cpp translation_val). */
export function shapeResult(r, keepAttention) {
  const out = {
    text: r.text,
    sourceTokens: r.sourceTokens,
    targetTokens: r.targetTokens,
    sourceIds: r.sourceIds,
    targetIds: r.targetIds,
    tokenProbs: r.tokenProbs,
    scores: r.score,
    to: r.to,
    truncated: r.truncated,
    costs: r.costs,
    outputSize: r.outputSize,
  };
  if (keepAttention && r.attention) {
    const a = r.attention;
    out.attention = {
      encoderSelf: a.encoderSelf,
      decoderSelf: a.decoderSelf,
      cross: a.cross,
      ...(a.forget ? { forget: a.forget } : {}),
      steps: a.steps.map((s, t) => ({
        step: t,
        token: r.targetTokens[t],
        id: s.id,
        prob: s.prob,
        top: s.top,
      })),
    };
    if (a.beam) {
      out.attention.beam = a.beam;
      out.attention.beamWinner = a.beamWinner;
    }
  }
  return out;
}

/**
 * One TranslationResult from the engine's translation of a text (`item`: {text, gaps,
 * sentences}, with gaps[0] + sentences[0].source + gaps[1] + ... the text), each sentence
 * shaped by `shape` and placed in the text (source, start, end). One sentence: its fields at
 * the top level. Several: joinedResult, under the engine's joined translation.
 */
export function paragraphResult(item, shape, interventions) {
  let at = 0;
  const shaped = item.sentences.map(shape);
  const sentences = shaped.map((r, i) => {
    at += item.gaps[i].length;
    const start = at;
    at += item.sentences[i].source.length;
    return { ...r, source: item.sentences[i].source, start, end: at };
  });
  if (shaped.length === 1) return { ...shaped[0], interventions, sentences };
  return joinedResult(item.text, sentences, interventions);
}

/**
 * The TranslationResult of a text of several sentences (`text`: their joined translation;
 * `sentences`: their results, each placed in the text): the top level concatenates their
 * pieces, ids and probabilities (each sentence's end with its </s>), sums their scores and
 * holds no attention; each sentence's own result, trace included, is in `sentences`.
 */
export function joinedResult(text, sentences, interventions) {
  const all = (key) => sentences.flatMap((s) => s[key]);
  return {
    text,
    sourceTokens: all('sourceTokens'),
    targetTokens: all('targetTokens'),
    sourceIds: all('sourceIds'),
    targetIds: all('targetIds'),
    tokenProbs: all('tokenProbs'),
    scores: sentences.reduce((sum, s) => sum + s.scores, 0),
    to: sentences[0].to,
    truncated: sentences.some((s) => s.truncated),
    interventions,
    sentences,
  };
}
