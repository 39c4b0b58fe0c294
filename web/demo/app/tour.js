// The first-visit tour: a few steps over one finished translation, each a sentence next to
// the element it explains (what a row, a column and a colour mean). Skippable with a button
// or Escape, remembered in localStorage, replayed from the header's "Tour" button. It moves
// the focus into its box and back, and never covers the page with an overlay.

import { el, announce } from '../widgets/ui.js';

const KEY = 'heed-tour';

/** The steps: which view to open, what to point at, and what to say about it. */
const STEPS = [
  {
    target: '#source-text',
    text: 'Type or paste a sentence or a few paragraphs here; Ctrl+Enter translates. Everything runs in this page: the model and the engine were downloaded once and nothing is sent anywhere.',
  },
  {
    target: '#output',
    text: 'The translation, one underlined piece per token (▁ starts a word). The underline’s colour is the model’s confidence in that piece; click a piece to replay the decoding up to it.',
  },
  {
    view: 'timeline',
    target: '.view-timeline .grid2 > :first-child canvas',
    text: 'Cross-attention. Each row is one decoding step, labelled by the piece it wrote; each column is a source piece. A cell’s colour is how much that step looked at that piece: each row’s weights add up to 1, bright = most.',
  },
  {
    view: 'timeline',
    target: '.view-timeline .grid2 > :last-child canvas',
    text: 'Masked self-attention of the decoder: row = step, column = the decoder’s own inputs so far (<s>, then the pieces already written). Hatched cells are the future, masked out before the softmax.',
  },
  {
    view: 'timeline',
    target: '.view-timeline .transport',
    text: 'Play the decoding step by step, or drag the slider: rows appear as the model writes them, and the list below shows the candidates it weighed. Click another candidate to ask “what if?”.',
  },
  {
    view: 'attention',
    target: '.view-attention .grids',
    text: 'Every head of every layer at a glance — encoder self-attention, decoder self-attention and cross-attention — with the pattern each head follows written under it. Click one to enlarge it.',
  },
  {
    view: 'explain',
    target: '#tab-explain',
    text: 'Inside one head shows the arithmetic of attention on these real numbers: queries, keys, scores, the √d scaling, the softmax and the weighted sum. That is the end of the tour: “Tour” at the top brings it back.',
  },
];

export function tourDone() {
  try {
    return localStorage.getItem(KEY) === 'done';
  } catch {
    return true; // why: storage blocked: never nag on every visit
  }
}

function remember() {
  try {
    localStorage.setItem(KEY, 'done');
  } catch {
    /* storage blocked: the tour just ends */
  }
}

/** Starts the tour over `app` (switching views with app.set); returns a function that ends it. */
export function startTour(app) {
  document.querySelector('.tour')?.remove();
  const returnFocus = document.activeElement;
  let k = 0;
  let lit = null;
  const text = el('p.tour-text', { id: 'tour-text' });
  const count = el('span.tour-count');
  const back = el('button', { type: 'button', text: 'Back', onclick: () => go(k - 1) });
  const next = el('button.primary', { type: 'button', onclick: () => go(k + 1) });
  const skip = el('button', { type: 'button', text: 'Skip tour', onclick: () => end() });
  const box = el(
    'div.tour',
    {
      role: 'dialog',
      'aria-modal': 'false',
      'aria-labelledby': 'tour-title',
      'aria-describedby': 'tour-text',
    },
    el('strong', { id: 'tour-title', text: 'A tour of one translation' }),
    count,
    text,
    el('div.tour-buttons', {}, back, next, skip),
  );
  box.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') end();
  });
  document.body.append(box);

  /**
   * Puts the box under the target, or, when that would leave the screen (a tall target such
   * as every head's grid), at the bottom of the screen over the target's lower part, so the
   * box and the target's top (its labels) are both in view.
   */
  function place(target) {
    const r = target.getBoundingClientRect();
    const w = Math.min(340, document.documentElement.clientWidth - 16);
    box.style.width = `${w}px`;
    const left = Math.max(
      8,
      Math.min(
        r.left + window.scrollX,
        window.scrollX + document.documentElement.clientWidth - w - 8,
      ),
    );
    const h = box.offsetHeight;
    const bottom = window.innerHeight - h - 8;
    const top = Math.max(8, Math.min(r.bottom + 10, bottom));
    box.style.left = `${left}px`;
    box.style.top = `${top + window.scrollY}px`;
  }

  function go(i) {
    if (i >= STEPS.length) return end();
    k = Math.max(0, i);
    const step = STEPS[k];
    if (step.view && app.state.view !== step.view) app.set({ view: step.view });
    lit?.classList.remove('tour-target');
    lit = document.querySelector(step.target);
    text.textContent = step.text;
    count.textContent = ` ${k + 1} of ${STEPS.length}`;
    back.disabled = k === 0;
    next.textContent = k === STEPS.length - 1 ? 'Finish' : 'Next';
    if (lit) {
      lit.classList.add('tour-target');
      // why: a target taller than half the screen is shown from its top (its labels), not
      // from its middle
      const tall = lit.getBoundingClientRect().height > window.innerHeight / 2;
      lit.scrollIntoView({ block: tall ? 'start' : 'center', behavior: 'instant' });
      place(lit);
    }
    box.dataset.step = String(k);
    next.focus();
    announce(`Tour step ${k + 1} of ${STEPS.length}: ${step.text}`);
  }

  function end() {
    remember();
    lit?.classList.remove('tour-target');
    box.remove();
    window.removeEventListener('resize', onResize);
    if (returnFocus instanceof HTMLElement) returnFocus.focus();
  }

  const onResize = () => lit && place(lit);
  window.addEventListener('resize', onResize);
  go(0);
  return end;
}
