// An SSRU decoder's forget gates, shown where a Transformer decoder's self-attention would be
// (the attention maps and the timeline): per decoder layer the mean gate of each step as a line,
// and every gate as a [step × dimension] heatmap on a fixed 0…1 scale. Data in ssru-data.js.

import { el, fmt } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';
import { forgetMatrix, meanGates } from '../data/ssru-data.js';

export const FORGET_NOTE =
  'This model’s decoder has no self-attention: an SSRU cell (Kim et al. 2019) carries the past forward; each row shows how much of the past each dimension keeps at that step, 1 = all, 0 = none.';

const NS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A heatmap for forget gates: rows are steps, columns the decoder's dimensions, 0…1. */
export function forgetMatrixView(options) {
  return new MatrixView({
    title: 'Decoder forget gates (SSRU)',
    domain: [0, 1],
    rowAxis: 'target step',
    colAxis: 'dimension',
    maxCell: 14,
    minCell: 2,
    ...options,
  });
}

/**
 * The mean gate per step as a small SVG line chart (0 at the bottom, 1 at the top), one dot per
 * step with its piece and value as a title; steps from `revealed` on are left out.
 */
export function meanGateLine(means, labels, revealed = Infinity) {
  const n = Math.min(means.length, revealed);
  const stepW = Math.max(8, Math.min(24, 420 / Math.max(1, means.length)));
  const W = 34 + stepW * Math.max(1, means.length),
    H = 64,
    top = 6,
    h = H - top - 14;
  const x = (i) => 30 + stepW * (i + 0.5);
  const y = (v) => top + (1 - v) * h;
  const chart = svg('svg', {
    class: 'gate-line',
    width: W,
    height: H,
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `Mean forget gate per step: ${Array.from(means.subarray(0, n), (v) => fmt(v, 2)).join(', ')}`,
  });
  chart.append(
    svg('line', { class: 'gl-axis', x1: 28, x2: W, y1: y(0), y2: y(0) }),
    svg('line', { class: 'gl-axis gl-one', x1: 28, x2: W, y1: y(1), y2: y(1) }),
    svg('text', { x: 0, y: y(1) + 4 }, '1'),
    svg('text', { x: 0, y: y(0) + 4 }, '0'),
    svg('text', { x: 30, y: H - 1 }, 'mean gate per step'),
  );
  if (n > 1)
    chart.append(
      svg('polyline', {
        class: 'gl-path',
        points: Array.from({ length: n }, (_, i) => `${x(i)},${y(means[i])}`).join(' '),
      }),
    );
  for (let i = 0; i < n; i++) {
    const dot = svg('circle', { class: 'gl-dot', cx: x(i), cy: y(means[i]), r: 3 });
    dot.append(svg('title', {}, `step ${i + 1}, “${labels[i]}”: mean gate ${fmt(means[i], 3)}`));
    chart.append(dot);
  }
  return chart;
}

/**
 * The attention maps view's section for an SSRU model: the note, then per decoder layer its
 * mean-gate line and its heatmap. `exportOf(mv, layer)` makes a focused heatmap the export
 * target; `draw(result)` shows a result's gates (hidden for a result without any).
 */
export function createForgetGates(exportOf) {
  const layers = el('div.grid2.forget-layers');
  const node = el(
    'section.forget-gates',
    { hidden: true, 'aria-label': 'Decoder forget gates' },
    el('h4', { text: 'Decoder: an SSRU cell, not self-attention — its forget gates' }),
    el('p.note', { text: FORGET_NOTE }),
    layers,
  );
  let views = [];

  function draw(result) {
    const f = result?.attention?.forget;
    node.hidden = !f;
    if (!f) return;
    const L = f.shape[0];
    if (views.length !== L) {
      views = Array.from({ length: L }, (_, l) => {
        const mv = forgetMatrixView({ onFocus: () => exportOf(mv, l) });
        return { mv, line: el('div.gate-line-box') };
      });
      layers.replaceChildren(
        ...views.map((v, l) =>
          el(
            'div.forget-layer',
            { 'data-layer': l },
            el('h5', { text: `Decoder layer ${l + 1}` }),
            v.line,
            v.mv.element,
          ),
        ),
      );
    }
    views.forEach((v, l) => {
      const m = forgetMatrix(result, l);
      v.line.replaceChildren(meanGateLine(meanGates(m), m.rowLabels));
      v.mv.set(m, {
        title: `Decoder forget gates · layer ${l + 1}`,
        subtitle: `${m.rows} steps × ${m.cols} dimensions`,
      });
    });
  }
  return { node, draw };
}
