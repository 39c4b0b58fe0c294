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
  const status = page().modelStatus;
  status.textContent = text;
  status.title = text; // why: one line on wide screens, cut with an ellipsis when it must be
}

/** The download box: started with a label, updated with (fraction, bytes), then hidden. */
export const progress = {
  t0: 0,
  start(label) {
    const p = page();
    p.loadBox.hidden = false;
    p.loadProgress.value = 0;
    p.loadText.textContent = label;
    this.t0 = performance.now();
  },
  /** Shows bytes so far of the total and, once the rate is known, about how long is left. */
  update(fraction, bytes) {
    const { loadProgress, loadText } = page();
    const known = Number.isFinite(fraction) && fraction > 0;
    if (known) loadProgress.value = fraction;
    else loadProgress.removeAttribute('value');
    const seconds = (performance.now() - this.t0) / 1000;
    const total = known ? bytes / fraction : NaN;
    let left = '';
    if (known && fraction < 1 && seconds > 0.3) {
      const s = ((total - bytes) / bytes) * seconds;
      left = s < 1 ? ' · under a second left' : ` · about ${Math.ceil(s)} s left`;
    }
    loadText.textContent = known
      ? `Model: ${(bytes / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB (${Math.round(fraction * 100)} %)${left}`
      : `Model: ${(bytes / 1e6).toFixed(1)} MB`;
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
