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

export function createLabView(app) {
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
  const embBox = el('div');
  const padBox = el('div.sub', { role: 'group', 'aria-label': 'Padding keys' });
  const grid = el('div.lab-grid', { role: 'group', 'aria-label': 'Score function by mask' });
  const status = el('p.note');
  const detailTitle = el('h3');
  const detailFormula = el('p', {}, el('span.formula'));
  const weightsMv = new MatrixView({
    title: 'Weights',
    domain: [0, 1],
    rowAxis: 'query',
    colAxis: 'key',
    rowSums: true,
    maxCell: 48,
    onFocus: () => app.setActive(target(weightsMv)),
  });
  const scoresMv = new MatrixView({
    title: 'Scores (before softmax)',
    map: 'diverging',
    rowAxis: 'query',
    colAxis: 'key',
    maxCell: 48,
    onFocus: () => app.setActive(target(scoresMv)),
  });
  const outMv = new MatrixView({
    title: 'Output (weights · V)',
    map: 'diverging',
    rowAxis: 'query',
    colAxis: 'dimension',
    maxCell: 48,
    onFocus: () => app.setActive(target(outMv)),
  });
  const element = el(
    'div.view-lab',
    {},
    aboutView(
      el('p.note', {
        text: 'The same queries, keys and values under every score function (rows) and mask (columns). Pick a cell to see its numbers below. Scores, softmax and outputs are computed by the engine’s WebAssembly kernels.',
      }),
    ),
    el(
      'div.row',
      {},
      el('div.sub', {}, el('label', { for: 'lab-source', text: 'Inputs' }), source),
      headBox,
      el('div.sub', {}, el('label', { for: 'lab-window', text: 'local window ±' }), windowIn),
    ),
    embBox,
    padBox,
    status,
    grid,
    detailTitle,
    detailFormula,
    el('div.grid3', {}, weightsMv.element, scoresMv.element, outMv.element),
  );

  const example = {
    tokens: [...EXAMPLE.tokens],
    x: EXAMPLE.x.map((r) => [...r]),
    padding: [...EXAMPLE.padding],
  };
  let sentencePadding = null;
  let inputs = null; // { tokens, q, k, v, padding, note }
  let lab = null;
  let results = null;
  const qkvCache = { result: null, map: new Map() };

  function target(v) {
    return {
      title: `${v.o.title} — ${labelOf(app.state.score)}, ${maskLabel()}`,
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
  const labelOf = (id) => FUNCS.find((f) => f[0] === id)[1];
  const maskLabel = () =>
    app.state.mask === 'local'
      ? `local window ±${app.state.window}`
      : MASKS.find((m) => m[0] === app.state.mask)[1];

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

  function maskSpec(kind, n) {
    if (kind === 'causal') return { kind: 'causal' };
    if (kind === 'padding') return { kind: 'padding', keyPadding: inputs.padding.slice(0, n) };
    if (kind === 'local') return { kind: 'local', window: app.state.window };
    return { kind: 'none' };
  }

  function compute() {
    const { q, k, v } = inputs;
    const P = params(q[0].length, k[0].length);
    results = {};
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
            results[`${f}/${m}`] = lab.attention({
              q,
              k,
              v,
              score: f,
              mask: maskSpec(m, k.length),
              params: P[f],
            });
          }
        } catch (err) {
          results[`${f}/${m}`] = { na: err.message };
        }
      }
    }
  }

  function drawEmbeddings() {
    if (app.state.lab !== 'example') {
      embBox.replaceChildren();
      return;
    }
    const d = example.x[0].length;
    const table = el(
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
        el(
          'tr',
          {},
          el('th', { text: t }),
          ...example.x[i].map((val, j) =>
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
                    render();
                  }
                },
              }),
            ),
          ),
        ),
      ),
    );
    embBox.replaceChildren(table);
  }

  function drawPadding() {
    padBox.replaceChildren(
      el('span', { text: 'Padding keys:' }),
      ...inputs.tokens.map((t, i) =>
        el(
          'label',
          {},
          el('input', {
            type: 'checkbox',
            checked: inputs.padding[i] || undefined,
            onchange: (ev) => {
              inputs.padding[i] = ev.target.checked;
              if (app.state.lab === 'example') example.padding[i] = ev.target.checked;
              else sentencePadding[i] = ev.target.checked;
              render();
            },
          }),
          ` ${t}`,
        ),
      ),
    );
  }

  async function getInputs() {
    if (app.state.lab === 'example') {
      return {
        tokens: example.tokens,
        q: example.x,
        k: example.x,
        v: example.x,
        padding: example.padding,
        note: 'Example “attention is cool <pad>”, Q = K = V = X',
      };
    }
    if (!app.result || !app.translator) return null;
    const head = Number.isInteger(app.state.head) ? app.state.head : 0;
    const key = `${head}`;
    if (qkvCache.result !== app.result) {
      qkvCache.result = app.result;
      qkvCache.map = new Map();
    }
    if (!qkvCache.map.has(key))
      qkvCache.map.set(
        key,
        app.translator.explainHead(app.result, { block: 'encoder', layer: 0, head }),
      );
    const ex = await qkvCache.map.get(key);
    const rows = (t) => {
      const [n, m] = t.shape;
      return Array.from({ length: n }, (_, i) => Array.from(t.data.subarray(i * m, (i + 1) * m)));
    };
    if (!sentencePadding || sentencePadding.length !== ex.keyTokens.length)
      sentencePadding = ex.keyTokens.map(() => false);
    return {
      tokens: ex.keyTokens,
      q: rows(ex.q),
      k: rows(ex.k),
      v: rows(ex.v),
      padding: sentencePadding,
      note: `Q, K, V of encoder layer 1, head ${head + 1} on the current sentence`,
    };
  }

  async function render() {
    source.value = app.state.lab;
    windowIn.value = String(app.state.window);
    headBox.hidden = app.state.lab !== 'sentence';
    const heads = app.result?.attention?.encoderSelf.shape[1] ?? 0;
    headSel.replaceChildren(
      ...Array.from({ length: heads }, (_, h) => el('option', { value: h, text: String(h + 1) })),
    );
    headSel.value = String(Number.isInteger(app.state.head) ? app.state.head : 0);
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
    drawEmbeddings();
    drawPadding();
    compute();
    drawGrid();
    drawDetail();
  }

  function drawGrid() {
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
        const on = app.state.score === f && app.state.mask === m;
        if (r.na) {
          cells.push(el('div.lab-cell', {}, el('span.na', { text: 'n/a', title: r.na })));
          continue;
        }
        const c = el('canvas', { width: 1, height: 1 });
        const [n, kk] = r.weights.shape;
        drawThumb(c, { rows: n, cols: kk, values: r.weights.data }, 'sequential', [0, 1]);
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
    grid.style.gridTemplateColumns = `max-content repeat(${MASKS.length}, minmax(60px, 104px))`;
    grid.replaceChildren(...cells);
  }

  function drawDetail() {
    const key = `${app.state.score}/${app.state.mask}`;
    const r = results[key];
    const f = FUNCS.find((x) => x[0] === app.state.score);
    detailTitle.textContent = `${f[1]} attention, ${maskLabel()}`;
    detailFormula.firstChild.textContent = f[2];
    if (!r || r.na) {
      for (const v of [weightsMv, scoresMv, outMv]) v.element.hidden = true;
      detailFormula.append(el('span.note', { text: ` — ${r?.na ?? 'not available'}` }));
      return;
    }
    for (const v of [weightsMv, scoresMv, outMv]) v.element.hidden = false;
    const t = inputs.tokens;
    const [n, kk] = r.weights.shape;
    const blocked = new Uint8Array(n * kk);
    let any = false;
    for (let i = 0; i < n * kk; i++)
      if (r.scores.data[i] === -Infinity) {
        blocked[i] = 1;
        any = true;
      }
    const small = n <= 8;
    weightsMv.o.values = small ? true : 'auto';
    scoresMv.o.values = small ? true : 'auto';
    outMv.o.values = small && r.output.shape[1] <= 8 ? true : 'auto';
    weightsMv.set(
      {
        rows: n,
        cols: kk,
        values: r.weights.data,
        rowLabels: t.slice(0, n),
        colLabels: t.slice(0, kk),
      },
      { blocked: any ? blocked : null },
    );
    scoresMv.set(
      {
        rows: n,
        cols: kk,
        values: r.scores.data,
        rowLabels: t.slice(0, n),
        colLabels: t.slice(0, kk),
      },
      {
        blocked: any ? blocked : null,
        title:
          app.state.score === 'linear'
            ? 'φ(q)·φ(k) (before normalising)'
            : 'Scores (before softmax)',
      },
    );
    const dv = r.output.shape[1];
    outMv.set({
      rows: n,
      cols: dv,
      values: r.output.data,
      rowLabels: t.slice(0, n),
      colLabels: Array.from({ length: dv }, (_, j) => `${j + 1}`),
    });
    app.setActive(target(weightsMv));
  }

  return { element, render, exportTarget: () => (results ? target(weightsMv) : null) };
}
