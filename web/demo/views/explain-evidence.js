// "Attention beside what mattered", under the Inside-one-head view: for one target piece of
// the shown translation, per source word, the chosen cross-attention head's weight, the mean of
// its layer's heads, the norm-weighted weight α·‖f(x)‖ (Kobayashi et al. 2020) and how much the
// piece's probability falls when the word is removed and the same output is rescored
// (forcedPrefix), then one sentence on where they agree (Jain & Wallace 2019; Wiegreffe &
// Pinter 2019 ask whether attention explains).

import { el, fmt, aboutView } from '../widgets/ui.js';
import { showPiece } from '../data/attention-data.js';
import * as ev from '../data/word-evidence.js';

const ABOUT =
  'Is attention an explanation? Three answers for the piece you pick, per source word. “Attention”: the weight the chosen head gives the word’s pieces (and the mean over the layer’s heads). “Attention × ‖value‖”: the same weight times the size of what each piece actually adds to the output — the norm of its value vector carried through the head’s part of the output projection (Kobayashi et al. 2020, “Attention is Not Only a Weight”) — rescaled so a row sums to 1; a piece with a large weight but a small vector (often </s>) contributes little. “Change of p when removed”: the word is deleted from the source text (which changes its tokenisation), the model’s own translation is forced as the output (forcedPrefix, beam 1), and the piece’s probability is read again; the bar is how far it fell (grey: it rose). Where the bars disagree, attention alone would have misled (Jain & Wallace 2019, “Attention is not Explanation”; Wiegreffe & Pinter 2019, “Attention is not not Explanation”).';

// why: soft hyphens (\u00ad) let a narrow phone break "attention" as "atten-tion"
const MEASURES = [
  ['attn', 'atten\u00adtion, this head'],
  ['mean', 'atten\u00adtion, mean of heads'],
  ['norm', 'atten\u00adtion × ‖value‖'],
  ['drop', 'change of p when re\u00admoved'],
];

/** Probability of every target piece with the full source and with each word dropped. */
async function rescoreDrops(app, words) {
  const r = app.result;
  const own = { beam: 1, split: false, forcedPrefix: r.targetIds };
  const score = (text) => app.translator.translate(text, app.runOptions(own));
  const base = (await score(words.join(' '))).tokenProbs;
  const dropped = [];
  for (let k = 0; k < words.length; k++)
    dropped.push((await score(ev.withoutWord(words, k))).tokenProbs);
  return { base, dropped };
}

/** One word's row: its label and a bar with its value per measure. */
function wordRow(label, values, scale) {
  return el(
    'div.ev-row',
    { role: 'row', 'data-word': label, ...dataOf(values) },
    el('span.ev-word', { role: 'rowheader', text: label }),
    ...MEASURES.map(([key]) => {
      const v = values[key];
      const width = scale[key] > 0 ? (Math.abs(v) / scale[key]) * 100 : 0;
      return el(
        'span.ev-cell',
        { role: 'cell' },
        el(
          'span.ev-track',
          { 'aria-hidden': 'true' },
          el(`span.ev-bar.ev-${key}${v < 0 ? '.ev-neg' : ''}`, {
            style: `width: ${Math.max(1, width)}%`,
          }),
        ),
        el('span.ev-num', { text: key === 'drop' ? change(v) : v.toFixed(2) }),
      );
    }),
  );
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;
/** A drop as the change it is: a fall of 0.064 reads “−0.064”, a rise “+0.017”. */
const change = (drop) => `${drop > 0 ? '−' : drop < 0 ? '+' : ''}${Math.abs(drop).toFixed(3)}`;
const dataOf = (values) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`data-${k}`, String(v)]));

/**
 * The four measures per word at target piece `row`: this head's weights, the layer's mean, the
 * norm-weighted weights, the probability drops; with the specials' shares ({m, attn, norm}).
 */
function measures(ex, r, d, { wordOf, n, layer, row }) {
  const S = r.sourceTokens.length;
  const alpha = ex.weights.data.slice(row * S, (row + 1) * S);
  const attn = ev.perWord(alpha, wordOf, n);
  const norm = ev.perWord(ev.normWeighted(alpha, ex.valueNorms.data), wordOf, n);
  const mean = ev.perWord(ev.attentionRow(r.attention.cross, layer, 'avg', row), wordOf, n);
  const drop = ev.probDrops(d.base, d.dropped, row);
  return { m: { attn: attn.words, mean: mean.words, norm: norm.words, drop }, attn, norm };
}

/** The table's header and one row per word, each measure's bars scaled to its largest. */
function tableRows(words, m) {
  const scale = Object.fromEntries(MEASURES.map(([k]) => [k, Math.max(...m[k].map(Math.abs))]));
  const header = el(
    'div.ev-row.ev-head',
    { role: 'row' },
    el('span', { role: 'columnheader', text: 'word' }),
    ...MEASURES.map(([, name]) => el('span', { role: 'columnheader', text: name })),
  );
  const at = (k) => Object.fromEntries(MEASURES.map(([key]) => [key, m[key][k]]));
  return [header, ...words.map((w, k) => wordRow(w, at(k), scale))];
}

/** The panel; show(ex, row) after each explanation, row(i) when the followed piece changes. */
export function createEvidencePanel(app, { onRow }) {
  const pieces = el('div.ev-pieces', { role: 'group', 'aria-label': 'Target piece to explain' });
  const status = el('p.note');
  const table = el('div.ev-table', { role: 'table', 'aria-label': 'Evidence per source word' });
  const said = el('p.ev-said', { 'aria-live': 'polite' });
  const element = el(
    'section.evidence',
    {},
    el('h3', { text: 'Attention beside what mattered' }),
    aboutView(el('p.note', { text: ABOUT })),
    el('p.sub', { text: 'Target piece:' }),
    pieces,
    status,
    said,
    table,
  );
  let ex = null;
  let row = 0;
  let drops = null; // {resultId, promise}

  function dropsFor(words) {
    if (drops?.resultId !== app.resultId)
      drops = {
        resultId: app.resultId,
        // why: a failed rescoring is asked again next time, not kept
        promise: rescoreDrops(app, words).catch((err) => {
          drops = null;
          throw err;
        }),
      };
    return drops.promise;
  }

  async function draw() {
    if (!ex || !app.result) return;
    const r = app.result;
    const source = app.doc?.sentences[app.state.sentence]?.source;
    const words = source ? ev.sourceWords(source) : [];
    const { wordOf, labels } = ev.pieceWords(r.sourceTokens);
    for (const [k, b] of [...pieces.children].entries())
      b.setAttribute('aria-pressed', String(k === row));
    if (words.length < 2 || labels.length !== words.length) {
      table.replaceChildren();
      said.textContent = '';
      status.textContent =
        words.length < 2
          ? 'Dropping a word needs a sentence of two words or more.'
          : `The source pieces make ${labels.length} words, the text ${words.length}: this view needs them to match.`;
      return;
    }
    status.textContent = `Rescoring “${r.text}” without each of the ${words.length} words…`;
    const { layer, head } = app.state;
    const want = `${app.resultId}/${layer}/${head}/${row}`;
    let d;
    try {
      d = await dropsFor(words);
    } catch (err) {
      status.textContent = `Could not rescore: ${err?.message ?? err}`;
      return;
    }
    if (want !== `${app.resultId}/${app.state.layer}/${app.state.head}/${row}`) return;
    const { m, attn, norm } = measures(ex, r, d, { wordOf, n: words.length, layer, row });
    table.replaceChildren(...tableRows(words, m));
    const piece = showPiece(r.targetTokens[row]);
    status.textContent =
      `Piece ${row + 1}, “${piece}”: probability ${fmt(d.base[row], 3)} with the whole source. ` +
      `</s> takes ${pct(attn.special)} of this head's weight, ${pct(norm.special)} once weighted by value norms.`;
    said.textContent = ev.agreementText(words, m);
  }

  return {
    element,
    /** Shows the evidence for explanation `ex` (cross-attention only) at target piece `i`. */
    show(next, i) {
      ex = next;
      element.hidden = false;
      if (!ex) {
        pieces.replaceChildren();
        table.replaceChildren();
        said.textContent = '';
        status.textContent =
          'Choose the cross-attention block above: removing a source word is measured on the output pieces.';
        return;
      }
      row = i;
      pieces.replaceChildren(
        ...ex.queryTokens.map((t, k) =>
          el('button.ev-piece', {
            type: 'button',
            text: showPiece(t),
            'aria-pressed': String(k === row),
            title: `Explain piece ${k + 1}`,
            onclick: () => onRow(k),
          }),
        ),
      );
      draw();
    },
    row(i) {
      if (i === row || !ex) return;
      row = i;
      draw();
    },
  };
}
