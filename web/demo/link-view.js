// LinkView: attention as weighted lines from each query token (left) to each key token (right);
// line opacity and width follow the weight. Hover or focus a token to see only its lines; the
// up/down arrow keys walk the query tokens and announce where each one looks.

import { el, announce, fmt, theme, showTip, hideTip, escapeXml } from './ui.js';
import { cssAt } from './colormap.js';

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif';

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
    this.side = 'q';
    this.bind();
  }

  /** m: display matrix (rows = queries, cols = keys, rows sum to ~1). */
  set(m, { title, visibleRows = Infinity } = {}) {
    this.m = m;
    this.visibleRows = visibleRows;
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
      height: n * rowH + 36,
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
    const { rows, cols, values, rowLabels, colLabels } = this.m;
    const yq = (i) => G.top + (i + 0.5) * G.rowH;
    const rowsShown = Math.min(rows, this.visibleRows);
    ctx.font = `bold 11px ${FONT}`;
    ctx.fillStyle = theme.muted;
    ctx.textAlign = 'right';
    ctx.fillText('query (from)', G.xl - 8, 14);
    ctx.textAlign = 'left';
    ctx.fillText('key (to)', G.xr + 8, 14);
    let max = 0;
    for (let k = 0; k < rowsShown * cols; k++) max = Math.max(max, values[k]);
    max = max || 1;
    ctx.lineCap = 'round';
    for (let i = 0; i < rowsShown; i++) {
      if (this.sel >= 0 && i !== this.sel) continue;
      for (let j = 0; j < cols; j++) {
        const w = values[i * cols + j] / max;
        if (w < 0.02) continue;
        ctx.strokeStyle = cssAt('sequential', 0.15 + 0.85 * w);
        ctx.globalAlpha = this.sel >= 0 ? Math.max(0.25, w) : Math.min(1, 0.1 + 0.8 * w);
        ctx.lineWidth = 0.5 + 4 * w;
        ctx.beginPath();
        ctx.moveTo(G.xl, yq(i));
        ctx.bezierCurveTo((G.xl + G.xr) / 2, yq(i), (G.xl + G.xr) / 2, yq(j), G.xr, yq(j));
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;
    ctx.textBaseline = 'middle';
    for (let i = 0; i < rows; i++) {
      ctx.font = `${i === this.sel ? 'bold ' : ''}${G.font}px ${FONT}`;
      ctx.fillStyle = i < rowsShown ? theme.fg : theme.muted;
      ctx.textAlign = 'right';
      ctx.fillText(rowLabels[i], G.xl - 8, yq(i));
    }
    for (let j = 0; j < cols; j++) {
      let w = 0;
      if (this.sel >= 0) w = values[this.sel * cols + j];
      ctx.font = `${w > 0.2 ? 'bold ' : ''}${G.font}px ${FONT}`;
      ctx.fillStyle = theme.fg;
      ctx.textAlign = 'left';
      ctx.fillText(colLabels[j], G.xr + 8, yq(j));
      if (this.sel >= 0) {
        ctx.fillStyle = theme.muted;
        ctx.font = `10px ${FONT}`;
        ctx.fillText(
          fmt(w, 2),
          G.xr + 8 + Math.min(90, ctx.measureText(colLabels[j]).width * 1.2 + 8),
          yq(j),
        );
      }
    }
  }

  rowAt(ev) {
    const r = this.canvas.getBoundingClientRect();
    const y = ev.clientY - r.top - this.G.top;
    const x = ev.clientX - r.left;
    const i = Math.floor(y / this.G.rowH);
    if (x > this.G.xl + 10 || i < 0 || i >= Math.min(this.m.rows, this.visibleRows)) return -1;
    return i;
  }

  select(i, speak) {
    this.sel = i;
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
      const i = this.rowAt(ev);
      if (i !== this.sel && i >= 0) {
        const t = this.select(i, false);
        showTip([t], ev.pageX, ev.pageY);
      }
    });
    c.addEventListener('pointerenter', () => this.onFocus?.());
    c.addEventListener('pointerleave', () => {
      hideTip();
      if (document.activeElement !== c) this.select(-1);
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
    this.paint(ctx, G, { fg: '#111', muted: '#666' });
    return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
  }

  toSVG(notes = []) {
    const G = this.geometry();
    const { rows, cols, values, rowLabels, colLabels } = this.m;
    const titleH = 26 + notes.length * 16;
    const yq = (i) => titleH + G.top + (i + 0.5) * G.rowH;
    let max = 0;
    for (const v of values) max = Math.max(max, v);
    const out = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${G.width}" height="${G.height + titleH}" font-family="system-ui, sans-serif">`,
      `<rect width="100%" height="100%" fill="#fff"/>`,
      `<text x="8" y="20" font-size="14" font-weight="bold">${escapeXml(this.title)}</text>`,
    ];
    notes.forEach((n, k) =>
      out.push(`<text x="8" y="${38 + k * 16}" font-size="11">${escapeXml(n)}</text>`),
    );
    for (let i = 0; i < Math.min(rows, this.visibleRows); i++) {
      for (let j = 0; j < cols; j++) {
        const w = values[i * cols + j] / (max || 1);
        if (w < 0.02) continue;
        const mx = (G.xl + G.xr) / 2;
        out.push(
          `<path d="M${G.xl} ${yq(i)}C${mx} ${yq(i)} ${mx} ${yq(j)} ${G.xr} ${yq(j)}" fill="none" stroke="${cssAt('sequential', 0.15 + 0.85 * w)}" stroke-opacity="${(0.1 + 0.8 * w).toFixed(3)}" stroke-width="${(0.5 + 4 * w).toFixed(2)}"/>`,
        );
      }
    }
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
