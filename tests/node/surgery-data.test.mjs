// The Surgery view's pure helpers (web/demo/data/chrf.js, web/demo/data/surgery-data.js): chrF against
// the project's own models/pipeline/metrics.py (Popović 2015, orders 1..6, β = 2), the piece diff, the URL form
// of an ablation list, the head ranking, and the shuffled-source permutation check.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { chrf } from '../../web/demo/data/chrf.js';
import {
  formatAblate,
  parseAblate,
  toggleHead,
  pieceDiff,
  shuffleWords,
  piecePermutation,
  permutedMaxDiff,
  unpermute,
  rankHeads,
  logProb,
  surgeryInput,
  interventionsOf,
} from '../../web/demo/data/surgery-data.js';
import { runOptions } from '../../web/demo/data/run-options.js';

const PYTHON = '/usr/bin/python3';
// values printed by models/pipeline/metrics.py corpus_chrf([h], [r]) for one pair
const PAIRS = [
  [
    'Ce paquet fournit la documentation pour la bibliothèque.',
    'Ce paquet contient la documentation de la bibliothèque.',
    69.64165680319913,
  ],
  ['the cat sat on the mat', 'the cat sat on the mat', 100],
  ['abc', 'abcdefgh', 32.250580046403705],
  [
    'Après de cecut de suppéction de s',
    'bibliothèque de poseutrétrée de données de suple',
    17.43064412231525,
  ],
  ['a', 'b', 0],
  ['xyz xyz', 'zyx', 27.777777777777775],
];

describe('chrF', () => {
  test('equals metrics.py on fixed pairs', () => {
    for (const [h, r, want] of PAIRS) assert.ok(Math.abs(chrf(h, r) - want) < 1e-9, `${h} | ${r}`);
  });

  test('ignores whitespace, weights recall twice (β = 2), handles empty strings', () => {
    assert.equal(chrf('a b c', 'abc'), 100);
    // a hypothesis missing characters (low recall) scores below one with extra characters
    assert.ok(chrf('abcd', 'abcdefgh') < chrf('abcdefgh', 'abcd'));
    assert.equal(chrf('', ''), 100);
    assert.equal(chrf('', 'abc'), 0);
    assert.equal(chrf('😀é', '😀é'), 100);
  });

  test(
    'equals metrics.py run live on random strings',
    { skip: !existsSync(PYTHON) && `no ${PYTHON}` },
    () => {
      let s = 7;
      const rand = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
      const word = () =>
        Array.from(
          { length: 1 + Math.floor(rand() * 6) },
          () => 'abcdeéf'[Math.floor(rand() * 7)],
        ).join('');
      const pairs = Array.from({ length: 40 }, () => [
        Array.from({ length: 1 + Math.floor(rand() * 6) }, word).join(' '),
        Array.from({ length: 1 + Math.floor(rand() * 6) }, word).join(' '),
      ]);
      const script =
        'import json, sys; sys.path.insert(0, sys.argv[1]); from metrics import corpus_chrf\n' +
        'print(json.dumps([corpus_chrf([h], [r]) for h, r in json.load(sys.stdin)]))';
      const want = JSON.parse(
        execFileSync(PYTHON, ['-c', script, path.join(ROOT, 'models', 'pipeline')], {
          input: JSON.stringify(pairs),
        }).toString(),
      );
      pairs.forEach(([h, r], i) =>
        assert.ok(
          Math.abs(chrf(h, r) - want[i]) < 1e-9,
          `${h} | ${r}: ${chrf(h, r)} vs ${want[i]}`,
        ),
      );
    },
  );
});

describe('surgery helpers', () => {
  test('ablation list round-trips through the URL form; bad items are dropped', () => {
    const list = [
      { block: 'encoder', layer: 0, head: 1 },
      { block: 'cross', layer: 3, head: 2 },
      { block: 'decoder', layer: 1, head: 0 },
    ];
    assert.equal(formatAblate(list), 'e0.1_c3.2_d1.0');
    assert.deepEqual(parseAblate(formatAblate(list)), list);
    assert.deepEqual(parseAblate('x1.2_e0.1_e0.1_c.3_'), [{ block: 'encoder', layer: 0, head: 1 }]);
    assert.deepEqual(toggleHead(list, 'cross', 3, 2), [list[0], list[2]]);
    assert.equal(toggleHead([], 'cross', 0, 0).length, 1);
  });

  test('piece diff marks shared and changed pieces', () => {
    const d = pieceDiff(
      ['▁Ce', '▁paquet', '▁fournit', '▁la'],
      ['▁Ce', '▁paquet', '▁contient', '▁la'],
    );
    assert.deepEqual(d.a, [true, true, false, true]);
    assert.deepEqual(d.b, [true, true, false, true]);
    assert.equal(d.common, 3);
    assert.deepEqual(pieceDiff([], ['a']).b, [false]);
  });

  test('head ranking: chrF drop first, then the larger log-probability change', () => {
    const ranked = rankHeads([
      { id: 'a', drop: 0, logProbChange: -0.5, confidenceChange: -0.3 },
      { id: 'b', drop: 0, logProbChange: -2.5, confidenceChange: 0 },
      { id: 'c', drop: 10, logProbChange: 0.1, confidenceChange: 0 },
      { id: 'd', drop: 30, logProbChange: 0, confidenceChange: 0 },
    ]);
    assert.deepEqual(
      ranked.map((r) => r.id),
      ['d', 'c', 'b', 'a'],
    );
    assert.ok(Math.abs(logProb([0.5, 0.25]) - Math.log(0.125)) < 1e-12);
  });

  test('a word shuffle is seeded, never the identity, and implies a piece permutation', () => {
    const text = 'This package contains the documentation for the library.';
    const a = shuffleWords(text, 3);
    assert.deepEqual(a, shuffleWords(text, 3));
    assert.notEqual(a.text, text);
    assert.deepEqual(
      [...a.order].sort(),
      a.words.map((_, i) => i),
    );
    assert.equal(shuffleWords('same same', 1).text, 'same same');
    const orig = ['▁Thi', 's', '▁package', '▁contains', '</s>'];
    // words: [This, package, contains] -> order [2, 0, 1]
    const shuf = ['▁contains', '▁Thi', 's', '▁package', '</s>'];
    assert.deepEqual(piecePermutation(orig, shuf, [2, 0, 1]), [3, 0, 1, 2, 4]);
    assert.equal(piecePermutation(orig, ['▁contain', 's', '▁Thi', 's', '</s>'], [2, 0, 1]), null);
  });

  test('permuted attention: exact permutation gives 0, unpermute restores the original', () => {
    const S = 3;
    const p = [2, 0, 1];
    const orig = Float32Array.from({ length: S * S }, (_, i) => i / 10);
    const shuf = new Float32Array(S * S);
    for (let i = 0; i < S; i++) for (let j = 0; j < S; j++) shuf[i * S + j] = orig[p[i] * S + p[j]];
    const t = (data) => ({ shape: [1, 1, S, S], data });
    assert.equal(permutedMaxDiff(t(orig), t(shuf), p), 0);
    assert.deepEqual(unpermute(shuf, S, p), orig);
    assert.ok(permutedMaxDiff(t(orig), t(orig), p) > 0.1);
  });

  test('the surgery re-translates the shown sentence and forces what a what-if forced', () => {
    // one sentence of a paragraph names its source
    assert.deepEqual(surgeryInput({ source: 'C d.' }, 'A b. C d.'), { text: 'C d.', forced: [] });
    // a one-sentence text: the result is the whole text's, its one sentence names the source
    assert.deepEqual(surgeryInput({ sentences: [{ source: 'A b.' }] }, ' A b.\n'), {
      text: 'A b.',
      forced: [],
    });
    // a "what if" run: the pieces up to its forced step are forced again
    const whatIf = { source: 'A b.', targetIds: [5, 6, 7, 3], whatIf: { step: 1 } };
    assert.deepEqual(surgeryInput(whatIf, 'A b.').forced, [5, 6]);
  });

  test('every run takes the page options: beam, max pieces, target language, shortlist', () => {
    const page = { state: { beam: 4, maxlen: 0 }, entry: { id: 'x' }, shortlist: false };
    assert.deepEqual(runOptions(page), { beam: 4 });
    assert.deepEqual(runOptions(page, { attention: true, forcedPrefix: [] }), {
      beam: 4,
      attention: true,
    });
    const multi = { state: { beam: 1, maxlen: 12 }, entry: { to: 'de' }, shortlist: true };
    assert.deepEqual(runOptions(multi, { split: false }), {
      beam: 1,
      maxLength: 12,
      to: 'de',
      shortlist: true,
      split: false,
    });
    // forced pieces leave room for one more under a max-pieces limit; a run's own option wins
    const cut = { state: { beam: 4, maxlen: 1 }, entry: null };
    assert.deepEqual(runOptions(cut, { forcedPrefix: [5, 6], beam: 1 }), {
      beam: 1,
      maxLength: 3,
      forcedPrefix: [5, 6],
    });
  });

  test("the state's surgery as interventions: only what differs from none, known heads only", () => {
    const result = {
      attention: {
        encoderSelf: { shape: [2, 4] },
        decoderSelf: { shape: [1, 4] },
        cross: { shape: [1, 4] },
      },
    };
    const none = {
      ablate: '',
      amean: false,
      temp: 1,
      win: -1,
      nopos: false,
      sparse: false,
      lin: 'none',
    };
    assert.deepEqual(interventionsOf(none, result), {});
    const s = { ...none, ablate: 'e1.3_d5.0', amean: true, win: 2, lin: 'favor', feat: 64 };
    assert.deepEqual(interventionsOf(s, result), {
      ablate: [{ block: 'encoder', layer: 1, head: 3, mean: true }],
      window: 2,
      linear: { kind: 'favor', features: 64, seed: 1 },
    });
  });
});
