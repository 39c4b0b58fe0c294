// MatrixView's painting: masked cells hatched, rows not decoded yet, cell separators, values
// in cells, highlights, labels (kept in view when scrolled), row sums, the cursor and the
// legend, each a function of the view and a 2D context in CSS pixels. No events here.

import { rgbAt, textColourOn } from './colormap.js';
import { fmt } from './ui.js';

export const LABEL_ANGLE = (55 * Math.PI) / 180;
export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';

/** Short number for inside a cell: at most 4 characters or so. */
function cellText(v) {
  if (!Number.isFinite(v)) return v < 0 ? '−∞' : '∞';
  const a = Math.abs(v);
  const s = a < 0.005 ? '0' : a < 10 ? v.toFixed(2) : a < 100 ? v.toFixed(1) : v.toFixed(0);
  return s.replace('-', '−');
}

/** A label cut to 18 characters. */
export function clip(s) {
  return s.length > 18 ? `${s.slice(0, 17)}…` : s;
}

/** Masked cells: hatched, so they never read as "weight 0". */
export function paintMasked(view, ctx, { cell, x0, y0, gridW, gridH }, theme) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(x0, y0, gridW, gridH);
  ctx.clip();
  ctx.strokeStyle = theme.muted;
  ctx.globalAlpha = 0.55;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let i = 0; i < view.shownRows(); i++) {
    for (let j = 0; j < view.m.cols; j++) {
      if (!view.isBlocked(i, j)) continue;
      const x = x0 + j * cell,
        y = y0 + i * cell;
      ctx.moveTo(x + 1, y + cell - 1);
      ctx.lineTo(x + cell - 1, y + 1);
    }
  }
  ctx.stroke();
  ctx.restore();
}

/** Rows not yet decoded: a dotted placeholder outline. */
export function paintPending(view, ctx, { cell, x0, y0, gridW }, theme) {
  const shown = view.visibleRows;
  ctx.save();
  ctx.setLineDash([2, 3]);
  ctx.strokeStyle = theme.muted;
  ctx.strokeRect(x0 + 0.5, y0 + shown * cell + 0.5, gridW - 1, (view.m.rows - shown) * cell - 1);
  ctx.restore();
}

/** Thin lines between cells, when cells are large enough. */
export function paintSeparators(view, ctx, { cell, x0, y0, gridW, gridH }, theme) {
  ctx.save();
  ctx.strokeStyle = theme.bg;
  ctx.globalAlpha = 0.6;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let j = 1; j < view.m.cols; j++) {
    ctx.moveTo(x0 + j * cell + 0.5, y0);
    ctx.lineTo(x0 + j * cell + 0.5, y0 + gridH);
  }
  for (let i = 1; i < view.m.rows; i++) {
    ctx.moveTo(x0, y0 + i * cell + 0.5);
    ctx.lineTo(x0 + gridW, y0 + i * cell + 0.5);
  }
  ctx.stroke();
  ctx.restore();
}

/** The numbers inside the cells. */
export function paintValues(view, ctx, { cell, x0, y0 }, theme) {
  ctx.font = `${Math.min(11, cell / 3.2)}px ${FONT}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let i = 0; i < view.shownRows(); i++) {
    for (let j = 0; j < view.m.cols; j++) {
      const v = view.value(i, j);
      const blocked = view.isBlocked(i, j);
      // why: a masked score is −∞; a masked weight is simply 0 — say which.
      if (blocked && view.o.map !== 'diverging') continue;
      ctx.fillStyle = blocked ? theme.muted : textColourOn(rgbAt(view.o.map, view.scale.t(v)));
      ctx.fillText(blocked ? '−∞' : cellText(v), x0 + (j + 0.5) * cell, y0 + (i + 0.5) * cell);
    }
  }
}

/** The linked column band and the highlighted row. */
export function paintHighlights(view, ctx, { cell, x0, y0, gridW, gridH }, theme) {
  ctx.save();
  ctx.strokeStyle = theme.accent;
  ctx.lineWidth = 2;
  if (view.colBand) {
    const [a, b] = view.colBand;
    ctx.setLineDash([5, 3]);
    ctx.strokeRect(x0 + a * cell, y0 - 1, (b - a) * cell, gridH + 2);
    ctx.setLineDash([]);
  }
  if (view.highlightRow >= 0 && view.highlightRow < view.m.rows)
    ctx.strokeRect(x0 - 1, y0 + view.highlightRow * cell - 1, gridW + 2, cell + 2);
  ctx.restore();
}

/** Row labels on the left, column labels slanted on top; the cursor's in bold. */
export function paintLabels(view, ctx, { cell, x0, y0, fontPx, labelStep }, theme, [ci, cj]) {
  const { rows, cols, rowLabels, colLabels } = view.m;
  ctx.fillStyle = theme.fg;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (let i = 0; i < rows; i++) {
    if (i % labelStep && i !== ci) continue;
    ctx.font = `${i === ci || i === view.highlightRow ? 'bold ' : ''}${fontPx}px ${FONT}`;
    // why: a row not decoded yet must not tell which piece it will write
    const known = i < view.visibleRows;
    ctx.globalAlpha = known ? 1 : 0.35;
    ctx.fillText(known ? clip(rowLabels[i]) : '·', x0 - 5, y0 + (i + 0.5) * cell);
  }
  ctx.globalAlpha = 1;
  ctx.textAlign = 'left';
  for (let j = 0; j < cols; j++) {
    if (j % labelStep && j !== cj) continue;
    ctx.save();
    ctx.translate(x0 + (j + 0.5) * cell, y0 - 5);
    ctx.rotate(-LABEL_ANGLE);
    ctx.font = `${j === cj ? 'bold ' : ''}${fontPx}px ${FONT}`;
    // decoder inputs (o.futureCols): input j is only known once step j has run
    const known = !view.o.futureCols || j < view.visibleRows;
    ctx.fillText(known ? clip(colLabels[j]) : '·', 0, 0);
    ctx.restore();
  }
}

/** Row labels again at the left edge of the visible part, over the cells scrolled under. */
export function paintStickyRows(
  view,
  ctx,
  { cell, x0, y0, gridH, fontPx, labelStep },
  theme,
  [ci],
) {
  const x = view.stickyX;
  ctx.fillStyle = theme.bg;
  ctx.globalAlpha = 0.92;
  ctx.fillRect(x, y0, x0, gridH);
  ctx.globalAlpha = 1;
  ctx.fillStyle = theme.fg;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (let i = 0; i < view.m.rows; i++) {
    if (i % labelStep && i !== ci) continue;
    const known = i < view.visibleRows;
    ctx.font = `${i === ci ? 'bold ' : ''}${fontPx}px ${FONT}`;
    ctx.fillText(known ? clip(view.m.rowLabels[i]) : '·', x + x0 - 5, y0 + (i + 0.5) * cell);
  }
}

/** Σ of each row's visible weights, right of the grid. */
export function paintRowSums(view, ctx, { cell, x0, y0, gridW, fontPx, labelStep }, theme) {
  ctx.font = `${fontPx}px ${FONT}`;
  ctx.textAlign = 'left';
  ctx.fillStyle = theme.muted;
  ctx.fillText('Σ row', x0 + gridW + 6, y0 - 8);
  ctx.fillStyle = theme.fg;
  for (let i = 0; i < view.shownRows(); i++) {
    if (i % labelStep) continue;
    let s = 0;
    for (let j = 0; j < view.m.cols; j++) if (!view.isBlocked(i, j)) s += view.value(i, j);
    ctx.fillText(fmt(s, 3), x0 + gridW + 6, y0 + (i + 0.5) * cell);
  }
}

/** The keyboard/pointer cursor: a double outline around one cell. */
export function paintCursor(view, ctx, { cell, x0, y0 }, theme, [ci, cj]) {
  ctx.save();
  ctx.strokeStyle = theme.fg;
  ctx.lineWidth = 2;
  ctx.strokeRect(x0 + cj * cell - 1, y0 + ci * cell - 1, cell + 2, cell + 2);
  ctx.strokeStyle = theme.bg;
  ctx.lineWidth = 1;
  ctx.strokeRect(x0 + cj * cell + 1, y0 + ci * cell + 1, cell - 2, cell - 2);
  ctx.restore();
}

/** The colour bar under the grid with its ends, and the hatch's meaning when cells are masked. */
export function paintLegend(view, ctx, L, theme) {
  const y = L.y0 + L.gridH + 10;
  const w = L.legendW;
  const x = L.x0;
  const grad = ctx.createLinearGradient(x, 0, x + w, 0);
  for (let s = 0; s <= 16; s++)
    grad.addColorStop(s / 16, `rgb(${rgbAt(view.o.map, s / 16).join(',')})`);
  ctx.fillStyle = grad;
  ctx.fillRect(x, y, w, 9);
  ctx.fillStyle = theme.muted;
  ctx.font = `10px ${FONT}`;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  ctx.fillText(fmt(view.scale.min, 2), x, y + 12);
  ctx.textAlign = 'right';
  ctx.fillText(fmt(view.scale.max, 2), x + w, y + 12);
  if (view.blocked) {
    ctx.textAlign = 'left';
    ctx.fillText('hatched = masked', x + L.noteAt[0], y + L.noteAt[1]);
  }
  ctx.textBaseline = 'middle';
}
