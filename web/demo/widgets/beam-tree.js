// The beam as a tree: one column per decoding step, one node per hypothesis beam search kept
// there, an edge to the hypothesis it extends; the winner's path is drawn strong, hypotheses
// that ended with </s> are squares, and the current step's column is shaded. SVG, no canvas,
// so it is crisp, exportable and readable by a screen reader (each node has a title).

import { fmt } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';
const COL = 92,
  ROW = 26,
  PAD = 14;

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Node index of the winner at every step (its path back through the parents), -1 after its
 * end. `winner` indexes beam[length − 1], the winner's own last step: the beam may run on
 * after the winner ended (other hypotheses kept decoding), so that is not the tree's last.
 */
export function winnerPath(beam, winner, length = beam.length) {
  const path = new Array(beam.length).fill(-1);
  for (let s = Math.min(length, beam.length) - 1, k = winner; s >= 0 && k >= 0; s--) {
    path[s] = k;
    k = beam[s][k].parent;
  }
  return path;
}

/**
 * An <svg> of the beam tree `beam` (attention.beam) with `winner` (attention.beamWinner) at
 * step `length` (the translation's pieces); `step` (1-based, 0 = none) shades a column;
 * onPick(step) when a column is clicked. With `onNode`, every node is a 24-px-high target:
 * onNode(s, k, how) on mouse hover ('hover'), and on a tap, click, Enter or focus ('pick');
 * `selected` [s, k] outlines one.
 */
export function beamTreeSvg(
  beam,
  winner,
  { length = beam.length, step = 0, onPick, onNode, selected = null } = {},
) {
  const rows = Math.max(...beam.map((nodes) => nodes.length));
  const width = PAD * 2 + beam.length * COL;
  const height = PAD * 2 + rows * ROW + 16;
  const root = svg('svg', {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    class: 'beam-tree',
    'aria-label': `Beam search tree: ${beam.length} steps, up to ${rows} hypotheses kept per step; the winner's path is drawn strong.`,
  });
  const path = winnerPath(beam, winner, length);
  const x = (s) => PAD + s * COL + 8;
  const y = (k) => PAD + 16 + k * ROW + ROW / 2;
  if (step > 0)
    root.append(svg('rect', { x: x(step - 1) - 8, y: 0, width: COL, height, class: 'bt-now' }));
  beam.forEach((_, s) => {
    const label = svg('text', { x: x(s), y: PAD, class: 'bt-step' }, `step ${s + 1}`);
    if (onPick) {
      label.setAttribute('tabindex', '0');
      label.addEventListener('click', () => onPick(s + 1));
      label.addEventListener('keydown', (ev) => ev.key === 'Enter' && onPick(s + 1));
    }
    root.append(label);
  });
  // edges first, so the nodes sit on top
  beam.forEach((nodes, s) =>
    nodes.forEach((n, k) => {
      if (s === 0 || n.parent < 0) return;
      const won = path[s] === k && path[s - 1] === n.parent;
      root.append(
        svg('path', {
          d: `M${x(s - 1) + COL - 26} ${y(n.parent)} C${x(s) - 12} ${y(n.parent)} ${x(s) - 22} ${y(k)} ${x(s) - 4} ${y(k)}`,
          class: won ? 'bt-edge bt-won' : 'bt-edge',
        }),
      );
    }),
  );
  beam.forEach((nodes, s) =>
    nodes.forEach((n, k) => {
      const won = path[s] === k;
      const g = svg('g', {
        class: `bt-node${won ? ' bt-won' : ''}${n.finished ? ' bt-end' : ''}`,
        'data-step': s,
        'data-piece': n.piece,
      });
      const mark = n.finished
        ? svg('rect', { x: x(s) - 4, y: y(k) - 4, width: 8, height: 8 })
        : svg('circle', { cx: x(s), cy: y(k), r: 3.5 });
      const piece = n.piece.length > 9 ? `${n.piece.slice(0, 8)}…` : n.piece;
      const title = `step ${s + 1}: “${n.piece}”, total log-probability ${fmt(n.logprob, 3)}${n.finished ? ', ended here' : ''}${won ? ', on the winning path' : ''}`;
      g.append(svg('title', {}, title));
      if (onNode) nodeTarget(g, { x: x(s) - 8, y: y(k) - 12, s, k, onNode, title });
      if (selected?.[0] === s && selected?.[1] === k) g.classList.add('bt-sel');
      g.append(mark, svg('text', { x: x(s) + 7, y: y(k) + 4 }, piece));
      root.append(g);
    }),
  );
  return root;
}

/** Makes node group `g` a target: a transparent 24-px-high box under its mark and piece. */
function nodeTarget(g, { x, y, s, k, onNode, title }) {
  g.prepend(svg('rect', { x, y, width: COL - 6, height: 24, class: 'bt-hit' }));
  g.setAttribute('tabindex', '0');
  g.setAttribute('role', 'button');
  g.setAttribute('aria-label', `${title}. Show its cross-attention beside the winner's`);
  g.dataset.k = k;
  g.addEventListener('pointerenter', (ev) => ev.pointerType === 'mouse' && onNode(s, k, 'hover'));
  g.addEventListener('click', () => onNode(s, k, 'pick'));
  g.addEventListener('focus', () => onNode(s, k, 'pick'));
  g.addEventListener('keydown', (ev) => ev.key === 'Enter' && onNode(s, k, 'pick'));
}
