// "Surgery": re-translates the current sentence in the worker with heads ablated, a local
// window, sparse or linear attention, another softmax temperature or no positions, and shows
// it beside the unmodified run — both translations with the changed pieces marked, chrF
// between them, the attention maps of both, costs when the engine reports them — plus two
// experiments: which heads matter (ablate each in turn, rank by change) and the shuffled
// source without positions (the encoder's attention is a permutation of the original's).

import { el, fmt, aboutView } from '../../widgets/ui.js';
import { MatrixView, drawThumb } from '../../widgets/matrix-view.js';
import { headMatrix, prepare, causalMask } from '../../data/attention-data.js';
import { headPicker, blockShape, BLOCK_NAMES } from '../../widgets/controls.js';
import { axisNames, headTitle } from '../attention.js';
import { chrf } from '../../data/chrf.js';
import { createSide, createCosts } from './compare.js';
import { createRanking } from './ranking.js';
import { createShuffleCheck } from './shuffle.js';
import {
  formatAblate,
  parseAblate,
  hasHead,
  toggleHead,
  pieceDiff,
  absDiff,
  surgeryInput,
} from '../../data/surgery-data.js';

const BLOCKS = ['encoder', 'decoder', 'cross'];
const DEBOUNCE_MS = 250;

/** What the engine in hand can do, read from the echo of a result it made. */
export function capabilities(result) {
  return {
    // why: the engine echoes every intervention field it knows, defaults filled in
    linear: !!result?.interventions && 'linear' in result.interventions,
    costs: Array.isArray(result?.costs),
  };
}

/** options.interventions for the state's surgery (only the fields that differ from none). */
export function interventionsOf(s, result, caps = capabilities(result)) {
  const iv = {};
  const ablate = parseAblate(s.ablate)
    .filter((a) => {
      const { layers, heads } = blockShape(result, a.block);
      return a.layer < layers && a.head < heads;
    })
    .map((a) => ({ ...a, mean: s.amean }));
  if (ablate.length) iv.ablate = ablate;
  if (s.temp !== 1) iv.temperature = s.temp;
  if (s.win >= 0) iv.window = s.win;
  if (s.nopos) iv.noPositions = true;
  if (s.sparse) iv.sparse = { enabled: true, randomBlocks: s.rblocks, block: 4, seed: 1 };
  if (caps.linear && s.lin !== 'none') iv.linear = { kind: s.lin, features: s.feat, seed: 1 };
  return iv;
}

/** One labelled range input with its value shown beside it. */
function slider(id, label, { min, max, step }, show) {
  const input = el('input', { type: 'range', id, min, max, step });
  const out = el('output', { for: id });
  const node = el('div.sub.sg-slider', {}, el('label', { for: id, text: label }), input, out);
  return {
    node,
    input,
    set(v) {
      input.value = String(v);
      out.textContent = show(Number(v));
      input.setAttribute('aria-valuetext', show(Number(v)));
    },
  };
}

export function createSurgeryView(app) {
  const caps = () => capabilities(app.result);

  // ---- controls ----
  const thumbs = el('div.grids.sg-thumbs', {
    role: 'group',
    'aria-label': 'Heads to ablate: press a head to switch it off or on',
  });
  const meanSel = el('div.seg', { role: 'group', 'aria-label': 'Ablated heads output' });
  const zeroBtn = el('button', { type: 'button', 'aria-pressed': 'false' }, 'zero');
  const meanBtn = el('button', { type: 'button', 'aria-pressed': 'false' }, 'mean of the others');
  meanSel.append(zeroBtn, meanBtn);
  zeroBtn.addEventListener('click', () => app.set({ amean: false }));
  meanBtn.addEventListener('click', () => app.set({ amean: true }));
  const clearBtn = el('button', { type: 'button', id: 'sg-clear' }, 'Clear all surgery');
  clearBtn.addEventListener('click', () =>
    app.set({ ablate: '', temp: 1, win: -1, sparse: false, nopos: false, lin: 'none' }),
  );
  const ablateNote = el('span.note.sg-inline');

  const win = slider('sg-window', 'window radius', { min: -1, max: 32, step: 1 }, (v) =>
    v < 0 ? 'off' : `±${v}`,
  );
  win.input.addEventListener('input', () => app.set({ win: Number(win.input.value) }));
  const temp = slider(
    'sg-temp',
    'temperature',
    { min: 0.1, max: 4, step: 0.05 },
    (v) => `×${v.toFixed(2)}`,
  );
  temp.input.addEventListener('input', () => app.set({ temp: Number(temp.input.value) }));
  const sparse = el('input', { type: 'checkbox', id: 'sg-sparse' });
  sparse.addEventListener('change', () => app.set({ sparse: sparse.checked }));
  const rblocks = slider('sg-rblocks', 'random blocks', { min: 0, max: 8, step: 1 }, String);
  rblocks.input.addEventListener('input', () => app.set({ rblocks: Number(rblocks.input.value) }));
  const nopos = el('input', { type: 'checkbox', id: 'sg-nopos' });
  nopos.addEventListener('change', () => app.set({ nopos: nopos.checked }));
  const linSel = el(
    'select',
    { id: 'sg-linear' },
    el('option', { value: 'none', text: 'softmax (none)' }),
    el('option', { value: 'favor', text: 'FAVOR+ random features' }),
    el('option', { value: 'elu', text: 'elu + 1 feature map' }),
  );
  linSel.addEventListener('change', () => app.set({ lin: linSel.value }));
  const feat = slider('sg-features', 'random features', { min: 8, max: 256, step: 8 }, String);
  feat.input.addEventListener('input', () => app.set({ feat: Number(feat.input.value) }));
  const linNote = el('span.note.sg-inline');
  const linBox = el(
    'div.sub',
    {},
    el('label', { for: linSel.id, text: 'linear attention' }),
    linSel,
    feat.node,
    linNote,
  );
  const runBtn = el('button.primary', { type: 'button', id: 'sg-run' }, 'Run again');
  runBtn.addEventListener('click', () => schedule(0, true));
  const runState = el('span.note.sg-inline', { role: 'status' });

  // ---- comparison ----
  const chrfLine = el('p.sg-chrf', { role: 'status', 'aria-live': 'polite' });
  const before = createSide('Unmodified');
  const after = createSide('With surgery');
  const costs = createCosts();
  const picker = headPicker(app, { idPrefix: 'sg' });
  const mapOpts = (title) => ({
    title,
    domain: 'zeroMax',
    rowAxis: 'query',
    colAxis: 'key',
    maxCell: 26,
  });
  const mvBefore = new MatrixView({
    ...mapOpts('Unmodified'),
    onFocus: () => app.setActive(mapTarget(mvBefore, 'unmodified')),
  });
  const mvAfter = new MatrixView({
    ...mapOpts('With surgery'),
    onFocus: () => app.setActive(mapTarget(mvAfter, 'modified')),
  });
  const mapNote = el('p.note.sg-mapnote');

  const baseKey = () => `${app.resultId}|${app.state.beam}`;
  const ranking = createRanking(app, baseKey);
  const shuffle = createShuffleCheck(app, baseKey, (mv, slug) => mapTarget(mv, slug));

  const empty = el('p.note', { text: 'Translate a sentence to operate on its attention.' });
  const body = el(
    'div',
    {},
    el('h3', { text: 'Heads to ablate' }),
    el('p.note', {
      text: 'Press a thumbnail to switch that head off (again to switch it back on). Its attention is still computed and drawn; what the layer receives from it is zero, or the mean of the other heads of that layer.',
    }),
    el('div.row', {}, meanSel, clearBtn, ablateNote),
    thumbs,
    el('h3', { text: 'How every head attends' }),
    el(
      'div.row',
      {},
      win.node,
      temp.node,
      el('div.sub', {}, el('label', {}, sparse, ' sparse (global ends + random blocks)')),
      rblocks.node,
      el('div.sub', {}, el('label', {}, nopos, ' no positions')),
      linBox,
    ),
    el('div.row', {}, runBtn, runState),
    el('h3', { text: 'Unmodified and with surgery' }),
    chrfLine,
    el('div.grid2.sg-compare', {}, before.node, after.node),
    el('p.note', {
      text: 'Pieces that the other run does not share (a longest-common-subsequence diff) are boxed; the underline shows the model’s confidence in each piece, dotted below 50 %.',
    }),
    costs.node,
    el('h3', { text: 'Attention of both runs' }),
    el('div.row', {}, picker.node),
    mapNote,
    el('div.grid2.sg-maps', {}, mvBefore.element, mvAfter.element),
    ranking.node,
    shuffle.node,
  );
  const element = el(
    'div.view-surgery',
    { 'data-state': 'idle' },
    aboutView(
      el('p.note.sg-about', {
        text: 'Attention surgery changes how the trained model attends, for this one translation, and shows what follows. Ablating a head removes its contribution (Michel et al. 2019 found many heads can go with little loss). A window lets each position see only its neighbours; sparse adds a few global and random key blocks to it, as Longformer (Beltagy et al. 2020) and BigBird (Zaheer et al. 2020) do. Linear attention replaces the softmax by a kernel feature map, FAVOR+ with random features (Choromanski et al. 2021). The temperature multiplies the 1/√d_k scale of Vaswani et al. 2017 §3.2.1: above 1 sharpens, below 1 flattens. No positions drops the sinusoidal position signal of §3.5, and the encoder can no longer tell word order.',
      }),
    ),
    empty,
    body,
  );

  // ---- runs ----
  let modified = null; // {key, result, error}
  let runCtrl = null;
  let timer = null;
  let shownKey = '';
  let thumbKey = '';
  let runningKey = '';

  const surgeryKey = () =>
    `${baseKey()}|${JSON.stringify(interventionsOf(app.state, app.result, caps()))}`;
  const setState = (s) => {
    element.dataset.state = s;
  };

  function schedule(delay = DEBOUNCE_MS, force = false) {
    clearTimeout(timer);
    timer = setTimeout(() => runModified(force), delay);
  }

  async function runModified(force = false) {
    if (!app.result || !app.translator) return;
    const key = surgeryKey();
    if (!force && (modified?.key === key || runningKey === key)) return;
    runCtrl?.abort();
    const ctrl = new AbortController();
    runCtrl = ctrl;
    runningKey = key;
    setState('running');
    runState.textContent = 'translating with the surgery…';
    const interventions = interventionsOf(app.state, app.result, caps());
    try {
      const input = surgeryInput(app);
      const result = await app.translator.translate(input.text, {
        ...input.options,
        ...(input.forced.length && { forcedPrefix: input.forced }),
        beam: app.state.beam,
        attention: true,
        interventions,
        signal: ctrl.signal,
      });
      if (ctrl.signal.aborted) return;
      modified = { key, result, error: null };
    } catch (err) {
      if (ctrl.signal.aborted || err?.code === 'ABORTED') return;
      modified = { key, result: null, error: err };
    } finally {
      if (runCtrl === ctrl) {
        runCtrl = null;
        runningKey = '';
      }
    }
    shownKey = '';
    if (app.state.view === 'surgery') render();
  }

  // ---- drawing ----

  function drawThumbs() {
    const key = `${app.resultId}`;
    if (key !== thumbKey) {
      thumbKey = key;
      thumbs.replaceChildren();
      for (const block of BLOCKS) {
        const { layers, heads } = blockShape(app.result, block);
        const g = el('div.head-grid', {
          style: `grid-template-columns: auto repeat(${heads}, auto)`,
        });
        g.append(
          el('span'),
          ...Array.from({ length: heads }, (_, h) => el('span.colhead', { text: `h${h + 1}` })),
        );
        for (let l = 0; l < layers; l++) {
          g.append(el('span.lab', { text: `layer ${l + 1}` }));
          for (let h = 0; h < heads; h++) {
            const c = el('canvas', { width: 1, height: 1 });
            const { matrix } = prepare(headMatrix(app.result, block, l, h), {});
            let hi = 1e-6;
            for (const v of matrix.values) if (v > hi) hi = v;
            drawThumb(c, matrix, 'sequential', [0, hi]);
            g.append(
              el(
                'button.sg-head',
                {
                  type: 'button',
                  'data-block': block,
                  'data-layer': l,
                  'data-head': h,
                  'aria-label': `Ablate ${BLOCK_NAMES[block]}, layer ${l + 1}, head ${h + 1}`,
                  onclick: () => {
                    const list = toggleHead(parseAblate(app.state.ablate), block, l, h);
                    const on = list.some((a) => a.block === block && a.layer === l && a.head === h);
                    // a head switched off is the one "Attention of both runs" then shows
                    app.set({
                      ablate: formatAblate(list),
                      ...(on && { block, layer: l, head: h }),
                    });
                  },
                },
                c,
                el('span.sg-x', { 'aria-hidden': 'true', text: '×' }),
              ),
            );
          }
        }
        thumbs.append(el('div', {}, el('h4', { text: BLOCK_NAMES[block] }), g));
      }
    }
    const list = parseAblate(app.state.ablate);
    for (const b of thumbs.querySelectorAll('button')) {
      const on = hasHead(list, b.dataset.block, Number(b.dataset.layer), Number(b.dataset.head));
      b.setAttribute('aria-pressed', String(on));
    }
    ablateNote.textContent = list.length
      ? `${list.length} head${list.length > 1 ? 's' : ''} ablated (${app.state.amean ? 'mean of the others' : 'zeroed'}).`
      : 'No head ablated.';
  }

  function syncControls() {
    const s = app.state;
    zeroBtn.setAttribute('aria-pressed', String(!s.amean));
    meanBtn.setAttribute('aria-pressed', String(s.amean));
    win.set(s.win);
    temp.set(s.temp);
    sparse.checked = s.sparse;
    rblocks.set(s.rblocks);
    rblocks.input.disabled = !s.sparse;
    nopos.checked = s.nopos;
    const c = caps();
    linSel.value = s.lin;
    linSel.disabled = !c.linear;
    feat.set(s.feat);
    feat.input.disabled = !c.linear || s.lin !== 'favor';
    const why = c.linear
      ? ''
      : 'This build of the engine has no linear attention yet (its results carry no interventions.linear); the control switches on by itself once it does.';
    linSel.title = why;
    feat.input.title = why;
    linNote.textContent = c.linear ? '' : '(not in this engine build yet)';
    picker.sync();
  }

  function drawMaps(base, mod) {
    const block = app.state.block;
    const blocked = (r) => (block === 'decoder' ? causalMask(r.rows, r.cols) : null);
    const a = headMatrix(base, block, app.state.layer, app.state.head);
    const b = headMatrix(mod, block, app.state.layer, app.state.head);
    const [rowAxis, colAxis] = axisNames(block);
    for (const mv of [mvBefore, mvAfter]) {
      mv.o.rowAxis = rowAxis;
      mv.o.colAxis = colAxis;
    }
    const title = headTitle(app.state);
    mvBefore.set(a, {
      title: `Unmodified · ${title}`,
      blocked: blocked(a),
      subtitle: `${a.rows} × ${a.cols}`,
    });
    mvAfter.set(b, {
      title: `With surgery · ${title}`,
      blocked: blocked(b),
      subtitle: `${b.rows} × ${b.cols}`,
    });
    const ablated =
      Number.isInteger(app.state.head) &&
      hasHead(parseAblate(app.state.ablate), block, app.state.layer, app.state.head);
    const diff =
      a.rows === b.rows && a.cols === b.cols
        ? `Largest change of a weight in this head: ${fmt(absDiff(a.values, b.values).max, 4)}.`
        : `The runs wrote ${a.rows} and ${b.rows} target pieces, so the maps differ in shape.`;
    mapNote.textContent = `${diff}${ablated ? ' This head is ablated: its weights are still computed, but its output is not passed on.' : ''}`;
  }

  function drawComparison() {
    const base = app.result;
    const key = `${modified?.key}|${app.state.block}|${app.state.layer}|${app.state.head}`;
    if (!modified || modified.key !== surgeryKey()) {
      setState('pending'); // why: the shown comparison is of an older surgery
      schedule();
      return;
    }
    if (key === shownKey) return;
    shownKey = key;
    runState.textContent = '';
    if (modified.error) {
      setState('failed');
      runState.textContent = `The surgery could not run: ${modified.error.message ?? modified.error}`;
      return;
    }
    const mod = modified.result;
    const d = pieceDiff(base.targetTokens, mod.targetTokens);
    before.show(base, d.a);
    after.show(mod, d.b);
    const score = chrf(mod.text, base.text);
    const none = !Object.keys(interventionsOf(app.state, base, caps())).length;
    chrfLine.replaceChildren(
      el('strong', { text: `chrF ${score.toFixed(1)}` }),
      ` between the two translations (100 = the same characters)${none ? ' — no surgery chosen yet, so both runs are the same' : ''}.`,
    );
    chrfLine.dataset.chrf = score.toFixed(4);
    costs.show(base, mod);
    drawMaps(base, mod);
    setState('done');
  }

  function mapTarget(mv, slug) {
    return {
      title: mv.o.title,
      slug: `surgery-${slug}`,
      png: () => mv.toPNG(notes(mv)),
      svg: () => mv.toSVG(notes(mv)),
      json: () => mv.toJSON({ ...summary(), map: slug }),
    };
  }

  /** The line under an exported map's title: the surgery it shows, or the check it is from. */
  function notes(mv) {
    const iv = JSON.stringify(interventionsOf(app.state, app.result, caps()));
    if (mv === mvBefore) return [`no surgery (compared with ${iv})`];
    if (mv === mvAfter) return [`surgery: ${iv}`];
    return [`shuffled-source check, seed ${app.state.shuf}: encoder self-attention`];
  }

  /** Everything the view shows, as data (the JSON export). */
  function summary() {
    const base = app.result;
    const mod = modified?.result;
    return {
      interventions: interventionsOf(app.state, base, caps()),
      unmodified: base && {
        text: base.text,
        targetTokens: base.targetTokens,
        tokenProbs: base.tokenProbs,
        scores: base.scores,
        costs: base.costs,
      },
      modified: mod && {
        text: mod.text,
        targetTokens: mod.targetTokens,
        tokenProbs: mod.tokenProbs,
        scores: mod.scores,
        costs: mod.costs,
      },
      chrf: mod ? chrf(mod.text, base.text) : null,
      ranking: ranking.rows(),
      shuffle: shuffle.summary(),
    };
  }

  function exportTarget() {
    if (!modified?.result) return null;
    return {
      title: 'Surgery: both runs',
      slug: 'surgery-comparison',
      png: async () =>
        pngPair(await mvBefore.toPNG(notes(mvBefore)), await mvAfter.toPNG(notes(mvAfter))),
      svg: () => svgPair(mvBefore.toSVG(notes(mvBefore)), mvAfter.toSVG(notes(mvAfter))),
      json: () => ({ ...summary(), maps: [mvBefore.toJSON(), mvAfter.toJSON()] }),
    };
  }

  function render() {
    const has = !!app.result?.attention;
    empty.hidden = has;
    body.hidden = !has;
    if (!has) return setState('idle');
    syncControls();
    drawThumbs();
    drawComparison();
    ranking.render();
    shuffle.render();
  }

  return { element, render, exportTarget };
}

const GAP = 24; // px between the two figures of a side-by-side export

/** Two PNG figures side by side in one PNG. */
async function pngPair(a, b) {
  const [x, y] = await Promise.all([a, b].map((blob) => createImageBitmap(blob)));
  const cv = document.createElement('canvas');
  cv.width = x.width + GAP * 2 + y.width;
  cv.height = Math.max(x.height, y.height);
  const ctx = cv.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.drawImage(x, 0, 0);
  ctx.drawImage(y, x.width + GAP * 2, 0); // why: the PNGs are at 2×, so is the gap
  return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
}

/** Two SVG figures side by side, nested in one SVG. */
function svgPair(a, b) {
  const size = (svg) =>
    svg
      .match(/width="([\d.]+)" height="([\d.]+)"/)
      .slice(1)
      .map(Number);
  const [w1, h1] = size(a);
  const [w2, h2] = size(b);
  const w = w1 + GAP + w2;
  const h = Math.max(h1, h2);
  const at = (svg, x) => svg.replace('<svg ', `<svg x="${x}" y="0" `);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="#fff"/>${at(a, 0)}${at(b, w1 + GAP)}</svg>`
  );
}
