// The example sentences of a models.json entry, as the page's example buttons show them. No DOM.

/**
 * A models.json entry's example sentences as [{text, hard}] (its `examples`: strings, or
 * {text, hard} for the one to watch fail); an entry without any (a test or user model) borrows
 * those of the first entry with its source language, so the page starts with a sentence.
 */
export function examplesOf(entry, models) {
  const own = (e) => {
    const items = (Array.isArray(e?.examples) ? e.examples : []).map((x) =>
      typeof x === 'string' ? { text: x, hard: false } : { text: x?.text, hard: Boolean(x?.hard) },
    );
    return items.length && items.every((x) => typeof x.text === 'string' && x.text) ? items : null;
  };
  const lang = (e) => e?.source ?? 'en';
  return own(entry) ?? own(models.find((m) => lang(m) === lang(entry) && own(m))) ?? [];
}
