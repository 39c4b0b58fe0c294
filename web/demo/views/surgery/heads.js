// The Surgery view's head grid: one thumbnail per head of every block, pressed to ablate that
// head (again to bring it back), with the choice of zero or the mean of the other heads and a
// button that clears every setting. Reads and writes app.state.ablate and app.state.amean. An
// SSRU decoder has no self-attention heads, so none are offered for it.

import { el } from '../../widgets/ui.js';
import { drawThumb } from '../../widgets/matrix-view.js';
import { headMatrix, prepare } from '../../data/attention-data.js';
import {
  blocksOf,
  BLOCK_NAMES,
  blockShape,
  alignedHead,
  isAligned,
  ALIGNED_TEXT,
} from '../../data/blocks.js';
import { isSsru } from '../../data/ssru-data.js';
import { formatAblate, parseAblate, hasHead, toggleHead } from '../../data/surgery-data.js';

/** One head's button: its attention as a thumbnail; a press toggles its ablation. */
function headButton(app, block, l, h, aligned) {
  const c = el('canvas', { width: 1, height: 1 });
  const { matrix } = prepare(headMatrix(app.result, block, l, h), {});
  let hi = 1e-6;
  for (const v of matrix.values) if (v > hi) hi = v;
  drawThumb(c, matrix, 'sequential', [0, hi]);
  const marked = isAligned(aligned, block, l, h);
  return el(
    `button.sg-head${marked ? '.aligned' : ''}`,
    {
      type: 'button',
      'data-block': block,
      'data-layer': l,
      'data-head': h,
      'aria-label': `Ablate ${BLOCK_NAMES[block]}, layer ${l + 1}, head ${h + 1}${marked ? ` (${ALIGNED_TEXT})` : ''}`,
      title: marked ? `Layer ${l + 1}, head ${h + 1}: ${ALIGNED_TEXT}` : null,
      onclick: () => {
        const list = toggleHead(parseAblate(app.state.ablate), block, l, h);
        const on = list.some((a) => a.block === block && a.layer === l && a.head === h);
        // a head switched off is the one "Attention of both runs" then shows
        app.set({ ablate: formatAblate(list), ...(on && { block, layer: l, head: h }) });
      },
    },
    c,
    el('span.sg-x', { 'aria-hidden': 'true', text: '×' }),
  );
}

/** A block's layer × head grid of buttons, under the block's name. */
function blockGrid(app, block) {
  const { layers, heads } = blockShape(app.result, block);
  const aligned = alignedHead(app.translator?.info);
  const g = el('div.head-grid', { style: `grid-template-columns: auto repeat(${heads}, auto)` });
  g.append(
    el('span'),
    ...Array.from({ length: heads }, (_, h) => el('span.colhead', { text: `h${h + 1}` })),
  );
  for (let l = 0; l < layers; l++) {
    g.append(el('span.lab', { text: `layer ${l + 1}` }));
    for (let h = 0; h < heads; h++) g.append(headButton(app, block, l, h, aligned));
  }
  return el('div', {}, el('h4', { text: BLOCK_NAMES[block] }), g);
}

/** The "Heads to ablate" part: `nodes` to place, `draw()` after the state or result changed. */
export function createHeadGrid(app) {
  const thumbs = el('div.grids.sg-thumbs', {
    role: 'group',
    'aria-label': 'Heads to ablate: press a head to switch it off or on',
  });
  const meanSel = el('div.seg', { role: 'group', 'aria-label': 'Ablated heads output' });
  const zeroBtn = el('button', { type: 'button', 'aria-pressed': 'false' }, 'zero');
  const meanBtn = el('button', { type: 'button', 'aria-pressed': 'false' }, 'mean of the others');
  meanSel.append(zeroBtn, meanBtn);
  zeroBtn.addEventListener('click', () => app.set({ amean: false }));
  meanBtn.addEventListener('click', () => app.set({ amean: true }));
  const clearBtn = el('button', { type: 'button', id: 'sg-clear' }, 'Clear all surgery');
  clearBtn.addEventListener('click', () =>
    app.set({ ablate: '', temp: 1, win: -1, sparse: false, nopos: false, lin: 'none' }),
  );
  const ablateNote = el('span.note.sg-inline');
  const ssruNote = el('p.note.sg-ssru', {
    hidden: true,
    text: 'No decoder self-attention heads to ablate: this model’s decoder is an SSRU cell (Kim et al. 2019), which carries the past forward without attending.',
  });
  let drawnFor = '';

  function draw() {
    zeroBtn.setAttribute('aria-pressed', String(!app.state.amean));
    meanBtn.setAttribute('aria-pressed', String(app.state.amean));
    const key = `${app.resultId}`;
    if (key !== drawnFor) {
      drawnFor = key;
      thumbs.replaceChildren(...blocksOf(app.result).map((block) => blockGrid(app, block)));
      ssruNote.hidden = !isSsru(app.result);
    }
    const list = parseAblate(app.state.ablate);
    for (const b of thumbs.querySelectorAll('button')) {
      const on = hasHead(list, b.dataset.block, Number(b.dataset.layer), Number(b.dataset.head));
      b.setAttribute('aria-pressed', String(on));
    }
    ablateNote.textContent = list.length
      ? `${list.length} head${list.length > 1 ? 's' : ''} ablated (${app.state.amean ? 'mean of the others' : 'zeroed'}).`
      : 'No head ablated.';
  }

  return { nodes: [el('div.row', {}, meanSel, clearBtn, ablateNote), thumbs, ssruNote], draw };
}
