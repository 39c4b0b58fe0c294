// "Attention lab": the score functions of the source texts (dot, scaled dot, general, additive,
// and linear attention with the elu+1 feature map) under each mask (none, causal, padding, local
// window), side by side on the same Q, K, V. Every number comes from the engine's C++ kernels
// through loadAttentionLab().

import { el, aboutView } from '../widgets/ui.js';
import { MatrixView, drawThumb } from '../widgets/matrix-view.js';

const FUNCS = [
  ['dot', 'Dot product', 'sᵢⱼ = qᵢ·kⱼ  (multiplicative, Luong)'],
  ['scaled_dot', 'Scaled dot product', 'sᵢⱼ = qᵢ·kⱼ / √d_k  (Transformer)'],
  ['general', 'General', 'sᵢⱼ = qᵢᵀ W kⱼ  (multiplicative with a learned W)'],
  ['additive', 'Additive', 'sᵢⱼ = vᵀ tanh(W qᵢ + U kⱼ)  (Bahdanau)'],
  ['linear', 'Linear (elu+1)', 'φ(qᵢ)·φ(kⱼ) / Σₖ φ(qᵢ)·φ(kₖ),  φ = elu+1'],
];
const ABOUT =
  'The same queries, keys and values under every score function (rows) and mask (columns). Pick a cell to see its numbers below. Scores, softmax and outputs are computed by the engine’s WebAssembly kernels.';
const MASKS = [
  ['none', 'No mask'],
  ['causal', 'Causal'],
  ['padding', 'Padding'],
  ['local', 'Local window'],
];
const EXAMPLE = {
  tokens: ['attention', 'is', 'cool', '<pad>'],
  x: [
    [1.0, 0.2, 0.6, -0.3],
    [0.1, 0.9, -0.4, 0.5],
    [0.7, -0.2, 1.1, 0.4],
    [0, 0, 0, 0],
  ],
  padding: [false, false, false, true],
};

/** Small deterministic generator, so "random" parameters are the same on every visit. */
function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  };
}

/** Pseudo-random W (general) and W, U, v (additive) for queries of width dq and keys of dk. */
function params(dq, dk) {
  const r = seeded(1234 + dq * 31 + dk);
  const w = Array.from({ length: dq }, (_, i) =>
    Array.from({ length: dk }, (_, j) => (i === j ? 1 : 0) + 0.5 * r()),
  );
  const da = 8;
  return {
    general: { w },
    additive: {
      w: Array.from({ length: da }, () => Array.from({ length: dq }, () => r())),
      u: Array.from({ length: da }, () => Array.from({ length: dk }, () => r())),
      v: Array.from({ length: da }, () => r()),
    },
  };
}

/** The lab's mask option for `kind` over n keys. */
function maskSpec(kind, n, inputs, window) {
  if (kind === 'causal') return { kind: 'causal' };
  if (kind === 'padding') return { kind: 'padding', keyPadding: inputs.padding.slice(0, n) };
  if (kind === 'local') return { kind: 'local', window };
  return { kind: 'none' };
}

/** Every score function under every mask, by "function/mask": a result, or {na: why not}. */
function computeAll(lab, inputs, window) {
  const { q, k, v } = inputs;
  const P = params(q[0].length, k[0].length);
  const results = {};
  for (const [f] of FUNCS) {
    for (const [m] of MASKS) {
      try {
        if (f === 'linear') {
          if (m === 'none' || m === 'causal')
            results[`${f}/${m}`] = lab.linearAttention({ q, k, v, causal: m === 'causal' });
          else
            results[`${f}/${m}`] = {
              na: 'Linear attention never forms the score matrix, so only the causal prefix form can be masked.',
            };
        } else {
          const mask = maskSpec(m, k.length, inputs, window);
          results[`${f}/${m}`] = lab.attention({ q, k, v, score: f, mask, params: P[f] });
        }
      } catch (err) {
        results[`${f}/${m}`] = { na: err.message };
      }
    }
  }
  return results;
}

/** The example's embeddings as a table of number inputs; onChange() after an edit. */
function embeddingTable(example, onChange) {
  const d = example.x[0].length;
  const cell = (t, i, j, val) =>
    el(
      'td',
      {},
      el('input', {
        type: 'number',
        step: 0.1,
        value: val,
        'aria-label': `${t} x${j + 1}`,
        onchange: (ev) => {
          const n = Number(ev.target.value);
          if (Number.isFinite(n)) {
            example.x[i][j] = n;
            onChange();
          }
        },
      }),
    );
  return el(
    'table.emb',
    {},
    el('caption.note', {
      text: 'Embeddings X (edit any number). Here Q = K = V = X: self-attention without learned projections, as in the texts’ example.',
    }),
    el(
      'tr',
      {},
      el('th', { text: 'token' }),
      ...Array.from({ length: d }, (_, j) => el('th', { text: `x${j + 1}` })),
    ),
    ...example.tokens.map((t, i) =>
      el('tr', {}, el('th', { text: t }), ...example.x[i].map((val, j) => cell(t, i, j, val))),
    ),
  );
}

/** The "padding keys" checkboxes; onToggle(i, on) when one changes. */
function paddingBoxes(inputs, onToggle) {
  return [
    el('span', { text: 'Padding keys:' }),
    ...inputs.tokens.map((t, i) =>
      el(
        'label',
        {},
        el('input', {
          type: 'checkbox',
          checked: inputs.padding[i] || undefined,
          onchange: (ev) => onToggle(i, ev.target.checked),
        }),
        ` ${t}`,
      ),
    ),
  ];
}

/** Q, K, V of one head of encoder layer 1 on the shown sentence, asked once per result. */
function sentenceQKV(app) {
  const cache = { result: null, map: new Map() };
  let padding = null;
  const rows = (t) => {
    const [n, m] = t.shape;
    return Array.from({ length: n }, (_, i) => Array.from(t.data.subarray(i * m, (i + 1) * m)));
  };
  return async (head) => {
    if (cache.result !== app.result) {
      cache.result = app.result;
      cache.map = new Map();
    }
    if (!cache.map.has(head))
      cache.map.set(
        head,
        app.translator.explainHead(app.result, { block: 'encoder', layer: 0, head }),
      );
    const ex = await cache.map.get(head);
    if (!padding || padding.length !== ex.keyTokens.length) padding = ex.keyTokens.map(() => false);
    return {
      tokens: ex.keyTokens,
      q: rows(ex.q),
      k: rows(ex.k),
      v: rows(ex.v),
      padding,
      note: `Q, K, V of encoder layer 1, head ${head + 1} on the current sentence`,
    };
  };
}

/** The grid of thumbnails: one per score function (rows) and mask (columns). */
function gridCells(app, results) {
  const cells = [
    el('span'),
    ...MASKS.map(([m, name]) =>
      el('span.colhead', { text: m === 'local' ? `${name} ±${app.state.window}` : name }),
    ),
  ];
  for (const [f, name] of FUNCS) {
    cells.push(el('span.rowhead', { text: name }));
    for (const [m, mname] of MASKS) {
      const r = results[`${f}/${m}`];
      if (r.na) {
        cells.push(el('div.lab-cell', {}, el('span.na', { text: 'n/a', title: r.na })));
        continue;
      }
      const c = el('canvas', { width: 1, height: 1 });
      const [n, kk] = r.weights.shape;
      drawThumb(c, { rows: n, cols: kk, values: r.weights.data }, 'sequential', [0, 1]);
      const on = app.state.score === f && app.state.mask === m;
      cells.push(
        el(
          'button.lab-cell',
          {
            type: 'button',
            'aria-pressed': String(on),
            'data-score': f,
            'data-mask': m,
            'aria-label': `${name}, ${mname}`,
            onclick: () => app.set({ score: f, mask: m }),
          },
          c,
        ),
      );
    }
  }
  return cells;
}

/** The chosen cell's weights, scores and output, as matrices. */
function showDetail(app, r, tokens, mvs) {
  const [n, kk] = r.weights.shape;
  const blocked = new Uint8Array(n * kk);
  let any = false;
  for (let i = 0; i < n * kk; i++)
    if (r.scores.data[i] === -Infinity) {
      blocked[i] = 1;
      any = true;
    }
  const small = n <= 8;
  mvs.weights.o.values = small ? true : 'auto';
  mvs.scores.o.values = small ? true : 'auto';
  mvs.out.o.values = small && r.output.shape[1] <= 8 ? true : 'auto';
  const labelled = (cols, values, colLabels) => ({
    rows: n,
    cols,
    values,
    rowLabels: tokens.slice(0, n),
    colLabels,
  });
  mvs.weights.set(labelled(kk, r.weights.data, tokens.slice(0, kk)), {
    blocked: any ? blocked : null,
  });
  mvs.scores.set(labelled(kk, r.scores.data, tokens.slice(0, kk)), {
    blocked: any ? blocked : null,
    title:
      app.state.score === 'linear' ? 'φ(q)·φ(k) (before normalising)' : 'Scores (before softmax)',
  });
  const dv = r.output.shape[1];
  mvs.out.set(
    labelled(
      dv,
      r.output.data,
      Array.from({ length: dv }, (_, j) => `${j + 1}`),
    ),
  );
}

const labelOf = (id) => FUNCS.find((f) => f[0] === id)[1];
const maskLabel = (state) =>
  state.mask === 'local'
    ? `local window ±${state.window}`
    : MASKS.find((m) => m[0] === state.mask)[1];

/** The lab's three detail matrices; a focused one becomes the export target via onFocus(v). */
function detailViews(onFocus) {
  const make = (o) => {
    const v = new MatrixView({ rowAxis: 'query', maxCell: 48, ...o, onFocus: () => onFocus(v) });
    return v;
  };
  return {
    weights: make({ title: 'Weights', domain: [0, 1], colAxis: 'key', rowSums: true }),
    scores: make({ title: 'Scores (before softmax)', map: 'diverging', colAxis: 'key' }),
    out: make({ title: 'Output (weights · V)', map: 'diverging', colAxis: 'dimension' }),
  };
}

/** The lab's inputs row: which Q, K, V, which head of the sentence, the local window. */
function inputControls(app) {
  const source = el(
    'select',
    { id: 'lab-source' },
    el('option', { value: 'example', text: 'Example: “attention is cool” (editable)' }),
    el('option', { value: 'sentence', text: 'Current sentence: Q, K, V of encoder layer 1' }),
  );
  const windowIn = el('input', {
    type: 'number',
    id: 'lab-window',
    min: 0,
    max: 64,
    step: 1,
    style: 'width: 4em',
  });
  const headSel = el('select', { id: 'lab-head', 'aria-label': 'Head of encoder layer 1' });
  source.addEventListener('change', () => app.set({ lab: source.value }));
  windowIn.addEventListener('change', () =>
    app.set({ window: Math.max(0, Math.min(64, Number(windowIn.value) || 0)) }),
  );
  headSel.addEventListener('change', () => app.set({ head: Number(headSel.value) }));
  const headBox = el('span.sub', {}, el('label', { for: 'lab-head', text: 'head' }), headSel);
  const node = el(
    'div.row',
    {},
    el('div.sub', {}, el('label', { for: 'lab-source', text: 'Inputs' }), source),
    headBox,
    el('div.sub', {}, el('label', { for: 'lab-window', text: 'local window ±' }), windowIn),
  );
  function sync() {
    source.value = app.state.lab;
    windowIn.value = String(app.state.window);
    headBox.hidden = app.state.lab !== 'sentence';
    const heads = app.result?.attention?.encoderSelf.shape[1] ?? 0;
    headSel.replaceChildren(
      ...Array.from({ length: heads }, (_, h) => el('option', { value: h, text: String(h + 1) })),
    );
    headSel.value = String(Number.isInteger(app.state.head) ? app.state.head : 0);
  }
  return { node, sync };
}

export function createLabView(app) {
  const controls = inputControls(app);
  const embBox = el('div');
  const padBox = el('div.sub', { role: 'group', 'aria-label': 'Padding keys' });
  const grid = el('div.lab-grid', { role: 'group', 'aria-label': 'Score function by mask' });
  const status = el('p.note');
  const detailTitle = el('h3');
  const detailFormula = el('p', {}, el('span.formula'));
  const mvs = detailViews((v) => app.setActive(target(v)));
  const element = el(
    'div.view-lab',
    {},
    aboutView(el('p.note', { text: ABOUT })),
    controls.node,
    embBox,
    padBox,
    status,
    grid,
    detailTitle,
    detailFormula,
    el('div.grid3', {}, mvs.weights.element, mvs.scores.element, mvs.out.element),
  );

  const example = {
    tokens: [...EXAMPLE.tokens],
    x: EXAMPLE.x.map((r) => [...r]),
    padding: [...EXAMPLE.padding],
  };
  const exampleInputs = () => ({
    tokens: example.tokens,
    q: example.x,
    k: example.x,
    v: example.x,
    padding: example.padding,
    note: 'Example “attention is cool <pad>”, Q = K = V = X',
  });
  const sentence = sentenceQKV(app);
  let inputs = null; // { tokens, q, k, v, padding, note }
  let lab = null;
  let results = null;

  function target(v) {
    return {
      title: `${v.o.title} — ${labelOf(app.state.score)}, ${maskLabel(app.state)}`,
      slug: `lab-${app.state.score}-${app.state.mask}`,
      png: () => v.toPNG([inputs?.note ?? '']),
      svg: () => v.toSVG([inputs?.note ?? '']),
      json: () =>
        v.toJSON({
          score: app.state.score,
          mask: app.state.mask,
          window: app.state.window,
          inputs: inputs?.note,
          tokens: inputs?.tokens,
        }),
    };
  }

  async function getInputs() {
    if (app.state.lab === 'example') return exampleInputs();
    if (!app.result || !app.translator) return null;
    return sentence(Number.isInteger(app.state.head) ? app.state.head : 0);
  }

  async function render() {
    controls.sync();
    status.textContent = 'Loading the attention kernels…';
    try {
      lab ??= await app.lab();
    } catch (err) {
      status.textContent = `The attention kernels could not be loaded: ${err.message}`;
      return;
    }
    try {
      inputs = await getInputs();
    } catch (err) {
      status.textContent = `Could not get the sentence’s Q, K, V: ${err.message}`;
      return;
    }
    if (!inputs) {
      status.textContent = 'Translate a sentence first, or use the example.';
      grid.replaceChildren();
      return;
    }
    status.textContent = `${inputs.note}: ${inputs.tokens.length} tokens, d_k = ${inputs.q[0].length}. General and additive use fixed pseudo-random W, U, v (in a trained model they are learned).`;
    embBox.replaceChildren(
      ...(app.state.lab === 'example' ? [embeddingTable(example, render)] : []),
    );
    padBox.replaceChildren(
      ...paddingBoxes(inputs, (i, on) => {
        inputs.padding[i] = on;
        render();
      }),
    );
    results = computeAll(lab, inputs, app.state.window);
    // why: the row names wrap and the cells shrink to 48 px, so a 360 px phone shows all four masks
    grid.style.gridTemplateColumns = `auto repeat(${MASKS.length}, minmax(44px, 104px))`;
    grid.replaceChildren(...gridCells(app, results));
    drawDetail();
  }

  function drawDetail() {
    const r = results[`${app.state.score}/${app.state.mask}`];
    const f = FUNCS.find((x) => x[0] === app.state.score);
    detailTitle.textContent = `${f[1]} attention, ${maskLabel(app.state)}`;
    detailFormula.firstChild.textContent = f[2];
    const views = [mvs.weights, mvs.scores, mvs.out];
    for (const v of views) v.element.hidden = !r || !!r.na;
    if (!r || r.na) {
      detailFormula.append(el('span.note', { text: ` — ${r?.na ?? 'not available'}` }));
      return;
    }
    showDetail(app, r, inputs.tokens, mvs);
    app.setActive(target(mvs.weights));
  }

  return { element, render, exportTarget: () => (results ? target(mvs.weights) : null) };
}
