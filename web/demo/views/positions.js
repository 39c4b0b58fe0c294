// "Positional encoding": the sinusoidal encoding PE(pos, 2i) = sin(pos/10000^(2i/d)),
// PE(pos, 2i+1) = cos(…) as a heatmap, computed by the engine (lab.sinusoidalPositions), and the
// cosine similarity between positions, which shows why nearby positions look alike.

import { el, aboutView } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';

export function createPositionsView(app) {
  const len = el('input', {
    type: 'number',
    id: 'pos-len',
    min: 2,
    max: 256,
    step: 1,
    style: 'width: 5em',
  });
  const dim = el('input', {
    type: 'number',
    id: 'pos-dim',
    min: 2,
    max: 1024,
    step: 2,
    style: 'width: 5em',
  });
  const useModel = el('button', { type: 'button' }, 'Use the model’s size');
  len.addEventListener('change', () => app.set({ plen: clamp(len.value, 2, 256, 32) }));
  dim.addEventListener('change', () => {
    let d = clamp(dim.value, 2, 1024, 64);
    if (d % 2) d += 1;
    app.set({ pdim: d });
  });
  useModel.addEventListener('click', () => {
    const cfg = app.translator?.info?.config ?? {};
    const n = app.result?.sourceTokens.length ?? 32;
    app.set({ pdim: Number(cfg.d_model) || 64, plen: Math.max(2, Math.min(256, n)) });
  });
  const status = el('p.note');
  /** A [position × axis] view in [-1, 1]; focusing it makes it the export target. */
  const signedView = (title, colAxis, role) => {
    const view = new MatrixView({
      title,
      map: 'diverging',
      domain: [-1, 1],
      rowAxis: 'position',
      colAxis,
      maxCell: 14,
      onFocus: () => app.setActive(target(view, role)),
    });
    return view;
  };
  const peMv = signedView('Sinusoidal positional encoding', 'dimension', 'encoding');
  const simMv = signedView('Cosine similarity of positions', 'position', 'similarity');
  const element = el(
    'div.view-positions',
    {},
    aboutView(
      el('p.note', {
        text: 'Attention itself ignores order: shuffling the keys and values shuffles nothing in the output. So the Transformer adds a position signal to each embedding. Each pair of dimensions is a sine and a cosine of the position at its own frequency, from fast (left) to slow (right):',
      }),
    ),
    el(
      'p',
      {},
      el('span.formula', {
        text: 'PE(pos, 2i) = sin(pos / 10000^(2i/d))    PE(pos, 2i+1) = cos(pos / 10000^(2i/d))',
      }),
    ),
    el(
      'div.row',
      {},
      el('div.sub', {}, el('label', { for: 'pos-len', text: 'positions' }), len),
      el('div.sub', {}, el('label', { for: 'pos-dim', text: 'width d' }), dim),
      useModel,
    ),
    status,
    el('div.grid2', {}, peMv.element, simMv.element),
    el('p.note', {
      text: 'The dot product of two encodings depends only on the distance between the positions, so similarity is high near the diagonal and fades with distance: a relative sense of order that attention can use.',
    }),
  );

  function target(v, slug) {
    return {
      title: v.o.title,
      slug: `positions-${slug}`,
      png: () => v.toPNG([`${app.state.plen} positions, d = ${app.state.pdim}`]),
      svg: () => v.toSVG([`${app.state.plen} positions, d = ${app.state.pdim}`]),
      json: () => v.toJSON({ positions: app.state.plen, width: app.state.pdim }),
    };
  }

  async function render() {
    len.value = String(app.state.plen);
    dim.value = String(app.state.pdim);
    const cfg = app.translator?.info?.config;
    let lab;
    try {
      lab = await app.lab();
    } catch (err) {
      status.textContent = `The engine could not be loaded: ${err.message}`;
      return;
    }
    const L = app.state.plen,
      d = app.state.pdim;
    const pe = lab.sinusoidalPositions(L, d);
    const pos = Array.from({ length: L }, (_, p) => String(p));
    peMv.set({
      rows: L,
      cols: d,
      values: pe.data,
      rowLabels: pos,
      colLabels: Array.from({ length: d }, (_, j) => `${j % 2 ? 'cos' : 'sin'} ${j >> 1}`),
    });
    const sim = lab.positionSimilarity(L, d);
    simMv.set({ rows: L, cols: L, values: sim.data, rowLabels: pos, colLabels: pos });
    status.textContent =
      `${L} positions × ${d} dimensions, computed by the engine.` +
      (cfg
        ? ` The loaded model uses ${cfg.positions ?? 'sinusoidal'} positions with d_model = ${cfg.d_model}${cfg.positions === 'learned' ? ' (learned, so this view shows the textbook encoding, not the model’s)' : ''}.`
        : '');
    app.setActive(target(peMv, 'encoding'));
  }

  return { element, render, exportTarget: () => (peMv.m ? target(peMv, 'encoding') : null) };
}

function clamp(v, lo, hi, d) {
  const n = Math.round(Number(v));
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : d;
}
