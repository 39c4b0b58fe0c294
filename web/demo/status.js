// What the page says about itself: the model status line, the message box (errors and notes)
// and the model download's progress box. Not the translation output (translation.js).

import { page } from './page.js';

/** Shows `text` in the message box (kind 'error' or 'info'); null hides it. */
export function showMessage(text, kind = 'error') {
  const m = page().message;
  m.hidden = !text;
  m.textContent = text ?? '';
  m.className = `message${kind === 'info' ? ' info' : ''}`;
}

/** The one-line model status above the form. */
export function showStatus(text) {
  page().modelStatus.textContent = text;
}

/** The download box: started with a label, updated with (fraction, bytes), then hidden. */
export const progress = {
  start(label) {
    const p = page();
    p.loadBox.hidden = false;
    p.loadProgress.value = 0;
    p.loadText.textContent = label;
  },
  update(fraction, bytes) {
    const { loadProgress, loadText } = page();
    const known = Number.isFinite(fraction);
    if (known) loadProgress.value = fraction;
    else loadProgress.removeAttribute('value');
    loadText.textContent =
      `${(bytes / 1e6).toFixed(1)} MB` + (known ? ` (${Math.round(fraction * 100)} %)` : '');
  },
  say(text) {
    page().loadText.textContent = text;
  },
  done() {
    page().loadBox.hidden = true;
  },
};

/** "6.8 MB" or "12 kB". */
export function sizeText(bytes) {
  return bytes >= 1e6
    ? `${(bytes / 1e6).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}
