// The Surgery view's side-by-side parts: one run's translation with the pieces the other run
// lacks boxed and each piece's confidence (underline, and a table for screen readers), and the
// per-layer cost table of both runs (result.costs). No engine calls here.

import { el, fmt } from '../../widgets/ui.js';
import { cssAt } from '../../widgets/colormap.js';
import { showPiece } from '../../data/attention-data.js';
import { pieceGroups } from '../../data/pieces.js';
import { meanConfidence } from '../../data/surgery-data.js';

const SHORT = { encoder: 'enc', decoder: 'dec', cross: 'cross' };

/** One run's column: `show(result, same)` with same[i] = piece i is shared with the other run. */
export function createSide(label) {
  const out = el('p.output.sg-out', { 'aria-hidden': 'true' });
  const said = el('p.sr-only');
  const stats = el('p.stats');
  const rows = el('tbody');
  const table = el(
    'table.sg-conf',
    {},
    el('caption', { text: `${label}: confidence of each piece` }),
    el('thead', {}, el('tr', {}, el('th', { text: 'piece' }), el('th', { text: 'confidence' }))),
    rows,
  );
  const node = el(
    'div.sg-side',
    {},
    el('span.io-label', { text: label }),
    out,
    said,
    stats,
    el('details', {}, el('summary', { text: 'Confidence of each piece' }), table),
  );

  function show(result, same) {
    const spans = [];
    // byte pieces shown as their character, a lone "▁" joined to what follows (pieces.js)
    for (const g of pieceGroups(result.targetTokens)) {
      const p = g.steps.reduce((q, i) => q * result.tokenProbs[i], 1);
      const kept = g.steps.every((i) => same[i]);
      if (g.space) spans.push(' ');
      spans.push(
        el(
          `span.tok${p < 0.5 ? '.low' : ''}${kept ? '' : '.changed'}`,
          {
            style: `--c: ${cssAt('sequential', p)}`,
            title: `${g.pieces.map((t) => `“${t}”`).join(' ')} — probability ${(p * 100).toFixed(1)} %${kept ? '' : ' — not in the other run'}`,
          },
          g.text || '\u2009',
        ),
      );
    }
    out.replaceChildren(...spans);
    out.dataset.text = result.text;
    const changed = same.filter((x, i) => !x && result.targetTokens[i] !== '</s>').length;
    said.textContent = `${label}: ${result.text}. ${changed} piece${changed === 1 ? '' : 's'} not in the other run.`;
    stats.textContent = `mean confidence ${(meanConfidence(result) * 100).toFixed(1)} % · log-probability ${fmt(result.scores, 2)} · ${result.targetTokens.length} pieces`;
    rows.replaceChildren(
      ...result.targetTokens.map((t, i) =>
        el(
          `tr${same[i] ? '' : '.changed'}`,
          {},
          el('td', { text: showPiece(t) + (same[i] ? '' : ' (changed)') }),
          el('td.num', { text: `${(result.tokenProbs[i] * 100).toFixed(1)} %` }),
        ),
      ),
    );
  }

  return { node, show };
}

/** "6.8 M", "14.1 k", "512". */
function count(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

/**
 * The cost table: per block and layer, multiply-accumulates and attention state bytes of both
 * runs as bars, `show(base, mod)`; empty beside a stopped sentence (no costs).
 */
export function createCosts() {
  const node = el('div.sg-costs');

  function show(base, mod) {
    // why: a sentence cut by Stop is rebuilt from its step events, which carry no costs
    if (!base.costs || !mod.costs) {
      node.replaceChildren();
      return;
    }
    const max = (k) => Math.max(1, ...base.costs.map((c) => c[k]), ...mod.costs.map((c) => c[k]));
    const find = (list, c) => list.find((x) => x.block === c.block && x.layer === c.layer);
    const bar = (v, k, cls) =>
      el(`span.sg-bar${cls}`, { style: `--w: ${((100 * v) / max(k)).toFixed(1)}%` });
    const cell = (c, m, k, unit) =>
      el(
        'td.num',
        {},
        bar(c[k], k, ''),
        bar(m[k], k, '.mod'),
        `${count(c[k])}${unit} → ${count(m[k])}${unit}`,
      );
    const rows = base.costs.map((c) => {
      const m = find(mod.costs, c) ?? { macs: 0, stateBytes: 0 };
      return el(
        'tr',
        {},
        el('th', { scope: 'row', text: `${SHORT[c.block] ?? c.block} L${c.layer + 1}` }),
        cell(c, m, 'macs', ''),
        cell(c, m, 'stateBytes', ' B'),
      );
    });
    node.replaceChildren(
      el('h3', { text: 'Cost of attention per layer' }),
      el(
        'div.sg-tablewrap',
        {},
        el(
          'table.sg-costtable',
          {},
          el('caption.note', {
            text: 'Multiply-accumulates and attention state (cache) bytes: unmodified → with surgery (lighter bar).',
          }),
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('th', { scope: 'col', text: 'layer' }),
              el('th', { scope: 'col', text: 'MACs' }),
              el('th', { scope: 'col', text: 'state' }),
            ),
          ),
          el('tbody', {}, rows),
        ),
      ),
    );
  }

  return { node, show };
}
