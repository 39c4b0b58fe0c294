// The example buttons under the source text: the chosen model's example sentences (data/
// examples.js), one click translates one. Not the model list (models.js).

import { el } from '../widgets/ui.js';
import { page } from './page.js';
import { examplesOf } from '../data/examples.js';

/** The buttons' part: `show()` re-fills them for the chosen model; `first()` is its first text. */
export function createExamples(app) {
  let shown = [];
  const short = (text, n) => (text.length > n ? `${text.slice(0, n - 2)}…` : text);
  const button = ({ text, hard }) => {
    const p = page();
    return el(
      `button${hard ? '.hard' : ''}`,
      {
        type: 'button',
        title: hard ? `${text} — a sentence this model gets wrong` : text,
        onclick: () => {
          p.source.value = text;
          app.translate();
        },
      },
      ...(hard ? [el('strong', { text: 'a hard one — watch it fail: ' })] : []),
      short(text, hard ? 24 : 34),
    );
  };
  return {
    /** The example buttons follow the chosen model's source language; a shown example of the
     *  model before is swapped for the new one's example in the same place. The hard one is
     *  marked as such: it is there to watch the model fail. */
    show() {
      const p = page();
      const entry = app.models.find((m) => m.id === p.modelSelect.value);
      const list = examplesOf(entry, app.models);
      const k = shown.findIndex((x) => x.text === p.source.value);
      if (k >= 0 && list.length) p.source.value = list[Math.min(k, list.length - 1)].text;
      shown = list;
      p.examples.replaceChildren(...list.map(button));
    },
    first: () => shown[0]?.text ?? '',
  };
}
