// The translation panel: checks the text before it is sent, shows the result with one
// underlined piece per token coloured by confidence, and the speed line. Not the decoding
// itself (App.translate in main.js) nor the views.

import { el } from './ui.js';
import { cssAt } from './colormap.js';
import { showPiece } from './attention-data.js';
import { page } from './page.js';

const MAX_CHARS = 4000;

/** Why `text` cannot be sent, or null. */
export function validate(text) {
  if (!text.trim()) return 'Type or pick a sentence to translate: the text is empty.';
  if (text.length > MAX_CHARS)
    return `The text is ${text.length} characters long; the limit here is ${MAX_CHARS}.`;
  const ctrl = text.match(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/);
  if (ctrl)
    return `The text contains an unsupported control character (U+${ctrl[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}). Remove it and try again.`;
  return null;
}

/** A spinner and `text` in the output box (or just `text` when not `busy`). */
export function showPending(text, busy = false) {
  const spinner = busy ? [el('span.spinner', { 'aria-hidden': 'true' })] : [];
  page().output.replaceChildren(el('span.pending', {}, ...spinner, text));
}

/** Empties the output, the speed line and the confidence legend (after a failure). */
export function clearOutput() {
  const p = page();
  p.output.replaceChildren();
  p.stats.textContent = '';
  p.confidenceLegend.hidden = true;
}

/** One sentence's pieces as underlined spans; colour and dots show confidence. */
function pieceSpans(result, onPick) {
  const spans = [];
  result.targetTokens.forEach((t, i) => {
    if (t === '</s>') return;
    const p = result.tokenProbs[i];
    if (t.startsWith('▁') && spans.length) spans.push(' ');
    const bare = t === '▁'; // a lone word-start piece: shown as an underlined gap
    spans.push(
      el(
        `span.tok${p < 0.5 ? '.low' : ''}${bare ? '.bare' : ''}`,
        {
          tabindex: 0,
          'data-step': i,
          style: `--c: ${cssAt('sequential', p)}`,
          title: `“${t}” — probability ${(p * 100).toFixed(1)} %`,
          'aria-label': `${showPiece(t)}, confidence ${(p * 100).toFixed(0)} percent`,
          onclick: () => onPick(i),
          onkeydown: (ev) => {
            if (ev.key === 'Enter') onPick(i);
          },
        },
        bare ? '\u2009' : showPiece(t),
      ),
    );
  });
  return spans;
}

/**
 * The translation: one underlined span per piece. A text of several sentences keeps the line
 * breaks of its source (`source`); each sentence is a group, the one the views show
 * (`selected`) is marked, and a piece picks its sentence and step: onPick(sentence, step).
 */
export function showOutput(doc, source, selected, onPick) {
  const { output, confidenceLegend } = page();
  if (doc.sentences.length <= 1) {
    const cut = doc.truncated
      ? [
          el('span.cut-mark', {
            title: 'Cut: decoding stopped at the length limit before the model ended the sentence',
            text: ' ✂',
          }),
        ]
      : [];
    output.replaceChildren(...pieceSpans(doc, (i) => onPick(0, i)), ...cut);
  } else {
    const parts = [];
    doc.sentences.forEach((s, k) => {
      if (k > 0) {
        const gap = s.start === undefined ? ' ' : source.slice(doc.sentences[k - 1].end, s.start);
        const breaks = gap.split('\n').length - 1;
        parts.push(breaks ? '\n'.repeat(Math.min(breaks, 2)) : ' ');
      }
      const title = `Sentence ${k + 1}${s.truncated ? ': cut at the length limit' : ''}`;
      parts.push(
        el(
          `span.sentence${k === selected ? '.current' : ''}${s.truncated ? '.cut' : ''}`,
          { 'data-sentence': k, title },
          ...pieceSpans(s, (i) => onPick(k, i)),
        ),
      );
    });
    output.replaceChildren(...parts);
  }
  output.dataset.text = doc.text;
  confidenceLegend.hidden = false;
}

/**
 * Buttons that pick which sentence of a paragraph the views show (hidden for one sentence);
 * a sentence cut at the length limit is marked.
 */
export function showSentencePicker(doc, selected, onPick) {
  const { sentencePicker } = page();
  const n = doc?.sentences.length ?? 0;
  sentencePicker.hidden = n <= 1;
  if (n <= 1) return sentencePicker.replaceChildren();
  sentencePicker.replaceChildren(
    el('span.picker-label', {}, 'Views show sentence'),
    ...doc.sentences.map((s, k) =>
      el(
        `button${s.truncated ? '.cut' : ''}`,
        {
          type: 'button',
          'aria-pressed': String(k === selected),
          title: `${s.source}${s.truncated ? ' (translation cut at the length limit)' : ''}`,
          'aria-label': `Sentence ${k + 1} of ${n}${s.truncated ? ', cut at the length limit' : ''}: ${s.source}`,
          onclick: () => onPick(k),
        },
        `${k + 1}${s.truncated ? ' ✂' : ''}`,
      ),
    ),
  );
}

/** A note naming the sentences whose translation stopped at the length limit, else null. */
export function truncationNote(doc) {
  const cut = doc.sentences.flatMap((s, k) => (s.truncated ? [k + 1] : []));
  if (!cut.length) return null;
  const which =
    doc.sentences.length === 1
      ? 'The translation'
      : `The translation of sentence${cut.length > 1 ? 's' : ''} ${cut.join(', ')}`;
  return `${which} stopped at the length limit before the model ended it, so it may be cut short (✂).`;
}

/** The speed line under the output. */
export function showStats(result, { text, ms, beam, firstMs, shortlist = false }) {
  const words = text.trim().split(/\s+/).length;
  const took = ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
  page().stats.textContent =
    `${result.targetTokens.length} target pieces from ${result.sourceTokens.length} source pieces` +
    ` in ${took} (${(words / (ms / 1000)).toFixed(0)} words/s, ${beam > 1 ? `beam ${beam}` : 'greedy'}, with attention` +
    `${shortlist ? `, shortlist${result.outputSize ? ` of ${result.outputSize} pieces` : ''}` : ''})` +
    ` · first translation ${(firstMs / 1000).toFixed(2)} s after page load`;
}

/** A note when the model read some of the text as <unk>, else null. */
export function unknownNote(result) {
  const unk = result.sourceTokens.filter((t) => t === '<unk>').length;
  if (!unk) return null;
  return unk > 1
    ? `${unk} pieces of the text use characters this model has never seen; they were read as <unk>, so the translation may be off.`
    : 'One piece of the text uses characters this model has never seen; it was read as <unk>, so the translation may be off.';
}
