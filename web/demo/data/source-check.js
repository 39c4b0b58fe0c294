// Checks of the source text against the model picked: most of its pieces are byte-fallback
// pieces or <unk> (a script the model never learnt), or it reads like another language than
// the model's source (by its commonest short words). Advice only: the text is translated.

import { pieceByte } from './pieces.js';

// why: the commonest function words tell English, German and French apart on a sentence or
// two; words the languages share ("a", "in", "on") are left out
const WORDS = {
  en: 'the and of to is are was with for that this you your it not be have on from by an will can what where please would',
  de: 'der die das und ist nicht ein eine einen mit sie ich zu den von auf für sind wird wo bitte möchten hätte gerne ihre sich auch',
  fr: 'le la les et est une des du pour pas que qui dans sur avec vous nous je il elle sont où veuillez voudrais votre vos ce cette',
};
const NAMES = { en: 'English', de: 'German', fr: 'French' };
const LISTS = Object.fromEntries(
  Object.entries(WORDS).map(([lang, words]) => [lang, new Set(words.split(' '))]),
);

/** Which of en/de/fr `text` reads like, with its count of function words; null if unsure. */
export function guessLanguage(text) {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const score = Object.fromEntries(Object.keys(LISTS).map((l) => [l, 0]));
  for (const w of words) for (const [l, set] of Object.entries(LISTS)) if (set.has(w)) score[l]++;
  const ranked = Object.entries(score).sort((a, b) => b[1] - a[1]);
  const [[best, n], [, second]] = ranked;
  // why: one stray word is no evidence; ask for two and a clear lead
  return n >= 2 && n >= 2 * second ? { lang: best, name: NAMES[best], words: n } : null;
}

/**
 * A warning about the source text for models.json entry `entry` (its `source` language), or
 * null: most pieces are bytes or <unk>, or the text reads like another language (then a
 * direction of `models` from that language is named).
 */
export function sourceNote(result, entry, models = []) {
  const pieces = result.sourceTokens.filter((t) => t !== '</s>' && !/^<2\w+>$/.test(t));
  const odd = pieces.filter((t) => t === '<unk>' || pieceByte(t) >= 0).length;
  if (pieces.length >= 4 && odd * 2 > pieces.length)
    return (
      `${odd} of the ${pieces.length} source pieces are single bytes or unknown: the model ` +
      'hardly knows this script, so expect a poor translation.'
    );
  const source = entry?.source;
  if (!NAMES[source]) return null;
  const text = (result.sentences ?? [result]).map((s) => s.source ?? '').join(' ');
  const guess = guessLanguage(text);
  if (!guess || guess.lang === source) return null;
  const other = models.find((m) => m.source === guess.lang);
  return (
    `This text reads like ${guess.name}, but the model picked translates from ` +
    `${NAMES[source]}` +
    (other
      ? `: pick “${other.name ?? other.id}” in the model list.`
      : ', so expect it to go wrong.')
  );
}
