// The attention of the hypotheses that lost: a node of the beam tree, hovered or tapped, is
// re-decoded alone (forcedPrefix = its path, attention on) and its cross-attention row at that
// step is drawn beside the winner's row at the same step, for the timeline's layer and head
// (or their average). One re-decode at a time; each node's run is kept for the shown result.

import { el, fmt, aboutView } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';
import { matrix } from '../data/attention-data.js';
import { headLabel } from '../data/blocks.js';
import { attentionRow } from '../data/word-evidence.js';
import { hypothesisIds, rowGap, nodeKey } from '../data/beam-paths.js';
import { winnerPath } from '../widgets/beam-tree.js';

const HOVER_MS = 150;

const ABOUT =
  'Beam search kept several hypotheses; only the winner’s attention is in the trace. Hover a node of the tree (tap it on a phone) to re-decode that hypothesis alone — its pieces forced with forcedPrefix, so the decoder sees exactly its past — and compare the cross-attention row it used to write that node’s piece with the row the winner used at the same step. Same source, same keys: where the rows part shows where the hypotheses looked differently. Rows are for the layer and head chosen above, or the mean of the layer’s heads.';

/** The two rows as a matrix: the winner's (when it had not ended) above the hypothesis's. */
function pairMatrix(sourceTokens, rows, labels) {
  const values = new Float32Array(rows.flat());
  return matrix(rows.length, sourceTokens.length, values, labels, sourceTokens);
}

/** The line under the rows: which hypothesis, its pieces, and how far its row is from the winner's. */
function compareText({ s, pieces, node, own, samePast, hyp, win, tokens }) {
  const head = `Step ${s + 1}, hypothesis “${pieces.join(' ')}” (log-probability ${fmt(node.logprob, 3)}${node.finished ? ', ended here' : ''}). `;
  if (own) return `${head}This is the winner’s own hypothesis: its row is the winner’s.`;
  if (!win) return `${head}The winner had already ended at this step: only this row is shown.`;
  if (samePast)
    return `${head}It extends the same hypothesis as the winner’s piece of this step: the same past, so the same row — they differ only in the piece picked from it. Pick a node whose path left the winner’s earlier to see the attention part.`;
  const g = rowGap(hyp, win);
  return `${head}Its row differs from the winner’s by ${fmt(g.tv, 3)} (total variation, 0 = the same, 1 = no overlap), most at “${tokens[g.at]}”: ${fmt(hyp[g.at], 3)} here, ${fmt(win[g.at], 3)} for the winner.`;
}

/** The comparison box under the beam tree; select(s, k, how) is the tree's onNode. */
export function createBeamCompare(app) {
  const mv = new MatrixView({
    title: 'Cross-attention at this step',
    domain: 'zeroMax',
    rowAxis: 'hypothesis',
    colAxis: 'source piece',
    maxCell: 30,
  });
  const line = el('p.beam-compare-text', { 'aria-live': 'polite' });
  const node = el(
    'div.beam-compare',
    { hidden: true },
    el('h4', { text: 'The attention of a hypothesis that lost' }),
    aboutView(el('p.note', { text: ABOUT })),
    line,
    mv.element,
  );
  const runs = new Map(); // nodeKey -> translation of that hypothesis (attention on)
  let forResult = -1;
  let current = null; // {id, s, k} shown or asked for
  let queued = null;
  let busy = false;
  let timer = 0;

  async function rescore({ s, k }) {
    const { ids } = hypothesisIds(app.result.attention.beam, s, k);
    const source = app.doc.sentences[app.state.sentence].source;
    // why: every piece is forced, so one hypothesis is enough; it needs steps 0..s only
    const own = { beam: 1, attention: true, topK: 0, split: false, forcedPrefix: ids };
    return app.translator.translate(source, app.runOptions({ ...own, maxLength: ids.length }));
  }

  /** Runs the queued requests one at a time, drawing the one still wanted. */
  async function pump() {
    busy = true;
    while (queued) {
      const w = queued;
      queued = null;
      const key = nodeKey(w.id, w.s, w.k);
      if (!runs.has(key)) {
        try {
          runs.set(key, await rescore(w));
        } catch (err) {
          if (current === w) line.textContent = `Could not re-decode it: ${err?.message ?? err}`;
          continue;
        }
      }
      if (current === w && w.id === app.resultId) draw();
    }
    busy = false;
  }

  function draw() {
    const { id, s, k } = current;
    const a = app.result.attention;
    const r = runs.get(nodeKey(id, s, k));
    const { layer, head } = app.state;
    const { pieces } = hypothesisIds(a.beam, s, k);
    const hyp = attentionRow(r.attention.cross, layer, head, s);
    const path = winnerPath(a.beam, a.beamWinner, app.result.targetTokens.length);
    const own = path[s] === k;
    const samePast = s === 0 || a.beam[s][k].parent === path[s - 1];
    const win = path[s] >= 0 ? attentionRow(a.cross, layer, head, s) : null;
    const tokens = app.result.sourceTokens;
    const tail = (p) => p.slice(Math.max(0, s - 1), s + 1).join(' ');
    const labels = [`this: …${tail(pieces)}`];
    const rows = [hyp];
    if (win && !own) {
      labels.unshift(`winner: …${tail(app.result.targetTokens)}`);
      rows.unshift(win);
    }
    const where = `layer ${layer + 1} · ${headLabel(head, layer)}`;
    mv.set(pairMatrix(tokens, rows, labels), {
      title: `Cross-attention at step ${s + 1} · ${where}`,
    });
    const at = a.beam[s][k];
    line.textContent = compareText({ s, pieces, node: at, own, samePast, hyp, win, tokens });
    node.dataset.rows = JSON.stringify({ step: s, k, layer, head, hyp, win: own ? hyp : win });
  }

  return {
    node,
    /** The selected node [s, k] of the shown result, or null. */
    selected: () => (current?.id === app.resultId ? [current.s, current.k] : null),
    /** onNode of the tree: hover waits a moment (no worker call per node crossed); a pick does not. */
    select(s, k, how) {
      clearTimeout(timer);
      if (forResult !== app.resultId) {
        runs.clear();
        forResult = app.resultId;
      }
      const ask = () => {
        if (current?.id === app.resultId && current.s === s && current.k === k) return;
        current = queued = { id: app.resultId, s, k };
        node.hidden = false;
        markSelected(s, k);
        line.textContent = runs.has(nodeKey(current.id, s, k))
          ? ''
          : 'Re-decoding this hypothesis…';
        if (!busy) pump();
      };
      if (how === 'hover') timer = setTimeout(ask, HOVER_MS);
      else ask();
    },
    /** The shown result or the layer/head changed: redraw the selection, or hide the box. */
    refresh() {
      const ok = current && current.id === app.resultId && app.result?.attention?.beam;
      node.hidden = !ok;
      if (ok && runs.has(nodeKey(current.id, current.s, current.k))) draw();
    },
  };
}

/** Outlines node (s, k) of the tree on the page, without redrawing it. */
function markSelected(s, k) {
  for (const g of document.querySelectorAll('.beam-tree .bt-sel')) g.classList.remove('bt-sel');
  document
    .querySelector(`.beam-tree .bt-node[data-step="${s}"][data-k="${k}"]`)
    ?.classList.add('bt-sel');
}
