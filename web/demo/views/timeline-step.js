// The parts of the decoding timeline that describe one step: the pieces written so far, the
// top candidates the decoder weighed (each a "what if" button), the note of a what-if run, and
// the beam as a tree. They draw into elements the timeline view owns.

import { el, fmt, aboutView } from '../widgets/ui.js';
import { cssAt } from '../widgets/colormap.js';
import { showPiece } from '../data/attention-data.js';
import { beamTreeSvg } from '../widgets/beam-tree.js';
import { createBeamCompare } from './beam-compare.js';

/** The pieces so far: those after step s are dots of their length (not decoded yet). */
export function tokenSpans(d, s) {
  return d.targets.map((t, i) =>
    el(
      `span.t${i >= s ? '.future' : ''}${i === s - 1 ? '.now' : ''}`,
      { 'data-step': i, title: `step ${i + 1}: ${t} (p = ${fmt(d.probs[i], 3)})` },
      i >= s ? '·'.repeat(Math.min(4, showPiece(t).length)) : t,
    ),
  );
}

/**
 * Step s's top candidates, each with its probability bar; a candidate not chosen is a button
 * that forces it there (app.whatIf) when `canWhatIf`.
 */
export function candidateItems(app, step, s, canWhatIf) {
  return (step.top ?? []).flatMap((c) => {
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
              onclick: () => app.whatIf(s - 1, c),
            }),
          ),
      el('span.bar', {
        style: `width: ${Math.max(1, c.prob * 100)}%; --c: ${cssAt('sequential', 0.25 + 0.75 * c.prob)}`,
        'aria-hidden': 'true',
      }),
      el('span', { text: `${(c.prob * 100).toFixed(1)} %` }),
    ];
  });
}

/** Which candidate a "what if" run forced, with the way back (nothing without one). */
export function whatIfLines(app) {
  const w = app.result?.whatIf;
  if (!w) return [];
  return [
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
  ];
}

/**
 * The beam tree of a beam search result, with the current step shaded; onPick(step). A node
 * hovered or tapped shows its cross-attention row beside the winner's (beam-compare.js).
 */
export function createBeamBox(app, onPick) {
  const host = el('div.beam-scroll');
  const compare = createBeamCompare(app);
  const node = el(
    'div.beam-box',
    { hidden: true },
    el('h3', { text: 'The beam, step by step' }),
    aboutView(
      el('p.note', {
        text: 'Beam search keeps several hypotheses at once. Each column is a step, each node a hypothesis kept there (its newest piece), each edge points to the hypothesis it extended; the winner’s path is drawn strong, and squares are hypotheses that ended with </s>. Hover or tap a node to see the cross-attention it used beside the winner’s; click a step to go there.',
      }),
    ),
    host,
    compare.node,
  );
  return {
    node,
    draw(s) {
      const a = app.result?.attention;
      node.hidden = !a?.beam?.length;
      if (node.hidden) return host.replaceChildren();
      const length = app.result.targetTokens.length;
      const tree = {
        length,
        step: s,
        onPick,
        onNode: compare.select,
        selected: compare.selected(),
      };
      host.replaceChildren(beamTreeSvg(a.beam, a.beamWinner, tree));
      compare.refresh();
      // keep the current step's column in view
      host.scrollLeft = Math.max(0, (s - 3) * 92);
    },
  };
}
