// A box that scrolls sideways says so: the edge where more is hidden fades, and a line under
// it tells a visitor on a phone to swipe, only while there is more to see.

import { el } from './ui.js';

/**
 * `content` in a sideways-scrolling div of class `cls` (with the fading edges of .scroll-box),
 * followed by the hint line, shown while the content does not fit. Returns the wrapper.
 */
export function scrollBox(cls, content) {
  const box = el(`div.${cls}.scroll-box`, {}, content);
  const hint = el('p.scroll-hint', {
    hidden: true,
    text: 'Swipe or scroll sideways for the rest →',
  });
  const update = () => {
    const more = box.scrollWidth - box.clientWidth;
    // why: a fraction of a pixel of rounding is not more to see
    box.classList.toggle('more-left', more > 1 && box.scrollLeft > 1);
    box.classList.toggle('more-right', more > 1 && box.scrollLeft < more - 1);
    hint.hidden = more <= 1;
  };
  box.addEventListener('scroll', update, { passive: true });
  // why: the box is not laid out yet; its size (and the page's) decides whether it overflows
  if (typeof ResizeObserver !== 'undefined') {
    const watch = new ResizeObserver(update);
    watch.observe(box);
    watch.observe(content);
  }
  return el('div.scroll-wrap', {}, box, hint);
}
