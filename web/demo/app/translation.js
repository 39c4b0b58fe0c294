// The translation panel: checks the text before it is sent, shows the result with one
// underlined piece per token coloured by confidence, and the speed line. Not the decoding
// itself (App.translate in main.js) nor the views.

import { el } from '../widgets/ui.js';
import { cssAt } from '../widgets/colormap.js';
import { showPiece } from '../data/attention-data.js';
import { page } from './page.js';
import { pieceGroups } from '../data/pieces.js';
import { findings } from '../data/findings.js';

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

/**
 * A paste that would make the text longer than the limit: only what fits is inserted, cut
 * after the last sentence (else word) that fits, and the returned note says how much was kept
 * and where it ends. null (and nothing done) when the paste fits.
 */
export function limitPaste(textarea, pasted) {
  const { selectionStart: a, selectionEnd: b, value } = textarea;
  const room = MAX_CHARS - (value.length - (b - a));
  if (pasted.length <= room) return null;
  let keep = pasted.slice(0, Math.max(0, room));
  const sentenceEnd = Math.max(
    ...[...keep.matchAll(/[.!?…。！？](?=\s)/g)].map((m) => m.index + 1),
    0,
  );
  const wordEnd = keep.search(/\s\S*$/);
  if (sentenceEnd > keep.length / 2) keep = keep.slice(0, sentenceEnd);
  else if (wordEnd > keep.length / 2) keep = keep.slice(0, wordEnd);
  textarea.setRangeText(keep, a, b, 'end');
  textarea.dispatchEvent(new Event('input', { bubbles: true }));
  const n = (x) => x.toLocaleString('en');
  const tail = keep.trim().split(/\s+/).slice(-6).join(' ');
  return (
    `The pasted text has ${n(pasted.length)} characters, more than the ${n(MAX_CHARS)} this page ` +
    `translates at once: only its first ${n(keep.length)} were kept, up to “…${tail}”.`
  );
}

/** A spinner and `text` in the output box (or just `text` when not `busy`). */
export function showPending(text, busy = false) {
  const spinner = busy ? [el('span.spinner', { 'aria-hidden': 'true' })] : [];
  page().output.replaceChildren(el('span.pending', {}, ...spinner, text));
  page().findings.hidden = true;
}

/** Empties the output, the speed line and the confidence legend (after a failure). */
export function clearOutput() {
  const p = page();
  p.output.replaceChildren();
  p.findings.hidden = true;
  p.stats.textContent = '';
  p.confidenceLegend.hidden = true;
}

/**
 * One sentence's pieces as underlined spans; colour and dots show confidence. Byte-fallback
 * pieces are shown as the character they spell and a lone "▁" joins what follows (pieces.js),
 * so a unit may hold several steps: its confidence is their product (the unit's probability).
 */
function pieceSpans(result, onPick) {
  const spans = [];
  for (const g of pieceGroups(result.targetTokens)) {
    const p = g.steps.reduce((q, i) => q * result.tokenProbs[i], 1);
    const first = g.steps[0];
    if (g.space) spans.push(' ');
    const what = g.pieces.map((t) => `“${t}”`).join(' ');
    spans.push(
      el(
        `span.tok${p < 0.5 ? '.low' : ''}${g.text ? '' : '.bare'}`,
        {
          tabindex: 0,
          'data-step': first,
          'data-last': g.steps.at(-1),
          style: `--c: ${cssAt('sequential', p)}`,
          title: `${what} — probability ${(p * 100).toFixed(1)} %`,
          'aria-label': `${g.text || showPiece(g.pieces[0])}, confidence ${(p * 100).toFixed(0)} percent`,
          onclick: () => onPick(first),
          onkeydown: (ev) => {
            if (ev.key === 'Enter') onPick(first);
          },
        },
        g.text,
      ),
    );
  }
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
    ...doc.sentences.map((s, k) => {
      // hovering or focusing a button marks its sentence in the translation
      const mark = (on) =>
        page()
          .output.querySelector(`.sentence[data-sentence="${k}"]`)
          ?.classList.toggle('hover', on);
      const words = s.source ?? s.text ?? '';
      return el(
        `button${s.truncated ? '.cut' : ''}`,
        {
          type: 'button',
          'data-sentence': k,
          'aria-pressed': String(k === selected),
          title: `${words}${s.truncated ? ' (translation cut at the length limit)' : ''}`,
          'aria-label': `Sentence ${k + 1} of ${n}${s.truncated ? ', cut at the length limit' : ''}: ${words}`,
          onclick: () => onPick(k),
          onpointerenter: () => mark(true),
          onpointerleave: () => mark(false),
          onfocus: () => mark(true),
          onblur: () => mark(false),
        },
        el('span.num', { text: `${k + 1}${s.truncated ? ' ✂' : ''}` }),
        el('span.words', { text: words.length > 22 ? `${words.slice(0, 20)}…` : words }),
      );
    }),
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

/**
 * Under the translation: the shown sentence's findings (findings.js), each with buttons to the
 * steps that show it (onStep(step)); the pieces of a "probably invented" run are marked in the
 * output. Hidden when there are none (or no trace).
 */
export function showFindings(result, sentence, onStep) {
  const box = page().findings;
  const list = findings(result);
  for (const t of page().output.querySelectorAll('.tok.invented')) t.classList.remove('invented');
  box.hidden = !list.length;
  if (!list.length) return box.replaceChildren();
  const scope =
    sentence === null
      ? page().output
      : page().output.querySelector(`.sentence[data-sentence="${sentence}"]`);
  const pct = (x) => `${Math.round(x * 100)} %`;
  const piece = (p) => (p === '</s>' ? 'the end of the source, </s>' : `“${p.replace(/^▁/, '')}”`);
  const items = list.map((f) => {
    if (f.kind === 'invented')
      for (const t of scope?.querySelectorAll('.tok') ?? [])
        if (f.steps.includes(Number(t.dataset.step))) t.classList.add('invented');
    const what =
      f.kind === 'invented'
        ? `“${f.text}”: steps ${f.steps[0] + 1}–${f.steps.at(-1) + 1} all looked mostly at ${piece(f.piece)} (${pct(f.share)} of their attention on average), so the model was not following the source there.`
        : `“${f.text}” got ${pct(f.share)} of an even share of the attention over the whole translation; the steps that looked at it most:`;
    return el(
      `li.finding.${f.kind}`,
      { 'data-kind': f.kind },
      el('strong', {
        text: f.kind === 'invented' ? 'probably invented ' : 'probably untranslated ',
      }),
      what,
      ...f.steps.slice(0, f.kind === 'invented' ? 1 : 2).map((s) =>
        el('button.chip', {
          type: 'button',
          text: `step ${s + 1}`,
          title: `Open the decoding timeline at step ${s + 1}`,
          onclick: () => onStep(s),
        }),
      ),
    );
  });
  box.replaceChildren(
    el('span.io-label', { text: 'What the attention suggests' }),
    el('ul', {}, ...items),
    el('p.hint', {
      text: 'From the last decoder layer’s cross-attention (mean of its heads): a source word with under 30 % of an even share, or three or more steps in a row looking mostly at one source piece. Attention is a clue, not proof.',
    }),
  );
}
