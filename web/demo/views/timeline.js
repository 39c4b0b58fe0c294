// "Decoding timeline": the translation replayed one target piece at a time. Each step shows
// the new piece, the cross-attention row it used, the decoder's growing causal triangle and the
// top-k candidates it chose from. Drawn live from onStep while decoding; scrubbed from the trace.

import { el, fmt, reducedMotion, announce, aboutView } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';
import { cssAt } from '../widgets/colormap.js';
import { headMatrix, decoderInputs, showPiece, sliceHead } from '../data/attention-data.js';
import { headPicker } from '../widgets/controls.js';
import { headLabel } from '../data/blocks.js';
import { beamTreeSvg } from '../widgets/beam-tree.js';

const SPEEDS = [
  ['900', 'slow'],
  ['450', 'normal'],
  ['150', 'fast'],
];

export function createTimelineView(app) {
  const picker = headPicker(app, { blocks: ['cross'], idPrefix: 'tl', showBlock: false });
  const btn = (label, text, onclick) =>
    el('button', { type: 'button', 'aria-label': label, title: label, onclick }, text);
  const first = btn('First step', '|◀', () => {
    pause();
    go(0);
  });
  const back = btn('Previous step', '◀ step', () => {
    pause();
    go(cur() - 1);
  });
  const play = btn('Play', '▶ Play', () => (timer ? pause() : start()));
  const fwd = btn('Next step', 'step ▶', () => {
    pause();
    go(cur() + 1);
  });
  const last = btn('Last step', '▶|', () => {
    pause();
    go(total());
  });
  const range = el('input', {
    type: 'range',
    min: 0,
    max: 0,
    value: 0,
    step: 1,
    'aria-label': 'Decoding step',
  });
  const speed = el(
    'select',
    { 'aria-label': 'Playback speed' },
    SPEEDS.map(([v, t]) => el('option', { value: v, text: t })),
  );
  speed.value = '450';
  const counter = el('span.note', { 'aria-live': 'off' });
  const tokens = el('div.tokens', { 'aria-label': 'Target pieces so far' });
  const summary = el('p.step-summary', { 'aria-live': 'polite' });
  const cands = el('div.cands', { role: 'list', 'aria-label': 'Top candidates at this step' });
  const crossMv = new MatrixView({
    title: 'Cross-attention',
    domain: 'zeroMax',
    rowAxis: 'target step',
    colAxis: 'source piece',
    maxCell: 30,
    onFocus: () => app.setActive(target(crossMv, 'cross')),
    onActivate: (i) => go(i + 1),
    activateHint: 'tap again to step the timeline here',
  });
  const selfMv = new MatrixView({
    title: 'Decoder masked self-attention',
    domain: 'zeroMax',
    rowAxis: 'target step',
    colAxis: 'decoder input',
    futureCols: true,
    maxCell: 30,
    onFocus: () => app.setActive(target(selfMv, 'decoder')),
    onActivate: (i) => go(i + 1),
    activateHint: 'tap again to step the timeline here',
  });
  const liveNote = el('p.note');
  const whatIfNote = el('div.whatif', { role: 'status', hidden: true });
  const beamHost = el('div.beam-scroll');
  const beamBox = el(
    'div.beam-box',
    { hidden: true },
    el('h3', { text: 'The beam, step by step' }),
    aboutView(
      el('p.note', {
        text: 'Beam search keeps several hypotheses at once. Each column is a step, each node a hypothesis kept there (its newest piece), each edge points to the hypothesis it extended; the winner’s path is drawn strong, and squares are hypotheses that ended with </s>. Hover a node for its log-probability; click a step to go there.',
      }),
    ),
    beamHost,
  );
  const pair = el('div.grid2', {}, crossMv.element, selfMv.element);
  const element = el(
    'div.view-timeline',
    {},
    el(
      'div.row',
      {},
      el(
        'div.transport',
        { role: 'group', 'aria-label': 'Playback' },
        first,
        back,
        play,
        fwd,
        last,
        range,
        speed,
        counter,
      ),
      picker.node,
    ),
    whatIfNote,
    tokens,
    summary,
    liveNote,
    pair,
    el('h3', { text: 'What the decoder weighed at this step' }),
    cands,
    beamBox,
    el('p.note', {
      text: 'Colours run from 0 to the largest weight of the whole matrix (see each legend), so steps compare directly. Click a row to jump to its step; focus a matrix and use the arrow keys to read exact values.',
    }),
  );
  range.addEventListener('input', () => {
    pause();
    go(Number(range.value));
  });

  let timer = null;
  let liveFrame = 0;

  const total = () => app.result?.targetTokens.length ?? app.live?.events.length ?? 0;
  const cur = () => (app.state.step < 0 ? total() : Math.min(app.state.step, total()));

  function target(mv, block) {
    return {
      title: `${mv.o.title} up to step ${cur()}`,
      slug: `timeline-${block}-step${cur()}`,
      png: () => mv.toPNG([`Steps 1–${cur()} of ${total()}`]),
      svg: () => mv.toSVG([`Steps 1–${cur()} of ${total()}`]),
      json: () =>
        mv.toJSON({
          block,
          layer: app.state.layer,
          head: app.state.head,
          step: cur(),
          steps: total(),
        }),
    };
  }

  function go(s) {
    const n = total();
    s = Math.max(0, Math.min(n, s));
    app.set({ step: s === n ? -1 : s }, { render: false });
    update();
    if (s >= n) pause();
  }

  function start() {
    if (!app.result) return;
    if (cur() >= total()) go(0);
    play.textContent = '❚❚ Pause';
    play.setAttribute('aria-label', 'Pause');
    const tick = () => {
      if (cur() >= total()) {
        pause();
        return;
      }
      go(cur() + 1);
    };
    if (reducedMotion()) {
      tick();
    }
    timer = setInterval(tick, Number(speed.value));
  }

  function pause() {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = '▶ Play';
    play.setAttribute('aria-label', 'Play');
  }

  /** Matrices and step data from the finished trace, or from the live events. */
  function data() {
    const { layer, head } = app.state;
    if (app.result?.attention) {
      const r = app.result;
      return {
        cross: headMatrix(r, 'cross', layer, head),
        self: headMatrix(r, 'decoder', layer, head),
        targets: r.targetTokens,
        steps: r.attention.steps,
        probs: r.tokenProbs,
      };
    }
    const live = app.live;
    if (!live?.events.length) return null;
    const evs = live.events;
    const T = evs.length;
    const S = evs[0].cross.shape[2];
    const targets = evs[T - 1].tokens.slice(0, T);
    const crossVals = new Float32Array(T * S),
      selfVals = new Float32Array(T * T);
    evs.forEach((ev, t) => {
      const c = rowOf(ev.cross, layer, head);
      crossVals.set(c.subarray(0, S), t * S);
      const d = rowOf(ev.decoderSelf, layer, head);
      selfVals.set(d.subarray(0, Math.min(T, d.length)), t * T);
    });
    const src =
      live.sourceTokens?.length === S
        ? live.sourceTokens
        : Array.from({ length: S }, (_, j) => `#${j + 1}`);
    return {
      cross: { rows: T, cols: S, values: crossVals, rowLabels: targets, colLabels: src },
      self: {
        rows: T,
        cols: T,
        values: selfVals,
        rowLabels: targets,
        colLabels: decoderInputs(targets),
      },
      targets,
      steps: evs,
      probs: evs.map((e) => e.prob),
      live: true,
    };
  }

  function causal(n) {
    const b = new Uint8Array(n * n);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) b[i * n + j] = 1;
    return b;
  }

  let lastData = null;

  function render() {
    const d = data();
    lastData = d;
    const shape =
      d && !app.result && app.live?.events.length
        ? {
            shape: {
              layers: app.live.events[0].cross.shape[0],
              heads: app.live.events[0].cross.shape[1],
            },
          }
        : app.result;
    picker.sync(shape);
    if (!d) {
      tokens.replaceChildren();
      summary.textContent = app.live
        ? 'Decoding…'
        : 'Translate a sentence, then replay its decoding here step by step.';
      cands.replaceChildren();
      crossMv.element.hidden = selfMv.element.hidden = true;
      // why: no counter or slider may still describe the previous text
      counter.textContent = '';
      range.max = range.value = '0';
      for (const b of [first, back, play, fwd, last, range]) b.disabled = true;
      liveNote.textContent = '';
      drawBeam(0);
      drawWhatIf();
      return;
    }
    crossMv.element.hidden = selfMv.element.hidden = false;
    // why: give each matrix width in proportion to its columns, so a long source is not squeezed
    pair.style.gridTemplateColumns = `minmax(280px, ${d.cross.cols + 6}fr) minmax(280px, ${d.self.cols + 6}fr)`;
    const h = headLabel(app.state.head, app.state.layer);
    crossMv.set(d.cross, { title: `Cross-attention · layer ${app.state.layer + 1} · ${h}` });
    selfMv.set(d.self, {
      title: `Decoder masked self-attention · layer ${app.state.layer + 1} · ${h}`,
      blocked: causal(d.self.rows),
    });
    liveNote.textContent = d.live
      ? `Decoding live: ${d.steps.length} piece${d.steps.length > 1 ? 's' : ''} so far${app.state.beam > 1 ? ' (beam search: rows follow the best hypothesis so far; the final trace replaces them)' : ''}${app.live?.sourceTokens ? '' : ' — source labels appear when decoding ends'}.`
      : 'Rows are decoding steps, labelled by the piece each step wrote. The decoder’s self-attention keys are its inputs: the start token <s>, then the pieces written before.';
    update();
  }

  /** The beam tree of a beam search result, with the current step shaded. */
  function drawBeam(s) {
    const a = app.result?.attention;
    beamBox.hidden = !a?.beam?.length;
    if (beamBox.hidden) return beamHost.replaceChildren();
    beamHost.replaceChildren(
      beamTreeSvg(a.beam, a.beamWinner, {
        length: app.result.targetTokens.length,
        step: s,
        onPick: (step) => {
          pause();
          go(step);
        },
      }),
    );
    // keep the current step's column in view
    beamHost.scrollLeft = Math.max(0, (s - 3) * 92);
  }

  /** Says which candidate a "what if" run forced, with the way back. */
  function drawWhatIf() {
    const w = app.result?.whatIf;
    whatIfNote.hidden = !w;
    if (!w) return whatIfNote.replaceChildren();
    whatIfNote.replaceChildren(
      el('strong', {
        text: `What if step ${w.step + 1} had written “${w.piece}” instead of “${w.was}”? `,
      }),
      el('span', {
        text: `It was forced there (the model gave it ${fmt(w.prob * 100, 1)} %) and the rest decoded on: “${app.result.text}” instead of “${w.originalText}”. `,
      }),
      el('button', {
        type: 'button',
        text: 'Back to the model’s own translation',
        onclick: () => app.undoWhatIf(),
      }),
    );
  }

  /** Cheap per-step update: reveal rows, move highlights, refresh texts. */
  function update() {
    const d = lastData;
    drawWhatIf();
    if (!d) return drawBeam(0);
    const n = d.targets.length;
    const s = d.live ? n : cur();
    range.max = String(n);
    range.value = String(s);
    range.disabled = !!d.live;
    for (const b of [first, back, play, fwd, last]) b.disabled = !!d.live;
    counter.textContent = `step ${s} of ${n}`;
    drawBeam(d.live ? 0 : s);
    crossMv.reveal(s, s - 1);
    selfMv.reveal(s, s - 1);
    tokens.replaceChildren(
      ...d.targets.map((t, i) =>
        el(
          `span.t${i >= s ? '.future' : ''}${i === s - 1 ? '.now' : ''}`,
          { 'data-step': i, title: `step ${i + 1}: ${t} (p = ${fmt(d.probs[i], 3)})` },
          i >= s ? '·'.repeat(Math.min(4, showPiece(t).length)) : t,
        ),
      ),
    );
    for (const t of document.querySelectorAll('#output .tok')) {
      const from = Number(t.dataset.step);
      t.classList.toggle('current', from <= s - 1 && s - 1 <= Number(t.dataset.last ?? from));
    }
    if (s === 0) {
      summary.textContent = `Nothing decoded yet. Press play (or “next step”) to watch the ${n} steps.`;
      cands.replaceChildren();
      return;
    }
    const k = s - 1;
    const step = d.steps[k];
    const row = d.cross.values.subarray(k * d.cross.cols, (k + 1) * d.cross.cols);
    const order = [...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 3);
    const looks = order.map((j) => `${d.cross.colLabels[j]} (${fmt(row[j], 2)})`).join(', ');
    summary.textContent = `Step ${s}: wrote “${d.targets[k]}” with probability ${fmt(step.prob, 3)}, looking mostly at ${looks}.`;
    const top = step.top ?? [];
    const canWhatIf = !d.live && app.canWhatIf();
    cands.replaceChildren(
      ...top.flatMap((c) => {
        const chosen = c.id === step.id;
        const label = `${c.piece}${chosen ? ' ✓' : ''}`;
        return [
          chosen || !canWhatIf
            ? el(`span${chosen ? '.chosen' : ''}`, { role: 'listitem', text: label })
            : el(
                'span',
                { role: 'listitem' },
                el('button.whatif-pick', {
                  type: 'button',
                  text: label,
                  title: `What if step ${s} had written “${c.piece}”? Forces it and decodes the rest`,
                  'aria-label': `What if step ${s} had written ${c.piece}: force it and decode the rest`,
                  onclick: () => app.whatIf(k, c),
                }),
              ),
          el('span.bar', {
            style: `width: ${Math.max(1, c.prob * 100)}%; --c: ${cssAt('sequential', 0.25 + 0.75 * c.prob)}`,
            'aria-hidden': 'true',
          }),
          el('span', { text: `${(c.prob * 100).toFixed(1)} %` }),
        ];
      }),
    );
  }

  return {
    element,
    render,
    exportTarget: () => (lastData ? target(crossMv, 'cross') : null),
    startLive() {
      pause();
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

function rowOf(tensor, layer, head) {
  // [L][H][n] -> row of one head, or the mean over heads
  const [, H, n] = tensor.shape;
  return sliceHead({ shape: [tensor.shape[0], H, 1, n], data: tensor.data }, layer, head);
}
