// Small DOM helpers shared by the views: element builder, the one tooltip, the one aria-live
// announcer, number formatting, reduced-motion query, downloads. No view logic here.

/** el('div.card#id', {attrs}, ...children) — class/id shorthand, attrs, on* listeners. */
export function el(spec, attrs = {}, ...children) {
  const [, tag = 'div', rest = ''] = spec.match(/^([a-z0-9-]*)(.*)$/i);
  const node = document.createElement(tag || 'div');
  for (const part of rest.match(/[.#][^.#]+/g) ?? []) {
    if (part[0] === '.') node.classList.add(part.slice(1));
    else node.id = part.slice(1);
  }
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'text') node.textContent = v;
    else if (k === 'html') throw new Error('no innerHTML');
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

let tip = null;
function tooltip() {
  if (!tip) {
    tip = el('div.tooltip', { role: 'presentation', 'aria-hidden': 'true' });
    document.body.append(tip);
  }
  return tip;
}
/** Shows the tooltip with lines of text near page position (x, y). */
export function showTip(lines, x, y) {
  const t = tooltip();
  t.replaceChildren(...lines.map((l, i) => el(i === 0 ? 'strong' : 'span', { text: l })));
  t.hidden = false;
  const w = t.offsetWidth,
    h = t.offsetHeight;
  const left = Math.min(x + 14, window.scrollX + document.documentElement.clientWidth - w - 8);
  const top = y + 18 + h > window.scrollY + window.innerHeight ? y - h - 10 : y + 18;
  t.style.left = `${Math.max(4, left)}px`;
  t.style.top = `${Math.max(4, top)}px`;
}
export function hideTip() {
  if (tip) tip.hidden = true;
}

/** Speaks text through the page's polite live region. */
export function announce(text) {
  const live = document.getElementById('announce');
  if (!live) return;
  // why: re-setting identical text is not re-announced by screen readers.
  live.textContent = live.textContent === text ? `${text} ` : text;
}

/** Number for people: signed, 3 significant decimals, −∞ for masked scores. */
export function fmt(v, digits = 3) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (v === -Infinity) return '−∞';
  if (v === Infinity) return '∞';
  const a = Math.abs(v);
  let s;
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) s = v.toExponential(2);
  else if (a >= 100) s = v.toFixed(1);
  else s = v.toFixed(digits);
  return s.replace('-', '−');
}

export const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/** Saves a Blob as a file through a temporary link. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Reads a CSS custom property of the root (for canvas drawing in the current theme). */
export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

let themeCache = null;
/** Canvas colours of the current light/dark theme, read once per colour-scheme change. */
export function theme() {
  if (!themeCache) {
    themeCache = {
      fg: cssVar('--fg') || '#222',
      muted: cssVar('--muted') || '#666',
      bg: cssVar('--panel') || '#fff',
      accent: cssVar('--accent') || '#d0417e',
    };
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener(
      'change',
      () => {
        themeCache = null;
      },
      { once: true },
    );
  }
  return themeCache;
}

export function escapeXml(s) {
  return String(s).replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c],
  );
}

/**
 * A view's long explanation folded behind "About this view": open on wide screens, closed on
 * phones, so the figure is on the first screen there.
 */
export function aboutView(...children) {
  const narrow = window.matchMedia('(max-width: 760px)').matches;
  return el(
    'details.about',
    { open: !narrow },
    el('summary', { text: 'About this view' }),
    ...children,
  );
}
