// "Surgery": re-translates the current sentence in the worker with heads ablated, a local
// window, sparse or linear attention, another softmax temperature or no positions, and shows
// it beside the unmodified run — both translations with the changed pieces marked, chrF
// between them, the attention maps of both, the costs of both — plus two experiments: which
// heads matter (ablate each in turn, rank by change) and the shuffled source without positions
// (the encoder's attention is a permutation of the original's). Its parts live beside it.

import { el, aboutView } from '../../widgets/ui.js';
import { chrf } from '../../data/chrf.js';
import { interventionsOf, pieceDiff } from '../../data/surgery-data.js';
import { createSide, createCosts } from './compare.js';
import { createRanking } from './ranking.js';
import { createShuffleCheck } from './shuffle.js';
import { createAttentionSettings } from './controls.js';
import { createHeadGrid } from './heads.js';
import { createBothMaps } from './maps.js';
import { createModifiedRun } from './run.js';
import { surgeryFigures } from './figures.js';

const ABOUT =
  'Attention surgery changes how the trained model attends, for this one translation, and shows what follows. Ablating a head removes its contribution (Michel et al. 2019 found many heads can go with little loss). A window lets each position see only its neighbours; sparse adds a few global and random key blocks to it, as Longformer (Beltagy et al. 2020) and BigBird (Zaheer et al. 2020) do. Linear attention replaces the softmax by a kernel feature map, FAVOR+ with random features (Choromanski et al. 2021). The temperature multiplies the 1/√d_k scale of Vaswani et al. 2017 §3.2.1: above 1 sharpens, below 1 flattens. No positions drops the sinusoidal position signal of §3.5, and the encoder can no longer tell word order.';

/** The comparison of both runs: chrF line, the two sides, the cost table. */
function createComparison() {
  const chrfLine = el('p.sg-chrf', { role: 'status', 'aria-live': 'polite' });
  const before = createSide('Unmodified');
  const after = createSide('With surgery');
  const costs = createCosts();
  const nodes = [
    chrfLine,
    el('div.grid2.sg-compare', {}, before.node, after.node),
    el('p.note', {
      text: 'Pieces that the other run does not share (a longest-common-subsequence diff) are boxed; the underline shows the model’s confidence in each piece, dotted below 50 %.',
    }),
    costs.node,
  ];
  /** Shows both runs; `none`: no surgery is chosen. */
  function show(base, mod, none) {
    const d = pieceDiff(base.targetTokens, mod.targetTokens);
    before.show(base, d.a);
    after.show(mod, d.b);
    const score = chrf(mod.text, base.text);
    chrfLine.replaceChildren(
      el('strong', { text: `chrF ${score.toFixed(1)}` }),
      ` between the two translations (100 = the same characters)${none ? ' — no surgery chosen yet, so both runs are the same' : ''}.`,
    );
    chrfLine.dataset.chrf = score.toFixed(4);
    costs.show(base, mod);
  }
  return { nodes, show };
}

export function createSurgeryView(app) {
  const baseKey = () => `${app.resultId}|${app.state.beam}`;
  const heads = createHeadGrid(app);
  const settings = createAttentionSettings(app);
  const runBtn = el('button.primary', { type: 'button', id: 'sg-run' }, 'Run again');
  const runState = el('span.note.sg-inline', { role: 'status' });
  const comparison = createComparison();
  const maps = createBothMaps(app, (mv, slug) => figures.mapTarget(mv, slug));
  const ranking = createRanking(app, baseKey);
  const shuffle = createShuffleCheck(app, baseKey, (mv, slug) => figures.mapTarget(mv, slug));
  const setState = (s) => (element.dataset.state = s);
  let shownKey = '';
  const modified = createModifiedRun(app, baseKey, {
    onStart() {
      setState('running');
      runState.textContent = 'translating with the surgery…';
    },
    onDone() {
      shownKey = '';
      if (app.state.view === 'surgery') render();
    },
  });
  runBtn.addEventListener('click', () => modified.schedule(0, true));
  const figures = surgeryFigures(app, { maps, modified, ranking, shuffle });

  const empty = el('p.note', { text: 'Translate a sentence to operate on its attention.' });
  const body = el(
    'div',
    {},
    el('h3', { text: 'Heads to ablate' }),
    el('p.note', {
      text: 'Press a thumbnail to switch that head off (again to switch it back on). Its attention is still computed and drawn; what the layer receives from it is zero, or the mean of the other heads of that layer.',
    }),
    ...heads.nodes,
    el('h3', { text: 'How every head attends' }),
    settings.node,
    el('div.row', {}, runBtn, runState),
    el('h3', { text: 'Unmodified and with surgery' }),
    ...comparison.nodes,
    el('h3', { text: 'Attention of both runs' }),
    ...maps.nodes,
    ranking.node,
    shuffle.node,
  );
  const element = el(
    'div.view-surgery',
    { 'data-state': 'idle' },
    aboutView(el('p.note.sg-about', { text: ABOUT })),
    empty,
    body,
  );

  function drawComparison() {
    const base = app.result;
    const m = modified.result();
    if (!m || m.key !== modified.key()) {
      setState('pending'); // why: the shown comparison is of an older surgery
      modified.schedule();
      return;
    }
    const key = `${m.key}|${app.state.block}|${app.state.layer}|${app.state.head}`;
    if (key === shownKey) return;
    shownKey = key;
    runState.textContent = '';
    if (m.error) {
      setState('failed');
      runState.textContent = `The surgery could not run: ${m.error.message ?? m.error}`;
      return;
    }
    const none = !Object.keys(interventionsOf(app.state, base)).length;
    comparison.show(base, m.result, none);
    maps.draw(base, m.result);
    setState('done');
  }

  function render() {
    const has = !!app.result?.attention;
    empty.hidden = has;
    body.hidden = !has;
    if (!has) return setState('idle');
    settings.sync();
    maps.sync();
    heads.draw();
    drawComparison();
    ranking.render();
    shuffle.render();
  }

  return { element, render, exportTarget: figures.exportTarget };
}
