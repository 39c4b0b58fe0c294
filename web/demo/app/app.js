// The demo's App: the page state and its URL, the loaded model, the translated text and the
// sentence the six views show, and the options every run on the model shares. Translating
// (translate.js), a "what if" run (what-if.js) and the page's wiring (main.js) live beside it.

import { parseState, formatState } from './state.js';
import { announce, hideTip } from '../widgets/ui.js';
import { page } from './page.js';
import { openModel, resumeLoad, showAbout, showShared } from './models.js';
import { openLocal } from './open-model.js';
import { showOutput, showSentencePicker, showFindings } from './translation.js';
import { showExportTarget, exportFigure } from './export.js';
import { translateText } from './translate.js';
import { runWhatIf } from './what-if.js';
import { runOptions } from '../data/run-options.js';
import { createTimelineView } from '../views/timeline.js';
import { createAttentionView } from '../views/attention.js';
import { createExplainView } from '../views/explain.js';
import { createLabView } from '../views/lab.js';
import { createPositionsView } from '../views/positions.js';
import { createSurgeryView } from '../views/surgery/view.js';

export class App {
  constructor() {
    this.state = parseState(location.hash);
    this.models = [];
    this.translator = null;
    this.translatorModel = ''; // the models.json entry the translator serves now
    this.translatorFile = ''; // its file: the directions of one file share one translator
    this.loadSerial = 0; // counts the loads asked for: only the newest may change the page
    this.loads = new Map(); // file -> {serial, t0, promise}: the downloads still running
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
   * The translator of models.json entry `id` (or of a model opened from this device,
   * open-model.js): the one loaded, the one still downloading (a second request waits for it,
   * never starts a second download, even after another model was chosen meanwhile), or a new
   * one. A load that another model's load replaced is disposed when it lands (or fails) and
   * rejects with `superseded`, leaving the page alone.
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
    const serial = ++this.loadSerial;
    // why: a file chosen again while its superseded download still runs is not fetched twice
    let load = this.loads.get(entry.file);
    if (load) {
      load.serial = serial;
      resumeLoad(entry, load.t0);
    } else {
      load = { serial, t0: performance.now() };
      const current = () => load.serial === this.loadSerial;
      load.promise = entry.local ? openLocal(this, entry, current) : openModel(entry, current);
      this.loads.set(entry.file, load);
      const settle = () => this.loads.get(entry.file) === load && this.loads.delete(entry.file);
      load.promise.then(settle, settle);
    }
    const loading = { file: entry.file, promise: load.promise };
    this.loading = loading;
    const newest = () => load.serial === serial; // this call is the last to ask for the file
    let translator;
    try {
      translator = await loading.promise;
    } catch (err) {
      if (newest() && serial === this.loadSerial) throw err;
    } finally {
      if (this.loading === loading) this.loading = null;
    }
    // why: another model was asked for while this one downloaded, and may already be in use;
    // of the calls that waited for one file, the last one disposes it or keeps it
    if (!newest() || serial !== this.loadSerial) {
      if (newest()) translator?.dispose();
      throw Object.assign(new Error('another model was chosen'), { superseded: true });
    }
    this.translator = translator;
    this.translatorModel = id;
    this.translatorFile = entry.file;
    this.showShortlistBox();
    return this.translator;
  }

  /** Disposes the loaded translator if it serves `file`: the next run opens that file anew. */
  forgetModel(file) {
    if (!this.translator || this.translatorFile !== file) return;
    this.abort?.abort();
    this.translator.dispose();
    this.translator = null;
    this.translatorModel = this.translatorFile = '';
  }

  /** The models.json entry of the loaded translator. */
  entry() {
    return this.models.find((m) => m.id === this.translatorModel) ?? null;
  }

  /** Whether translations use the output shortlist: asked for, and the model has one. */
  useShortlist() {
    return Boolean(this.state.shortlist && this.translator?.info.shortlists?.length);
  }

  /** The options of a run on the loaded model (data/run-options.js), with the run's own. */
  runOptions(own) {
    return runOptions(
      { state: this.state, entry: this.entry(), shortlist: this.useShortlist() },
      own,
    );
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
    this.latest = translateText(this, ticket);
    return this.latest;
  }

  /** Whether the shown sentence can be re-decoded with another candidate forced. */
  canWhatIf() {
    const source = this.doc?.sentences[this.state.sentence]?.source;
    return Boolean(this.translator && this.result && !this.doc.stopped && source && !this.abort);
  }

  /** "What if" candidate `cand` had been written at `step` (what-if.js). */
  async whatIf(step, cand) {
    if (this.canWhatIf()) await runWhatIf(this, step, cand);
  }

  /** Back from a what-if run to the model's own translation of the sentence. */
  undoWhatIf() {
    if (!this.result?.whatIf) return;
    this.showSentence(this.state.sentence);
    announce('Back to the model’s own translation');
  }

  /** The result every view shows changed: views redraw from scratch. */
  newResult(result) {
    this.result = result;
    this.resultId = (this.resultId ?? 0) + 1;
    this.rendered.clear();
  }

  /** Shows sentence k of the translated text in the output, the picker and every view. */
  showSentence(k, { render = true } = {}) {
    const doc = this.doc;
    if (!doc) return;
    const one = doc.sentences.length === 1;
    this.newResult(one ? doc : { ...doc.sentences[k], interventions: doc.interventions });
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
