// The demo page's start: builds the App (app.js), wires the page's controls, tabs, export
// buttons and the URL to it, loads the model list and translates the first text. Nothing here
// decodes or draws; the App and its views do.

import { App } from './app.js';
import { parseState } from './state.js';
import { announce, reducedMotion } from '../widgets/ui.js';
import { cssAt } from '../widgets/colormap.js';
import { page } from './page.js';
import { loadManifest } from './models.js';
import { showMessage } from './status.js';
import { limitPaste } from './translation.js';
import { markStale } from './translate.js';
import { exportTrace } from './export.js';
import { startTour, tourDone } from './tour.js';
import { createExamples } from './examples.js';
import { wireOpenModel } from './open-model.js';

/** The source text box: typing marks the output stale, a long paste is cut, Ctrl+Enter. */
function wireSource(app) {
  const p = page();
  p.translateButton.addEventListener('click', () => app.translate());
  p.stopButton.addEventListener('click', () => app.abort?.abort());
  p.source.addEventListener('input', () => markStale(app));
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
}

/** Model, decoding, max pieces and shortlist: each change goes to the state and translates. */
function wireOptions(app, examples) {
  const p = page();
  for (const r of document.querySelectorAll('input[name="decoding"]')) {
    r.checked = Number(r.value) === (app.state.beam > 1 ? 4 : 1);
    r.addEventListener('change', () => {
      app.set({ beam: Number(r.value) }, { render: false });
      app.translate();
    });
  }
  p.modelSelect.addEventListener('change', () => {
    examples.show();
    markStale(app);
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
}

/** The view tabs: click, or the left and right arrow keys. */
function wireTabs(app) {
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
}

/** Export of the active figure and the whole trace, and "copy link". */
function wireExport(app) {
  const p = page();
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
}

/** A URL edited by hand: translates again when what is translated changed, else redraws. */
function wireHash(app, examples) {
  const p = page();
  window.addEventListener('hashchange', () => {
    const next = parseState(location.hash);
    // why: a hand-edited '#model=fr-en' names only the model: the text on screen is kept
    if (!next.text) next.text = p.source.value || app.state.text;
    if (!next.model) next.model = app.state.model;
    if (!app.models.some((m) => m.id === next.model)) {
      showMessage(`There is no model '${next.model}' on this page; kept ${app.state.model}.`);
      next.model = app.state.model;
    }
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
      if (next.model !== p.modelSelect.value) {
        p.modelSelect.value = next.model;
        examples.show();
      }
      app.translate();
    } else app.renderView();
  });
}

/** The look that follows the system: the colour ramp, reduced motion, light or dark. */
function followSystem(app) {
  document.documentElement.style.setProperty(
    '--ramp',
    `linear-gradient(90deg, ${[0, 0.25, 0.5, 0.75, 1].map((t) => cssAt('sequential', t)).join(', ')})`,
  );
  if (reducedMotion()) document.documentElement.dataset.motion = 'reduced';
  // canvases read the theme's colours when they draw: redraw when the OS switches light/dark
  window
    .matchMedia('(prefers-color-scheme: dark)')
    .addEventListener('change', () => requestAnimationFrame(() => app.renderView()));
}

async function main() {
  const p = page();
  const app = new App();
  window.heedDemo = app; // for the browser tests and the curious
  followSystem(app);
  const examples = createExamples(app);
  examples.show();
  wireSource(app);
  wireOptions(app, examples);
  wireTabs(app);
  wireExport(app);
  wireHash(app, examples);
  wireOpenModel(app);

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
  examples.show();
  p.source.value = app.state.text || examples.first();
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
