// "Surgery": re-translates the current sentence in the worker with heads ablated, a local
// window, sparse or linear attention, another softmax temperature or no positions, and shows
// it beside the unmodified run — both translations with the changed pieces marked, chrF
// between them, the attention maps of both, costs when the engine reports them — plus two
// experiments: which heads matter (ablate each in turn, rank by change) and the shuffled
// source without positions (the encoder's attention is a permutation of the original's).

import { el, announce, fmt } from './ui.js';
import { cssAt } from './colormap.js';
import { MatrixView, drawThumb } from './matrix-view.js';
import { headMatrix, prepare, causalMask, showPiece } from './attention-data.js';
import { headPicker, blockShape, BLOCK_NAMES } from './controls.js';
import { axisNames, headTitle } from './view-attention.js';
import { chrf } from './chrf.js';
import {
  formatAblate,
  parseAblate,
  hasHead,
  toggleHead,
  pieceDiff,
  shuffleWords,
  piecePermutation,
  permutedMaxDiff,
  unpermute,
  absDiff,
  meanConfidence,
  rankHeads,
} from './surgery-data.js';

const BLOCKS = ['encoder', 'decoder', 'cross'];
const SHORT = { encoder: 'enc', decoder: 'dec', cross: 'cross' };
const DEBOUNCE_MS = 250;
const PERMUTATION_OK = 1e-4; // why: float sums in another order differ in the last bits only

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
  const side = (label) => {
    const out = el('p.output.sg-out', { 'aria-hidden': 'true' });
    const said = el('p.sr-only');
    const stats = el('p.stats');
    const rows = el('tbody');
    const table = el(
      'table.sg-conf',
      {},
      el('caption', { text: `${label}: confidence of each piece` }),
      el('thead', {}, el('tr', {}, el('th', { text: 'piece' }), el('th', { text: 'confidence' }))),
      rows,
    );
    const node = el(
      'div.sg-side',
      {},
      el('span.io-label', { text: label }),
      out,
      said,
      stats,
      el('details', {}, el('summary', { text: 'Confidence of each piece' }), table),
    );
    return { node, out, said, stats, rows, label };
  };
  const before = side('Unmodified');
  const after = side('With surgery');
  const costsBox = el('div.sg-costs');
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

  // ---- which heads matter ----
  const rankBtn = el('button', { type: 'button', id: 'sg-rank' }, 'Ablate each head in turn');
  const rankCancel = el('button', { type: 'button', id: 'sg-rank-cancel', hidden: true }, 'Cancel');
  const rankProgress = el('progress', {
    max: 1,
    value: 0,
    hidden: true,
    'aria-label': 'Heads tried',
  });
  const rankStatus = el('span.note.sg-inline', { role: 'status' });
  const rankBody = el('tbody');
  const rankTable = el(
    'table.sg-rank',
    { hidden: true },
    el('caption.sr-only', { text: 'Heads ranked by how much ablating each changed the output' }),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['#', 'head', 'chrF drop', 'Δ confidence', 'translation without it', ''].map((t) =>
          el('th', { scope: 'col', text: t }),
        ),
      ),
    ),
    rankBody,
  );
  rankBtn.addEventListener('click', () => runRanking());
  rankCancel.addEventListener('click', () => rankCtrl?.abort());

  // ---- shuffled source ----
  const shufBtn = el(
    'button',
    { type: 'button', id: 'sg-shuffle' },
    'Shuffle the words and compare',
  );
  const shufAgain = el(
    'button',
    { type: 'button', id: 'sg-reshuffle', hidden: true },
    'Another shuffle',
  );
  const shufStatus = el('div.sg-verdicts', { role: 'status', 'aria-live': 'polite' });
  const smallOpts = (title, slug) => {
    const mv = new MatrixView({
      title,
      domain: 'zeroMax',
      rowAxis: 'source (query)',
      colAxis: 'source (key)',
      maxCell: 16,
      values: false,
      onFocus: () => app.setActive(mapTarget(mv, slug)),
    });
    return mv;
  };
  const shufMaps = {
    orig: smallOpts('No positions: original order', 'nopos-original'),
    shuf: smallOpts('No positions: shuffled source', 'nopos-shuffled'),
    back: smallOpts('No positions: shuffled, re-ordered back', 'nopos-reordered'),
    posOrig: smallOpts('With positions: original order', 'pos-original'),
    posBack: smallOpts('With positions: shuffled, re-ordered back', 'pos-reordered'),
  };
  const shufGrid = el(
    'div.sg-shufmaps',
    { hidden: true },
    shufMaps.orig.element,
    shufMaps.shuf.element,
    shufMaps.back.element,
    shufMaps.posOrig.element,
    shufMaps.posBack.element,
  );
  shufBtn.addEventListener('click', () => app.set({ shuf: app.state.shuf || 1 }));
  shufAgain.addEventListener('click', () => app.set({ shuf: app.state.shuf + 1 }));

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
    costsBox,
    el('h3', { text: 'Attention of both runs' }),
    el('div.row', {}, picker.node),
    mapNote,
    el('div.grid2', {}, mvBefore.element, mvAfter.element),
    el('h3', { text: 'Which heads matter?' }),
    el('p.note', {
      text: 'Ablates each head alone on this sentence (zero or mean, as chosen above, nothing else changed) and ranks the heads by the chrF drop of the output against the unmodified translation; ties go to the larger change in mean confidence. Activate a row to apply that ablation.',
    }),
    el('div.row', {}, rankBtn, rankCancel, rankProgress, rankStatus),
    el('div.sg-tablewrap', {}, rankTable),
    el('h3', { text: 'Shuffled source without positions' }),
    el('p.note', {
      text: 'Without the position signal self-attention cannot tell word order: shuffle the source words and every attention weight of the encoder is the same, only moved with its words. The check below re-orders the shuffled run’s encoder self-attention back and takes the largest difference from the original over every layer and head. The engine does not expose the encoder’s hidden states, so the check is made on these attention weights (rows and columns permuted); the maps show the layer and head chosen above.',
    }),
    el('div.row', {}, shufBtn, shufAgain),
    shufStatus,
    shufGrid,
  );
  const element = el(
    'div.view-surgery',
    { 'data-state': 'idle' },
    el('p.note.sg-about', {
      text: 'Attention surgery changes how the trained model attends, for this one translation, and shows what follows. Ablating a head removes its contribution (Michel et al. 2019 found many heads can go with little loss). A window lets each position see only its neighbours; sparse adds a few global and random key blocks to it, as Longformer (Beltagy et al. 2020) and BigBird (Zaheer et al. 2020) do. Linear attention replaces the softmax by a kernel feature map, FAVOR+ with random features (Choromanski et al. 2021). The temperature multiplies the 1/√d_k scale of Vaswani et al. 2017 §3.2.1: above 1 sharpens, below 1 flattens. No positions drops the sinusoidal position signal of §3.5, and the encoder can no longer tell word order.',
    }),
    empty,
    body,
  );

  // ---- runs ----
  let modified = null; // {key, result, error}
  let runCtrl = null;
  let timer = null;
  let ranking = null; // {key, rows, done}
  let rankCtrl = null;
  let shuffle = null; // {key, ...}
  let shufCtrl = null;
  let shownKey = '';
  let thumbKey = '';
  let runningKey = '';
  let rankDrawn = -1; // rows in the drawn ranking table

  const baseKey = () => `${app.resultId}|${app.state.beam}`;
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
      const result = await app.translator.translate(app.resultText, {
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

  async function runRanking() {
    if (!app.result || !app.translator) return;
    rankCtrl?.abort();
    const ctrl = new AbortController();
    rankCtrl = ctrl;
    const base = app.result;
    const key = `${baseKey()}|${app.state.amean}`;
    const heads = [];
    for (const block of BLOCKS) {
      const { layers, heads: H } = blockShape(base, block);
      for (let l = 0; l < layers; l++)
        for (let h = 0; h < H; h++) heads.push({ block, layer: l, head: h });
    }
    ranking = { key, rows: [], done: false, total: heads.length, mean: app.state.amean };
    rankDrawn = -1;
    rankBtn.disabled = true;
    rankCancel.hidden = false;
    rankProgress.hidden = false;
    rankProgress.max = heads.length;
    setRankState('running');
    const baseConf = meanConfidence(base);
    try {
      for (const [k, where] of heads.entries()) {
        rankProgress.value = k;
        rankStatus.textContent = `head ${k + 1} of ${heads.length}…`;
        const r = await app.translator.translate(app.resultText, {
          beam: app.state.beam,
          interventions: { ablate: [{ ...where, mean: ranking.mean }] },
          signal: ctrl.signal,
        });
        if (ctrl.signal.aborted || ranking.key !== key) return;
        const score = chrf(r.text, base.text);
        ranking.rows.push({
          ...where,
          chrf: score,
          drop: 100 - score,
          confidenceChange: meanConfidence(r) - baseConf,
          text: r.text,
        });
        if (k % 4 === 3) drawRanking();
      }
      ranking.done = true;
      rankProgress.value = heads.length;
      rankStatus.textContent = `${heads.length} heads tried.`;
      announce(`Ranking of ${heads.length} heads ready`);
    } catch (err) {
      if (ctrl.signal.aborted || err?.code === 'ABORTED')
        rankStatus.textContent = `Cancelled after ${ranking.rows.length} of ${heads.length} heads; the partial ranking is shown.`;
      else rankStatus.textContent = `The experiment failed: ${err?.message ?? err}`;
    } finally {
      if (rankCtrl === ctrl) {
        rankCtrl = null;
        rankBtn.disabled = false;
        rankCancel.hidden = true;
        rankProgress.hidden = true;
      }
      setRankState(ranking.done ? 'done' : 'stopped');
      drawRanking();
    }
  }

  function setRankState(s) {
    element.dataset.ranking = s;
  }

  function drawRanking() {
    const rows = ranking?.rows ?? [];
    rankTable.hidden = !rows.length;
    if (rows.length === rankDrawn) {
      // why: rebuilding would drop the keyboard focus from the row just applied
      const list = parseAblate(app.state.ablate);
      for (const tr of rankBody.rows) {
        const on =
          list.length === 1 &&
          hasHead(list, tr.dataset.block, Number(tr.dataset.layer), Number(tr.dataset.head));
        tr.querySelector('button').setAttribute('aria-pressed', String(on));
      }
      return;
    }
    rankDrawn = rows.length;
    rankBody.replaceChildren(
      ...rankHeads(rows).map((r, i) => {
        const name = `${SHORT[r.block]} L${r.layer + 1} H${r.head + 1}`;
        const applied =
          parseAblate(app.state.ablate).length === 1 &&
          hasHead(parseAblate(app.state.ablate), r.block, r.layer, r.head);
        return el(
          'tr',
          { 'data-block': r.block, 'data-layer': r.layer, 'data-head': r.head },
          el('td', { text: String(i + 1) }),
          el('th', {
            scope: 'row',
            text: name,
            title: `${BLOCK_NAMES[r.block]}, layer ${r.layer + 1}, head ${r.head + 1}`,
          }),
          el(
            'td.num',
            {},
            el('span.sg-bar', { style: `--w: ${Math.min(100, r.drop).toFixed(1)}%` }),
            fmt(r.drop, 1),
          ),
          el('td.num', {
            text: `${r.confidenceChange >= 0 ? '+' : '−'}${Math.abs(r.confidenceChange * 100).toFixed(1)} %`,
          }),
          el('td.sg-text', { text: r.text, title: r.text }),
          el(
            'td',
            {},
            el(
              'button',
              {
                type: 'button',
                'aria-pressed': String(applied),
                'aria-label': `Apply: ablate ${name}`,
                onclick: () => {
                  app.set({ ablate: formatAblate([r]) });
                  announce(`Ablating ${name}`);
                },
              },
              'apply',
            ),
          ),
        );
      }),
    );
  }

  async function runShuffle() {
    if (!app.result || !app.translator || !app.state.shuf) return;
    const key = `${baseKey()}|${app.state.shuf}`;
    if (shuffle?.key === key) return;
    shufCtrl?.abort();
    const ctrl = new AbortController();
    shufCtrl = ctrl;
    shuffle = { key, running: true };
    element.dataset.shuffle = 'running';
    shufStatus.replaceChildren(
      el('p.note', { text: 'Translating the shuffled source with and without positions…' }),
    );
    const text = app.resultText;
    const words = shuffleWords(text, app.state.shuf);
    const go = (t, noPositions) =>
      app.translator.translate(t, {
        beam: app.state.beam,
        attention: true,
        interventions: noPositions ? { noPositions: true } : {},
        signal: ctrl.signal,
      });
    try {
      const [orig, shuf, pos, posShuf] = [
        await go(text, true),
        await go(words.text, true),
        await go(text, false),
        await go(words.text, false),
      ];
      if (ctrl.signal.aborted) return;
      const p = piecePermutation(orig.sourceTokens, shuf.sourceTokens, words.order);
      shuffle = { key, running: false, words, orig, shuf, pos, posShuf, p };
      if (p) {
        shuffle.diffNoPos = permutedMaxDiff(
          orig.attention.encoderSelf,
          shuf.attention.encoderSelf,
          p,
        );
        shuffle.diffPos = permutedMaxDiff(
          pos.attention.encoderSelf,
          posShuf.attention.encoderSelf,
          p,
        );
      }
    } catch (err) {
      if (ctrl.signal.aborted || err?.code === 'ABORTED') return;
      shuffle = { key, running: false, error: err };
    } finally {
      if (shufCtrl === ctrl) shufCtrl = null;
    }
    if (app.state.view === 'surgery') drawShuffle();
  }

  function drawShuffle() {
    const s = shuffle;
    shufAgain.hidden = !app.state.shuf;
    if (!s || !app.state.shuf) {
      shufStatus.replaceChildren();
      shufGrid.hidden = true;
      delete element.dataset.shuffle;
      return;
    }
    if (s.running) return;
    if (s.error) {
      element.dataset.shuffle = 'failed';
      shufStatus.replaceChildren(
        el('p.note.warn', { text: `The experiment failed: ${s.error.message ?? s.error}` }),
      );
      shufGrid.hidden = true;
      return;
    }
    if (!s.p) {
      element.dataset.shuffle = 'untokenizable';
      shufStatus.replaceChildren(
        el('p.note.warn', {
          text: `“${s.words.text}” was not cut into the same pieces word for word, so the two runs cannot be compared piece by piece. Try another shuffle.`,
        }),
      );
      shufGrid.hidden = true;
      return;
    }
    const okNoPos = s.diffNoPos < PERMUTATION_OK;
    const okPos = s.diffPos < PERMUTATION_OK;
    element.dataset.shuffle = okNoPos && !okPos ? 'pass' : 'fail';
    const same = s.shuf.text === s.orig.text;
    shufStatus.replaceChildren(
      el(
        'p',
        {},
        el('span.io-label', { text: 'Shuffled source' }),
        el('span.sg-src', { text: s.words.text }),
      ),
      el(
        'p.sg-verdict',
        { 'data-check': 'nopos', 'data-ok': String(okNoPos) },
        el('strong', { text: okNoPos ? '✓ a permutation' : '✗ not a permutation' }),
        ` — no positions: max |difference| after re-ordering = ${fmt(s.diffNoPos, 4)} over ${s.orig.attention.encoderSelf.shape[0]} layers × ${s.orig.attention.encoderSelf.shape[1]} heads${okNoPos ? ' (≈ 0: rounding only)' : ''}.`,
      ),
      el(
        'p.sg-verdict',
        { 'data-check': 'pos', 'data-ok': String(okPos) },
        el('strong', { text: okPos ? '✓ a permutation' : '✗ not a permutation' }),
        ` — with positions: max |difference| = ${fmt(s.diffPos, 4)}${okPos ? '' : ': the position signal makes attention depend on where a word stands'}.`,
      ),
      el('p.note', {
        text: `Without positions the shuffled source translates as “${s.shuf.text}”, ${same ? 'the same as the original order (cross-attention sums over a set of source pieces, so their order cannot matter)' : `against “${s.orig.text}” in the original order`}.`,
      }),
    );
    shufGrid.hidden = false;
    const S = s.orig.sourceTokens.length;
    const layer = Math.min(app.state.layer, s.orig.attention.encoderSelf.shape[0] - 1);
    const H = s.orig.attention.encoderSelf.shape[1];
    const head = app.state.head === 'avg' ? 'avg' : Math.min(app.state.head, H - 1);
    const label = `layer ${layer + 1} · ${head === 'avg' ? 'average of heads' : `head ${head + 1}`}`;
    const m = (r) => headMatrix(r, 'encoder', layer, head);
    const o = m(s.orig);
    const sh = m(s.shuf);
    const back = { ...o, values: unpermute(sh.values, S, s.p) };
    const d = absDiff(o.values, back.values);
    shufMaps.orig.set(o, { subtitle: label });
    shufMaps.shuf.set(sh, { subtitle: label });
    shufMaps.back.set(back, { subtitle: `${label} · max |Δ| ${fmt(d.max, 4)}` });
    const po = m(s.pos);
    const pb = { ...po, values: unpermute(m(s.posShuf).values, S, s.p) };
    shufMaps.posOrig.set(po, { subtitle: label });
    shufMaps.posBack.set(pb, {
      subtitle: `${label} · max |Δ| ${fmt(absDiff(po.values, pb.values).max, 4)}`,
    });
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
                    app.set({ ablate: formatAblate(list), block, layer: l, head: h });
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

  function pieces(side, result, same) {
    const spans = [];
    result.targetTokens.forEach((t, i) => {
      if (t === '</s>') return;
      const p = result.tokenProbs[i];
      if (t.startsWith('▁') && spans.length) spans.push(' ');
      spans.push(
        el(
          `span.tok${p < 0.5 ? '.low' : ''}${same[i] ? '' : '.changed'}`,
          {
            style: `--c: ${cssAt('sequential', p)}`,
            title: `“${t}” — probability ${(p * 100).toFixed(1)} %${same[i] ? '' : ' — not in the other run'}`,
          },
          t === '▁' ? '\u2009' : showPiece(t),
        ),
      );
    });
    side.out.replaceChildren(...spans);
    side.out.dataset.text = result.text;
    const changed = same.filter((x, i) => !x && result.targetTokens[i] !== '</s>').length;
    side.said.textContent = `${side.label}: ${result.text}. ${changed} piece${changed === 1 ? '' : 's'} not in the other run.`;
    side.stats.textContent = `mean confidence ${(meanConfidence(result) * 100).toFixed(1)} % · log-probability ${fmt(result.scores, 2)} · ${result.targetTokens.length} pieces`;
    side.rows.replaceChildren(
      ...result.targetTokens.map((t, i) =>
        el(
          `tr${same[i] ? '' : '.changed'}`,
          {},
          el('td', { text: showPiece(t) + (same[i] ? '' : ' (changed)') }),
          el('td.num', { text: `${(result.tokenProbs[i] * 100).toFixed(1)} %` }),
        ),
      ),
    );
  }

  function drawCosts(base, mod) {
    if (!capabilities(mod).costs || !capabilities(base).costs) {
      costsBox.replaceChildren();
      return;
    }
    const max = (k) => Math.max(1, ...base.costs.map((c) => c[k]), ...mod.costs.map((c) => c[k]));
    const find = (list, c) => list.find((x) => x.block === c.block && x.layer === c.layer);
    const rows = base.costs.map((c) => {
      const m = find(mod.costs, c) ?? { macs: 0, stateBytes: 0 };
      const bar = (v, k, cls) =>
        el(`span.sg-bar${cls}`, { style: `--w: ${((100 * v) / max(k)).toFixed(1)}%` });
      return el(
        'tr',
        {},
        el('th', { scope: 'row', text: `${SHORT[c.block] ?? c.block} L${c.layer + 1}` }),
        el(
          'td.num',
          {},
          bar(c.macs, 'macs', ''),
          bar(m.macs, 'macs', '.mod'),
          `${fmtCount(c.macs)} → ${fmtCount(m.macs)}`,
        ),
        el(
          'td.num',
          {},
          bar(c.stateBytes, 'stateBytes', ''),
          bar(m.stateBytes, 'stateBytes', '.mod'),
          `${fmtCount(c.stateBytes)} B → ${fmtCount(m.stateBytes)} B`,
        ),
      );
    });
    costsBox.replaceChildren(
      el('h3', { text: 'Cost of attention per layer' }),
      el(
        'div.sg-tablewrap',
        {},
        el(
          'table.sg-costtable',
          {},
          el('caption.note', {
            text: 'Multiply-accumulates and attention state (cache) bytes: unmodified → with surgery (lighter bar).',
          }),
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('th', { text: 'layer' }),
              el('th', { text: 'MACs' }),
              el('th', { text: 'state' }),
            ),
          ),
          el('tbody', {}, rows),
        ),
      ),
    );
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
      app.state.head !== 'avg' &&
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
    pieces(before, base, d.a);
    pieces(after, mod, d.b);
    const score = chrf(mod.text, base.text);
    const none = !Object.keys(interventionsOf(app.state, base, caps())).length;
    chrfLine.replaceChildren(
      el('strong', { text: `chrF ${score.toFixed(1)}` }),
      ` between the two translations (100 = the same characters)${none ? ' — no surgery chosen yet, so both runs are the same' : ''}.`,
    );
    chrfLine.dataset.chrf = score.toFixed(4);
    drawCosts(base, mod);
    drawMaps(base, mod);
    setState('done');
  }

  function mapTarget(mv, slug) {
    return {
      title: mv.o.title,
      slug: `surgery-${slug}`,
      png: () => mv.toPNG(notes()),
      svg: () => mv.toSVG(notes()),
      json: () => mv.toJSON({ ...summary(), map: slug }),
    };
  }

  function notes() {
    const iv = interventionsOf(app.state, app.result, caps());
    return [`surgery: ${JSON.stringify(iv)}`];
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
      ranking: ranking?.rows.length ? rankHeads(ranking.rows) : null,
      shuffle:
        shuffle?.p !== undefined && !shuffle.running
          ? {
              seed: app.state.shuf,
              shuffled: shuffle.words.text,
              maxDiffNoPositions: shuffle.diffNoPos ?? null,
              maxDiffWithPositions: shuffle.diffPos ?? null,
              permutation: shuffle.p,
            }
          : null,
    };
  }

  function exportTarget() {
    if (!modified?.result) return null;
    const t = mapTarget(mvAfter, 'comparison');
    return {
      ...t,
      title: 'Surgery: both runs',
      json: () => ({ ...summary(), map: mvAfter.toJSON() }),
    };
  }

  function render() {
    const has = !!app.result?.attention;
    empty.hidden = has;
    body.hidden = !has;
    if (!has) return;
    syncControls();
    drawThumbs();
    drawComparison();
    if (ranking && ranking.key !== `${baseKey()}|${ranking.mean}`) {
      rankCtrl?.abort();
      ranking = null;
      rankDrawn = -1;
      rankStatus.textContent = '';
      delete element.dataset.ranking;
    }
    drawRanking();
    if (app.state.shuf && shuffle?.key !== `${baseKey()}|${app.state.shuf}`) runShuffle();
    else drawShuffle();
  }

  return { element, render, exportTarget };
}

function fmtCount(n) {
  return n >= 1e9
    ? `${(n / 1e9).toFixed(2)} G`
    : n >= 1e6
      ? `${(n / 1e6).toFixed(2)} M`
      : n >= 1e3
        ? `${(n / 1e3).toFixed(1)} k`
        : String(n);
}
