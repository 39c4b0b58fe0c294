// "What if": re-decodes the shown sentence with the pieces before a step kept and another
// candidate forced at that step; every view then shows that run, and the output shows its
// translation in place of the model's own (one click brings that back: App.undoWhatIf).

import { announce } from '../widgets/ui.js';
import { page } from './page.js';
import { showMessage } from './status.js';
import { showOutput, showFindings } from './translation.js';

/** The text as the output shows it with sentence k's translation replaced by the what-if run's. */
function withWhatIf(doc, k, shown, r) {
  if (doc.sentences.length === 1) return { ...shown, sentences: [shown] };
  return {
    ...doc,
    text: doc.sentences.map((s, i) => (i === k ? r.text : s.text)).join(' '),
    sentences: doc.sentences.map((s, i) => (i === k ? { ...s, ...r } : s)),
  };
}

/** Forces candidate `cand` at `step` of the shown sentence and decodes the rest. */
export async function runWhatIf(app, step, cand) {
  const own = app.result.whatIf?.original ?? app.result;
  const prefix = [...app.result.targetIds.slice(0, step), cand.id];
  document.documentElement.dataset.heed = 'translating';
  try {
    const k = app.state.sentence;
    const doc = app.doc;
    const r = await app.translator.translate(
      doc.sentences[k].source,
      app.runOptions({ attention: true, topK: 5, split: false, forcedPrefix: prefix }),
    );
    const was = app.result.targetTokens[step];
    const whatIf = { step, piece: cand.piece, was, prob: cand.prob, original: own };
    app.newResult({ ...r, whatIf: { ...whatIf, originalText: own.text } });
    const shown = withWhatIf(doc, k, app.result, r);
    showOutput(shown, app.resultText, k, (s, i) => (s === k ? app.jumpToStep(i) : null));
    page().output.classList.add('whatif-run');
    showFindings(app.result, doc.sentences.length === 1 ? null : k, (i) => app.jumpToStep(i));
    app.set({ view: 'timeline', step: step + 1 });
    announce(`What if: step ${step + 1} forced to ${cand.piece}. New translation: ${r.text}`);
    document.documentElement.dataset.heed = 'what-if';
  } catch (err) {
    showMessage(`The what-if run failed: ${err?.message ?? err}`);
    document.documentElement.dataset.heed = 'translate-failed';
  }
}
