// "Which heads matter?": the Surgery view's guided experiment. Ablates each head alone on the
// current sentence in the worker (with progress and cancel), ranks the heads by the chrF drop
// of the output against the unmodified translation, and applies a row's ablation on request.

import { el, announce, fmt } from '../../widgets/ui.js';
import {
  BLOCKS,
  BLOCK_NAMES,
  blockShape,
  alignedHead,
  isAligned,
  ALIGNED_TEXT,
} from '../../data/blocks.js';
import { chrf } from '../../data/chrf.js';
import {
  formatAblate,
  parseAblate,
  hasHead,
  meanConfidence,
  rankHeads,
  logProb,
  surgeryInput,
} from '../../data/surgery-data.js';

const SHORT = { encoder: 'enc', decoder: 'dec', cross: 'cross' };
const COLUMNS = [
  '#',
  'head',
  'chrF drop',
  'Δ log P(unmodified)',
  'Δ confidence',
  'translation without it',
  '',
];
const ABOUT =
  'Ablates each head alone on this sentence (zero or mean, as chosen above, nothing else changed) and ranks the heads by the chrF drop of the output against the unmodified translation; ties go to the larger change in the log-probability of the unmodified translation under the ablation (the engine scores it by forcing that output). “apply” ablates that head in the comparison above.';

/** Every head of a result's model as {block, layer, head}, block by block (none it lacks). */
function allHeads(result) {
  const heads = [];
  for (const block of BLOCKS) {
    const { layers, heads: H } = blockShape(result, block);
    for (let l = 0; l < layers; l++)
      for (let h = 0; h < H; h++) heads.push({ block, layer: l, head: h });
  }
  return heads;
}

/**
 * One head ablated alone (`where`, zero or `mean`): the translation under it and how far it
 * moved from `base`, the unmodified run, whose output is also forced through the ablated model
 * to score its log-probability there.
 */
async function ablateOne(app, base, where, mean, signal) {
  const input = surgeryInput(base, app.resultText);
  const interventions = { ablate: [{ ...where, mean }] };
  const own = { split: false, interventions, signal };
  const r = await app.translator.translate(
    input.text,
    app.runOptions({ ...own, forcedPrefix: input.forced }),
  );
  // why: every piece is forced, so one hypothesis is enough
  const f = await app.translator.translate(
    input.text,
    app.runOptions({ ...own, beam: 1, forcedPrefix: base.targetIds }),
  );
  const score = chrf(r.text, base.text);
  return {
    ...where,
    chrf: score,
    drop: 100 - score,
    logProbChange: logProb(f.tokenProbs.slice(0, base.targetIds.length)) - logProb(base.tokenProbs),
    confidenceChange: meanConfidence(r) - meanConfidence(base),
    text: r.text,
  };
}

/** One ranked row; its "apply" button ablates that head alone. */
function rankRow(app, r, i, applied) {
  const name = `${SHORT[r.block]} L${r.layer + 1} H${r.head + 1}`;
  const aligned = isAligned(alignedHead(app.translator?.info), r.block, r.layer, r.head);
  const dc = r.confidenceChange * 100;
  const apply = () => {
    app.set({ ablate: formatAblate([r]), block: r.block, layer: r.layer, head: r.head });
    announce(`Ablating ${name}`);
  };
  return el(
    'tr',
    { 'data-block': r.block, 'data-layer': r.layer, 'data-head': r.head },
    el('td', { text: String(i + 1) }),
    el('th', {
      scope: 'row',
      text: aligned ? `${name} · align` : name,
      title: `${BLOCK_NAMES[r.block]}, layer ${r.layer + 1}, head ${r.head + 1}${aligned ? `, ${ALIGNED_TEXT}` : ''}`,
    }),
    el(
      'td.num',
      {},
      el('span.sg-bar', { style: `--w: ${Math.min(100, r.drop).toFixed(1)}%` }),
      fmt(r.drop, 1),
    ),
    el('td.num', {
      text: `${r.logProbChange > 0 ? '+' : ''}${fmt(r.logProbChange, 2)}`,
      title: 'change of the log-probability of the unmodified translation under this ablation',
    }),
    el('td.num', {
      text: Math.abs(dc) < 0.05 ? '0.0 %' : `${dc > 0 ? '+' : '−'}${Math.abs(dc).toFixed(1)} %`,
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
          onclick: apply,
        },
        'apply',
      ),
    ),
  );
}

/** The experiment's section; `baseKey()` names the unmodified run it belongs to. */
export function createRanking(app, baseKey) {
  const runBtn = el('button', { type: 'button', id: 'sg-rank' }, 'Ablate each head in turn');
  const cancelBtn = el('button', { type: 'button', id: 'sg-rank-cancel', hidden: true }, 'Cancel');
  const progress = el('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Heads tried' });
  const status = el('span.note.sg-inline', { role: 'status' });
  const body = el('tbody');
  const table = el(
    'table.sg-rank',
    { hidden: true },
    el('caption.sr-only', { text: 'Heads ranked by how much ablating each changed the output' }),
    el('thead', {}, el('tr', {}, ...COLUMNS.map((t) => el('th', { scope: 'col', text: t })))),
    body,
  );
  const node = el(
    'section.sg-ranking',
    { 'aria-labelledby': 'sg-rank-h' },
    el('h3#sg-rank-h', { text: 'Which heads matter?' }),
    el('p.note', { text: ABOUT }),
    el('div.row', {}, runBtn, cancelBtn, progress, status),
    el('div.sg-tablewrap', {}, table),
  );

  let ranking = null; // {key, rows, done, mean}
  let ctrl = null;
  let drawn = -1; // rows in the drawn table

  runBtn.addEventListener('click', () => run());
  cancelBtn.addEventListener('click', () => ctrl?.abort());

  /** Shows the controls of a running experiment, or (false) of an idle one. */
  function running(on) {
    runBtn.disabled = on;
    cancelBtn.hidden = !on;
    progress.hidden = !on;
  }

  async function run() {
    if (!app.result || !app.translator) return;
    ctrl?.abort();
    const mine = new AbortController();
    ctrl = mine;
    const base = app.result;
    const mean = app.state.amean;
    const heads = allHeads(base);
    const current = (ranking = { key: `${baseKey()}|${mean}`, rows: [], done: false, mean });
    drawn = -1;
    running(true);
    progress.max = heads.length;
    node.dataset.ranking = 'running';
    try {
      for (const [k, where] of heads.entries()) {
        progress.value = k;
        status.textContent = `head ${k + 1} of ${heads.length}…`;
        const row = await ablateOne(app, base, where, mean, mine.signal);
        if (mine.signal.aborted) return;
        current.rows.push(row);
        if (k % 4 === 3) draw();
      }
      current.done = true;
      status.textContent = `${heads.length} heads tried.`;
      announce(`Ranking of ${heads.length} heads ready`);
    } catch (err) {
      status.textContent =
        mine.signal.aborted || err?.code === 'ABORTED'
          ? `Cancelled after ${current.rows.length} of ${heads.length} heads; the partial ranking is shown.`
          : `The experiment failed: ${err?.message ?? err}`;
    } finally {
      if (ctrl === mine) {
        ctrl = null;
        running(false);
      }
      if (ranking === current) {
        node.dataset.ranking = current.done ? 'done' : 'stopped';
        draw();
      }
    }
  }

  function draw() {
    const rows = ranking?.rows ?? [];
    table.hidden = !rows.length;
    const list = parseAblate(app.state.ablate);
    const applied = (r) => list.length === 1 && hasHead(list, r.block, r.layer, r.head);
    if (rows.length === drawn) {
      // why: rebuilding would take the keyboard focus away from the row just applied
      for (const tr of body.rows) {
        const r = { block: tr.dataset.block, layer: +tr.dataset.layer, head: +tr.dataset.head };
        tr.querySelector('button').setAttribute('aria-pressed', String(applied(r)));
      }
      return;
    }
    drawn = rows.length;
    body.replaceChildren(...rankHeads(rows).map((r, i) => rankRow(app, r, i, applied(r))));
  }

  /** Drops a ranking made for another sentence, model or ablation mode; redraws. */
  function render() {
    if (ranking && ranking.key !== `${baseKey()}|${ranking.mean}`) {
      ctrl?.abort();
      ranking = null;
      status.textContent = '';
      delete node.dataset.ranking;
    }
    draw();
  }

  return {
    node,
    render,
    /** The ranked rows (null before a run), for the export. */
    rows: () => (ranking?.rows.length ? rankHeads(ranking.rows) : null),
  };
}
