// MatrixView: one labelled heatmap on a Canvas 2D, with exact values on hover and on keyboard
// focus (arrow keys move a cell cursor, the value is announced), a legend, masked cells hatched,
// rows revealed step by step, and export to PNG, SVG and JSON. Redraws only when told to.

import { rgbAt, makeScale, textColourOn, MAPS } from './colormap.js';
import { el, showTip, hideTip, announce, fmt, theme, escapeXml } from './ui.js';

const LABEL_ANGLE = (55 * Math.PI) / 180;
const LEGEND_H = 34;
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';

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
    const legendWithNote = legendW + (this.blocked ? 110 : 40);
    const width = Math.ceil(
      Math.max(rowW + gridW + sumsW + colW * Math.cos(LABEL_ANGLE) + 8, rowW + legendWithNote),
    );
    const height = Math.ceil(colH + gridH + 8 + LEGEND_H);
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
    if (this.blocked && L.cell >= 6) this.paintMasked(ctx, L, theme);
    if (this.visibleRows < this.m.rows) this.paintPending(ctx, L, theme);
    if (L.cell >= 14) this.paintSeparators(ctx, L, theme);
    const values = this.o.values;
    const { rows, cols } = this.m;
    if (values === true || (values === 'auto' && L.cell >= 34 && rows * cols <= 256))
      this.paintValues(ctx, L, theme);
    this.paintHighlights(ctx, L, theme);
    this.paintLabels(ctx, L, theme, cursor);
    if (this.stickyX > 0 && ctx.canvas === this.canvas) this.paintStickyRows(ctx, L, theme, cursor);
    if (this.o.rowSums) this.paintRowSums(ctx, L, theme);
    if (cursor[0] >= 0) this.paintCursor(ctx, L, theme, cursor);
    this.paintLegend(ctx, L, theme);
  }

  /** Rows decoded so far. */
  shownRows() {
    return Math.min(this.m.rows, this.visibleRows);
  }

  /** Masked cells: hatched, so they never read as "weight 0". */
  paintMasked(ctx, { cell, x0, y0, gridW, gridH }, theme) {
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, y0, gridW, gridH);
    ctx.clip();
    ctx.strokeStyle = theme.muted;
    ctx.globalAlpha = 0.55;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i < this.shownRows(); i++) {
      for (let j = 0; j < this.m.cols; j++) {
        if (!this.isBlocked(i, j)) continue;
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
  paintPending(ctx, { cell, x0, y0, gridW }, theme) {
    const shown = this.visibleRows;
    ctx.save();
    ctx.setLineDash([2, 3]);
    ctx.strokeStyle = theme.muted;
    ctx.strokeRect(x0 + 0.5, y0 + shown * cell + 0.5, gridW - 1, (this.m.rows - shown) * cell - 1);
    ctx.restore();
  }

  /** Thin lines between cells, when cells are large enough. */
  paintSeparators(ctx, { cell, x0, y0, gridW, gridH }, theme) {
    ctx.save();
    ctx.strokeStyle = theme.bg;
    ctx.globalAlpha = 0.6;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let j = 1; j < this.m.cols; j++) {
      ctx.moveTo(x0 + j * cell + 0.5, y0);
      ctx.lineTo(x0 + j * cell + 0.5, y0 + gridH);
    }
    for (let i = 1; i < this.m.rows; i++) {
      ctx.moveTo(x0, y0 + i * cell + 0.5);
      ctx.lineTo(x0 + gridW, y0 + i * cell + 0.5);
    }
    ctx.stroke();
    ctx.restore();
  }

  /** The numbers inside the cells. */
  paintValues(ctx, { cell, x0, y0 }, theme) {
    ctx.font = `${Math.min(11, cell / 3.2)}px ${FONT}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let i = 0; i < this.shownRows(); i++) {
      for (let j = 0; j < this.m.cols; j++) {
        const v = this.value(i, j);
        const blocked = this.isBlocked(i, j);
        // why: a masked score is −∞; a masked weight is simply 0 — say which.
        if (blocked && this.o.map !== 'diverging') continue;
        ctx.fillStyle = blocked ? theme.muted : textColourOn(rgbAt(this.o.map, this.scale.t(v)));
        ctx.fillText(blocked ? '−∞' : cellText(v), x0 + (j + 0.5) * cell, y0 + (i + 0.5) * cell);
      }
    }
  }

  /** The linked column band and the highlighted row. */
  paintHighlights(ctx, { cell, x0, y0, gridW, gridH }, theme) {
    ctx.save();
    ctx.strokeStyle = theme.accent;
    ctx.lineWidth = 2;
    if (this.colBand) {
      const [a, b] = this.colBand;
      ctx.setLineDash([5, 3]);
      ctx.strokeRect(x0 + a * cell, y0 - 1, (b - a) * cell, gridH + 2);
      ctx.setLineDash([]);
    }
    if (this.highlightRow >= 0 && this.highlightRow < this.m.rows)
      ctx.strokeRect(x0 - 1, y0 + this.highlightRow * cell - 1, gridW + 2, cell + 2);
    ctx.restore();
  }

  /** Row labels on the left, column labels slanted on top; the cursor's in bold. */
  paintLabels(ctx, { cell, x0, y0, fontPx, labelStep }, theme, [ci, cj]) {
    const { rows, cols, rowLabels, colLabels } = this.m;
    ctx.fillStyle = theme.fg;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < rows; i++) {
      if (i % labelStep && i !== ci) continue;
      ctx.font = `${i === ci || i === this.highlightRow ? 'bold ' : ''}${fontPx}px ${FONT}`;
      // why: a row not decoded yet must not tell which piece it will write
      const known = i < this.visibleRows;
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
      const known = !this.o.futureCols || j < this.visibleRows;
      ctx.fillText(known ? clip(colLabels[j]) : '·', 0, 0);
      ctx.restore();
    }
  }

  /** Σ of each row's visible weights, right of the grid. */
  /** Row labels again at the left edge of the visible part, over the cells scrolled under. */
  paintStickyRows(ctx, { cell, x0, y0, gridH, fontPx, labelStep }, theme, [ci]) {
    const x = this.stickyX;
    ctx.fillStyle = theme.bg;
    ctx.globalAlpha = 0.92;
    ctx.fillRect(x, y0, x0, gridH);
    ctx.globalAlpha = 1;
    ctx.fillStyle = theme.fg;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let i = 0; i < this.m.rows; i++) {
      if (i % labelStep && i !== ci) continue;
      const known = i < this.visibleRows;
      ctx.font = `${i === ci ? 'bold ' : ''}${fontPx}px ${FONT}`;
      ctx.fillText(known ? clip(this.m.rowLabels[i]) : '·', x + x0 - 5, y0 + (i + 0.5) * cell);
    }
  }

  paintRowSums(ctx, { cell, x0, y0, gridW, fontPx, labelStep }, theme) {
    ctx.font = `${fontPx}px ${FONT}`;
    ctx.textAlign = 'left';
    ctx.fillStyle = theme.muted;
    ctx.fillText('Σ row', x0 + gridW + 6, y0 - 8);
    ctx.fillStyle = theme.fg;
    for (let i = 0; i < this.shownRows(); i++) {
      if (i % labelStep) continue;
      let s = 0;
      for (let j = 0; j < this.m.cols; j++) if (!this.isBlocked(i, j)) s += this.value(i, j);
      ctx.fillText(fmt(s, 3), x0 + gridW + 6, y0 + (i + 0.5) * cell);
    }
  }

  /** The keyboard/pointer cursor: a double outline around one cell. */
  paintCursor(ctx, { cell, x0, y0 }, theme, [ci, cj]) {
    ctx.save();
    ctx.strokeStyle = theme.fg;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 + cj * cell - 1, y0 + ci * cell - 1, cell + 2, cell + 2);
    ctx.strokeStyle = theme.bg;
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 + cj * cell + 1, y0 + ci * cell + 1, cell - 2, cell - 2);
    ctx.restore();
  }

  paintLegend(ctx, L, theme) {
    const y = L.y0 + L.gridH + 10;
    const w = L.legendW;
    const x = L.x0;
    const grad = ctx.createLinearGradient(x, 0, x + w, 0);
    for (let s = 0; s <= 16; s++)
      grad.addColorStop(s / 16, `rgb(${rgbAt(this.o.map, s / 16).join(',')})`);
    ctx.fillStyle = grad;
    ctx.fillRect(x, y, w, 9);
    ctx.fillStyle = theme.muted;
    ctx.font = `10px ${FONT}`;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText(fmt(this.scale.min, 2), x, y + 12);
    ctx.textAlign = 'right';
    ctx.fillText(fmt(this.scale.max, 2), x + w, y + 12);
    if (this.blocked) {
      ctx.textAlign = 'left';
      ctx.fillText('hatched = masked', x + w + 10, y);
    }
    ctx.textBaseline = 'middle';
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

  // ---- export ----

  /** The layout of an exported picture: the matrix under its title and notes. */
  exportFrame(notes) {
    const L = this.layout();
    const titleH = 26 + notes.length * 16;
    const titleW = textWidth([this.o.title], 'bold 14px');
    const w = Math.max(L.width, 360, titleW, textWidth(notes, '11px'));
    return { L, titleH, w, h: L.height + titleH };
  }

  /** PNG of the matrix with its title, at 2× resolution. */
  async toPNG(notes = []) {
    const { L, titleH, w, h } = this.exportFrame(notes);
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
    ctx.fillText(this.o.title, 8, 6);
    ctx.font = `11px ${FONT}`;
    notes.forEach((n, k) => ctx.fillText(n, 8, 26 + k * 16));
    ctx.translate(0, titleH);
    this.paint(ctx, L, { fg: '#111', muted: '#666', bg: '#fff', accent: '#c2185b' });
    return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
  }

  /** Standalone SVG: one rect per cell, labels as text, legend as a gradient. */
  toSVG(notes = []) {
    const { L, titleH, w, h } = this.exportFrame(notes);
    const { rows, cols, rowLabels, colLabels } = this.m;
    const out = [];
    out.push(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="system-ui, sans-serif">`,
    );
    out.push(`<rect width="${w}" height="${h}" fill="#fff"/>`);
    out.push(
      `<text x="8" y="20" font-size="14" font-weight="bold">${escapeXml(this.o.title)}</text>`,
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
      out.push(
        `<stop offset="${s / 16}" stop-color="rgb(${rgbAt(this.o.map, s / 16).join(',')})"/>`,
      );
    out.push('</linearGradient></defs>');
    const { cell, x0, y0, gridW, gridH, fontPx } = L;
    out.push(`<g shape-rendering="crispEdges">`);
    for (let i = 0; i < Math.min(rows, this.visibleRows); i++) {
      for (let j = 0; j < cols; j++) {
        const fill = this.isBlocked(i, j)
          ? 'url(#hatch)'
          : `rgb(${rgbAt(this.o.map, this.scale.t(this.value(i, j))).join(',')})`;
        out.push(
          `<rect x="${x0 + j * cell}" y="${y0 + i * cell}" width="${cell}" height="${cell}" fill="${fill}"><title>${escapeXml(`${rowLabels[i]} → ${colLabels[j]}: ${this.isBlocked(i, j) ? 'masked' : fmt(this.value(i, j), 4)}`)}</title></rect>`,
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
      `<text x="${x0}" y="${ly + 21}" font-size="10" fill="#555">${escapeXml(fmt(this.scale.min, 2))}</text>`,
    );
    out.push(
      `<text x="${x0 + lw}" y="${ly + 21}" font-size="10" fill="#555" text-anchor="end">${escapeXml(fmt(this.scale.max, 2))}</text>`,
    );
    out.push('</g></svg>');
    return out.join('\n');
  }

  /** The data behind the picture. Masked cells are null and listed. */
  toJSON(extra = {}) {
    const { rows, cols, rowLabels, colLabels } = this.m;
    const values = [];
    for (let i = 0; i < Math.min(rows, this.visibleRows); i++) {
      const row = [];
      for (let j = 0; j < cols; j++) {
        const v = this.value(i, j);
        row.push(this.isBlocked(i, j) || !Number.isFinite(v) ? null : Number(v.toPrecision(7)));
      }
      values.push(row);
    }
    return {
      title: this.o.title,
      rowAxis: this.o.rowAxis,
      colAxis: this.o.colAxis,
      rowLabels,
      colLabels,
      values,
      colourMap: this.o.map,
      domain: [this.scale.min, this.scale.max],
      ...extra,
    };
  }

  dispose() {
    this.resizeObs.disconnect();
  }
}

/** Short number for inside a cell: at most 4 characters or so. */
function cellText(v) {
  if (!Number.isFinite(v)) return v < 0 ? '−∞' : '∞';
  const a = Math.abs(v);
  const s = a < 0.005 ? '0' : a < 10 ? v.toFixed(2) : a < 100 ? v.toFixed(1) : v.toFixed(0);
  return s.replace('-', '−');
}

/** Widest of some lines of text at a font size (plus margins), for export canvases. */
function textWidth(lines, font) {
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${font} ${FONT}`;
  let w = 0;
  for (const l of lines) w = Math.max(w, ctx.measureText(l).width);
  return Math.ceil(w + 16);
}

function clip(s) {
  return s.length > 18 ? `${s.slice(0, 17)}…` : s;
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

export { MAPS };
