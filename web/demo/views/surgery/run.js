// The Surgery view's modified run: re-translates the shown sentence in the worker with the
// state's interventions, debounced while a slider moves, one run at a time (a newer surgery
// aborts the older run). Not the drawing (view.js).

import { interventionsOf, surgeryInput } from '../../data/surgery-data.js';

const DEBOUNCE_MS = 250;

/**
 * The run's part. `baseKey()` names the unmodified run; `onDone()` is called when a run
 * finishes (or fails); `onStart()` when one starts. `result()` is the last run as {key, result,
 * error}, `key()` the key the current state's surgery would have.
 */
export function createModifiedRun(app, baseKey, { onStart, onDone }) {
  let modified = null; // {key, result, error}
  let ctrl = null;
  let timer = null;
  let runningKey = '';

  const key = () => `${baseKey()}|${JSON.stringify(interventionsOf(app.state, app.result))}`;

  async function run(force = false) {
    if (!app.result || !app.translator) return;
    const k = key();
    if (!force && (modified?.key === k || runningKey === k)) return;
    ctrl?.abort();
    const mine = new AbortController();
    ctrl = mine;
    runningKey = k;
    onStart();
    const input = surgeryInput(app.result, app.resultText);
    const options = app.runOptions({
      split: false,
      forcedPrefix: input.forced,
      attention: true,
      interventions: interventionsOf(app.state, app.result),
      signal: mine.signal,
    });
    try {
      const result = await app.translator.translate(input.text, options);
      if (mine.signal.aborted) return;
      modified = { key: k, result, error: null };
    } catch (err) {
      if (mine.signal.aborted || err?.code === 'ABORTED') return;
      modified = { key: k, result: null, error: err };
    } finally {
      if (ctrl === mine) {
        ctrl = null;
        runningKey = '';
      }
    }
    onDone();
  }

  return {
    key,
    result: () => modified,
    /** Runs after `delay` ms unless called again first; `force` runs even an unchanged surgery. */
    schedule(delay = DEBOUNCE_MS, force = false) {
      clearTimeout(timer);
      timer = setTimeout(() => run(force), delay);
    },
  };
}
