// Translating the page's text: waits for the model, asks the engine for the text's sentences,
// decodes them one call each (the timeline draws every step live), then shows the result in the
// output and every view. Stop keeps what was decoded; an error clears the output. Not the model
// loading (app.js, models.js) nor the output panel's drawing (translation.js).

import { page } from './page.js';
import { showMessage } from './status.js';
import {
  validate,
  showPending,
  clearOutput,
  showStats,
  unknownNote,
  showSentencePicker,
  truncationNote,
} from './translation.js';
import { stoppedResult, sentenceOf, joinSentences } from '../data/partial.js';
import { sourceNote } from '../data/source-check.js';

const T0 = performance.now();

/** Marks the translation as not matching the source text once the text is edited. */
export function markStale(app) {
  const p = page();
  const stale = Boolean(app.doc) && p.source.value !== app.resultText;
  p.output.classList.toggle('stale', stale);
  p.staleNote.hidden = !stale;
}

/**
 * The sentences of `text` as the engine splits them, each {source, start, end}: one cheap call
 * (one decoding step per sentence, no trace), so that the page can then translate them one by
 * one and keep each finished result exactly.
 */
async function sentencesOf(app, translator, text, signal) {
  const r = await translator.translate(text, app.runOptions({ beam: 1, maxLength: 1, signal }));
  return { sentences: r.sentences.map(({ source, start, end }) => ({ source, start, end })) };
}

/** The translator of the chosen model, waited for while it downloads; null when it failed. */
async function waitForModel(app, modelId, ticket) {
  const p = page();
  if (!app.translator || app.translatorModel !== modelId) {
    app.abort?.abort();
    showPending(
      ' The model is still downloading — this text is translated as soon as it arrives.',
      true,
    );
    p.translateButton.dataset.waiting = '1';
  }
  try {
    return await app.loadModel(modelId);
  } catch {
    return null;
  } finally {
    if (ticket === app.ticket) delete p.translateButton.dataset.waiting;
  }
}

/** Translates the page's text for call `ticket` (App.translate numbers the calls). */
export async function translateText(app, ticket) {
  const p = page();
  const text = p.source.value;
  const problem = validate(text);
  if (problem) {
    showMessage(problem);
    p.source.focus();
    return;
  }
  showMessage(app.startNote ?? null, 'info');
  const modelId = p.modelSelect.value;
  const translator = await waitForModel(app, modelId, ticket);
  // why: a newer call (another click, another model) came while this one waited
  if (ticket !== app.ticket) return app.latest;
  if (!translator) return;
  app.abort?.abort();
  const run = { text, beam: app.state.beam, ctrl: new AbortController(), parts: null, drawn: 0 };
  app.abort = run.ctrl;
  // why: a link restores its sentence; a new text starts at its first
  run.sentence = text === app.state.text ? app.state.sentence : 0;
  app.set({ text, model: modelId, sentence: run.sentence }, { render: false });
  p.translateButton.disabled = true;
  p.stopButton.hidden = false;
  showPending(' translating…', true);
  document.documentElement.dataset.heed = 'translating';
  const t0 = performance.now();
  try {
    const result = await decodeText(app, translator, run);
    run.ms = performance.now() - t0;
    if (run.ctrl.signal.aborted) return;
    showTranslated(app, result, run);
  } catch (err) {
    const live = app.live;
    app.live = null;
    if (err?.code === 'ABORTED' || run.ctrl.signal.aborted) {
      if (app.abort !== run.ctrl) return; // a newer translation replaced this one
      showStopped(app, live, run);
      document.documentElement.dataset.heed = 'stopped';
    } else showFailed(app, err);
    app.renderView();
  } finally {
    // why: a call replaced by a newer one must not re-enable the buttons the newer one uses
    if (app.abort === run.ctrl) {
      app.abort = null;
      p.translateButton.disabled = false;
      p.stopButton.hidden = true;
    }
    markStale(app);
  }
}

/**
 * Decodes `run.text` with the attention trace, every step drawn live in the timeline, and
 * resolves with its TranslationResult. A text of several sentences is decoded one call per
 * sentence and joined as the engine joins a paragraph.
 */
async function decodeText(app, translator, run) {
  const { text, ctrl } = run;
  app.result = null;
  app.doc = null;
  showSentencePicker(null);
  // done: the results of the sentences already decoded (a stopped text keeps them)
  app.live = { sentence: 0, sentences: 1, sourceTokens: null, events: [], done: [] };
  app.views.timeline.startLive();
  const options = app.runOptions({ attention: true, topK: 5, signal: ctrl.signal });
  const onStep = (ev) => {
    if (app.abort !== ctrl) return;
    if (ev.sentence !== app.live.sentence) {
      // why: a paragraph decodes sentence after sentence; the live view follows along
      app.live = { ...app.live, sentence: ev.sentence, sourceTokens: null, events: [] };
      app.views.timeline.startLive();
    }
    app.live.sentences = ev.sentences;
    app.live.sourceTokens ??= ev.sourceTokens ?? null; // labels for the live cross-attention
    app.live.events.push(ev);
    run.drawn++;
    app.views.timeline.liveStep(ev);
  };
  run.parts = await sentencesOf(app, translator, text, ctrl.signal);
  if (run.parts.sentences.length <= 1) return translator.translate(text, { ...options, onStep });
  // why: one call per sentence, so each finished sentence's result (under beam search its
  // winner, not the best hypothesis of each step) is kept exactly if Stop comes later
  const n = run.parts.sentences.length;
  let interventions;
  for (const [k, s] of run.parts.sentences.entries()) {
    if (k > 0) {
      app.live = { ...app.live, sentence: k, sourceTokens: null, events: [] };
      app.views.timeline.startLive();
    }
    const r = await translator.translate(s.source, {
      ...options,
      split: false,
      onStep: (ev) => onStep({ ...ev, sentence: k, sentences: n }),
    });
    interventions = r.interventions;
    app.live.done.push(sentenceOf(r, s));
  }
  return joinSentences(text, app.live.done, interventions);
}

/** A finished translation: in the output, the speed line, the notes and every view. */
function showTranslated(app, result, run) {
  const { text, beam, ms } = run;
  app.doc = result;
  app.resultText = text;
  app.liveSteps = run.drawn;
  app.live = null;
  app.showSentence(Math.min(run.sentence, result.sentences.length - 1), { render: false });
  if (app.firstTranslationMs === null) app.firstTranslationMs = performance.now() - T0;
  showStats(result, {
    text,
    ms,
    beam,
    firstMs: app.firstTranslationMs,
    shortlist: app.useShortlist(),
  });
  const note = [
    app.startNote,
    truncationNote(result),
    unknownNote(result),
    sourceNote(result, app.entry(), app.models),
  ]
    .filter(Boolean)
    .join(' ');
  app.startNote = null; // said once, with the first translation
  if (note) showMessage(note, 'info');
  document.documentElement.dataset.heed = 'translated';
  app.views.timeline.finishLive();
  app.renderView();
}

/** A failed translation: the previous text's output, counters and views are cleared. */
function showFailed(app, err) {
  clearOutput();
  app.result = null;
  app.doc = null;
  showSentencePicker(null);
  const what = err?.code === 'BAD_INPUT' ? 'The text cannot be translated' : 'Translation failed';
  showMessage(`${what}: ${err?.message ?? err}`);
  document.documentElement.dataset.heed = 'translate-failed';
}

/** After Stop: what was decoded stays, in the output and every view, marked as stopped. */
function showStopped(app, live, { text, beam, parts }) {
  const doc = live && stoppedResult(live.done, live.events, parts, text);
  app.resultText = text;
  if (!doc) {
    app.doc = app.result = null;
    clearOutput();
    showSentencePicker(null);
    showPending('Stopped before the first piece was decoded.');
    return;
  }
  app.doc = doc;
  app.liveSteps = doc.targetTokens.length;
  app.showSentence(doc.sentences.length - 1, { render: false });
  const last = doc.sentences.at(-1);
  const n = last.targetTokens.length;
  const of = parts?.sentences.length ?? 1;
  const where = of > 1 ? ` of sentence ${doc.sentences.length} of ${of}` : '';
  page().stats.textContent = last.stopped
    ? `Stopped after ${n} piece${n === 1 ? '' : 's'}${where}; what was decoded is kept, ` +
      `in the output and every view.`
    : `Stopped after sentence ${doc.sentences.length} of ${of}; the sentences before are kept.`;
  const cut = last.stopped
    ? `the last sentence is unfinished (✂)${beam > 1 ? '; under beam search its rows follow the best hypothesis at each step' : ''}`
    : 'the sentences not yet started are left out';
  showMessage(
    `Stopped: ${cut}.${doc.sentences.length > 1 ? ' The finished sentences are exactly as translated.' : ''}`,
    'info',
  );
}
