// The demo's data for "attention beside what mattered" (data/word-evidence.js) and for the
// hypotheses that lost (data/beam-paths.js): words and pieces, per-word sums, the norm-weighted
// row of Kobayashi et al. 2020, Spearman's correlation against values worked by hand, beam paths.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as ev from '../../web/demo/data/word-evidence.js';
import { hypothesisPath, hypothesisIds, rowGap } from '../../web/demo/data/beam-paths.js';
import { assertClose } from './helpers.mjs';

test('a word is dropped from the whitespace-separated text', () => {
  const words = ev.sourceWords('  The cat\tsleeps  on the sofa. ');
  assert.deepEqual(words, ['The', 'cat', 'sleeps', 'on', 'the', 'sofa.']);
  assert.equal(ev.withoutWord(words, 1), 'The sleeps on the sofa.');
  assert.equal(ev.withoutWord(words, 5), 'The cat sleeps on the');
});

test('pieces join the word they continue, and </s> belongs to none', () => {
  const tokens = ['▁The', '▁cat', 's', '▁sle', 'eps', '.', '</s>'];
  const { wordOf, labels } = ev.pieceWords(tokens);
  assert.deepEqual(wordOf, [0, 1, 1, 2, 2, 2, -1]);
  assert.deepEqual(labels, ['The', 'cats', 'sleeps.']);
  const { words, special } = ev.perWord([0.1, 0.2, 0.05, 0.15, 0.1, 0.1, 0.3], wordOf, 3);
  assertClose(words, [0.1, 0.25, 0.35], 1e-12, 'per word');
  assertClose([special], [0.3], 1e-12, 'special');
});

test('the norm-weighted row is α·‖f(x)‖ rescaled to sum to 1', () => {
  // α = (0.5, 0.25, 0.25), norms (1, 2, 6): products 0.5, 0.5, 1.5 of 2.5
  assertClose(ev.normWeighted([0.5, 0.25, 0.25], [1, 2, 6]), [0.2, 0.2, 0.6], 1e-12, 'norm');
  assert.deepEqual(ev.normWeighted([0, 0], [1, 1]), [0, 0]);
});

test('a row of one head, or the mean of a layer’s heads', () => {
  // [L=2][H=2][T=2][S=3], value = 1000 l + 100 h + 10 t + s
  const data = [];
  for (let l = 0; l < 2; l++)
    for (let h = 0; h < 2; h++)
      for (let t = 0; t < 2; t++)
        for (let s = 0; s < 3; s++) data.push(1000 * l + 100 * h + 10 * t + s);
  const tensor = { shape: [2, 2, 2, 3], data: new Float32Array(data) };
  assert.deepEqual(ev.attentionRow(tensor, 1, 1, 1), [1110, 1111, 1112]);
  assert.deepEqual(ev.attentionRow(tensor, 1, 'avg', 0), [1050, 1051, 1052]);
});

test('probability drops are the full source’s probability less each dropped one’s', () => {
  const drops = ev.probDrops(
    [0.9, 0.8],
    [
      [0.9, 0.2],
      [0.5, 0.9],
    ],
    1,
  );
  assertClose(drops, [0.6, -0.1], 1e-12, 'drops');
});

test('Spearman’s rank correlation, ties sharing their mean rank', () => {
  assert.equal(ev.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1);
  assert.equal(ev.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
  // ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4), worked longhand: 4.5 / √(4.5 · 5)
  assertClose([ev.spearman([1, 2, 2, 3], [5, 7, 6, 9])], [0.9486832980505138], 1e-12, 'ties');
  assert.ok(Number.isNaN(ev.spearman([1], [1])));
  assert.ok(Number.isNaN(ev.spearman([1, 1, 1], [1, 2, 3])));
});

test('the agreement sentence names each top word, and agreement when there is one', () => {
  const words = ['The', 'cat', 'sleeps'];
  const agree = ev.agreementText(words, {
    attn: [0.1, 0.7, 0.2],
    norm: [0.1, 0.8, 0.1],
    drop: [0.01, 0.5, 0.1],
  });
  assert.match(agree, /^All three agree: attention's top word “cat”/);
  assert.match(agree, /raw attention 1\.00, norm-weighted 0\.87/);
  const split = ev.agreementText(words, {
    attn: [0.6, 0.3, 0.1],
    norm: [0.2, 0.7, 0.1],
    drop: [-0.1, 0.05, 0.4],
  });
  assert.match(
    split,
    /^Attention's top word is “The”, weighted by value norms “cat”; removing “sleeps” hurts it most/,
  );
  const none = ev.agreementText(words, { attn: [1, 0, 0], norm: [1, 0, 0], drop: [0, -0.1, -0.2] });
  assert.match(none, /removing no single word lowers it/);
});

test('a hypothesis is its path of parents, and its forced prefix their tokens', () => {
  const node = (token, parent, finished = false) => ({
    token,
    piece: `p${token}`,
    parent,
    finished,
  });
  const beam = [
    [node(5, -1), node(6, -1)],
    [node(7, 1), node(8, 0), node(2, 0, true)],
    [node(9, 1), node(10, 0)],
  ];
  assert.deepEqual(hypothesisPath(beam, 2, 0), [0, 1, 0]);
  assert.deepEqual(hypothesisPath(beam, 2, 1), [1, 0, 1]);
  assert.deepEqual(hypothesisIds(beam, 2, 1), { ids: [6, 7, 10], pieces: ['p6', 'p7', 'p10'] });
  assert.deepEqual(hypothesisIds(beam, 1, 2).ids, [5, 2]);
  assert.deepEqual(hypothesisIds(beam, 0, 1).ids, [6]);
});

test('two rows differ by their total variation, most at one key', () => {
  const g = rowGap([0.7, 0.2, 0.1], [0.1, 0.3, 0.6]);
  assertClose([g.tv], [0.6], 1e-12, 'tv');
  assert.equal(g.at, 0);
  assert.equal(rowGap([0.5, 0.5], [0.5, 0.5]).tv, 0);
});
