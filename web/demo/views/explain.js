// "Inside one head": the computation of one attention head of the real model, step by step on
// its live numbers from translator.explainHead(): X → Q, K, V → QKᵀ → ÷√dk → mask → softmax →
// weights·V → concatenation of heads → output projection, with a worked cell at each step.

import { el, fmt } from '../widgets/ui.js';
import { MatrixView } from '../widgets/matrix-view.js';
import { headPicker } from '../widgets/controls.js';
import { BLOCK_NAMES } from '../data/blocks.js';
import { dims } from '../data/attention-data.js';

const STEPS = [
  { name: 'Inputs', formula: 'X (after layer norm)' },
  { name: 'Q, K, V', formula: 'Q = X·W_Q,  K = X·W_K,  V = X·W_V' },
  { name: 'Scores QKᵀ', formula: 'S = Q·Kᵀ' },
  { name: '÷ √d_k', formula: 'S′ = Q·Kᵀ / √d_k' },
  { name: 'Mask', formula: 'S′ᵢⱼ = −∞ where blocked' },
  { name: 'Softmax', formula: 'Wᵢⱼ = exp(S′ᵢⱼ) / Σₖ exp(S′ᵢₖ)' },
  { name: 'Weighted sum of V', formula: 'headₕ = W·V' },
  { name: 'Concatenate heads', formula: 'Concat(head₁, …, head_H)' },
  { name: 'Output projection', formula: 'MultiHead = Concat(…)·W_O' },
];

export function createExplainView(app) {
  const picker = headPicker(app, { allowAvg: false, idPrefix: 'ex' });
  const prev = el(
    'button',
    { type: 'button', onclick: () => app.set({ xstep: Math.max(0, app.state.xstep - 1) }) },
    '← Previous',
  );
  const next = el(
    'button',
    {
      type: 'button',
      onclick: () => app.set({ xstep: Math.min(STEPS.length - 1, app.state.xstep + 1) }),
    },
    'Next →',
  );
  const stepButtons = STEPS.map((s, k) =>
    el(
      'button',
      { type: 'button', 'aria-pressed': 'false', onclick: () => app.set({ xstep: k }) },
      `${k + 1}. ${s.name}`,
    ),
  );
  const querySel = el('select', { id: 'ex-query', 'aria-label': 'Query token to follow' });
  const unscaled = el('input', { type: 'checkbox', id: 'ex-unscaled' });
  unscaled.addEventListener('change', () => app.set({ unscaled: unscaled.checked }));
  querySel.addEventListener('change', () => {
    qi = Number(querySel.value);
    kj = -1;
    draw();
  });
  const heading = el('h3');
  const formula = el('p', {}, el('span.formula'));
  const text = el('p.note.explain-text');
  const mats = el('div.grid2');
  const worked = el('div.worked', { 'aria-live': 'polite' });
  const status = el('p.note');
  const element = el(
    'div.view-explain',
    {},
    el(
      'div.row',
      {},
      picker.node,
      el('div.sub', {}, el('label', { for: 'ex-query', text: 'follow query' }), querySel),
      el('label.sub', {}, unscaled, ' compare with the softmax without ÷√d_k'),
    ),
    el('div.stepper', { role: 'group', 'aria-label': 'Computation steps' }, stepButtons),
    el('div.row', {}, prev, next),
    status,
    heading,
    formula,
    text,
    worked,
    mats,
  );

  const cache = new Map();
  let ex = null; // HeadExplanation on screen
  let exKey = '';
  let qi = 0,
    kj = -1; // followed query row and key column
  const views = new Map(); // reusable MatrixViews by role
  let primary = null;

  /** [query × key] views: scores (diverging colours) and weights or masks (0..1). */
  const scoresView = (role, title, opts) =>
    mv(role, { title, map: 'diverging', rowAxis: 'query', colAxis: 'key', ...opts });
  const weightsView = (role, title, opts) =>
    mv(role, { title, domain: [0, 1], rowAxis: 'query', colAxis: 'key', ...opts });

  function mv(role, opts) {
    let v = views.get(role);
    if (!v) {
      v = new MatrixView({
        maxCell: 26,
        minCell: 3,
        ...opts,
        onFocus: () => {
          primary = v;
          app.setActive(exportFor(v));
        },
        onCell: (i, j) => {
          if (opts.follow) {
            qi = i;
            kj = j;
            querySel.value = String(i);
            showWorked();
            syncHighlights();
          }
        },
      });
      views.set(role, v);
    }
    return v;
  }

  function exportFor(v) {
    const where = `${BLOCK_NAMES[app.state.block]} L${app.state.layer + 1} H${app.state.head + 1}`;
    return {
      title: `${v.o.title} — ${where}`,
      slug: `explain-${app.state.block}-l${app.state.layer + 1}-h${app.state.head + 1}-step${app.state.xstep + 1}`,
      png: () => v.toPNG([STEPS[app.state.xstep].formula]),
      svg: () => v.toSVG([STEPS[app.state.xstep].formula]),
      json: () =>
        v.toJSON({
          block: app.state.block,
          layer: app.state.layer,
          head: app.state.head,
          step: STEPS[app.state.xstep].name,
          dk: ex?.dk,
        }),
    };
  }

  async function fetchExplanation() {
    const { block, layer, head } = app.state;
    const key = `${block}/${layer}/${head}`;
    if (!cache.has(key)) {
      cache.set(key, app.translator.explainHead(app.result, { block, layer, head }));
    }
    return { key, ex: await cache.get(key) };
  }

  let lastResult = null;
  async function render() {
    picker.sync();
    unscaled.checked = app.state.unscaled;
    stepButtons.forEach((b, k) => b.setAttribute('aria-pressed', String(k === app.state.xstep)));
    prev.disabled = app.state.xstep === 0;
    next.disabled = app.state.xstep === STEPS.length - 1;
    if (!app.result || !app.translator) {
      status.textContent =
        'Translate a sentence first: this view recomputes one head of the model on it.';
      mats.replaceChildren();
      worked.textContent = '';
      heading.textContent = '';
      return;
    }
    if (app.result !== lastResult) {
      cache.clear();
      lastResult = app.result;
    }
    if (!Number.isInteger(app.state.head)) app.state.head = 0;
    status.textContent = 'Computing…';
    let got;
    try {
      got = await fetchExplanation();
    } catch (err) {
      status.textContent = `Could not explain this head: ${err.message}`;
      return;
    }
    if (got.key !== `${app.state.block}/${app.state.layer}/${app.state.head}`) return; // a newer request won
    // why: the first query rows of a causal block have one or two keys — a dull example
    if (got.key !== exKey) {
      qi = Math.min(3, got.ex.queryTokens.length - 1);
      kj = -1;
    }
    ex = got.ex;
    exKey = got.key;
    const q = ex.queryTokens;
    querySel.replaceChildren(
      ...q.map((t, i) => el('option', { value: i, text: `${i + 1}: ${t}` })),
    );
    if (qi >= q.length) qi = 0;
    querySel.value = String(qi);
    const [Lq, D] = dims(ex.xq),
      [Lk] = dims(ex.k),
      Dh = dims(ex.q)[1];
    status.textContent =
      `${BLOCK_NAMES[app.state.block]}, layer ${app.state.layer + 1}, head ${app.state.head + 1}: ` +
      `${Lq} queries × ${Lk} keys, model width D = ${D}, head width d_k = ${ex.dk} (D / heads = ${Dh}). Recomputed by the engine on this sentence (teacher-forced).`;
    draw();
  }

  const M = (t, rowLabels, colLabels) => {
    const [r, c] = dims(t);
    return {
      rows: r,
      cols: c,
      values: t.data,
      rowLabels,
      colLabels: colLabels ?? Array.from({ length: c }, (_, k) => String(k + 1)),
    };
  };

  function draw() {
    if (!ex) return;
    const s = app.state.xstep;
    const qT = ex.queryTokens,
      kT = ex.keyTokens;
    const cross = app.state.block === 'cross';
    const dk = ex.dk;
    const blocked = maskOf(ex.mask);
    heading.textContent = `Step ${s + 1} of ${STEPS.length}: ${STEPS[s].name}`;
    formula.firstChild.textContent = STEPS[s].formula;
    const list = [];
    const dimsLabel = (n, p) => Array.from({ length: n }, (_, k) => `${p}${k + 1}`);
    switch (s) {
      case 0:
        text.textContent = cross
          ? 'Cross-attention has two inputs: the decoder’s states (queries come from them) and the encoder’s output (keys and values come from it). Each row is one token’s vector of width D.'
          : 'The block’s input: one row per token, the token embedding plus its positional encoding after the previous layers and this block’s layer norm. Queries, keys and values are all made from it (self-attention).';
        list.push(
          mv('xq', {
            title: cross ? 'Decoder states X_q' : 'Input X',
            map: 'diverging',
            rowAxis: 'token',
            colAxis: 'dimension',
          }).set(M(ex.xq, qT, dimsLabel(dims(ex.xq)[1], 'd'))),
        );
        if (cross)
          list.push(
            mv('xkv', {
              title: 'Encoder output X_kv',
              map: 'diverging',
              rowAxis: 'token',
              colAxis: 'dimension',
            }).set(M(ex.xkv, kT, dimsLabel(dims(ex.xkv)[1], 'd'))),
          );
        break;
      case 1:
        text.textContent = `Three learned matrices project every input row to this head’s query, key and value vectors of width d_k = ${dk}. The query says what a token is looking for, the key what it offers, the value what it passes on.`;
        list.push(
          mv('q', {
            title: 'Q (queries)',
            map: 'diverging',
            rowAxis: 'query',
            colAxis: 'dimension',
          }).set(M(ex.q, qT, dimsLabel(dk, 'q'))),
        );
        list.push(
          mv('k', {
            title: 'K (keys)',
            map: 'diverging',
            rowAxis: 'key',
            colAxis: 'dimension',
          }).set(M(ex.k, kT, dimsLabel(dk, 'k'))),
        );
        list.push(
          mv('v', {
            title: 'V (values)',
            map: 'diverging',
            rowAxis: 'key',
            colAxis: 'dimension',
          }).set(M(ex.v, kT, dimsLabel(dk, 'v'))),
        );
        break;
      case 2:
        text.textContent =
          'Each score is the dot product of one query with one key: large when they point the same way. This is multiplicative (dot-product) attention.';
        list.push(scoresView('scores', 'Scores Q·Kᵀ', { follow: true }).set(M(ex.scores, qT, kT)));
        break;
      case 3:
        text.textContent =
          `Dividing by √d_k = √${dk} = ${fmt(Math.sqrt(dk), 3)} keeps the scores’ spread independent of d_k, so the softmax does not saturate into a near one-hot row. ` +
          (app.state.unscaled
            ? 'Below: the softmax with and without the scaling — without it, rows are sharper.'
            : 'Tick “compare” above to see the softmax without the scaling.');
        list.push(
          scoresView('scaled', 'Scaled scores Q·Kᵀ/√d_k', { follow: true }).set(
            M(ex.scaled, qT, kT),
            { blocked: null },
          ),
        );
        if (app.state.unscaled) {
          list.push(
            weightsView('w-scaled', 'softmax(Q·Kᵀ/√d_k)', { rowSums: true }).set(
              M(ex.weights, qT, kT),
              { blocked },
            ),
          );
          list.push(
            weightsView('w-unscaled', 'softmax(Q·Kᵀ) — no scaling', { rowSums: true }).set(
              M(ex.weightsUnscaled, qT, kT),
              { blocked },
            ),
          );
        }
        break;
      case 4: {
        const n = blocked ? blocked.reduce((a, b) => a + b, 0) : 0;
        text.textContent =
          app.state.block === 'decoder'
            ? `Masked (causal) self-attention: a decoder position may not look at later positions, which do not exist yet when it is generated. The ${n} blocked scores are set to −∞, so the softmax gives them weight 0 — a lower-triangular matrix.`
            : 'Nothing is masked in this block: a single sentence has no padding, and the encoder (and cross-attention) may look at every source position. In a batch, padding positions would be set to −∞ here.';
        list.push(
          weightsView('mask', 'Mask (1 = blocked)', { values: true }).set(M(ex.mask, qT, kT)),
        );
        list.push(
          scoresView('masked', 'Masked scaled scores', { follow: true }).set(M(ex.scaled, qT, kT), {
            blocked,
          }),
        );
        break;
      }
      case 5:
        text.textContent =
          'The softmax turns each row of scores into weights between 0 and 1 that sum to 1 (see the Σ column): how much each query token takes from each key token.';
        list.push(
          weightsView('weights', 'Attention weights', { rowSums: true, follow: true }).set(
            M(ex.weights, qT, kT),
            { blocked },
          ),
        );
        if (app.state.unscaled)
          list.push(
            weightsView('w-unscaled5', 'Without ÷√d_k', { rowSums: true }).set(
              M(ex.weightsUnscaled, qT, kT),
              { blocked },
            ),
          );
        break;
      case 6:
        text.textContent =
          'Each output row is the weighted average of the value vectors, with the row’s attention weights: the token’s new representation, in context.';
        list.push(weightsView('weights6', 'Weights W').set(M(ex.weights, qT, kT), { blocked }));
        list.push(
          mv('v6', {
            title: 'Values V',
            map: 'diverging',
            rowAxis: 'key',
            colAxis: 'dimension',
          }).set(M(ex.v, kT, dimsLabel(dk, 'v'))),
        );
        list.push(
          mv('out', {
            title: 'This head’s output W·V',
            map: 'diverging',
            rowAxis: 'query',
            colAxis: 'dimension',
            follow: true,
          }).set(M(ex.output, qT, dimsLabel(dk, 'o'))),
        );
        break;
      case 7: {
        const h = app.state.head;
        text.textContent = `Every head runs the same computation with its own W_Q, W_K, W_V; their outputs are laid side by side into one row of width D. This head fills columns ${h * dk + 1}–${(h + 1) * dk} (outlined).`;
        list.push(
          mv('concat', {
            title: 'Concatenated heads',
            map: 'diverging',
            rowAxis: 'query',
            colAxis: 'dimension',
            maxCell: 12,
          }).set(M(ex.concat, qT, dimsLabel(dims(ex.concat)[1], 'd')), {
            colBand: [h * dk, (h + 1) * dk],
          }),
        );
        break;
      }
      case 8:
        text.textContent =
          'A last learned matrix W_O mixes the heads’ outputs back into the model width D. The result is added to the block’s input (residual connection) and goes on to the feed-forward layer.';
        list.push(
          mv('proj', {
            title: 'Output projection Concat·W_O',
            map: 'diverging',
            rowAxis: 'query',
            colAxis: 'dimension',
            maxCell: 12,
          }).set(M(ex.projected, qT, dimsLabel(dims(ex.projected)[1], 'd'))),
        );
        break;
      default:
        break;
    }
    // why: model-width (D) matrices need the whole row; narrow ones sit side by side
    mats.className = list.some((v) => v.m.cols > 64) ? 'stack' : 'grid2';
    mats.replaceChildren(...list.map((v) => v.element));
    primary = list.find((v) => v.o.follow) ?? list[list.length - 1];
    app.setActive(exportFor(primary));
    syncHighlights();
    showWorked();
  }

  function syncHighlights() {
    for (const v of views.values()) {
      if (!v.m || !v.element.isConnected) continue;
      if (
        v.o.rowAxis === 'query' ||
        (v.o.rowAxis === 'token' && v.m.rows === ex.queryTokens.length)
      )
        v.reveal(Infinity, qi);
    }
  }

  function showWorked() {
    if (!ex) return;
    const s = app.state.xstep;
    const [, Lk] = dims(ex.scores);
    const row = (t, i) => t.data.subarray(i * dims(t)[1], (i + 1) * dims(t)[1]);
    const w = row(ex.weights, qi);
    let j = kj >= 0 && kj < Lk ? kj : [...w.keys()].reduce((a, b) => (w[b] > w[a] ? b : a), 0);
    const qt = ex.queryTokens[qi],
      kt = ex.keyTokens[j];
    const q = row(ex.q, qi),
      k = row(ex.k, j);
    const terms = (a, b) => {
      const parts = [];
      for (let d = 0; d < Math.min(3, a.length); d++)
        parts.push(`(${fmt(a[d], 2)}×${fmt(b[d], 2)})`);
      return parts.join(' + ') + (a.length > 3 ? ` + … (${a.length} terms)` : '');
    };
    const sc = row(ex.scores, qi)[j],
      scl = row(ex.scaled, qi)[j];
    const blockedCell = row(ex.mask, qi)[j] > 0.5;
    let out = '';
    if (s <= 1)
      out = `Follow the query “${qt}” (row ${qi + 1}). Its query vector q has ${q.length} numbers: ${Array.from(q.subarray(0, 4), (x) => fmt(x, 2)).join(', ')}${q.length > 4 ? ', …' : ''}`;
    else if (s === 2)
      out = `score(“${qt}” → “${kt}”) = q·k = ${terms(q, k)}\n                      = ${fmt(sc, 4)}`;
    else if (s === 3)
      out = `scaled = ${fmt(sc, 4)} / √${ex.dk} = ${fmt(sc, 4)} / ${fmt(Math.sqrt(ex.dk), 3)} = ${fmt(scl, 4)}`;
    else if (s === 4)
      out = blockedCell
        ? `“${qt}” → “${kt}” is blocked: key position ${j + 1} comes after query position ${qi + 1}, so the score becomes −∞.`
        : `“${qt}” → “${kt}” is allowed: the score stays ${fmt(scl, 4)}.`;
    else if (s === 5) {
      const sr = row(ex.scaled, qi),
        mr = row(ex.mask, qi);
      let m = -Infinity,
        z = 0;
      for (let c = 0; c < Lk; c++) if (mr[c] < 0.5) m = Math.max(m, sr[c]);
      for (let c = 0; c < Lk; c++) if (mr[c] < 0.5) z += Math.exp(sr[c] - m);
      out = blockedCell
        ? `w(“${qt}” → “${kt}”) = 0 (masked)`
        : `w(“${qt}” → “${kt}”) = exp(${fmt(scl, 3)} − max ${fmt(m, 3)}) / Σₖ exp(s′ₖ − max)\n= ${fmt(Math.exp(scl - m), 4)} / ${fmt(z, 4)} = ${fmt(w[j], 4)}\nrow ${qi + 1} sums to ${fmt(
            w.reduce((a, b) => a + b, 0),
            4,
          )}`;
    } else if (s === 6) {
      const d = 0;
      const vcol = (c) => ex.v.data[c * dims(ex.v)[1] + d];
      const top = [...w.keys()].sort((a, b) => w[b] - w[a]).slice(0, 3);
      out = `output(“${qt}”)[1] = Σⱼ wⱼ·vⱼ[1] = ${top.map((c) => `${fmt(w[c], 3)}×${fmt(vcol(c), 3)}`).join(' + ')} + …\n= ${fmt(row(ex.output, qi)[d], 4)}`;
    } else if (s === 7)
      out = `Row “${qt}”: columns ${app.state.head * ex.dk + 1}–${(app.state.head + 1) * ex.dk} hold this head’s output; the other columns come from the other heads.`;
    else
      out = `Row “${qt}” after W_O: ${Array.from(row(ex.projected, qi).subarray(0, 4), (x) => fmt(x, 3)).join(', ')}, …`;
    worked.textContent = out;
  }

  return { element, render, exportTarget: () => (primary?.m ? exportFor(primary) : null) };
}

/** Mask tensor (1 = blocked) -> Uint8Array, or null when nothing is blocked. */
function maskOf(t) {
  let any = false;
  const b = new Uint8Array(t.data.length);
  for (let i = 0; i < t.data.length; i++)
    if (t.data[i] > 0.5) {
      b[i] = 1;
      any = true;
    }
  return any ? b : null;
}
