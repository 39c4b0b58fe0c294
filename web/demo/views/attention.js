// "Attention maps": a layer × head grid of thumbnails for all three attention blocks, and the
// chosen head (or the average of heads) as a labelled heatmap or as a link view. An SSRU
// decoder has no self-attention: its forget gates are shown instead (forget-gates.js).

import { el, reducedMotion, aboutView } from '../widgets/ui.js';
import { MatrixView, drawThumb } from '../widgets/matrix-view.js';
import { LinkView } from '../widgets/link-view.js';
import { headMatrix, prepare, causalMask } from '../data/attention-data.js';
import { headPicker, displayToggles, segmented, notesBox } from '../widgets/controls.js';
import {
  blocksOf,
  blockShape,
  headLabel,
  BLOCK_NAMES,
  alignedHead,
  isAligned,
  ALIGNED_TEXT,
} from '../data/blocks.js';
import { createForgetGates } from './forget-gates.js';
import { headSummary, summaryCaption, summaryText } from '../data/head-summary.js';
import { scrollBox } from '../widgets/scroll-hint.js';

export const BLOCK_NOTES = {
  encoder:
    'Each source piece (row, the query) attends to every source piece (column, the key); nothing is masked. Each row sums to 1.',
  decoder:
    'Masked self-attention: row t is the step that wrote target piece t. Its keys are the decoder’s inputs — the start token <s>, then the pieces already written — and it may only look at inputs 0…t. Hatched cells are masked out before the softmax: the causal triangle.',
  cross:
    'Row t is the decoding step that wrote target piece t; its query comes from the decoder, the keys and values from the encoder’s output for each source piece. Translation alignments show up here.',
};

export function axisNames(block) {
  return block === 'cross'
    ? ['target (query)', 'source (key)']
    : block === 'decoder'
      ? ['target step (query)', 'decoder input (key)']
      : ['source (query)', 'source (key)'];
}

/** The display matrix for the current state, with its notes and mask. */
export function currentMatrix(app, block = app.state.block) {
  const { layer, head, merge, hide } = app.state;
  const raw = headMatrix(app.result, block, layer, head);
  const mask = block === 'decoder' ? causalMask(raw.rows, raw.cols) : null;
  return prepare(raw, { merge, hide, blocked: mask });
}

export function headTitle(state, block = state.block) {
  return `${BLOCK_NAMES[block]} · layer ${state.layer + 1} · ${headLabel(state.head, state.layer)}`;
}

/** One head's thumbnail button, captioned with its strongest pattern; a press opens it. */
function thumbButton(app, block, l, h, onPick, aligned) {
  const c = el('canvas', { width: 1, height: 1 });
  const { matrix } = prepare(headMatrix(app.result, block, l, h), {
    merge: app.state.merge,
    hide: app.state.hide,
  });
  drawThumb(c, matrix, 'sequential', [0, Math.max(1e-6, maxOf(matrix.values))]);
  // why: a caption per head (its strongest pattern) lets a user find heads at a glance
  const cross = block === 'cross';
  const sum = headSummary(matrix, { cross });
  const marked = isAligned(aligned, block, l, h);
  const what = `${BLOCK_NAMES[block]}, layer ${l + 1}, ${headLabel(h, l)}${marked ? `, ${ALIGNED_TEXT}` : ''}`;
  return el(
    `button.thumb${marked ? '.aligned' : ''}`,
    {
      type: 'button',
      'data-block': block,
      'data-layer': l,
      'data-head': h,
      'data-pattern': sum.pattern,
      title: `${what}: ${summaryText(sum, { cross })}`,
      'aria-label': `${what}; ${summaryText(sum, { cross })}`,
      onclick: () => {
        app.set({ block, layer: l, head: h });
        onPick();
      },
    },
    c,
    el('span.cap', { 'aria-hidden': 'true', text: summaryCaption(sum) }),
  );
}

/** A block's layer × head grid of thumbnails, with the average (and, encoder, the rollout). */
function blockThumbs(app, block, onPick) {
  const aligned = alignedHead(app.translator?.info);
  const { layers, heads } = blockShape(app.result, block);
  const extra = block === 'encoder' ? ['avg', 'rollout'] : ['avg'];
  // why: thumbnails shrink to fit a phone; past that (8-head models) the grid scrolls in its box
  const g = el('div.head-grid', {
    style: `grid-template-columns: auto repeat(${heads + extra.length}, minmax(38px, 62px))`,
  });
  g.append(
    el('span'),
    ...Array.from({ length: heads }, (_, h) => el('span.colhead', { text: `h${h + 1}` })),
    el('span.colhead', { text: 'avg' }),
    ...(block === 'encoder'
      ? [el('span.colhead', { text: 'rollout', title: 'attention rollout: layers 1…this' })]
      : []),
  );
  for (let l = 0; l < layers; l++) {
    g.append(el('span.lab', { text: `layer ${l + 1}` }));
    for (const h of [...Array(heads).keys(), ...extra])
      g.append(thumbButton(app, block, l, h, onPick, aligned));
  }
  const key =
    block === 'cross' && aligned
      ? el('p.note.aligned-key', {
          text: `Outlined: layer ${aligned.layer + 1}, head ${aligned.head + 1}, ${ALIGNED_TEXT} (Marian’s guided alignment trains this head to align target and source words).`,
        })
      : null;
  return el('div', {}, el('h4', { text: BLOCK_NAMES[block] }), scrollBox('head-scroll', g), key);
}

/** Every head of the chosen layer as one link view's overlay, one colour per head. */
function everyHead(app) {
  const { block, layer, merge, hide } = app.state;
  const { heads } = blockShape(app.result, block);
  const overlay = Array.from({ length: heads }, (_, h) => ({
    label: `h${h + 1}`,
    values: prepare(headMatrix(app.result, block, layer, h), { merge, hide }).matrix.values,
  }));
  return { title: `${BLOCK_NAMES[block]} · layer ${layer + 1} · every head`, overlay };
}

const ABOUT =
  'One thumbnail per layer (row) and head (column); “avg” is the mean over the heads of a layer, and “rollout” follows attention through the encoder’s layers up to that one (Abnar & Zuidema 2020: each layer’s average plus the residual, multiplied layer by layer). Under each, the head’s strongest pattern: diag (itself), prev (the previous piece), first, </s>, mono (a monotonic alignment, cross-attention) when it takes half the weight or more, else the entropy H of its rows (0 = one key, 1 = uniform). Hover or focus a thumbnail for every figure; click one to open it below.';

/** The export of the opened map (`view`: its heatmap or link view; `cur`: currentMatrix()). */
function mapTarget(app, view, cur) {
  const { block, layer, head, merge, hide } = app.state;
  const meta = { block, layer, head, merged: merge, hiddenSpecials: hide, notes: cur.notes };
  return {
    title: headTitle(app.state),
    slug: `${block}-l${layer + 1}-h${Number.isInteger(head) ? head + 1 : head}`,
    png: () => view.toPNG(cur.notes),
    svg: () => view.toSVG(cur.notes),
    json: () => view.toJSON(meta),
  };
}

/** Brings the opened map into view when it starts below the screen (phones: far below). */
function scrollIntoViewIfBelow(node) {
  const r = node.getBoundingClientRect();
  if (r.top > window.innerHeight * 0.7 || r.bottom < 0)
    node.scrollIntoView({ block: 'start', behavior: reducedMotion() ? 'instant' : 'smooth' });
}

export function createAttentionView(app) {
  const picker = headPicker(app, { idPrefix: 'att' });
  const toggles = displayToggles(app, 'att');
  const show = segmented(
    app,
    'show',
    [
      ['heatmap', 'Heatmap'],
      ['links', 'Links'],
      ['overlay', 'Links, every head'],
    ],
    'Show as',
  );
  const notes = notesBox();
  const blockNote = el('p.note');
  const grids = el('div.grids', { role: 'group', 'aria-label': 'All heads: pick one' });
  const forget = createForgetGates((mv, l) => app.setActive(forgetTarget(mv, l)));
  const empty = el('p.note', { text: 'Translate a sentence to see its attention.' });
  const mv = new MatrixView({
    title: '',
    domain: 'zeroMax',
    rowAxis: 'query',
    colAxis: 'key',
    maxCell: 34,
    onFocus: () => app.setActive(target()),
  });
  const lv = new LinkView({ onFocus: () => app.setActive(target()) });
  const main = el('div.att-main');
  const element = el(
    'div.view-attention',
    {},
    el('div.row', {}, picker.node, show.node, toggles.node),
    el('h3', { text: 'Every head at a glance' }),
    aboutView(el('p.note', { text: ABOUT })),
    grids,
    forget.node,
    blockNote,
    notes.node,
    main,
    empty,
  );
  let thumbKey = null;
  let cur = null;

  const target = () => cur && mapTarget(app, app.state.show === 'heatmap' ? mv : lv, cur);

  const showMap = () => scrollIntoViewIfBelow(main);

  function drawGrids() {
    const key = [
      app.resultId,
      app.state.merge,
      app.state.hide,
      app.state.block,
      app.state.layer,
      app.state.head,
    ].join('|');
    if (key === thumbKey) return;
    const redrawAll =
      !thumbKey ||
      thumbKey.split('|').slice(0, 3).join('|') !== key.split('|').slice(0, 3).join('|');
    thumbKey = key;
    if (redrawAll) {
      grids.replaceChildren(...blocksOf(app.result).map((b) => blockThumbs(app, b, showMap)));
      forget.draw(app.result);
    }
    for (const b of grids.querySelectorAll('button')) {
      const on =
        b.dataset.block === app.state.block &&
        Number(b.dataset.layer) === app.state.layer &&
        b.dataset.head === String(app.state.head);
      b.setAttribute('aria-pressed', String(on));
    }
  }

  function render() {
    picker.sync();
    toggles.sync();
    show.sync();
    const has = !!app.result?.attention;
    empty.hidden = has;
    grids.hidden = !has;
    if (!has) {
      forget.draw(null);
      main.replaceChildren();
      notes.set([]);
      blockNote.textContent = '';
      cur = null;
      return;
    }
    drawGrids();
    cur = currentMatrix(app);
    const [rowAxis, colAxis] = axisNames(app.state.block);
    blockNote.textContent = BLOCK_NOTES[app.state.block] + alignedNote(app);
    notes.set(cur.notes);
    if (app.state.show !== 'heatmap') {
      if (main.firstChild !== lv.element) main.replaceChildren(lv.element);
      if (app.state.show === 'overlay') lv.set(cur.matrix, everyHead(app));
      else lv.set(cur.matrix, { title: headTitle(app.state) });
    } else {
      if (main.firstChild !== mv.element) main.replaceChildren(mv.element);
      mv.o.rowAxis = rowAxis;
      mv.o.colAxis = colAxis;
      mv.set(cur.matrix, {
        title: headTitle(app.state),
        blocked: cur.blocked,
        subtitle: `${cur.matrix.rows} × ${cur.matrix.cols}`,
      });
    }
  }

  return { element, render, exportTarget: target };
}

/** The opened map's note when it is the head trained on word alignments ('' otherwise). */
function alignedNote(app) {
  const { block, layer, head } = app.state;
  return isAligned(alignedHead(app.translator?.info), block, layer, head)
    ? ` This head was ${ALIGNED_TEXT}: Marian’s guided alignment trains it to put each target piece’s weight on the source pieces it translates.`
    : '';
}

/** The export of one decoder layer's forget-gate heatmap. */
function forgetTarget(mv, layer) {
  return {
    title: `Decoder forget gates · layer ${layer + 1}`,
    slug: `forget-l${layer + 1}`,
    png: () => mv.toPNG(),
    svg: () => mv.toSVG(),
    json: () => mv.toJSON({ block: 'forget', layer }),
  };
}

function maxOf(values) {
  let m = 0;
  for (const v of values) if (v > m) m = v;
  return m;
}
