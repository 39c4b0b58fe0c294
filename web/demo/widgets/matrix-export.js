// MatrixView's exports: the matrix under its title and notes as a PNG at 2×, as a standalone SVG
// (one rect per cell, labels as text, the legend as a gradient), and its data as JSON.

import { rgbAt } from './colormap.js';
import { fmt, escapeXml } from './ui.js';
import { FONT } from './matrix-paint.js';

/** Widest of some lines of text at a font size (plus margins), for export canvases. */
function textWidth(lines, font) {
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${font} ${FONT}`;
  let w = 0;
  for (const l of lines) w = Math.max(w, ctx.measureText(l).width);
  return Math.ceil(w + 16);
}

/** The layout of an exported picture: the matrix under its title and notes. */
function exportFrame(view, notes) {
  const L = view.layout();
  const titleH = 26 + notes.length * 16;
  const titleW = textWidth([view.o.title], 'bold 14px');
  const w = Math.max(L.width, 360, titleW, textWidth(notes, '11px'));
  return { L, titleH, w, h: L.height + titleH };
}

/** PNG of the matrix with its title, at 2× resolution. */
export async function matrixPNG(view, notes) {
  const { L, titleH, w, h } = exportFrame(view, notes);
  const scale = 2;
  const cv = document.createElement('canvas');
  cv.width = w * scale;
  cv.height = h * scale;
  const ctx = cv.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = '#111';
  ctx.font = `bold 14px ${FONT}`;
  ctx.textBaseline = 'top';
  ctx.fillText(view.o.title, 8, 6);
  ctx.font = `11px ${FONT}`;
  notes.forEach((n, k) => ctx.fillText(n, 8, 26 + k * 16));
  ctx.translate(0, titleH);
  view.paint(ctx, L, { fg: '#111', muted: '#666', bg: '#fff', accent: '#c2185b' });
  return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
}

/** Standalone SVG: one rect per cell, labels as text, legend as a gradient. */
export function matrixSVG(view, notes) {
  const { L, titleH, w, h } = exportFrame(view, notes);
  const { rows, cols, rowLabels, colLabels } = view.m;
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="system-ui, sans-serif">`,
  );
  out.push(`<rect width="${w}" height="${h}" fill="#fff"/>`);
  out.push(
    `<text x="8" y="20" font-size="14" font-weight="bold">${escapeXml(view.o.title)}</text>`,
  );
  notes.forEach((n, k) =>
    out.push(`<text x="8" y="${38 + k * 16}" font-size="11">${escapeXml(n)}</text>`),
  );
  out.push(`<g transform="translate(0 ${titleH})">`);
  out.push(
    '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ddd"/><path d="M0 6L6 0" stroke="#888"/></pattern>',
  );
  out.push('<linearGradient id="legend">');
  for (let s = 0; s <= 16; s++)
    out.push(`<stop offset="${s / 16}" stop-color="rgb(${rgbAt(view.o.map, s / 16).join(',')})"/>`);
  out.push('</linearGradient></defs>');
  const { cell, x0, y0, gridW, gridH, fontPx } = L;
  out.push(`<g shape-rendering="crispEdges">`);
  for (let i = 0; i < Math.min(rows, view.visibleRows); i++) {
    for (let j = 0; j < cols; j++) {
      const fill = view.isBlocked(i, j)
        ? 'url(#hatch)'
        : `rgb(${rgbAt(view.o.map, view.scale.t(view.value(i, j))).join(',')})`;
      out.push(
        `<rect x="${x0 + j * cell}" y="${y0 + i * cell}" width="${cell}" height="${cell}" fill="${fill}"><title>${escapeXml(`${rowLabels[i]} → ${colLabels[j]}: ${view.isBlocked(i, j) ? 'masked' : fmt(view.value(i, j), 4)}`)}</title></rect>`,
      );
    }
  }
  out.push('</g>');
  out.push(`<g font-size="${fontPx}" fill="#111">`);
  rowLabels.forEach((t, i) =>
    out.push(
      `<text x="${x0 - 5}" y="${y0 + (i + 0.5) * cell}" text-anchor="end" dominant-baseline="middle">${escapeXml(t)}</text>`,
    ),
  );
  colLabels.forEach((t, j) =>
    out.push(
      `<text transform="translate(${x0 + (j + 0.5) * cell} ${y0 - 5}) rotate(-55)">${escapeXml(t)}</text>`,
    ),
  );
  out.push('</g>');
  const ly = y0 + gridH + 10,
    lw = L.legendW;
  out.push(`<rect x="${x0}" y="${ly}" width="${lw}" height="9" fill="url(#legend)"/>`);
  out.push(
    `<text x="${x0}" y="${ly + 21}" font-size="10" fill="#555">${escapeXml(fmt(view.scale.min, 2))}</text>`,
  );
  out.push(
    `<text x="${x0 + lw}" y="${ly + 21}" font-size="10" fill="#555" text-anchor="end">${escapeXml(fmt(view.scale.max, 2))}</text>`,
  );
  if (view.blocked) {
    // why: an SVG text's y is its baseline, about 10 px below the top at 10 px
    const [nx, ny] = [x0 + L.noteAt[0], ly + L.noteAt[1] + 10];
    out.push(`<text x="${nx}" y="${ny}" font-size="10" fill="#555">hatched = masked</text>`);
  }
  out.push('</g></svg>');
  return out.join('\n');
}

/** The data behind the picture. Masked cells are null and listed. */
export function matrixJSON(view, extra) {
  const { rows, cols, rowLabels, colLabels } = view.m;
  const values = [];
  for (let i = 0; i < Math.min(rows, view.visibleRows); i++) {
    const row = [];
    for (let j = 0; j < cols; j++) {
      const v = view.value(i, j);
      row.push(view.isBlocked(i, j) || !Number.isFinite(v) ? null : Number(v.toPrecision(7)));
    }
    values.push(row);
  }
  return {
    title: view.o.title,
    rowAxis: view.o.rowAxis,
    colAxis: view.o.colAxis,
    rowLabels,
    colLabels,
    values,
    colourMap: view.o.map,
    domain: [view.scale.min, view.scale.max],
    ...extra,
  };
}
