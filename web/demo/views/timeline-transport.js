// The decoding timeline's transport: first, previous, play / pause, next and last step, the step
// slider, the playback speed and the step counter. It moves the timeline through go(step).

import { el, reducedMotion } from '../widgets/ui.js';

const SPEEDS = [
  ['900', 'slow'],
  ['450', 'normal'],
  ['150', 'fast'],
];

/**
 * The transport's part. `total()` is the number of steps, `cur()` the step shown, `go(step)`
 * shows a step. `sync(n, s, live)` shows step s of n (all disabled while decoding live);
 * `clear()` empties it when there is nothing to replay.
 */
export function createTransport(app, { total, cur, go }) {
  let timer = null;
  const btn = (label, text, onclick) =>
    el('button', { type: 'button', 'aria-label': label, title: label, onclick }, text);
  const stepTo = (s) => {
    pause();
    go(s);
  };
  const first = btn('First step', '|◀', () => stepTo(0));
  const back = btn('Previous step', '◀ step', () => stepTo(cur() - 1));
  const play = btn('Play', '▶ Play', () => (timer ? pause() : start()));
  const fwd = btn('Next step', 'step ▶', () => stepTo(cur() + 1));
  const last = btn('Last step', '▶|', () => stepTo(total()));
  const range = el('input', {
    type: 'range',
    min: 0,
    max: 0,
    value: 0,
    step: 1,
    'aria-label': 'Decoding step',
  });
  range.addEventListener('input', () => stepTo(Number(range.value)));
  const speed = el(
    'select',
    { 'aria-label': 'Playback speed' },
    SPEEDS.map(([v, t]) => el('option', { value: v, text: t })),
  );
  speed.value = '450';
  const counter = el('span.note', { 'aria-live': 'off' });
  const node = el(
    'div.transport',
    { role: 'group', 'aria-label': 'Playback' },
    first,
    back,
    play,
    fwd,
    last,
    range,
    speed,
    counter,
  );

  function start() {
    if (!app.result) return;
    if (cur() >= total()) go(0);
    play.textContent = '❚❚ Pause';
    play.setAttribute('aria-label', 'Pause');
    const tick = () => {
      if (cur() >= total()) {
        pause();
        return;
      }
      go(cur() + 1);
    };
    if (reducedMotion()) {
      tick();
    }
    timer = setInterval(tick, Number(speed.value));
  }

  function pause() {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = '▶ Play';
    play.setAttribute('aria-label', 'Play');
  }

  return {
    node,
    pause,
    sync(n, s, live) {
      range.max = String(n);
      range.value = String(s);
      range.disabled = !!live;
      for (const b of [first, back, play, fwd, last]) b.disabled = !!live;
      counter.textContent = `step ${s} of ${n}`;
    },
    clear() {
      // why: no counter or slider may still describe the previous text
      counter.textContent = '';
      range.max = range.value = '0';
      for (const b of [first, back, play, fwd, last, range]) b.disabled = true;
    },
  };
}
