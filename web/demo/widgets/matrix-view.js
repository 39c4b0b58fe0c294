// MatrixView: one labelled heatmap on a Canvas 2D, with exact values on hover and on keyboard
// focus (arrow keys move a cell cursor, the value is announced), a legend, masked cells hatched,
// rows revealed step by step, and export to PNG, SVG and JSON. Redraws only when told to. The
// painting is in matrix-paint.js, the exports in matrix-export.js.

import { rgbAt, makeScale } from './colormap.js';
import { el, showTip, hideTip, announce, fmt, theme } from './ui.js';
import {
  LABEL_ANGLE,
  FONT,
  clip,
  paintMasked,
  paintPending,
  paintSeparators,
  paintValues,
  paintHighlights,
  paintLabels,
  paintStickyRows,
  paintRowSums,
  paintCursor,
  paintLegend,
} from './matrix-paint.js';
import { matrixPNG, matrixSVG, matrixJSON } from './matrix-export.js';

const LEGEND_H = 34;
const NOTE_W = 110; // "hatched = masked" beside the colour bar
const NOTE_BELOW_H = 14; // the same note under the bar's numbers

export class MatrixView {
  /**
   * @param {object} o
   * @param {string} o.title          caption above the canvas (also used in exports)
   * @param {'sequential'|'diverging'} [o.map]
   * @param {[number, number]|'zeroMax'} [o.domain]  fixed colour domain, or 0..max (default: data range)
   * @param {string} [o.rowAxis]      what a row is ("query"), for tooltips and announcements
   * @param {string} [o.colAxis]      what a column is ("key")
   * @param {boolean} [o.rowSums]     draw each row's sum at the right
   * @param {number} [o.maxCell]      largest cell side in CSS px
   * @param {number} [o.minCell]      smallest cell side (default 5; wider matrices scroll)
   * @param {number} [o.maxWidth]     cap on the drawing width
   * @param {boolean|'auto'} [o.values] print values in cells when they fit
   * @param {(i:number, j:number)=>void} [o.onCell]  cursor moved (hover, click or keys)
   * @param {(i:number, j:number)=>void} [o.onActivate]  click or Enter on a cell; on touch the
   *   first tap shows the cell, a second tap on it activates
   * @param {string} [o.activateHint]  the tip's line saying what a second tap does
   * @param {boolean} [o.futureCols]  columns are decoder inputs: column j's label shows only
   *   once row j is revealed
   * @param {()=>void} [o.onFocus]    the matrix got focus or a pointer (becomes the export target)
   */
  constructor(o) {
    this.o = {
      map: 'sequential',
      rowAxis: 'row',
      colAxis: 'column',
      maxCell: 36,
      values: 'auto',
      ...o,
    };
    this.canvas = el('canvas.matrix-canvas', {
      tabindex: 0,
      role: 'application',
      'aria-roledescription': 'matrix',
    });
    this.captionText = el('span.matrix-title', { text: o.title ?? '' });
    this.subtitle = el('span.matrix-sub');
    // why: a long text shrinks cells until labels drop out; zoom gives every label its row and
    // lets the matrix scroll inside its own box (the tooltip names any cell either way)
    this.zoomed = false;
    this.zoomButton = el('button.zoom', {
      type: 'button',
      hidden: true,
      'aria-pressed': 'false',
      title: 'Bigger cells with every row and column labelled; the matrix scrolls inside its box',
      text: 'Zoom: every label',
      onclick: () => {
        this.zoomed = !this.zoomed;
        this.zoomButton.setAttribute('aria-pressed', String(this.zoomed));
        this.draw();
      },
    });
    this.element = el(
      'figure.matrix',
      {},
      el('figcaption', {}, this.captionText, this.subtitle, this.zoomButton),
      el('div.matrix-scroll', {}, this.canvas),
    );
    // why: scrolled sideways (zoomed), the row labels stay in view, drawn at the scroll offset
    this.stickyX = 0;
    this.element.lastChild.addEventListener('scroll', (ev) => {
      const x = ev.currentTarget.scrollLeft;
      if (x === this.stickyX) return;
      this.stickyX = x;
      if (this.m) this.draw();
    });
    this.m = null;
    this.cursor = null; // [i, j] keyboard/pointer cell
    this.focused = false;
    this.visibleRows = Infinity;
    this.highlightRow = -1;
    this.colBand = null; // [from, to) columns to outline (e.g. one head's slice)
    this.cells = document.createElement('canvas');
    this.layoutWidth = 0;
    this.width = 0; // element width from the ResizeObserver (no forced reflow)
    this.labelWidths = new WeakMap();
    this.bind();
    this.resizeObs = new ResizeObserver((entries) => {
      const w = entries[entries.length - 1].contentRect.width;
      if (!w) return;
      this.width = w;
      if (this.m && Math.abs(w - this.layoutWidth) > 2) this.draw();
    });
    this.resizeObs.observe(this.element);
  }

  /**
   * Sets the data. m: {rows, cols, values: Float32Array (row-major), rowLabels, colLabels};
   * extra: {blocked?: Uint8Array|null, visibleRows?, highlightRow?, subtitle?, colBand?}.
   */
  set(m, extra = {}) {
    this.m = m;
    this.blocked = extra.blocked ?? null;
    this.visibleRows = extra.visibleRows ?? Infinity;
    this.highlightRow = extra.highlightRow ?? -1;
    this.colBand = extra.colBand ?? null;
    if (extra.title !== undefined) {
      this.o.title = extra.title;
      this.captionText.textContent = extra.title;
    }
    this.subtitle.textContent = extra.subtitle ?? '';
    const finite = [];
    for (let i = 0; i < m.values.length; i++) {
      if (!(this.blocked && this.blocked[i])) finite.push(m.values[i]);
    }
    let domain = this.o.domain;
    if (domain === 'zeroMax') {
      let hi = 1e-6;
      for (const v of finite) if (v > hi) hi = v;
      domain = [0, hi];
    }
    this.scale = makeScale(this.o.map, finite, domain);
    if (this.cursor && (this.cursor[0] >= m.rows || this.cursor[1] >= m.cols)) this.cursor = null;
    this.canvas.setAttribute(
      'aria-label',
      `${this.o.title}: ${m.rows} ${this.o.rowAxis} rows by ${m.cols} ` +
        `${this.o.colAxis} columns. Arrow keys move between cells; the value is announced.`,
    );
    this.paintCells();
    this.draw();
    return this;
  }

  /** Only the revealed-row count / highlighted row changed (timeline): cheap update. */
  reveal(visibleRows, highlightRow = -1) {
    this.visibleRows = visibleRows;
    this.highlightRow = highlightRow;
    this.paintCells();
    this.draw();
  }

  value(i, j) {
    return this.m.values[i * this.m.cols + j];
  }
  isBlocked(i, j) {
    return !!(this.blocked && this.blocked[i * this.m.cols + j]);
  }

  paintCells() {
    const { rows, cols } = this.m;
    this.cells.width = Math.max(1, cols);
    this.cells.height = Math.max(1, rows);
    const ctx = this.cells.getContext('2d');
    const img = ctx.createImageData(Math.max(1, cols), Math.max(1, rows));
    for (let i = 0; i < rows; i++) {
      if (i >= this.visibleRows) continue; // transparent: not decoded yet
      for (let j = 0; j < cols; j++) {
        const k = i * cols + j,
          p = k * 4;
        if (this.isBlocked(i, j)) {
          img.data.set([128, 128, 128, 70], p);
          continue;
        }
        const [r, g, b] = rgbAt(this.o.map, this.scale.t(this.m.values[k]));
        img.data[p] = r;
        img.data[p + 1] = g;
        img.data[p + 2] = b;
        img.data[p + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
  }

  /** Computes sizes in CSS pixels for the current data and width. */
  layout() {
    const { rows, cols, rowLabels, colLabels } = this.m;
    if (!this.width && this.element.isConnected) this.width = this.element.clientWidth;
    const avail = Math.max(160, Math.min(this.o.maxWidth ?? Infinity, this.width || 600));
    const measure = this.canvas.getContext('2d');
    // why: measuring every label on every redraw dominated the timeline's step cost.
    const estimate = (font, labels) => {
      let byFont = this.labelWidths.get(labels);
      if (!byFont) {
        byFont = new Map();
        this.labelWidths.set(labels, byFont);
      }
      if (!byFont.has(font)) {
        measure.font = font;
        let w = 0;
        for (const l of labels) w = Math.max(w, measure.measureText(clip(l)).width);
        byFont.set(font, Math.min(130, Math.ceil(w)));
      }
      return byFont.get(font);
    };
    let fontPx = 12;
    let rowW = estimate(`${fontPx}px ${FONT}`, rowLabels) + 10;
    let colW = estimate(`${fontPx}px ${FONT}`, colLabels);
    const sumsW = this.o.rowSums ? 56 : 0;
    const overhang = colW * Math.cos(LABEL_ANGLE);
    let cell = Math.floor((avail - rowW - sumsW - overhang - 8) / Math.max(1, cols));
    cell = Math.max(this.o.minCell ?? 5, Math.min(this.o.maxCell, cell));
    const fitted = cell;
    if (this.zoomed) cell = Math.max(cell, 16);
    if (cell < 13) {
      fontPx = Math.max(8, Math.min(12, cell));
      rowW = estimate(`${fontPx}px ${FONT}`, rowLabels) + 8;
      colW = estimate(`${fontPx}px ${FONT}`, colLabels);
    }
    const colH = Math.ceil(colW * Math.sin(LABEL_ANGLE) + fontPx + 6);
    const gridW = cols * cell,
      gridH = rows * cell;
    // why: the colour bar follows the grid's width, within readable bounds
    const legendW = Math.min(180, Math.max(100, gridW));
    // why: on a phone "hatched = masked" beside the bar would widen the canvas past its box
    const noteBelow = this.blocked && rowW + legendW + NOTE_W > avail;
    const legendWithNote = legendW + (this.blocked && !noteBelow ? NOTE_W : 40);
    const width = Math.ceil(
      Math.max(rowW + gridW + sumsW + colW * Math.cos(LABEL_ANGLE) + 8, rowW + legendWithNote),
    );
    const height = Math.ceil(colH + gridH + 8 + LEGEND_H + (noteBelow ? NOTE_BELOW_H : 0));
    const labelStep = Math.max(1, Math.ceil((fontPx + 1) / cell));
    return {
      cell,
      fontPx,
      rowW,
      colH,
      gridW,
      gridH,
      width,
      height,
      x0: rowW,
      y0: colH,
      sumsW,
      labelStep,
      avail,
      legendW,
      noteAt: noteBelow ? [0, 26] : [legendW + 10, 0], // "hatched = masked": from the bar
      crowded: fitted < 13,
    };
  }

  draw() {
    if (!this.m) return;
    const L = (this.L = this.layout());
    this.layoutWidth = this.width;
    this.zoomButton.hidden = !(this.zoomed || L.crowded);
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    if (c.width !== Math.round(L.width * dpr) || c.height !== Math.round(L.height * dpr)) {
      c.width = Math.round(L.width * dpr);
      c.height = Math.round(L.height * dpr);
      c.style.width = `${L.width}px`;
      c.style.height = `${L.height}px`;
    }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, L.width, L.height);
    this.paint(ctx, L, theme());
  }

  /** Paints everything in CSS-pixel coordinates onto ctx (screen or export canvas). */
  paint(ctx, L, theme) {
    // the cursor shows only while someone is on the matrix (keyboard focus or pointer)
    const cursor = (this.focused || this.hovering) && this.cursor ? this.cursor : [-1, -1];
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.cells, L.x0, L.y0, L.gridW, L.gridH);
    if (this.blocked && L.cell >= 6) paintMasked(this, ctx, L, theme);
    if (this.visibleRows < this.m.rows) paintPending(this, ctx, L, theme);
    if (L.cell >= 14) paintSeparators(this, ctx, L, theme);
    const values = this.o.values;
    const { rows, cols } = this.m;
    if (values === true || (values === 'auto' && L.cell >= 34 && rows * cols <= 256))
      paintValues(this, ctx, L, theme);
    paintHighlights(this, ctx, L, theme);
    paintLabels(this, ctx, L, theme, cursor);
    if (this.stickyX > 0 && ctx.canvas === this.canvas)
      paintStickyRows(this, ctx, L, theme, cursor);
    if (this.o.rowSums) paintRowSums(this, ctx, L, theme);
    if (cursor[0] >= 0) paintCursor(this, ctx, L, theme, cursor);
    paintLegend(this, ctx, L, theme);
  }

  /** Rows decoded so far. */
  shownRows() {
    return Math.min(this.m.rows, this.visibleRows);
  }

  cellAt(ev) {
    if (!this.m || !this.L) return null;
    const r = this.canvas.getBoundingClientRect();
    const x = ev.clientX - r.left - this.L.x0,
      y = ev.clientY - r.top - this.L.y0;
    const j = Math.floor(x / this.L.cell),
      i = Math.floor(y / this.L.cell);
    if (i < 0 || j < 0 || i >= this.m.rows || j >= this.m.cols || i >= this.visibleRows)
      return null;
    return [i, j];
  }

  describe(i, j) {
    const { rowLabels, colLabels } = this.m;
    const v = this.isBlocked(i, j) ? 'masked' : fmt(this.value(i, j), 4);
    return {
      lines: [
        `${v}`,
        `${this.o.rowAxis} ${i + 1}: ${rowLabels[i]}`,
        `${this.o.colAxis} ${j + 1}: ${colLabels[j]}`,
      ],
      speech: `${this.o.rowAxis} ${rowLabels[i]}, ${this.o.colAxis} ${colLabels[j]}: ${v}. Row ${i + 1} of ${this.m.rows}, column ${j + 1} of ${this.m.cols}.`,
    };
  }

  /** Moves the cursor; tip shows near the cell; announce when moved by keyboard. */
  moveTo(i, j, { speak = false, tipAt = null, hint = null } = {}) {
    const rows = Math.min(this.m.rows, this.visibleRows);
    if (!rows) return;
    i = Math.max(0, Math.min(rows - 1, i));
    j = Math.max(0, Math.min(this.m.cols - 1, j));
    this.cursor = [i, j];
    this.draw();
    const d = this.describe(i, j);
    if (hint) d.lines.push(hint);
    if (tipAt) showTip(d.lines, tipAt[0], tipAt[1]);
    else {
      const r = this.canvas.getBoundingClientRect();
      showTip(
        d.lines,
        r.left + window.scrollX + this.L.x0 + (j + 1) * this.L.cell,
        r.top + window.scrollY + this.L.y0 + (i + 0.5) * this.L.cell,
      );
    }
    if (speak) announce(d.speech);
    this.canvas.dataset.cursor = `${i},${j}`;
    this.o.onCell?.(i, j);
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('pointermove', (ev) => {
      const cell = this.cellAt(ev);
      if (!cell) {
        hideTip();
        return;
      }
      if (!this.cursor || cell[0] !== this.cursor[0] || cell[1] !== this.cursor[1]) {
        this.moveTo(cell[0], cell[1], { tipAt: [ev.pageX, ev.pageY] });
      } else {
        showTip(this.describe(cell[0], cell[1]).lines, ev.pageX, ev.pageY);
      }
    });
    c.addEventListener('pointerenter', () => {
      this.hovering = true;
      this.o.onFocus?.();
    });
    c.addEventListener('pointerleave', () => {
      this.hovering = false;
      if (!this.focused) {
        hideTip();
        if (this.m) this.draw();
      }
    });
    // why: a tap focuses the canvas before its click; remember where, so focus shows the
    // tapped cell and not the top-left one
    c.addEventListener('pointerdown', (ev) => {
      this.pointer = { type: ev.pointerType, cell: this.cellAt(ev) };
    });
    c.addEventListener('click', (ev) => {
      const cell = this.cellAt(ev);
      const touch = this.pointer && this.pointer.type !== 'mouse';
      this.pointer = null;
      if (!cell) return;
      if (touch && this.o.onActivate) {
        // a first tap shows the cell's value; a second tap on the same cell activates it
        const again = this.tapped?.[0] === cell[0] && this.tapped?.[1] === cell[1];
        this.tapped = again ? null : cell;
        if (!again) {
          this.moveTo(cell[0], cell[1], {
            speak: true,
            tipAt: [ev.pageX, ev.pageY],
            hint: this.o.activateHint ?? 'tap again to open',
          });
          return;
        }
      }
      this.o.onActivate?.(cell[0], cell[1]);
    });
    c.addEventListener('focus', () => {
      this.focused = true;
      this.o.onFocus?.();
      if (!this.m) return;
      const tapped = this.pointer?.cell;
      const [i, j] = tapped ?? this.cursor ?? [0, 0];
      this.moveTo(i, j, { speak: !tapped });
    });
    c.addEventListener('blur', () => {
      this.focused = false;
      hideTip();
      if (this.m && !this.hovering) this.draw();
    });
    c.addEventListener('keydown', (ev) => {
      if (!this.m || !this.cursor) return;
      let [i, j] = this.cursor;
      const page = 5;
      switch (ev.key) {
        case 'ArrowUp':
          i--;
          break;
        case 'ArrowDown':
          i++;
          break;
        case 'ArrowLeft':
          j--;
          break;
        case 'ArrowRight':
          j++;
          break;
        case 'PageUp':
          i -= page;
          break;
        case 'PageDown':
          i += page;
          break;
        case 'Home':
          j = 0;
          if (ev.ctrlKey) i = 0;
          break;
        case 'End':
          j = this.m.cols - 1;
          if (ev.ctrlKey) i = this.m.rows - 1;
          break;
        case 'Enter':
        case ' ':
          this.o.onActivate?.(i, j);
          ev.preventDefault();
          return;
        default:
          return;
      }
      ev.preventDefault();
      this.moveTo(i, j, { speak: true });
    });
  }

  // ---- export (matrix-export.js) ----

  /** PNG of the matrix with its title, at 2× resolution. */
  toPNG(notes = []) {
    return matrixPNG(this, notes);
  }

  /** Standalone SVG: one rect per cell, labels as text, legend as a gradient. */
  toSVG(notes = []) {
    return matrixSVG(this, notes);
  }

  /** The data behind the picture. Masked cells are null and listed. */
  toJSON(extra = {}) {
    return matrixJSON(this, extra);
  }

  dispose() {
    this.resizeObs.disconnect();
  }
}

/** Draws a matrix as one pixel per cell into a small canvas (scaled up by CSS, pixelated). */
export function drawThumb(canvas, m, map = 'sequential', domain = [0, 1]) {
  canvas.width = Math.max(1, m.cols);
  canvas.height = Math.max(1, m.rows);
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(canvas.width, canvas.height);
  const scale = makeScale(map, m.values, domain);
  for (let k = 0; k < m.rows * m.cols; k++) {
    const [r, g, b] = rgbAt(map, scale.t(m.values[k]));
    img.data[k * 4] = r;
    img.data[k * 4 + 1] = g;
    img.data[k * 4 + 2] = b;
    img.data[k * 4 + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
}
