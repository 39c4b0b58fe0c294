// Shared controls of the attention views: which block, layer and head to show, and the two
// display options (merge pieces into words, hide special tokens). They read and write app.state;
// the blocks' names and shapes are in data/blocks.js.

import { el } from './ui.js';
import {
  BLOCKS,
  BLOCK_NAMES,
  blockShape,
  blocksOf,
  alignedHead,
  isAligned,
  ALIGNED_TEXT,
} from '../data/blocks.js';

/**
 * Block / layer / head selects. `blocks` limits the block choice (and the result's model: an
 * SSRU decoder offers no self-attention); allowAvg adds "average".
 */
export function headPicker(app, { blocks = BLOCKS, allowAvg = true, idPrefix, showBlock = true }) {
  const blockSel = el(
    'select',
    { id: `${idPrefix}-block` },
    blocks.map((b) => el('option', { value: b, text: BLOCK_NAMES[b] })),
  );
  const layerSel = el('select', { id: `${idPrefix}-layer` });
  const headSel = el('select', { id: `${idPrefix}-head` });
  const node = el(
    'div.sub',
    {},
    ...(showBlock ? [el('label', { for: blockSel.id, text: 'Attention' }), blockSel] : []),
    el('label', { for: layerSel.id, text: 'layer' }),
    layerSel,
    el('label', { for: headSel.id, text: 'head' }),
    headSel,
  );
  blockSel.addEventListener('change', () => app.set({ block: blockSel.value, layer: 0 }));
  layerSel.addEventListener('change', () => app.set({ layer: Number(layerSel.value) }));
  headSel.addEventListener('change', () =>
    app.set({
      head: ['avg', 'rollout'].includes(headSel.value) ? headSel.value : Number(headSel.value),
    }),
  );

  /** Re-fills the options for the current result and clamps the state into range. */
  function sync(result = app.result) {
    const s = app.state;
    const offered = result?.attention ? blocks.filter((b) => blocksOf(result).includes(b)) : blocks;
    const block = offered.includes(s.block) ? s.block : offered[0];
    if (showBlock) s.block = block;
    blockSel.replaceChildren(
      ...offered.map((b) => el('option', { value: b, text: BLOCK_NAMES[b] })),
    );
    const { layers, heads } = result?.attention
      ? blockShape(result, block)
      : (result?.shape ?? { layers: 0, heads: 0 });
    if (layers) {
      // why: without a result there is nothing to clamp against (keep the URL's choice)
      if (s.layer >= layers) s.layer = 0;
      if (Number.isInteger(s.head) && s.head >= heads) s.head = 0;
      if (s.head === 'rollout' && block !== 'encoder') s.head = 'avg';
      if (!Number.isInteger(s.head) && !allowAvg) s.head = 0;
    }
    blockSel.value = block;
    layerSel.replaceChildren(
      ...Array.from({ length: layers }, (_, l) => el('option', { value: l, text: String(l + 1) })),
    );
    layerSel.value = String(s.layer);
    const aligned = alignedHead(app.translator?.info);
    const headText = (h) =>
      isAligned(aligned, block, s.layer, h) ? `${h + 1} · ${ALIGNED_TEXT}` : String(h + 1);
    headSel.replaceChildren(
      ...Array.from({ length: heads }, (_, h) => el('option', { value: h, text: headText(h) })),
      ...(allowAvg ? [el('option', { value: 'avg', text: 'average of heads' })] : []),
      ...(allowAvg && block === 'encoder'
        ? [el('option', { value: 'rollout', text: 'rollout (layers 1…this)' })]
        : []),
    );
    headSel.value = String(s.head);
    for (const x of [blockSel, layerSel, headSel]) x.disabled = !layers;
  }
  return { node, sync };
}

/** The "merge pieces into words" and "hide special tokens" checkboxes. */
export function displayToggles(app, idPrefix) {
  const merge = el('input', { type: 'checkbox', id: `${idPrefix}-merge` });
  const hide = el('input', { type: 'checkbox', id: `${idPrefix}-hide` });
  merge.addEventListener('change', () => app.set({ merge: merge.checked }));
  hide.addEventListener('change', () => app.set({ hide: hide.checked }));
  const node = el(
    'div.sub',
    {},
    el('label', {}, merge, ' merge pieces into words'),
    el('label', {}, hide, ' hide <s> and </s> (renormalise rows)'),
  );
  return {
    node,
    sync() {
      merge.checked = app.state.merge;
      hide.checked = app.state.hide;
    },
  };
}

/** A segmented pair/trio of buttons bound to one state key. */
export function segmented(app, key, options, label) {
  const buttons = options.map(([value, text]) =>
    el(
      'button',
      { type: 'button', 'aria-pressed': 'false', onclick: () => app.set({ [key]: value }) },
      text,
    ),
  );
  const node = el('div.seg', { role: 'group', 'aria-label': label }, buttons);
  return {
    node,
    sync() {
      buttons.forEach((b, k) =>
        b.setAttribute('aria-pressed', String(app.state[key] === options[k][0])),
      );
    },
  };
}

/** A paragraph listing what the display options changed ("the page SAYS so"). */
export function notesBox() {
  const node = el('div.notes', { role: 'status' });
  return {
    node,
    set(notes) {
      node.replaceChildren(...notes.map((n) => el('div', { text: n })));
    },
  };
}
