// The demo page: keeps the page state and the URL, translates with the attention trace and
// hands the result to the six views. The page's elements (page.js), fetching models
// (models.js), status and messages (status.js), the output panel (translation.js) and export
// (export.js) live beside it.

import { parseState, formatState } from './state.js';
import { el, announce, reducedMotion, hideTip } from '../widgets/ui.js';
import { cssAt } from '../widgets/colormap.js';
import { page } from './page.js';
import { loadManifest, openModel, showAbout, showShared } from './models.js';
import { showMessage } from './status.js';
import {
  validate,
  showPending,
  clearOutput,
  showOutput,
  showStats,
  unknownNote,
  showSentencePicker,
  truncationNote,
  limitPaste,
  showFindings,
} from './translation.js';
import { showExportTarget, exportFigure, exportTrace } from './export.js';
import { stoppedResult, sentencesOf, sentenceOf, joinSentences } from '../data/partial.js';
import { startTour, tourDone } from './tour.js';
import { sourceNote } from '../data/source-check.js';
import { createTimelineView } from '../views/timeline.js';
import { createAttentionView } from '../views/attention.js';
import { createExplainView } from '../views/explain.js';
import { createLabView } from '../views/lab.js';
import { createPositionsView } from '../views/positions.js';
import { createSurgeryView } from '../views/surgery/view.js';

const T0 = performance.now();

/** A models.json entry's example sentences as [{text, hard}] (its `examples`: strings, or
 *  {text, hard} for the one to watch fail); an entry without any (a test or user model) borrows
 *  those of the first entry with its source language, so the page starts with a sentence. */
function examplesOf(entry, models) {
  const own = (e) => {
    const items = (Array.isArray(e?.examples) ? e.examples : []).map((x) =>
      typeof x === 'string' ? { text: x, hard: false } : { text: x?.text, hard: Boolean(x?.hard) },
    );
    return items.length && items.every((x) => typeof x.text === 'string' && x.text) ? items : null;
  };
  const lang = (e) => e?.source ?? 'en';
  return own(entry) ?? own(models.find((m) => lang(m) === lang(entry) && own(m))) ?? [];
}

/** Marks the translation as not matching the source text once the text is edited. */
function markStale() {
  const p = page();
  const app = window.heedDemo;
  const stale = Boolean(app?.doc) && p.source.value !== app.resultText;
  p.output.classList.toggle('stale', stale);
  p.staleNote.hidden = !stale;
}

class App {
  constructor() {
    this.state = parseState(location.hash);
    this.models = [];
    this.translator = null;
    this.translatorModel = ''; // the models.json entry the translator serves now
    this.translatorFile = ''; // its file: the directions of one file share one translator
    this.doc = null; // finished TranslationResult of the whole text (one or more sentences)
    this.result = null; // the sentence of it the views show (with attention)
    this.resultText = '';
    this.live = null; // { sourceTokens, events[] } while decoding
    this.abort = null;
    this.active = null; // export target {title, png, svg, json}
    this.labPromise = null;
    this.firstTranslationMs = null;
    this.views = {
      timeline: createTimelineView(this),
      attention: createAttentionView(this),
      explain: createExplainView(this),
      lab: createLabView(this),
      positions: createPositionsView(this),
      surgery: createSurgeryView(this),
    };
    this.rendered = new Set();
  }

  // ---- state and URL ----

  /** Updates state, writes the URL (replaceState: no history spam), re-renders if asked. */
  set(patch, { render = true } = {}) {
    Object.assign(this.state, patch);
    const hash = formatState(this.state);
    if (hash !== location.hash) history.replaceState(null, '', hash);
    if (render) this.renderView();
  }

  get view() {
    return this.views[this.state.view];
  }

  renderView() {
    for (const b of document.querySelectorAll('[role="tab"]')) {
      const on = b.dataset.view === this.state.view;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    }
    const host = page().view;
    if (host.firstChild !== this.view.element) host.replaceChildren(this.view.element);
    host.setAttribute('aria-labelledby', `tab-${this.state.view}`);
    this.active = null;
    hideTip();
    this.view.render();
    this.updateExportLabel();
  }

  setActive(target) {
    this.active = target;
    this.updateExportLabel();
  }

  exportTarget() {
    return this.active ?? this.view.exportTarget?.() ?? null;
  }

  updateExportLabel() {
    showExportTarget(this.exportTarget());
  }

  // ---- models ----

  /**
   * The translator of models.json entry `id`: the one loaded, the one still downloading (a
   * second request waits for it, never starts a second download), or a new one. A load that
   * another model's load replaced is disposed when it lands and rejects with `superseded`.
   */
  async loadModel(id) {
    const entry = this.models.find((m) => m.id === id);
    if (!entry) throw new Error(`no model “${id}” in models.json`);
    if (this.translator && this.translatorModel === id) return this.translator;
    if (this.translator && this.translatorFile === entry.file) {
      // why: another direction of the same file: no second download, no second engine
      this.translatorModel = id;
      showAbout(entry);
      showShared(entry, this.translator);
      this.showShortlistBox();
      return this.translator;
    }
    if (this.loading?.file === entry.file) {
      await this.loading.promise;
      return this.loadModel(id);
    }
    this.abort?.abort();
    this.translator?.dispose();
    this.translator = null;
    this.result = null;
    this.doc = null;
    this.translatorModel = this.translatorFile = '';
    const loading = { file: entry.file, promise: openModel(entry) };
    this.loading = loading;
    let translator;
    try {
      translator = await loading.promise;
    } finally {
      if (this.loading === loading) this.loading = null;
    }
    if (this.loading) {
      translator.dispose(); // another model was asked for while this one downloaded
      throw Object.assign(new Error('another model was chosen'), { superseded: true });
    }
    this.translator = translator;
    this.translatorModel = id;
    this.translatorFile = entry.file;
    this.showShortlistBox();
    return this.translator;
  }

  /** Whether translations use the output shortlist: asked for, and the model has one. */
  useShortlist() {
    return Boolean(this.state.shortlist && this.translator?.info.shortlists?.length);
  }

  /** The options every run on the loaded model shares (the main translation, "what if" and
   *  the surgery's runs): the entry's target language and the shortlist. */
  decodeOptions() {
    const entry = this.models.find((m) => m.id === this.translatorModel);
    return {
      ...(typeof entry?.to === 'string' && { to: entry.to }),
      ...(this.useShortlist() && { shortlist: true }),
    };
  }

  /** The shortlist box follows the loaded model: disabled (and explained) when it has none. */
  showShortlistBox() {
    const box = page().shortlist;
    const has = Boolean(this.translator?.info.shortlists?.length);
    box.checked = this.state.shortlist;
    box.disabled = Boolean(this.translator) && !has;
    box.parentElement.dataset.unavailable = box.disabled ? '1' : '';
  }

  // ---- translating ----

  /**
   * Translates the source text with the chosen model and shows it in every view. A call made
   * while the model still downloads waits for it (the output says so); of calls made before
   * their model is there, the last one translates. Resolves when the latest call is done.
   */
  translate() {
    const ticket = (this.ticket = (this.ticket ?? 0) + 1);
    this.latest = this.#translate(ticket);
    return this.latest;
  }

  async #translate(ticket) {
    const p = page();
    const text = p.source.value;
    const problem = validate(text);
    if (problem) {
      showMessage(problem);
      p.source.focus();
      return;
    }
    showMessage(this.startNote ?? null, 'info');
    const modelId = p.modelSelect.value;
    let translator;
    if (!this.translator || this.translatorModel !== modelId) {
      this.abort?.abort();
      showPending(
        ' The model is still downloading — this text is translated as soon as it arrives.',
        true,
      );
      p.translateButton.dataset.waiting = '1';
    }
    try {
      translator = await this.loadModel(modelId);
    } catch {
      return ticket === this.ticket ? undefined : this.latest;
    } finally {
      if (ticket === this.ticket) delete p.translateButton.dataset.waiting;
    }
    // why: a newer call (another click, another model) came while this one waited
    if (ticket !== this.ticket) return this.latest;
    this.abort?.abort();
    const ctrl = new AbortController();
    this.abort = ctrl;
    const beam = this.state.beam;
    // why: a link restores its sentence; a new text starts at its first
    const sentence = text === this.state.text ? this.state.sentence : 0;
    this.set({ text, model: modelId, sentence }, { render: false });
    p.translateButton.disabled = true;
    p.stopButton.hidden = false;
    showPending(' translating…', true);
    document.documentElement.dataset.heed = 'translating';
    const t0 = performance.now();
    let parts = null; // the text's sentences and where they stand in it
    try {
      this.result = null;
      this.doc = null;
      showSentencePicker(null);
      // done: the results of the sentences already decoded (a stopped text keeps them)
      this.live = { sentence: 0, sentences: 1, sourceTokens: null, events: [], done: [] };
      let drawn = 0; // onStep events drawn live, every sentence's
      this.views.timeline.startLive();
      const options = {
        beam,
        ...(this.state.maxlen > 0 && { maxLength: this.state.maxlen }),
        ...this.decodeOptions(),
        attention: true,
        topK: 5,
        signal: ctrl.signal,
      };
      const onStep = (ev) => {
        if (this.abort !== ctrl) return;
        if (ev.sentence !== this.live.sentence) {
          // why: a paragraph decodes sentence after sentence; the live view follows along
          this.live = { ...this.live, sentence: ev.sentence, sourceTokens: null, events: [] };
          this.views.timeline.startLive();
        }
        this.live.sentences = ev.sentences;
        this.live.sourceTokens ??= ev.sourceTokens ?? null; // labels for the live cross-attention
        this.live.events.push(ev);
        drawn++;
        this.views.timeline.liveStep(ev);
      };
      parts = await sentencesOf(translator, text, { ...this.decodeOptions(), signal: ctrl.signal });
      let result;
      if (parts.sentences.length <= 1) {
        result = await translator.translate(text, { ...options, onStep });
      } else {
        // why: one call per sentence, so each finished sentence's result (under beam search its
        // winner, not the best hypothesis of each step) is kept exactly if Stop comes later
        const n = parts.sentences.length;
        let interventions;
        for (const [k, s] of parts.sentences.entries()) {
          if (k > 0) {
            this.live = { ...this.live, sentence: k, sourceTokens: null, events: [] };
            this.views.timeline.startLive();
          }
          const r = await translator.translate(s.source, {
            ...options,
            split: false,
            onStep: (ev) => onStep({ ...ev, sentence: k, sentences: n }),
          });
          interventions = r.interventions;
          this.live.done.push(sentenceOf(r, s));
        }
        result = joinSentences(text, this.live.done, interventions);
      }
      const ms = performance.now() - t0;
      if (ctrl.signal.aborted) return;
      this.doc = result;
      this.resultText = text;
      this.liveSteps = drawn;
      this.live = null;
      this.showSentence(Math.min(sentence, result.sentences.length - 1), { render: false });
      if (this.firstTranslationMs === null) this.firstTranslationMs = performance.now() - T0;
      showStats(result, {
        text,
        ms,
        beam,
        firstMs: this.firstTranslationMs,
        shortlist: this.useShortlist(),
      });
      const note = [
        this.startNote,
        truncationNote(result),
        unknownNote(result),
        sourceNote(result, this.entry(), this.models),
      ]
        .filter(Boolean)
        .join(' ');
      this.startNote = null; // said once, with the first translation
      if (note) showMessage(note, 'info');
      document.documentElement.dataset.heed = 'translated';
      this.views.timeline.finishLive();
      this.renderView();
    } catch (err) {
      const live = this.live;
      this.live = null;
      if (err?.code === 'ABORTED' || ctrl.signal.aborted) {
        if (this.abort !== ctrl) return; // a newer translation replaced this one
        this.showStopped(live, text, beam, parts);
        document.documentElement.dataset.heed = 'stopped';
      } else {
        clearOutput();
        this.result = null;
        this.doc = null;
        showSentencePicker(null);
        const what =
          err?.code === 'BAD_INPUT' ? 'The text cannot be translated' : 'Translation failed';
        showMessage(`${what}: ${err?.message ?? err}`);
        document.documentElement.dataset.heed = 'translate-failed';
      }
      this.renderView();
    } finally {
      // why: a call replaced by a newer one must not re-enable the buttons the newer one uses
      if (this.abort === ctrl) {
        this.abort = null;
        p.translateButton.disabled = false;
        p.stopButton.hidden = true;
      }
      markStale();
    }
  }

  /** The models.json entry of the loaded translator. */
  entry() {
    return this.models.find((m) => m.id === this.translatorModel) ?? null;
  }

  /** After Stop: what was decoded stays, in the output and every view, marked as stopped. */
  showStopped(live, text, beam, parts) {
    const doc = live && stoppedResult(live.done, live.events, parts, text);
    this.resultText = text;
    if (!doc) {
      this.doc = this.result = null;
      clearOutput();
      showSentencePicker(null);
      showPending('Stopped before the first piece was decoded.');
      return;
    }
    this.doc = doc;
    this.liveSteps = doc.targetTokens.length;
    this.showSentence(doc.sentences.length - 1, { render: false });
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

  /** Whether the shown sentence can be re-decoded with another candidate forced. */
  canWhatIf() {
    const source = this.doc?.sentences[this.state.sentence]?.source;
    return Boolean(this.translator && this.result && !this.doc.stopped && source && !this.abort);
  }

  /**
   * "What if": re-decodes the shown sentence with the pieces before `step` kept and
   * candidate `cand` forced at `step`, then every view shows that run (the model's own
   * translation stays one click away).
   */
  async whatIf(step, cand) {
    if (!this.canWhatIf()) return;
    const own = this.result.whatIf?.original ?? this.result;
    const prefix = [...this.result.targetIds.slice(0, step), cand.id];
    document.documentElement.dataset.heed = 'translating';
    try {
      const r = await this.translator.translate(this.doc.sentences[this.state.sentence].source, {
        beam: this.state.beam,
        ...(this.state.maxlen > 0 && { maxLength: Math.max(this.state.maxlen, prefix.length + 1) }),
        ...this.decodeOptions(),
        attention: true,
        topK: 5,
        split: false,
        forcedPrefix: prefix,
      });
      const was = this.result.targetTokens[step];
      this.result = {
        ...r,
        whatIf: {
          step,
          piece: cand.piece,
          was,
          prob: cand.prob,
          original: own,
          originalText: own.text,
        },
      };
      this.resultId = (this.resultId ?? 0) + 1;
      this.rendered.clear();
      // the output shows the what-if sentence in place of the model's own
      const k = this.state.sentence;
      const doc = this.doc;
      const shown =
        doc.sentences.length === 1
          ? { ...this.result, sentences: [this.result] }
          : {
              ...doc,
              text: doc.sentences.map((s, i) => (i === k ? r.text : s.text)).join(' '),
              sentences: doc.sentences.map((s, i) => (i === k ? { ...s, ...r } : s)),
            };
      showOutput(shown, this.resultText, k, (s, i) => (s === k ? this.jumpToStep(i) : null));
      page().output.classList.add('whatif-run');
      showFindings(this.result, doc.sentences.length === 1 ? null : k, (i) => this.jumpToStep(i));
      this.set({ view: 'timeline', step: step + 1 });
      announce(`What if: step ${step + 1} forced to ${cand.piece}. New translation: ${r.text}`);
      document.documentElement.dataset.heed = 'what-if';
    } catch (err) {
      showMessage(`The what-if run failed: ${err?.message ?? err}`);
      document.documentElement.dataset.heed = 'translate-failed';
    }
  }

  /** Back from a what-if run to the model's own translation of the sentence. */
  undoWhatIf() {
    if (!this.result?.whatIf) return;
    this.showSentence(this.state.sentence);
    announce('Back to the model’s own translation');
  }

  /** Shows sentence k of the translated text in the output, the picker and every view. */
  showSentence(k, { render = true } = {}) {
    const doc = this.doc;
    if (!doc) return;
    const one = doc.sentences.length === 1;
    this.result = one ? doc : { ...doc.sentences[k], interventions: doc.interventions };
    this.resultId = (this.resultId ?? 0) + 1;
    this.rendered.clear();
    const pick = (s) => (s === this.state.sentence ? null : this.showSentence(s));
    showOutput(doc, this.resultText, k, (s, i) => (pick(s), this.jumpToStep(i)));
    page().output.classList.remove('whatif-run');
    showFindings(this.result, one ? null : k, (i) => this.jumpToStep(i));
    showSentencePicker(doc, k, (s) => {
      this.showSentence(s);
      announce(`Views show sentence ${s + 1} of ${doc.sentences.length}`);
    });
    this.set({ sentence: k, step: -1 }, { render });
  }

  jumpToStep(i) {
    this.set({ view: 'timeline', step: i + 1 });
    announce(`Timeline at step ${i + 1}`);
  }

  // ---- attention lab kernels ----

  lab() {
    this.labPromise ??= import('../../lib/heed.js').then((m) => m.loadAttentionLab());
    return this.labPromise;
  }

  // ---- export ----

  async exportAs(kind) {
    const t = this.exportTarget();
    if (!t) return;
    const { model, view, sentence } = this.state;
    const sentences = this.doc?.sentences.length ?? 1;
    const about = { model, text: this.resultText, view, sentence, sentences };
    await exportFigure(t, kind, about);
  }
}

async function main() {
  const p = page();
  const app = new App();
  window.heedDemo = app; // for the browser tests and the curious
  document.documentElement.style.setProperty(
    '--ramp',
    `linear-gradient(90deg, ${[0, 0.25, 0.5, 0.75, 1].map((t) => cssAt('sequential', t)).join(', ')})`,
  );
  if (reducedMotion()) document.documentElement.dataset.motion = 'reduced';
  // canvases read the theme's colours when they draw: redraw when the OS switches light/dark
  window
    .matchMedia('(prefers-color-scheme: dark)')
    .addEventListener('change', () => requestAnimationFrame(() => app.renderView()));

  let shownExamples = [];
  /** The example buttons follow the chosen model's source language; a shown example of the
   *  model before is swapped for the new one's example in the same place. The hard one is
   *  marked as such: it is there to watch the model fail. */
  const showExamples = () => {
    const entry = app.models.find((m) => m.id === p.modelSelect.value);
    const list = examplesOf(entry, app.models);
    const k = shownExamples.findIndex((x) => x.text === p.source.value);
    if (k >= 0 && list.length) p.source.value = list[Math.min(k, list.length - 1)].text;
    shownExamples = list;
    const short = (text, n) => (text.length > n ? `${text.slice(0, n - 2)}…` : text);
    p.examples.replaceChildren(
      ...list.map(({ text, hard }) =>
        el(
          `button${hard ? '.hard' : ''}`,
          {
            type: 'button',
            title: hard ? `${text} — a sentence this model gets wrong` : text,
            onclick: () => {
              p.source.value = text;
              app.translate();
            },
          },
          ...(hard ? [el('strong', { text: 'a hard one — watch it fail: ' })] : []),
          short(text, hard ? 24 : 34),
        ),
      ),
    );
  };
  showExamples();

  // controls
  p.translateButton.addEventListener('click', () => app.translate());
  p.stopButton.addEventListener('click', () => app.abort?.abort());
  p.source.addEventListener('input', markStale);
  p.source.addEventListener('paste', (ev) => {
    const note = limitPaste(p.source, ev.clipboardData?.getData('text/plain') ?? '');
    if (!note) return;
    ev.preventDefault();
    showMessage(note, 'info');
  });
  p.source.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      app.translate();
    }
  });
  for (const r of document.querySelectorAll('input[name="decoding"]')) {
    r.checked = Number(r.value) === (app.state.beam > 1 ? 4 : 1);
    r.addEventListener('change', () => {
      app.set({ beam: Number(r.value) }, { render: false });
      app.translate();
    });
  }
  p.modelSelect.addEventListener('change', () => {
    showExamples();
    markStale();
    app.translate();
  });
  p.maxLength.value = String(app.state.maxlen);
  p.shortlist.checked = app.state.shortlist;
  p.shortlist.addEventListener('change', () => {
    app.set({ shortlist: p.shortlist.checked }, { render: false });
    app.translate();
  });
  p.maxLength.addEventListener('change', () => {
    const n = Number.parseInt(p.maxLength.value, 10);
    const maxlen = Number.isFinite(n) ? Math.max(0, Math.min(256, n)) : 0;
    p.maxLength.value = String(maxlen);
    app.set({ maxlen }, { render: false });
    app.translate();
  });
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  tabs.forEach((b, k) => {
    b.addEventListener('click', () => app.set({ view: b.dataset.view }));
    b.addEventListener('keydown', (ev) => {
      const d = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0;
      if (!d) return;
      const next = tabs[(k + d + tabs.length) % tabs.length];
      next.focus();
      app.set({ view: next.dataset.view });
    });
  });
  p.exportPng.addEventListener('click', () => app.exportAs('png'));
  p.exportSvg.addEventListener('click', () => app.exportAs('svg'));
  p.exportJson.addEventListener('click', () => app.exportAs('json'));
  p.exportTrace.addEventListener('click', () => {
    if (!app.doc) return;
    const { model, beam } = app.state;
    exportTrace(app.doc, { model, text: app.resultText, beam });
  });
  p.copyLink.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      announce('Link copied');
      showMessage('Link to this view copied to the clipboard.', 'info');
    } catch {
      showMessage(`Copy this link to reopen the view: ${location.href}`, 'info');
    }
  });
  window.addEventListener('hashchange', () => {
    const next = parseState(location.hash);
    const retranslate =
      next.text !== app.state.text ||
      next.model !== app.state.model ||
      next.beam !== app.state.beam ||
      next.maxlen !== app.state.maxlen ||
      next.shortlist !== app.state.shortlist;
    const sentence = next.sentence !== app.state.sentence;
    app.state = next;
    if (!retranslate && sentence && app.doc)
      return app.showSentence(Math.min(next.sentence, app.doc.sentences.length - 1));
    if (retranslate && next.text) {
      p.source.value = next.text;
      p.maxLength.value = String(next.maxlen);
      p.shortlist.checked = next.shortlist;
      if (next.model && app.models.some((m) => m.id === next.model)) {
        p.modelSelect.value = next.model;
        showExamples();
      }
      app.translate();
    } else app.renderView();
  });

  app.renderView();
  const models = await loadManifest();
  app.models = models;
  if (!models.length) return;
  const wanted = models.find((m) => m.id === app.state.model) ?? models[0];
  if (app.state.model && wanted.id !== app.state.model) {
    // why: kept until the first translation is shown, which would otherwise clear it
    app.startNote = `The link asks for model “${app.state.model}”, which this server does not have; using ${wanted.name ?? wanted.id} instead.`;
    showMessage(app.startNote, 'info');
  }
  p.modelSelect.value = wanted.id;
  showExamples();
  p.source.value = app.state.text || (shownExamples[0]?.text ?? '');
  p.tourButton.addEventListener('click', () => app.result && startTour(app));
  const steps = app.state.step;
  await app.translate();
  if (steps >= 0 && app.result) app.set({ step: steps });
  // a first visit gets the tour, once a translation is there to walk through
  if (app.result && !tourDone()) startTour(app);
}

main().catch((err) => {
  const m = document.getElementById('message');
  m.hidden = false;
  m.textContent = `The demo could not start: ${err.message}`;
});
