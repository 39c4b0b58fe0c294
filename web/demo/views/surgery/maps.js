// The Surgery view's "Attention of both runs": the chosen head of the unmodified run and of the
// run with surgery side by side, and how far they differ. No engine calls here.

import { el, fmt } from '../../widgets/ui.js';
import { MatrixView } from '../../widgets/matrix-view.js';
import { headPicker } from '../../widgets/controls.js';
import { headMatrix, causalMask } from '../../data/attention-data.js';
import { parseAblate, hasHead, absDiff } from '../../data/surgery-data.js';
import { axisNames, headTitle } from '../attention.js';

/**
 * The two maps with their head picker. `exportOf(mv, slug)` makes a focused map the export
 * target; `draw(base, mod)` shows the chosen head of both results.
 */
export function createBothMaps(app, exportOf) {
  const picker = headPicker(app, { idPrefix: 'sg' });
  const map = (title, slug) => {
    const mv = new MatrixView({
      title,
      domain: 'zeroMax',
      rowAxis: 'query',
      colAxis: 'key',
      maxCell: 26,
      onFocus: () => app.setActive(exportOf(mv, slug)),
    });
    return mv;
  };
  const before = map('Unmodified', 'unmodified');
  const after = map('With surgery', 'modified');
  const note = el('p.note.sg-mapnote');
  const nodes = [
    el('div.row', {}, picker.node),
    note,
    el('div.grid2.sg-maps', {}, before.element, after.element),
  ];

  function draw(base, mod) {
    const { block, layer, head } = app.state;
    const blocked = (r) => (block === 'decoder' ? causalMask(r.rows, r.cols) : null);
    const a = headMatrix(base, block, layer, head);
    const b = headMatrix(mod, block, layer, head);
    const [rowAxis, colAxis] = axisNames(block);
    const title = headTitle(app.state);
    for (const [mv, m, name] of [
      [before, a, 'Unmodified'],
      [after, b, 'With surgery'],
    ]) {
      mv.o.rowAxis = rowAxis;
      mv.o.colAxis = colAxis;
      mv.set(m, {
        title: `${name} · ${title}`,
        blocked: blocked(m),
        subtitle: `${m.rows} × ${m.cols}`,
      });
    }
    const ablated =
      Number.isInteger(head) && hasHead(parseAblate(app.state.ablate), block, layer, head);
    const diff =
      a.rows === b.rows && a.cols === b.cols
        ? `Largest change of a weight in this head: ${fmt(absDiff(a.values, b.values).max, 4)}.`
        : `The runs wrote ${a.rows} and ${b.rows} target pieces, so the maps differ in shape.`;
    note.textContent = `${diff}${ablated ? ' This head is ablated: its weights are still computed, but its output is not passed on.' : ''}`;
  }

  return { nodes, before, after, sync: () => picker.sync(), draw };
}
