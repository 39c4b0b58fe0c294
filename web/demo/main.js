// The demo page: loads the model list and a model (in a Web Worker), translates with the
// attention trace, and hands the result to the five views. Owns the page state and the URL.

import { parseState, formatState } from './state.js';
import { fetchModel } from './model-store.js';
import { el, announce, download, reducedMotion, hideTip } from './ui.js';
import { cssAt } from './colormap.js';
import { showPiece } from './attention-data.js';
import { createTimelineView } from './view-timeline.js';
import { createAttentionView } from './view-attention.js';
import { createExplainView } from './view-explain.js';
import { createLabView } from './view-lab.js';
import { createPositionsView } from './view-positions.js';

const EXAMPLES = [
  'This package contains the documentation for the library.',
  'It is a simple text editor for the terminal.',
  'The program is written in Python and uses the GTK toolkit.',
  'This package provides a command line tool to convert images.',
  'Attention is cool.',
  'This package contains the shared library, which is needed to run programs that were compiled against it, as well as the header files and examples for developers.',
];
const MAX_CHARS = 4000;
const T0 = performance.now();

const $ = (id) => document.getElementById(id);

class App {
  constructor() {
    this.state = parseState(location.hash);
    this.models = [];
    this.translator = null;
    this.translatorModel = '';
    this.result = null; // finished TranslationResult (with attention)
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
    const host = $('view');
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
    const t = this.exportTarget();
    $('export-target').textContent = t ? `Export “${t.title}”:` : 'Nothing to export yet';
    for (const id of ['export-png', 'export-svg', 'export-json']) $(id).disabled = !t;
  }

  // ---- messages ----

  message(text, kind = 'error') {
    const m = $('message');
    m.hidden = !text;
    m.textContent = text ?? '';
    m.className = `message${kind === 'info' ? ' info' : ''}`;
  }

  status(text) {
    $('model-status').textContent = text;
  }

  // ---- models ----

  async loadManifest() {
    let list;
    try {
      const res = await fetch('../models/models.json', { cache: 'no-cache' });
      if (!res.ok) throw new Error(`the server answered ${res.status} for /models/models.json`);
      list = await res.json();
      if (
        !Array.isArray(list) ||
        !list.every((m) => m && typeof m.id === 'string' && typeof m.file === 'string')
      ) {
        throw new Error('models.json is not a list of {id, file, name, size}');
      }
    } catch (err) {
      this.status('No models');
      this.message(`Could not read the list of models: ${err.message}.`);
      return [];
    }
    const sel = $('model-select');
    sel.replaceChildren(
      ...list.map((m) =>
        el('option', {
          value: m.id,
          text: `${m.name ?? m.id}${m.size ? ` · ${sizeText(m.size)}` : ''}`,
        }),
      ),
    );
    this.models = list;
    return list;
  }

  async loadModel(id) {
    const entry = this.models.find((m) => m.id === id);
    if (!entry) throw new Error(`no model “${id}” in models.json`);
    if (this.translator && this.translatorModel === id) return this.translator;
    this.abort?.abort();
    this.translator?.dispose();
    this.translator = null;
    this.result = null;
    const box = $('load-box'),
      bar = $('load-progress'),
      txt = $('load-text');
    box.hidden = false;
    bar.value = 0;
    txt.textContent = `Loading ${entry.name ?? id}…`;
    const about = $('model-about');
    about.textContent = typeof entry.about === 'string' ? entry.about : '';
    about.hidden = !about.textContent;
    this.status(`Loading ${entry.name ?? id}…`);
    document.documentElement.dataset.heed = 'loading';
    const t0 = performance.now();
    try {
      const url = new URL(`../models/${entry.file}`, location.href).href;
      const { bytes, source } = await fetchModel(url, {
        expectedSize: entry.size,
        onProgress: (f, n) => {
          if (Number.isFinite(f)) bar.value = f;
          else bar.removeAttribute('value');
          txt.textContent = `${(n / 1e6).toFixed(1)} MB${Number.isFinite(f) ? ` (${Math.round(f * 100)} %)` : ''}`;
        },
      });
      txt.textContent = 'Starting the engine…';
      const { spawnTranslator } = await import('../lib/heed-worker.js');
      const size = bytes.length; // why: the worker client may transfer (detach) the buffer
      const translator = await spawnTranslator({ model: bytes });
      this.translator = translator;
      this.translatorModel = id;
      const ms = performance.now() - t0;
      const cfg = translator.info?.config ?? {};
      const params = translator.info?.parameters;
      this.status(
        `${entry.name ?? id}: ${sizeText(size)}` +
          `${params ? `, ${(params / 1e6).toFixed(1)} M parameters` : ''}` +
          `${cfg.encoder_layers ? `, ${cfg.encoder_layers}+${cfg.decoder_layers} layers × ${cfg.heads} heads` : ''}` +
          ` — ${source === 'network' ? 'downloaded' : source === 'cache' ? 'from the browser cache' : 'offline copy'} in ${(ms / 1000).toFixed(2)} s`,
      );
      box.hidden = true;
      document.documentElement.dataset.heed = 'loaded';
      return translator;
    } catch (err) {
      box.hidden = true;
      document.documentElement.dataset.heed = 'load-failed';
      const why = err?.code ? `${err.code}: ${err.message}` : err.message;
      this.status(`Could not load ${entry.name ?? id}`);
      this.message(
        `The model “${entry.name ?? id}” could not be loaded — ${why}` +
          (err?.code === 'NO_SIMD'
            ? ' This browser lacks WebAssembly SIMD; use a current Chrome, Firefox or Safari.'
            : ''),
      );
      throw err;
    }
  }

  // ---- translating ----

  validate(text) {
    if (!text.trim()) return 'Type or pick a sentence to translate: the text is empty.';
    if (text.length > MAX_CHARS)
      return `The text is ${text.length} characters long; the limit here is ${MAX_CHARS}.`;
    const ctrl = text.match(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/);
    if (ctrl)
      return `The text contains an unsupported control character (U+${ctrl[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}). Remove it and try again.`;
    return null;
  }

  async translate() {
    const text = $('source-text').value;
    const problem = this.validate(text);
    if (problem) {
      this.message(problem);
      $('source-text').focus();
      return;
    }
    this.message(null);
    const modelId = $('model-select').value;
    let translator;
    try {
      translator = await this.loadModel(modelId);
    } catch {
      return;
    }
    this.abort?.abort();
    const ctrl = new AbortController();
    this.abort = ctrl;
    const beam = this.state.beam;
    this.set({ text, model: modelId }, { render: false });
    $('translate-btn').disabled = true;
    $('stop-btn').hidden = false;
    $('output').replaceChildren(
      el('span.pending', {}, el('span.spinner', { 'aria-hidden': 'true' }), ' translating…'),
    );
    document.documentElement.dataset.heed = 'translating';
    const t0 = performance.now();
    try {
      this.result = null;
      this.live = { sourceTokens: null, events: [] };
      this.views.timeline.startLive();
      const result = await translator.translate(text, {
        beam,
        attention: true,
        topK: 5,
        signal: ctrl.signal,
        onStep: (ev) => {
          this.live.sourceTokens ??= ev.sourceTokens ?? null; // labels for the live cross-attention
          this.live.events.push(ev);
          this.views.timeline.liveStep(ev);
        },
      });
      const ms = performance.now() - t0;
      if (ctrl.signal.aborted) return;
      this.result = result;
      this.resultId = (this.resultId ?? 0) + 1;
      this.resultText = text;
      this.liveSteps = this.live.events.length; // how many onStep events were drawn live
      this.live = null;
      this.rendered.clear();
      this.showOutput(result);
      if (this.firstTranslationMs === null) this.firstTranslationMs = performance.now() - T0;
      const words = text.trim().split(/\s+/).length;
      $('stats').textContent =
        `${result.targetTokens.length} target pieces from ${result.sourceTokens.length} source pieces` +
        ` in ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`} (${(words / (ms / 1000)).toFixed(0)} words/s, ${beam > 1 ? `beam ${beam}` : 'greedy'}, with attention)` +
        ` · first translation ${(this.firstTranslationMs / 1000).toFixed(2)} s after page load`;
      const unk = result.sourceTokens.filter((t) => t === '<unk>').length;
      if (unk)
        this.message(
          `${unk} piece${unk > 1 ? 's' : ''} of the text use characters this model has never seen; ${unk > 1 ? 'they were' : 'it was'} read as <unk>, so the translation may be off.`,
          'info',
        );
      document.documentElement.dataset.heed = 'translated';
      this.views.timeline.finishLive();
      this.renderView();
    } catch (err) {
      this.live = null;
      if (err?.code === 'ABORTED' || ctrl.signal.aborted) {
        $('output').replaceChildren(el('span.pending', { text: 'Stopped.' }));
        document.documentElement.dataset.heed = 'stopped';
      } else {
        $('output').replaceChildren();
        this.result = null;
        $('stats').textContent = '';
        $('conf-legend').hidden = true;
        const what =
          err?.code === 'BAD_INPUT' ? 'The text cannot be translated' : 'Translation failed';
        this.message(`${what}: ${err?.message ?? err}`);
        document.documentElement.dataset.heed = 'translate-failed';
      }
      this.renderView();
    } finally {
      if (this.abort === ctrl) this.abort = null;
      $('translate-btn').disabled = false;
      $('stop-btn').hidden = true;
    }
  }

  /** The translation with one underlined span per piece; colour and dots show confidence. */
  showOutput(result) {
    const out = $('output');
    const spans = [];
    result.targetTokens.forEach((t, i) => {
      if (t === '</s>') return;
      const p = result.tokenProbs[i];
      const lead = t.startsWith('▁') && spans.length ? ' ' : '';
      if (lead) spans.push(lead);
      const bare = t === '▁'; // a lone word-start piece: shown as an underlined gap
      spans.push(
        el(
          `span.tok${p < 0.5 ? '.low' : ''}${bare ? '.bare' : ''}`,
          {
            tabindex: 0,
            'data-step': i,
            style: `--c: ${cssAt('sequential', p)}`,
            title: `“${t}” — probability ${(p * 100).toFixed(1)} %`,
            'aria-label': `${showPiece(t)}, confidence ${(p * 100).toFixed(0)} percent`,
            onclick: () => this.jumpToStep(i),
            onkeydown: (ev) => {
              if (ev.key === 'Enter') this.jumpToStep(i);
            },
          },
          bare ? '\u2009' : showPiece(t),
        ),
      );
    });
    out.replaceChildren(...spans);
    out.dataset.text = result.text;
    $('conf-legend').hidden = false;
  }

  jumpToStep(i) {
    this.set({ view: 'timeline', step: i + 1 });
    announce(`Timeline at step ${i + 1}`);
  }

  // ---- attention lab kernels ----

  lab() {
    this.labPromise ??= import('../lib/heed.js').then((m) => m.loadAttentionLab());
    return this.labPromise;
  }

  // ---- export ----

  async exportAs(kind) {
    const t = this.exportTarget();
    if (!t) return;
    const base = `heed-${this.state.view}-${t.slug ?? 'view'}`;
    if (kind === 'png') download(await t.png(), `${base}.png`);
    else if (kind === 'svg')
      download(new Blob([t.svg()], { type: 'image/svg+xml' }), `${base}.svg`);
    else {
      const data = {
        app: 'heed-demo',
        model: this.state.model,
        text: this.resultText,
        view: this.state.view,
        url: location.href,
        ...t.json(),
      };
      download(
        new Blob([JSON.stringify(data, null, 1)], { type: 'application/json' }),
        `${base}.json`,
      );
    }
    announce(`Exported ${t.title} as ${kind.toUpperCase()}`);
  }
}

function sizeText(bytes) {
  return bytes >= 1e6
    ? `${(bytes / 1e6).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

async function main() {
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

  // examples
  $('examples').replaceChildren(
    ...EXAMPLES.map((text) =>
      el(
        'button',
        {
          type: 'button',
          title: text,
          onclick: () => {
            $('source-text').value = text;
            app.translate();
          },
        },
        text.length > 34 ? `${text.slice(0, 32)}…` : text,
      ),
    ),
  );

  // controls
  $('translate-btn').addEventListener('click', () => app.translate());
  $('stop-btn').addEventListener('click', () => app.abort?.abort());
  $('source-text').addEventListener('keydown', (ev) => {
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
  $('model-select').addEventListener('change', () => app.translate());
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
  $('export-png').addEventListener('click', () => app.exportAs('png'));
  $('export-svg').addEventListener('click', () => app.exportAs('svg'));
  $('export-json').addEventListener('click', () => app.exportAs('json'));
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      announce('Link copied');
      app.message('Link to this view copied to the clipboard.', 'info');
    } catch {
      app.message(`Copy this link to reopen the view: ${location.href}`, 'info');
    }
  });
  window.addEventListener('hashchange', () => {
    const next = parseState(location.hash);
    const retranslate =
      next.text !== app.state.text ||
      next.model !== app.state.model ||
      next.beam !== app.state.beam;
    app.state = next;
    if (retranslate && next.text) {
      $('source-text').value = next.text;
      if (next.model) $('model-select').value = next.model;
      app.translate();
    } else app.renderView();
  });

  app.renderView();
  const models = await app.loadManifest();
  if (!models.length) return;
  const wanted = models.find((m) => m.id === app.state.model) ?? models[0];
  if (app.state.model && wanted.id !== app.state.model) {
    app.message(
      `The link asks for model “${app.state.model}”, which this server does not have; using ${wanted.name ?? wanted.id}.`,
      'info',
    );
  }
  $('model-select').value = wanted.id;
  $('source-text').value = app.state.text || EXAMPLES[0];
  const steps = app.state.step;
  await app.translate();
  if (steps >= 0 && app.result) app.set({ step: steps });
}

main().catch((err) => {
  const m = document.getElementById('message');
  m.hidden = false;
  m.textContent = `The demo could not start: ${err.message}`;
});
