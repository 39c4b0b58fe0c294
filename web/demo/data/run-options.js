// The one place that builds the options of a run on the loaded model: the page's translation,
// the text's sentence split, a "what if" run and the Surgery view's runs all take theirs from
// runOptions(), so every run decodes as the one the views show. No DOM and no engine calls.

/**
 * The options of one translate() call. Every run shares the page's beam and max-pieces limit
 * (raised, when pieces are forced, to leave room for one more), the model entry's target
 * language (`to`) and the output shortlist when it is on; `own` adds the run's own options
 * (attention, topK, split, forcedPrefix, interventions, signal, onStep, …) and wins over the
 * shared ones. An empty forcedPrefix is left out.
 *
 * @param {{state: {beam: number, maxlen: number}, entry?: {to?: string}|null, shortlist?: boolean}} page
 * @param {object} [own]
 */
export function runOptions({ state, entry, shortlist }, own = {}) {
  const forced = own.forcedPrefix?.length ?? 0;
  const options = {
    beam: state.beam,
    ...(state.maxlen > 0 && { maxLength: Math.max(state.maxlen, forced + 1) }),
    ...(typeof entry?.to === 'string' && { to: entry.to }),
    ...(shortlist && { shortlist: true }),
    ...own,
  };
  if (!forced) delete options.forcedPrefix;
  return options;
}
