// The Surgery view's settings for how every head attends: window radius, temperature, sparse
// attention with its random blocks, no positions, linear attention with its random features.
// They read and write app.state; the view re-runs the surgery when the state changes.

import { el } from '../../widgets/ui.js';

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

/** A slider bound to the numeric state key `key`. */
function stateSlider(app, key, ...args) {
  const s = slider(...args);
  s.input.addEventListener('input', () => app.set({ [key]: Number(s.input.value) }));
  return s;
}

/** A checkbox bound to the boolean state key `key`. */
function stateCheck(app, key, id) {
  const box = el('input', { type: 'checkbox', id });
  box.addEventListener('change', () => app.set({ [key]: box.checked }));
  return box;
}

/** The row of attention settings: `node`, and `sync()` to show the state. */
export function createAttentionSettings(app) {
  const win = stateSlider(
    app,
    'win',
    'sg-window',
    'window radius',
    { min: -1, max: 32, step: 1 },
    (v) => (v < 0 ? 'off' : `±${v}`),
  );
  const temp = stateSlider(
    app,
    'temp',
    'sg-temp',
    'temperature',
    { min: 0.1, max: 4, step: 0.05 },
    (v) => `×${v.toFixed(2)}`,
  );
  const sparse = stateCheck(app, 'sparse', 'sg-sparse');
  const rblocks = stateSlider(
    app,
    'rblocks',
    'sg-rblocks',
    'random blocks',
    { min: 0, max: 8, step: 1 },
    String,
  );
  const nopos = stateCheck(app, 'nopos', 'sg-nopos');
  const linSel = el(
    'select',
    { id: 'sg-linear' },
    el('option', { value: 'none', text: 'softmax (none)' }),
    el('option', { value: 'favor', text: 'FAVOR+ random features' }),
    el('option', { value: 'elu', text: 'elu + 1 feature map' }),
  );
  linSel.addEventListener('change', () => app.set({ lin: linSel.value }));
  const feat = stateSlider(
    app,
    'feat',
    'sg-features',
    'random features',
    { min: 8, max: 256, step: 8 },
    String,
  );
  const node = el(
    'div.row',
    {},
    win.node,
    temp.node,
    el('div.sub', {}, el('label', {}, sparse, ' sparse (global ends + random blocks)')),
    rblocks.node,
    el('div.sub', {}, el('label', {}, nopos, ' no positions')),
    el('div.sub', {}, el('label', { for: linSel.id, text: 'linear attention' }), linSel, feat.node),
  );
  return {
    node,
    sync() {
      const s = app.state;
      win.set(s.win);
      temp.set(s.temp);
      sparse.checked = s.sparse;
      rblocks.set(s.rblocks);
      rblocks.input.disabled = !s.sparse;
      nopos.checked = s.nopos;
      linSel.value = s.lin;
      feat.set(s.feat);
      feat.input.disabled = s.lin !== 'favor';
    },
  };
}
