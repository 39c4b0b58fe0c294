// "Inside one head": the computation of one attention head of the real model, step by step on
// its live numbers from translator.explainHead(): X → Q, K, V → QKᵀ → ÷√dk → mask → softmax →
// weights·V → concatenation of heads → output projection, with a worked cell at each step.

import { el } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';
import { headPicker } from '../widgets/controls.js';
import { BLOCK_NAMES } from '../data/blocks.js';
import { dims } from '../data/attention-data.js';
import { STEPS } from './explain-steps.js';
import { workedText } from './explain-worked.js';
import { createEvidencePanel } from './explain-evidence.js';

/** The step buttons, "previous" and "next": `nodes`, and `sync()` to mark the current step. */
function stepper(app) {
  const go = (k) => app.set({ xstep: Math.max(0, Math.min(STEPS.length - 1, k)) });
  const prev = el(
    'button',
    { type: 'button', onclick: () => go(app.state.xstep - 1) },
    '← Previous',
  );
  const next = el('button', { type: 'button', onclick: () => go(app.state.xstep + 1) }, 'Next →');
  const buttons = STEPS.map((s, k) =>
    el(
      'button',
      { type: 'button', 'aria-pressed': 'false', onclick: () => app.set({ xstep: k }) },
      `${k + 1}. ${s.name}`,
    ),
  );
  return {
    nodes: [
      el('div.stepper', { role: 'group', 'aria-label': 'Computation steps' }, buttons),
      el('div.row', {}, prev, next),
    ],
    sync() {
      buttons.forEach((b, k) => b.setAttribute('aria-pressed', String(k === app.state.xstep)));
      prev.disabled = app.state.xstep === 0;
      next.disabled = app.state.xstep === STEPS.length - 1;
    },
  };
}

/** The export of MatrixView `v` at the current step of head explanation `ex`. */
function explainTarget(app, v, ex) {
  const where = `${BLOCK_NAMES[app.state.block]} L${app.state.layer + 1} H${app.state.head + 1}`;
  return {
    title: `${v.o.title} — ${where}`,
    slug: `explain-${app.state.block}-l${app.state.layer + 1}-h${app.state.head + 1}-step${app.state.xstep + 1}`,
    png: () => v.toPNG([STEPS[app.state.xstep].formula]),
    svg: () => v.toSVG([STEPS[app.state.xstep].formula]),
    json: () =>
      v.toJSON({
        block: app.state.block,
        layer: app.state.layer,
        head: app.state.head,
        step: STEPS[app.state.xstep].name,
        dk: ex?.dk,
      }),
  };
}

/** What the view says about the explained head: its sizes and where the numbers come from. */
function headStatus(app, ex) {
  const [Lq, D] = dims(ex.xq);
  const [Lk] = dims(ex.k);
  const Dh = dims(ex.q)[1];
  const { block, layer, head } = app.state;
  return (
    `${BLOCK_NAMES[block]}, layer ${layer + 1}, head ${head + 1}: ` +
    `${Lq} queries × ${Lk} keys, model width D = ${D}, head width d_k = ${ex.dk} (D / heads = ${Dh}). Recomputed by the engine on this sentence (teacher-forced).`
  );
}

/**
 * Reusable MatrixViews by role: `mv(role, opts)` makes one the first time (opts then hold), and
 * `scores` and `weights` make [query × key] ones, signed or 0..1. A view with `follow` reports
 * its cursor to onFollow(i, j); any view reports focus to onFocus(view).
 */
function matrixShelf({ onFocus, onFollow }) {
  const views = new Map();
  function mv(role, opts) {
    let v = views.get(role);
    if (!v) {
      v = new MatrixView({
        maxCell: 26,
        minCell: 3,
        ...opts,
        onFocus: () => onFocus(v),
        onCell: (i, j) => opts.follow && onFollow(i, j),
      });
      views.set(role, v);
    }
    return v;
  }
  return {
    views,
    mv,
    scores: (role, title, opts) =>
      mv(role, { title, map: 'diverging', rowAxis: 'query', colAxis: 'key', ...opts }),
    weights: (role, title, opts) =>
      mv(role, { title, domain: [0, 1], rowAxis: 'query', colAxis: 'key', ...opts }),
  };
}

/** explainHead() of the state's head on the shown result, asked once per result and head. */
function explanationCache(app) {
  const cache = new Map();
  let result = null;
  return {
    /** {key, ex} of the state's block, layer and head. */
    async get() {
      if (app.result !== result) {
        cache.clear();
        result = app.result;
      }
      const { block, layer, head } = app.state;
      const key = `${block}/${layer}/${head}`;
      if (!cache.has(key))
        cache.set(key, app.translator.explainHead(app.result, { block, layer, head }));
      return { key, ex: await cache.get(key) };
    },
  };
}

/** The view's elements: the pickers, the stepper, and where a step's text and matrices go. */
function explainLayout(picker, steps, evidence) {
  const querySel = el('select', { id: 'ex-query', 'aria-label': 'Query token to follow' });
  const unscaled = el('input', { type: 'checkbox', id: 'ex-unscaled' });
  const heading = el('h3');
  const formula = el('p', {}, el('span.formula'));
  const text = el('p.note.explain-text');
  const mats = el('div.grid2');
  const worked = el('div.worked', { 'aria-live': 'polite' });
  const status = el('p.note');
  const element = el(
    'div.view-explain',
    {},
    el(
      'div.row',
      {},
      picker.node,
      el('div.sub', {}, el('label', { for: 'ex-query', text: 'follow query' }), querySel),
      el('label.sub', {}, unscaled, ' compare with the softmax without ÷√d_k'),
    ),
    ...steps.nodes,
    status,
    heading,
    formula,
    text,
    worked,
    mats,
    evidence.element,
  );
  return { element, querySel, unscaled, heading, formula, text, mats, worked, status };
}

export function createExplainView(app) {
  const picker = headPicker(app, { allowAvg: false, idPrefix: 'ex' });
  const steps = stepper(app);
  const evidence = createEvidencePanel(app, { onRow: (i) => follow(i, -1) });
  const parts = explainLayout(picker, steps, evidence);
  const { element, querySel, unscaled, heading, formula, text, mats, worked, status } = parts;
  unscaled.addEventListener('change', () => app.set({ unscaled: unscaled.checked }));
  querySel.addEventListener('change', () => {
    qi = Number(querySel.value);
    kj = -1;
    evidence.row(qi);
    draw();
  });

  let ex = null; // HeadExplanation on screen
  let exKey = '';
  let qi = 0,
    kj = -1; // followed query row and key column
  let primary = null;
  const shelf = matrixShelf({
    onFocus(v) {
      primary = v;
      app.setActive(exportFor(v));
    },
    onFollow: (i, j) => follow(i, j),
  });

  /** Follows query row i (and key column j, -1 none) in the matrices, the text and the panel. */
  function follow(i, j) {
    qi = i;
    kj = j;
    querySel.value = String(i);
    showWorked();
    syncHighlights();
    evidence.row(i);
  }
  const exportFor = (v) => explainTarget(app, v, ex);

  const explanations = explanationCache(app);

  async function render() {
    picker.sync();
    unscaled.checked = app.state.unscaled;
    steps.sync();
    if (!app.result || !app.translator) {
      status.textContent =
        'Translate a sentence first: this view recomputes one head of the model on it.';
      mats.replaceChildren();
      worked.textContent = '';
      heading.textContent = '';
      evidence.element.hidden = true;
      return;
    }
    if (!Number.isInteger(app.state.head)) app.state.head = 0;
    status.textContent = 'Computing…';
    let got;
    try {
      got = await explanations.get();
    } catch (err) {
      status.textContent = `Could not explain this head: ${err.message}`;
      return;
    }
    if (got.key !== `${app.state.block}/${app.state.layer}/${app.state.head}`) return; // a newer request won
    // why: the first query rows of a causal block have one or two keys — a dull example
    if (got.key !== exKey) {
      qi = Math.min(3, got.ex.queryTokens.length - 1);
      kj = -1;
    }
    ex = got.ex;
    exKey = got.key;
    const q = ex.queryTokens;
    querySel.replaceChildren(
      ...q.map((t, i) => el('option', { value: i, text: `${i + 1}: ${t}` })),
    );
    if (qi >= q.length) qi = 0;
    querySel.value = String(qi);
    status.textContent = headStatus(app, ex);
    draw();
    evidence.show(app.state.block === 'cross' ? ex : null, qi);
  }

  function draw() {
    if (!ex) return;
    const s = app.state.xstep;
    heading.textContent = `Step ${s + 1} of ${STEPS.length}: ${STEPS[s].name}`;
    formula.firstChild.textContent = STEPS[s].formula;
    const c = { ex, state: app.state, blocked: maskOf(ex.mask), ...shelf };
    const { text: said, views: list } = STEPS[s].draw(c);
    text.textContent = said;
    // why: model-width (D) matrices need the whole row; narrow ones sit side by side
    mats.className = list.some((v) => v.m.cols > 64) ? 'stack' : 'grid2';
    mats.replaceChildren(...list.map((v) => v.element));
    primary = list.find((v) => v.o.follow) ?? list[list.length - 1];
    app.setActive(exportFor(primary));
    syncHighlights();
    showWorked();
  }

  function syncHighlights() {
    for (const v of shelf.views.values()) {
      if (!v.m || !v.element.isConnected) continue;
      if (
        v.o.rowAxis === 'query' ||
        (v.o.rowAxis === 'token' && v.m.rows === ex.queryTokens.length)
      )
        v.reveal(Infinity, qi);
    }
  }

  function showWorked() {
    if (ex) worked.textContent = workedText(ex, app.state.xstep, qi, kj, app.state.head);
  }

  return { element, render, exportTarget: () => (primary?.m ? exportFor(primary) : null) };
}

/** Mask tensor (1 = blocked) -> Uint8Array, or null when nothing is blocked. */
function maskOf(t) {
  let any = false;
  const b = new Uint8Array(t.data.length);
  for (let i = 0; i < t.data.length; i++)
    if (t.data[i] > 0.5) {
      b[i] = 1;
      any = true;
    }
  return any ? b : null;
}
