// The shuffled-source experiment of the Surgery view: translates the sentence and a seeded
// shuffle of its words, without positions and with them, and checks whether the shuffled run's
// encoder self-attention is the original's with rows and columns permuted (Vaswani et al. 2017
// §3.5: attention alone has no notion of order). The seed is in the URL (state.shuf).

import { el, fmt } from '../../widgets/ui.js';
import { MatrixView } from '../../widgets/matrix-view.js';
import { headMatrix } from '../../data/attention-data.js';
import { headLabel } from '../../data/blocks.js';
import {
  shuffleWords,
  piecePermutation,
  permutedMaxDiff,
  unpermute,
  absDiff,
  surgeryInput,
} from '../../data/surgery-data.js';

const ABOUT =
  'Without the position signal self-attention cannot tell word order: shuffle the source words and every attention weight of the encoder stays the same, only moved with its words. The check re-orders the shuffled run’s encoder self-attention back and takes the largest difference from the original over every layer and head. The engine does not expose the encoder’s hidden states, so the check is made on these attention weights (rows and columns permuted); the maps show the layer and head chosen above.';
const PERMUTATION_OK = 1e-4; // why: the same sums in another order differ in the last bits only

/**
 * The four runs of the check on the shown sentence with the shuffle of `seed`: the original
 * and the shuffled text, each without positions and with them, and what the encoder's
 * self-attention of the shuffled runs is once re-ordered back (p: null when the shuffled text
 * did not cut into the same pieces word for word).
 */
async function shuffleRuns(app, seed, signal) {
  const text = surgeryInput(app.result, app.resultText).text;
  const words = shuffleWords(text, seed);
  const go = (t, noPositions) =>
    app.translator.translate(
      t,
      app.runOptions({
        split: false,
        attention: true,
        interventions: noPositions ? { noPositions: true } : {},
        signal,
      }),
    );
  // why: one after another: the worker runs its calls in order anyway
  const orig = await go(text, true);
  const shuf = await go(words.text, true);
  const pos = await go(text, false);
  const posShuf = await go(words.text, false);
  const p = piecePermutation(orig.sourceTokens, shuf.sourceTokens, words.order);
  const out = { words, orig, shuf, pos, posShuf, p };
  if (p) {
    out.diffNoPos = permutedMaxDiff(orig.attention.encoderSelf, shuf.attention.encoderSelf, p);
    out.diffPos = permutedMaxDiff(pos.attention.encoderSelf, posShuf.attention.encoderSelf, p);
  }
  return out;
}

/** Whether each shuffled run's attention is the original's permuted (rounding aside). */
function verdictsOf(s) {
  return { noPos: s.diffNoPos < PERMUTATION_OK, pos: s.diffPos < PERMUTATION_OK };
}

/**
 * One check's verdict line. why: with positions the attention is expected NOT to be a
 * permutation; that outcome is the check passing, so it is marked as expected (green), not as
 * a failure (red).
 */
function verdict(check, ok, text) {
  const expected = check === 'nopos' ? ok : !ok;
  const what = ok ? 'a permutation' : 'not a permutation';
  return el(
    'p.sg-verdict',
    { 'data-check': check, 'data-ok': String(ok), 'data-expected': String(expected) },
    el('strong', {
      text: `${expected ? '✓' : '✗'} ${what}${expected ? ', as expected' : ', unexpectedly'}`,
    }),
    text,
  );
}

/** What the check found, as lines: the shuffled source, both verdicts, the translations. */
function verdictLines(s, ok) {
  const [L, H] = s.orig.attention.encoderSelf.shape;
  return [
    el(
      'p',
      {},
      el('span.io-label', { text: 'Shuffled source' }),
      el('span.sg-src', { text: s.words.text }),
    ),
    verdict(
      'nopos',
      ok.noPos,
      ` — no positions: largest |difference| after re-ordering ${fmt(s.diffNoPos, 4)} over ${L} layers × ${H} heads${ok.noPos ? ' (≈ 0: rounding only)' : ''}.`,
    ),
    verdict(
      'pos',
      ok.pos,
      ` — with positions: largest |difference| ${fmt(s.diffPos, 4)}${ok.pos ? '' : ': the position signal makes attention depend on where a word stands'}.`,
    ),
    el('p.note', {
      text:
        s.shuf.text === s.orig.text
          ? `Without positions the shuffled source even translates the same: “${s.shuf.text}” (cross-attention sums over the source pieces as a set).`
          : `Without positions the shuffled source translates as “${s.shuf.text}”, the original order as “${s.orig.text}”: the decoder still reads its own pieces in order.`,
    }),
  ];
}

/** The chosen layer and head of the encoder in every run, the shuffled ones re-ordered back. */
function drawMaps(app, maps, s) {
  const [L, H] = s.orig.attention.encoderSelf.shape;
  const S = s.orig.sourceTokens.length;
  const layer = Math.min(app.state.layer, L - 1);
  // why: a number, or 'avg' / 'rollout' (a mean and a product of attention matrices: both
  // permute with the words as well)
  const head = Number.isInteger(app.state.head) ? Math.min(app.state.head, H - 1) : app.state.head;
  const label = `layer ${layer + 1} · ${headLabel(head, layer)}`;
  const m = (r) => headMatrix(r, 'encoder', layer, head);
  const reordered = (orig, shuf) => ({ ...orig, values: unpermute(shuf.values, S, s.p) });
  const o = m(s.orig);
  const back = reordered(o, m(s.shuf));
  maps.orig.set(o, { subtitle: label });
  maps.shuf.set(m(s.shuf), { subtitle: label });
  maps.back.set(back, {
    subtitle: `${label} · max |Δ| ${fmt(absDiff(o.values, back.values).max, 4)}`,
  });
  const po = m(s.pos);
  const pb = reordered(po, m(s.posShuf));
  maps.posOrig.set(po, { subtitle: label });
  maps.posBack.set(pb, {
    subtitle: `${label} · max |Δ| ${fmt(absDiff(po.values, pb.values).max, 4)}`,
  });
}

/** The five maps of the check; `exportOf(mv, slug)` makes a focused one the export target. */
function shuffleMaps(app, exportOf) {
  const map = (title, slug) => {
    const mv = new MatrixView({
      title,
      domain: 'zeroMax',
      rowAxis: 'source (query)',
      colAxis: 'source (key)',
      maxCell: 20,
      values: false,
      onFocus: () => app.setActive(exportOf(mv, slug)),
    });
    return mv;
  };
  return {
    orig: map('No positions: original order', 'nopos-original'),
    shuf: map('No positions: shuffled source', 'nopos-shuffled'),
    back: map('No positions: shuffled, re-ordered back', 'nopos-reordered'),
    posOrig: map('With positions: original order', 'pos-original'),
    posBack: map('With positions: shuffled, re-ordered back', 'pos-reordered'),
  };
}

/**
 * The experiment's section. `baseKey()` names the current unmodified run; `exportOf(mv, slug)`
 * makes a map the export target when it is focused.
 */
export function createShuffleCheck(app, baseKey, exportOf) {
  const startBtn = el(
    'button',
    { type: 'button', id: 'sg-shuffle' },
    'Shuffle the words and compare',
  );
  const againBtn = el(
    'button',
    { type: 'button', id: 'sg-reshuffle', hidden: true },
    'Another shuffle',
  );
  const verdicts = el('div.sg-verdicts', { role: 'status', 'aria-live': 'polite' });
  const maps = shuffleMaps(app, exportOf);
  const grid = el(
    'div.sg-shufmaps',
    { hidden: true },
    ...Object.values(maps).map((m) => m.element),
  );
  const node = el(
    'section.sg-shuffle',
    { 'aria-labelledby': 'sg-shuffle-h' },
    el('h3#sg-shuffle-h', { text: 'Shuffled source without positions' }),
    el('p.note', { text: ABOUT }),
    el('div.row', {}, startBtn, againBtn),
    verdicts,
    grid,
  );
  startBtn.addEventListener('click', () => app.set({ shuf: app.state.shuf || 1 }));
  againBtn.addEventListener('click', () => app.set({ shuf: app.state.shuf + 1 }));

  let run = null; // {key, running, words, orig, shuf, pos, posShuf, p, diffNoPos, diffPos, error}
  let ctrl = null;
  let drawn = '';

  async function start() {
    const key = `${baseKey()}|${app.state.shuf}`;
    ctrl?.abort();
    const mine = new AbortController();
    ctrl = mine;
    run = { key, running: true };
    drawn = '';
    node.dataset.shuffle = 'running';
    verdicts.replaceChildren(
      el('p.note', { text: 'Translating the shuffled source with and without positions…' }),
    );
    let next;
    try {
      next = { key, running: false, ...(await shuffleRuns(app, app.state.shuf, mine.signal)) };
    } catch (err) {
      if (mine.signal.aborted || err?.code === 'ABORTED') return;
      next = { key, running: false, error: err };
    } finally {
      if (ctrl === mine) ctrl = null;
    }
    if (mine.signal.aborted) return;
    run = next;
    if (app.state.view === 'surgery') draw();
  }

  function say(cls, text) {
    verdicts.replaceChildren(el(`p.note${cls}`, { text }));
    grid.hidden = true;
  }

  function draw() {
    const s = run;
    againBtn.hidden = !app.state.shuf;
    if (!s || !app.state.shuf) {
      verdicts.replaceChildren();
      grid.hidden = true;
      delete node.dataset.shuffle;
      drawn = '';
      return;
    }
    if (s.running) return;
    const key = `${s.key}|${app.state.layer}|${app.state.head}`;
    if (key === drawn) return; // why: re-filling the live region would announce it again
    drawn = key;
    if (s.error) {
      node.dataset.shuffle = 'failed';
      return say('.warn', `The experiment failed: ${s.error.message ?? s.error}`);
    }
    if (!s.p) {
      node.dataset.shuffle = 'untokenizable';
      return say(
        '.warn',
        `“${s.words.text}” was not cut into the same pieces word for word, so the runs cannot be compared piece by piece. Try another shuffle.`,
      );
    }
    const ok = verdictsOf(s);
    node.dataset.shuffle = ok.noPos && !ok.pos ? 'pass' : 'fail';
    verdicts.replaceChildren(...verdictLines(s, ok));
    grid.hidden = false;
    drawMaps(app, maps, s);
  }

  /** Starts the experiment when the URL asks for a shuffle not yet run; else redraws. */
  function render() {
    if (app.state.shuf && run?.key !== `${baseKey()}|${app.state.shuf}`) start();
    else draw();
  }

  return {
    node,
    render,
    /** What the check found (null before a run), for the export. */
    summary: () =>
      run && !run.running && run.p !== undefined
        ? {
            seed: app.state.shuf,
            shuffled: run.words.text,
            permutation: run.p,
            maxDiffNoPositions: run.diffNoPos ?? null,
            maxDiffWithPositions: run.diffPos ?? null,
          }
        : null,
  };
}
