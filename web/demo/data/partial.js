// A text translated sentence by sentence (its sentences as the engine splits them, their
// results joined as the engine joins them), and a stopped translation: the finished sentences
// as they are and the cut one rebuilt from its step events, so Stop keeps what was decoded and
// every view shows it. Not the decoding (the engine) nor the views.

import { joinedResult } from '../../lib/results.js';
import { piecesText } from './pieces.js';

/** An SSRU decoder's forget gates [L][T][D] from step events that carry them, each [L][D]. */
function forgetOf(events) {
  const [L, D] = events[0].forget.shape;
  const T = events.length;
  const data = new Float32Array(L * T * D);
  events.forEach((e, t) => {
    for (let l = 0; l < L; l++)
      data.set(e.forget.data.subarray(l * D, (l + 1) * D), (l * T + t) * D);
  });
  return { shape: [L, T, D], data };
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
  if (events[0].forget) attention.forget = forgetOf(events);
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

/** One sentence's result (a one-sentence translate call) placed in its text as `at` says. */
export function sentenceOf(result, at) {
  const { sentences, interventions, ...own } = result;
  return { ...own, source: at.source, start: at.start, end: at.end };
}

/**
 * The TranslationResult of a text from its sentences' results, as the engine's paragraph
 * translation joins them (the package's joinedResult): each translation between the text's own
 * whitespace and line breaks (`whole`: the text is complete, its trailing whitespace kept too).
 */
export function joinSentences(text, sentences, interventions, whole = true) {
  let joined = text.slice(0, sentences[0].start);
  sentences.forEach((s, i) => {
    const next = sentences[i + 1];
    joined += s.text + (next ? text.slice(s.end, next.start) : whole ? text.slice(s.end) : '');
  });
  return joinedResult(joined, sentences, interventions);
}

/**
 * The page's TranslationResult of a stopped text: the sentences finished before Stop as the
 * engine returned them, then the one it cut, rebuilt from its events, each in its place in
 * `text` (`parts`: from sentencesOf). Sentences never started are left out.
 */
export function stoppedResult(done, current, parts, text) {
  const sentences = [...done];
  if (current.length) {
    const at = parts?.sentences[done.length];
    sentences.push({ ...resultFromEvents(current, true), ...(at && sentenceOf({}, at)) });
  }
  if (!sentences.length) return null;
  const placed = sentences.every((s) => s.start !== undefined);
  const doc =
    sentences.length === 1
      ? { ...sentences[0], sentences }
      : placed
        ? joinSentences(text, sentences, sentences[0].interventions, false)
        : { text: sentences.map((s) => s.text).join(' '), truncated: true, sentences };
  doc.stopped = true;
  doc.sentenceCount = parts?.sentences.length ?? 1;
  if (!placed || sentences.length === 1) {
    doc.targetTokens = sentences.flatMap((s) => s.targetTokens);
    doc.sourceTokens = sentences.flatMap((s) => s.sourceTokens);
    doc.tokenProbs = sentences.flatMap((s) => s.tokenProbs);
  }
  return doc;
}
