// "Decoding timeline": the translation replayed one target piece at a time. Each step shows
// the new piece, the cross-attention row it used, the decoder's growing causal triangle (an
// SSRU decoder: its forget gates) and the top-k candidates it chose from. Drawn live from onStep
// while decoding; scrubbed from the trace.

import { el, fmt, announce } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';
import { causalMask } from '../data/attention-data.js';
import { traceData, liveData } from '../data/timeline-data.js';
import { headPicker } from '../widgets/controls.js';
import { headLabel } from '../data/blocks.js';
import { createTransport } from './timeline-transport.js';
import { forgetMatrixView, FORGET_NOTE } from './forget-gates.js';
import { tokenSpans, candidateItems, whatIfLines, createBeamBox } from './timeline-step.js';

const NOTE =
  'Colours run from 0 to the largest weight of the whole matrix (see each legend), so steps compare directly. Click a row to jump to its step; focus a matrix and use the arrow keys to read exact values.';

/**
 * The step-by-step matrices: cross-attention and the decoder's masked self-attention, or for
 * an SSRU decoder (no self-attention) its forget gates.
 */
function stepMatrices(app, { go, target }) {
  const common = {
    domain: 'zeroMax',
    rowAxis: 'target step',
    maxCell: 30,
    onActivate: (i) => go(i + 1),
    activateHint: 'tap again to step the timeline here',
  };
  const cross = new MatrixView({
    ...common,
    title: 'Cross-attention',
    colAxis: 'source piece',
    onFocus: () => app.setActive(target(cross, 'cross')),
  });
  const self = new MatrixView({
    ...common,
    title: 'Decoder masked self-attention',
    colAxis: 'decoder input',
    futureCols: true,
    onFocus: () => app.setActive(target(self, 'decoder')),
  });
  const forget = forgetMatrixView({
    onActivate: common.onActivate,
    activateHint: common.activateHint,
    onFocus: () => app.setActive(target(forget, 'forget')),
  });
  return { cross, self, forget };
}

/** "Step s: wrote … looking mostly at …" from the step's cross-attention row. */
function stepSummary(d, s) {
  const k = s - 1;
  const row = d.cross.values.subarray(k * d.cross.cols, (k + 1) * d.cross.cols);
  const order = [...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 3);
  const looks = order.map((j) => `${d.cross.colLabels[j]} (${fmt(row[j], 2)})`).join(', ');
  const kept = d.forget ? ` ${keptText(d.forget, k)}` : '';
  return `Step ${s}: wrote “${d.targets[k]}” with probability ${fmt(d.steps[k].prob, 3)}, looking mostly at ${looks}.${kept}`;
}

/** "The decoder's cell kept 0.62 of its past …": row k's mean forget gate. */
function keptText(m, k) {
  let sum = 0;
  for (let j = 0; j < m.cols; j++) sum += m.values[k * m.cols + j];
  return `Its SSRU cell kept on average ${fmt(sum / m.cols, 2)} of its past (mean forget gate).`;
}

/** The view's parts and layout; `go(step)` and `target(mv, block)` come from the view. */
function timelineParts(app, { picker, total, cur, go, target }) {
  const transport = createTransport(app, { total, cur, go });
  const tokens = el('div.tokens', { 'aria-label': 'Target pieces so far' });
  const summary = el('p.step-summary', { 'aria-live': 'polite' });
  const cands = el('div.cands', { role: 'list', 'aria-label': 'Top candidates at this step' });
  const mvs = stepMatrices(app, { go, target });
  const liveNote = el('p.note');
  const whatIfNote = el('div.whatif', { role: 'status', hidden: true });
  const beam = createBeamBox(app, (step) => {
    transport.pause();
    go(step);
  });
  const forgetBox = el(
    'div.forget-step',
    { hidden: true },
    mvs.forget.element,
    el('p.note', { text: FORGET_NOTE }),
  );
  const pair = el('div.grid2', {}, mvs.cross.element, mvs.self.element, forgetBox);
  const element = el(
    'div.view-timeline',
    {},
    el('div.row', {}, transport.node, picker.node),
    whatIfNote,
    tokens,
    summary,
    liveNote,
    pair,
    el('h3', { text: 'What the decoder weighed at this step' }),
    cands,
    beam.node,
    el('p.note', { text: NOTE }),
  );
  const parts = { transport, tokens, summary, cands, mvs, liveNote, whatIfNote, beam, pair };
  return { ...parts, forgetBox, element };
}

/** The line under the step: decoding live (and how far), or how to read the rows. */
function liveNoteText(app, d) {
  if (!d.live && d.forget)
    return 'Rows are decoding steps, labelled by the piece each step wrote. The forget gates’ columns are the dimensions of the decoder’s SSRU cell, for the layer chosen above.';
  if (!d.live)
    return 'Rows are decoding steps, labelled by the piece each step wrote. The decoder’s self-attention keys are its inputs: the start token <s>, then the pieces written before.';
  return `Decoding live: ${d.steps.length} piece${d.steps.length > 1 ? 's' : ''} so far${app.state.beam > 1 ? ' (beam search: rows follow the best hypothesis so far; the final trace replaces them)' : ''}${app.live?.sourceTokens ? '' : ' — source labels appear when decoding ends'}.`;
}

/** Fills the step matrices with data `d` (cross-attention, then self-attention or gates). */
function setMatrices(app, { mvs, pair }, d) {
  // why: give each matrix width in proportion to its columns, so a long source is not squeezed
  const second = d.forget ? Math.min(40, d.forget.cols) : d.self.cols;
  pair.style.gridTemplateColumns = `minmax(280px, ${d.cross.cols + 6}fr) minmax(280px, ${second + 6}fr)`;
  const where = `layer ${app.state.layer + 1} · ${headLabel(app.state.head, app.state.layer)}`;
  mvs.cross.set(d.cross, { title: `Cross-attention · ${where}` });
  if (d.forget)
    mvs.forget.set(d.forget, {
      title: `Decoder forget gates (SSRU) · layer ${app.state.layer + 1}`,
      subtitle: `${d.forget.cols} dimensions`,
    });
  else
    mvs.self.set(d.self, {
      title: `Decoder masked self-attention · ${where}`,
      blocked: causalMask(d.self.rows, d.self.rows),
    });
}

/** The export of one of the timeline's matrices up to step cur() of total(). */
function stepTarget(app, mv, block, cur, total) {
  const steps = () => [`Steps 1–${cur()} of ${total()}`];
  return {
    title: `${mv.o.title} up to step ${cur()}`,
    slug: `timeline-${block}-step${cur()}`,
    png: () => mv.toPNG(steps()),
    svg: () => mv.toSVG(steps()),
    json: () => {
      const { layer, head } = app.state;
      return mv.toJSON({ block, layer, head, step: cur(), steps: total() });
    },
  };
}

export function createTimelineView(app) {
  const picker = headPicker(app, { blocks: ['cross'], idPrefix: 'tl', showBlock: false });
  const total = () => app.result?.targetTokens.length ?? app.live?.events.length ?? 0;
  const cur = () => (app.state.step < 0 ? total() : Math.min(app.state.step, total()));
  const parts = timelineParts(app, { picker, total, cur, go, target });
  const { transport, tokens, summary, cands, mvs, liveNote, whatIfNote, beam, pair, element } =
    parts;
  const { forgetBox } = parts;

  let liveFrame = 0;
  let lastData = null;

  function target(mv, block) {
    return stepTarget(app, mv, block, cur, total);
  }

  function go(s) {
    const n = total();
    s = Math.max(0, Math.min(n, s));
    app.set({ step: s === n ? -1 : s }, { render: false });
    update();
    if (s >= n) transport.pause();
  }

  /** Matrices and step data from the finished trace, or from the live events. */
  function data() {
    const { layer, head } = app.state;
    if (app.result?.attention) return traceData(app.result, layer, head);
    return liveData(app.live, layer, head);
  }

  function render() {
    const d = data();
    lastData = d;
    const ev = app.live?.events[0];
    const live = d && !app.result && ev;
    picker.sync(
      live ? { shape: { layers: ev.cross.shape[0], heads: ev.cross.shape[1] } } : app.result,
    );
    const ssru = Boolean(d?.forget);
    mvs.cross.element.hidden = !d;
    mvs.self.element.hidden = !d || ssru;
    forgetBox.hidden = !d || !ssru;
    if (!d) {
      tokens.replaceChildren();
      summary.textContent = app.live
        ? 'Decoding…'
        : 'Translate a sentence, then replay its decoding here step by step.';
      cands.replaceChildren();
      transport.clear();
      liveNote.textContent = '';
      beam.draw(0);
      drawWhatIf();
      return;
    }
    setMatrices(app, parts, d);
    liveNote.textContent = liveNoteText(app, d);
    update();
  }

  function drawWhatIf() {
    const lines = whatIfLines(app);
    whatIfNote.hidden = !lines.length;
    whatIfNote.replaceChildren(...lines);
  }

  /** Cheap per-step update: reveal rows, move highlights, refresh texts. */
  function update() {
    const d = lastData;
    drawWhatIf();
    if (!d) return beam.draw(0);
    const n = d.targets.length;
    const s = d.live ? n : cur();
    transport.sync(n, s, d.live);
    beam.draw(d.live ? 0 : s);
    mvs.cross.reveal(s, s - 1);
    (d.forget ? mvs.forget : mvs.self).reveal(s, s - 1);
    tokens.replaceChildren(...tokenSpans(d, s));
    for (const t of document.querySelectorAll('#output .tok')) {
      const from = Number(t.dataset.step);
      t.classList.toggle('current', from <= s - 1 && s - 1 <= Number(t.dataset.last ?? from));
    }
    if (s === 0) {
      summary.textContent = `Nothing decoded yet. Press play (or “next step”) to watch the ${n} steps.`;
      cands.replaceChildren();
      return;
    }
    summary.textContent = stepSummary(d, s);
    cands.replaceChildren(...candidateItems(app, d.steps[s - 1], s, !d.live && app.canWhatIf()));
  }

  return {
    element,
    render,
    exportTarget: () => (lastData ? target(mvs.cross, 'cross') : null),
    startLive() {
      transport.pause();
      lastData = null;
      if (app.state.view === 'timeline') render();
    },
    liveStep() {
      if (app.state.view !== 'timeline' || liveFrame) return;
      liveFrame = requestAnimationFrame(() => {
        liveFrame = 0;
        if (app.live) render();
      });
    },
    finishLive() {
      if (liveFrame) cancelAnimationFrame(liveFrame);
      liveFrame = 0;
      app.set({ step: -1 }, { render: false });
      announce('Decoding finished');
    },
  };
}
