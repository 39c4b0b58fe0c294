// LinkView: attention as weighted lines from each query token (left) to each key token (right);
// width and colour follow the weight (the strongest darkest on a light background, brightest
// on a dark one), with a legend. Hover a token on either side to see only its lines; the
// up/down arrow keys walk the query tokens and announce where each one looks. Several heads can
// be overlaid, one colour per head.

import { el, announce, fmt, theme, showTip, hideTip, escapeXml } from './ui.js';
import { cssAt } from './colormap.js';

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';
/** One colour per head in the overlay (Okabe–Ito, distinguishable with colour-vision deficits). */
export const HEAD_COLOURS = [
  '#0072b2',
  '#d55e00',
  '#009e73',
  '#cc79a7',
  '#e69f00',
  '#56b4e9',
  '#000000',
  '#f0e442',
];
const LEGEND_H = 34;

/** Whether a colour (#rrggbb or rgb()) is dark: the link ramp runs the other way on it. */
function isDark(colour) {
  const m = colour.match(/\d+/g);
  const [r, g, b] = colour.startsWith('#')
    ? [1, 3, 5].map((k) => parseInt(colour.slice(k, k + 2), 16))
    : (m ?? [255, 255, 255]).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b < 128;
}

/** The colour of a link of relative weight w (0..1): strong links contrast most with `bg`. */
export function linkColour(w, bg = '#ffffff') {
  return isDark(bg) ? cssAt('sequential', 0.2 + 0.8 * w) : cssAt('sequential', 0.8 * (1 - w));
}

export class LinkView {
  constructor({ title, onFocus } = {}) {
    this.title = title ?? '';
    this.onFocus = onFocus;
    this.canvas = el('canvas.link-canvas', {
      tabindex: 0,
      role: 'application',
      'aria-roledescription': 'attention links',
    });
    this.caption = el('span.matrix-title', { text: this.title });
    this.element = el('figure.matrix.links', {}, el('figcaption', {}, this.caption), this.canvas);
    this.sel = -1; // selected query row, -1 = all
    this.selKey = -1; // selected key column (hover on the right), -1 = none
    this.overlay = null; // [{values, label}] one matrix per head, drawn in HEAD_COLOURS
    this.bind();
  }

  /**
   * m: display matrix (rows = queries, cols = keys, rows sum to ~1). overlay: the same
   * rows and columns for several heads, [{values, label}], drawn one colour per head.
   */
  set(m, { title, visibleRows = Infinity, overlay = null } = {}) {
    this.m = m;
    this.visibleRows = visibleRows;
    this.overlay = overlay;
    if (this.selKey >= m.cols) this.selKey = -1;
    if (title !== undefined) {
      this.title = title;
      this.caption.textContent = title;
    }
    if (this.sel >= m.rows) this.sel = -1;
    this.canvas.setAttribute(
      'aria-label',
      `${this.title}: lines from ${m.rows} query tokens to ${m.cols} key tokens. Up and down arrows pick a query token.`,
    );
    this.draw();
  }

  geometry() {
    const n = Math.max(this.m.rows, this.m.cols);
    const rowH = Math.max(12, Math.min(22, Math.floor(900 / Math.max(1, n))));
    const width = Math.min(
      560,
      Math.max(320, (this.element.isConnected && this.element.clientWidth) || 480),
    );
    const colW = 130;
    return {
      rowH,
      width,
      height: n * rowH + 36 + LEGEND_H,
      xl: colW,
      xr: width - colW,
      top: 28,
      font: Math.min(13, rowH - 2),
    };
  }

  draw() {
    if (!this.m) return;
    const G = (this.G = this.geometry());
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(G.width * dpr);
    this.canvas.height = Math.round(G.height * dpr);
    this.canvas.style.width = `${G.width}px`;
    this.canvas.style.height = `${G.height}px`;
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, G.width, G.height);
    this.paint(ctx, G, theme());
  }

  paint(ctx, G, theme) {
    const { rows, cols, rowLabels, colLabels } = this.m;
    const yq = (i) => G.top + (i + 0.5) * G.rowH;
    const rowsShown = Math.min(rows, this.visibleRows);
    ctx.font = `bold 11px ${FONT}`;
    ctx.fillStyle = theme.muted;
    ctx.textAlign = 'right';
    ctx.fillText('query (from)', G.xl - 8, 14);
    ctx.textAlign = 'left';
    ctx.fillText('key (to)', G.xr + 8, 14);
    const layers = this.overlay ?? [{ values: this.m.values }];
    let max = 0;
    for (const { values } of layers)
      for (let k = 0; k < rowsShown * cols; k++) max = Math.max(max, values[k]);
    max = max || 1;
    ctx.lineCap = 'round';
    const focus = this.sel >= 0 || this.selKey >= 0;
    layers.forEach(({ values }, h) => {
      for (let i = 0; i < rowsShown; i++) {
        if (this.sel >= 0 && i !== this.sel) continue;
        for (let j = 0; j < cols; j++) {
          if (this.selKey >= 0 && j !== this.selKey) continue;
          const w = values[i * cols + j] / max;
          if (w < 0.02) continue;
          ctx.strokeStyle = this.overlay
            ? HEAD_COLOURS[h % HEAD_COLOURS.length]
            : linkColour(w, theme.bg);
          ctx.globalAlpha = focus ? Math.max(0.3, w) : Math.min(1, 0.15 + 0.85 * w);
          ctx.lineWidth = 0.5 + 4 * w;
          ctx.beginPath();
          ctx.moveTo(G.xl, yq(i));
          ctx.bezierCurveTo((G.xl + G.xr) / 2, yq(i), (G.xl + G.xr) / 2, yq(j), G.xr, yq(j));
          ctx.stroke();
        }
      }
    });
    ctx.globalAlpha = 1;
    ctx.textBaseline = 'middle';
    const values = this.m.values;
    const weightLabel = (text, x, y) => {
      ctx.fillStyle = theme.muted;
      ctx.font = `10px ${FONT}`;
      ctx.fillText(text, x, y);
    };
    for (let i = 0; i < rows; i++) {
      const w = this.selKey >= 0 && i < rowsShown ? values[i * cols + this.selKey] : 0;
      ctx.font = `${i === this.sel || w > 0.2 ? 'bold ' : ''}${G.font}px ${FONT}`;
      ctx.fillStyle = i < rowsShown ? theme.fg : theme.muted;
      ctx.textAlign = 'right';
      ctx.fillText(i < rowsShown ? rowLabels[i] : '·', G.xl - 8, yq(i));
      if (this.selKey >= 0 && i < rowsShown) {
        const width = Math.min(90, ctx.measureText(rowLabels[i]).width * 1.2 + 8);
        weightLabel(fmt(w, 2), G.xl - 8 - width, yq(i));
      }
    }
    ctx.textAlign = 'left';
    for (let j = 0; j < cols; j++) {
      const w = this.sel >= 0 ? values[this.sel * cols + j] : 0;
      ctx.font = `${w > 0.2 || j === this.selKey ? 'bold ' : ''}${G.font}px ${FONT}`;
      ctx.fillStyle = theme.fg;
      ctx.fillText(colLabels[j], G.xr + 8, yq(j));
      if (this.sel >= 0) {
        const x = G.xr + 8 + Math.min(90, ctx.measureText(colLabels[j]).width * 1.2 + 8);
        weightLabel(fmt(w, 2), x, yq(j));
      }
    }
    this.paintLegend(ctx, G, theme, max);
  }

  /** Under the links: the weight ramp (line samples), or one colour per overlaid head. */
  paintLegend(ctx, G, theme, max) {
    const y = G.height - LEGEND_H + 16;
    ctx.globalAlpha = 1;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.font = `11px ${FONT}`;
    ctx.fillStyle = theme.muted;
    let x = 8;
    if (this.overlay) {
      ctx.fillText('heads:', x, y);
      x += 42;
      this.overlay.forEach(({ label }, h) => {
        ctx.strokeStyle = HEAD_COLOURS[h % HEAD_COLOURS.length];
        ctx.lineWidth = 3;
        ctx.beginPath();
        ctx.moveTo(x, y);
        ctx.lineTo(x + 18, y);
        ctx.stroke();
        ctx.fillStyle = theme.fg;
        ctx.fillText(label, x + 22, y);
        x += 30 + ctx.measureText(label).width;
      });
      return;
    }
    ctx.fillText('weight', x, y);
    x += 48;
    for (const t of [0.1, 0.25, 0.5, 0.75, 1]) {
      ctx.strokeStyle = linkColour(t, theme.bg);
      ctx.lineWidth = 0.5 + 4 * t;
      ctx.lineCap = 'round';
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + 22, y);
      ctx.stroke();
      ctx.fillStyle = theme.muted;
      ctx.fillText(fmt(t * max, 2), x + 26, y);
      x += 62;
    }
  }

  /** ['q', row] or ['k', column] under the pointer (the labels and line ends), or null. */
  tokenAt(ev) {
    const r = this.canvas.getBoundingClientRect();
    const y = ev.clientY - r.top - this.G.top;
    const x = ev.clientX - r.left;
    const i = Math.floor(y / this.G.rowH);
    if (i < 0) return null;
    if (x <= this.G.xl + 10) return i < Math.min(this.m.rows, this.visibleRows) ? ['q', i] : null;
    if (x >= this.G.xr - 10) return i < this.m.cols ? ['k', i] : null;
    return null;
  }

  /** Shows only the lines into key j (from every query), with their weights. */
  selectKey(j) {
    this.sel = -1;
    this.selKey = j;
    this.draw();
    this.canvas.dataset.key = String(j);
    if (j < 0 || !this.m) return '';
    const { cols, values, rowLabels, colLabels } = this.m;
    const rows = Math.min(this.m.rows, this.visibleRows);
    const top = [...Array(rows).keys()]
      .sort((a, b) => values[b * cols + j] - values[a * cols + j])
      .slice(0, 3);
    return (
      `${colLabels[j]} is looked at by ` +
      top.map((i) => `${rowLabels[i]} ${fmt(values[i * cols + j], 2)}`).join(', ')
    );
  }

  select(i, speak) {
    this.sel = i;
    this.selKey = -1;
    this.draw();
    this.canvas.dataset.cursor = String(i);
    if (i < 0 || !this.m) return;
    const { cols, values, rowLabels, colLabels } = this.m;
    const top = [...Array(cols).keys()]
      .sort((a, b) => values[i * cols + b] - values[i * cols + a])
      .slice(0, 3);
    const text =
      `${rowLabels[i]} looks at ` +
      top.map((j) => `${colLabels[j]} ${fmt(values[i * cols + j], 2)}`).join(', ');
    if (speak) announce(text);
    return text;
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('pointermove', (ev) => {
      if (!this.m) return;
      const at = this.tokenAt(ev);
      if (!at) return;
      const [side, k] = at;
      if (side === 'q' && (k !== this.sel || this.selKey >= 0))
        showTip([this.select(k, false)], ev.pageX, ev.pageY);
      else if (side === 'k' && k !== this.selKey) showTip([this.selectKey(k)], ev.pageX, ev.pageY);
    });
    c.addEventListener('pointerenter', () => this.onFocus?.());
    c.addEventListener('pointerleave', () => {
      hideTip();
      if (document.activeElement !== c) this.select(-1);
      else if (this.selKey >= 0) this.select(Math.max(0, this.sel), false);
    });
    c.addEventListener('focus', () => {
      this.onFocus?.();
      if (this.m) this.select(Math.max(0, this.sel), true);
    });
    c.addEventListener('keydown', (ev) => {
      if (!this.m) return;
      const n = Math.min(this.m.rows, this.visibleRows);
      if (ev.key === 'ArrowDown') this.select(Math.min(n - 1, this.sel + 1), true);
      else if (ev.key === 'ArrowUp') this.select(Math.max(0, this.sel - 1), true);
      else if (ev.key === 'Escape') this.select(-1);
      else return;
      ev.preventDefault();
    });
  }

  async toPNG(notes = []) {
    const G = this.geometry();
    const titleH = 26 + notes.length * 16;
    const cv = document.createElement('canvas');
    const measure = cv.getContext('2d');
    measure.font = `11px ${FONT}`;
    const W = Math.max(G.width, ...notes.map((n) => Math.ceil(measure.measureText(n).width + 16)));
    cv.width = W * 2;
    cv.height = (G.height + titleH) * 2;
    const ctx = cv.getContext('2d');
    ctx.scale(2, 2);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, G.height + titleH);
    ctx.fillStyle = '#111';
    ctx.font = `bold 14px ${FONT}`;
    ctx.textBaseline = 'top';
    ctx.fillText(this.title, 8, 6);
    ctx.font = `11px ${FONT}`;
    notes.forEach((n, k) => ctx.fillText(n, 8, 26 + k * 16));
    ctx.translate(0, titleH);
    this.paint(ctx, G, { fg: '#111', muted: '#666', bg: '#ffffff' });
    return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
  }

  toSVG(notes = []) {
    const G = this.geometry();
    const { rows, cols, values, rowLabels, colLabels } = this.m;
    const titleH = 26 + notes.length * 16;
    const yq = (i) => titleH + G.top + (i + 0.5) * G.rowH;
    const layers = this.overlay ?? [{ values }];
    let max = 0;
    for (const layer of layers) for (const v of layer.values) max = Math.max(max, v);
    const out = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${G.width}" height="${G.height + titleH}" font-family="system-ui, sans-serif">`,
      `<rect width="100%" height="100%" fill="#fff"/>`,
      `<text x="8" y="20" font-size="14" font-weight="bold">${escapeXml(this.title)}</text>`,
    ];
    notes.forEach((n, k) =>
      out.push(`<text x="8" y="${38 + k * 16}" font-size="11">${escapeXml(n)}</text>`),
    );
    layers.forEach((layer, h) => {
      for (let i = 0; i < Math.min(rows, this.visibleRows); i++) {
        for (let j = 0; j < cols; j++) {
          const w = layer.values[i * cols + j] / (max || 1);
          if (w < 0.02) continue;
          const mx = (G.xl + G.xr) / 2;
          const colour = this.overlay ? HEAD_COLOURS[h % HEAD_COLOURS.length] : linkColour(w);
          out.push(
            `<path d="M${G.xl} ${yq(i)}C${mx} ${yq(i)} ${mx} ${yq(j)} ${G.xr} ${yq(j)}" fill="none" stroke="${colour}" stroke-opacity="${(0.15 + 0.85 * w).toFixed(3)}" stroke-width="${(0.5 + 4 * w).toFixed(2)}"/>`,
          );
        }
      }
    });
    rowLabels.forEach((t, i) =>
      out.push(
        `<text x="${G.xl - 8}" y="${yq(i)}" font-size="${G.font}" text-anchor="end" dominant-baseline="middle">${escapeXml(t)}</text>`,
      ),
    );
    colLabels.forEach((t, j) =>
      out.push(
        `<text x="${G.xr + 8}" y="${yq(j)}" font-size="${G.font}" dominant-baseline="middle">${escapeXml(t)}</text>`,
      ),
    );
    const ly = titleH + G.height - LEGEND_H + 16;
    const legend = this.overlay
      ? this.overlay.map(({ label }, h) => [HEAD_COLOURS[h % HEAD_COLOURS.length], 3, label])
      : [0.1, 0.25, 0.5, 0.75, 1].map((t) => [linkColour(t), 0.5 + 4 * t, fmt(t * (max || 1), 2)]);
    out.push(
      `<text x="8" y="${ly}" font-size="11" dominant-baseline="middle">${this.overlay ? 'heads' : 'weight'}</text>`,
    );
    legend.forEach(([colour, width, label], k) => {
      const x = 56 + k * 62;
      out.push(
        `<path d="M${x} ${ly}H${x + 22}" stroke="${colour}" stroke-width="${width.toFixed(2)}" stroke-linecap="round"/>`,
        `<text x="${x + 26}" y="${ly}" font-size="11" dominant-baseline="middle">${escapeXml(label)}</text>`,
      );
    });
    out.push('</svg>');
    return out.join('\n');
  }

  toJSON(extra = {}) {
    const { rows, cols, values, rowLabels, colLabels } = this.m;
    const v = [];
    for (let i = 0; i < Math.min(rows, this.visibleRows); i++)
      v.push(
        Array.from(values.subarray(i * cols, (i + 1) * cols), (x) => Number(x.toPrecision(7))),
      );
    return {
      title: this.title,
      rowAxis: 'query',
      colAxis: 'key',
      rowLabels,
      colLabels,
      values: v,
      ...extra,
    };
  }
}
