// Paragraphs and documents: translate() splits a text into sentences, translates each, joins
// them with the text's own whitespace, reports per-sentence results and traces and any
// translation cut at the length limit; the worker and the native CLI agree.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { loadTranslator } from 'heed';
import { spawnTranslator } from 'heed/worker';
import { ROOT, nativeCli, rejectsWith } from './helpers.mjs';

const MODEL = path.join(ROOT, 'models', 'en-fr.heed');
const PARAGRAPHS =
  'This package contains the development files. It is needed to build programs.\n\n' +
  'The server starts in the background! Dr. Smith reads the configuration file.\n' +
  'A simple text editor';
const SENTENCES = [
  'This package contains the development files.',
  'It is needed to build programs.',
  'The server starts in the background!',
  'Dr. Smith reads the configuration file.',
  'A simple text editor',
];

describe('paragraphs', () => {
  let t;
  before(async () => (t = await loadTranslator({ model: MODEL })));
  after(() => t.dispose());

  test('every sentence is translated and the text keeps its own line breaks', async () => {
    const r = await t.translate(PARAGRAPHS, { attention: true });
    assert.deepEqual(
      r.sentences.map((s) => s.source),
      SENTENCES,
    );
    for (const s of r.sentences) {
      assert.equal(PARAGRAPHS.slice(s.start, s.end), s.source);
      const alone = await t.translate(s.source, { attention: true });
      assert.deepEqual(s.targetIds, alone.targetIds, s.source);
      assert.equal(s.text, alone.text);
      assert.deepEqual(s.attention.cross.shape, alone.attention.cross.shape);
      assert.equal(s.truncated, false);
    }
    const [a, b, c, d, e] = r.sentences.map((s) => s.text);
    assert.equal(r.text, `${a} ${b}\n\n${c} ${d}\n${e}`);
    assert.equal(r.attention, undefined, 'no one trace spans several sentences');
    assert.deepEqual(
      r.targetIds,
      r.sentences.flatMap((s) => s.targetIds),
    );
    assert.equal(r.sourceTokens.filter((p) => p === '</s>').length, 5);
    assert.equal(r.truncated, false);
  });

  test('a text longer than one sentence may be (250 pieces) is no longer refused', async () => {
    const long = Array(40).fill('The server reads the configuration file.').join(' ');
    await rejectsWith(t.translate(long, { split: false }), 'BAD_INPUT', /too long|pieces/);
    const r = await t.translate(long);
    assert.equal(r.sentences.length, 40);
    assert.equal(new Set(r.sentences.map((s) => s.text)).size, 1);
  });

  test('one sentence: its own fields at the top level, and sentences[0] the same', async () => {
    const r = await t.translate('  A simple text editor  ', { attention: true });
    assert.equal(r.sentences.length, 1);
    assert.equal(r.sentences[0].source, 'A simple text editor');
    assert.equal(r.sentences[0].start, 2);
    assert.deepEqual(r.targetIds, r.sentences[0].targetIds);
    assert.ok(r.attention);
  });

  test('split: false keeps the text one sequence', async () => {
    const r = await t.translate('It starts. It stops.', { split: false });
    assert.equal(r.sentences.length, 1);
    assert.equal(r.sourceTokens.filter((p) => p === '</s>').length, 1);
    await rejectsWith(t.translate('x', { split: 'no' }), 'BAD_INPUT', /options\.split/);
  });

  test('a translation cut at the length limit says so', async () => {
    const r = await t.translate('It starts. This package contains the development files.', {
      maxLength: 4,
    });
    assert.equal(r.sentences[0].truncated, false, '"It starts." ends within 4 pieces');
    assert.equal(r.sentences[1].truncated, true);
    assert.equal(r.truncated, true);
    assert.notEqual(r.sentences[1].targetTokens.at(-1), '</s>');
  });

  test('step events name the sentence; every sentence streams in turn', async () => {
    const seen = [];
    const r = await t.translate(SENTENCES.slice(0, 3).join(' '), {
      onStep: (e) => seen.push([e.sentence, e.sentences, e.token]),
    });
    assert.deepEqual([...new Set(seen.map(([i]) => i))], [0, 1, 2]);
    assert.ok(seen.every(([, n]) => n === 3));
    for (let i = 0; i < 3; i++)
      assert.deepEqual(
        seen.filter(([k]) => k === i).map(([, , tok]) => tok),
        r.sentences[i].targetTokens,
      );
  });

  test('a batch splits each text; a refused sentence names itself', async () => {
    const [two, one] = await t.translate([SENTENCES.slice(0, 2).join(' '), SENTENCES[4]]);
    assert.equal(two.sentences.length, 2);
    assert.equal(one.sentences.length, 1);
    const huge = `Word ${'word '.repeat(300).trim()}`;
    const [bad, fine] = await t.translate([`Fine. ${huge}.`, 'Fine.']);
    assert.match(bad.error.message, /^sentence 2 of 2: /);
    assert.equal(fine.sentences.length, 1);
    await rejectsWith(t.translate(`Fine. ${huge}.`), 'BAD_INPUT', /^sentence 2 of 2: /);
  });

  test('explainHead takes one sentence of a paragraph', async () => {
    const r = await t.translate(PARAGRAPHS);
    const where = { block: 'cross', layer: 0, head: 0 };
    await rejectsWith(t.explainHead(r, where), 'BAD_INPUT', /result\.sentences\[i\]/);
    const e = await t.explainHead(r.sentences[3], where);
    assert.deepEqual(e.keyTokens, r.sentences[3].sourceTokens);
  });

  test('the worker gives the same paragraph result', async () => {
    const w = await spawnTranslator({ model: MODEL });
    try {
      const got = await w.translate(PARAGRAPHS, { attention: true });
      const want = await t.translate(PARAGRAPHS, { attention: true });
      assert.equal(got.text, want.text);
      assert.deepEqual(
        got.sentences.map((s) => [s.start, s.end, s.targetIds]),
        want.sentences.map((s) => [s.start, s.end, s.targetIds]),
      );
      assert.deepEqual(
        got.sentences[2].attention.cross.data,
        want.sentences[2].attention.cross.data,
      );
    } finally {
      w.dispose();
    }
  });

  test(
    'the native CLI splits the same way',
    { skip: !nativeCli() && 'CLI not built' },
    async () => {
      const line = PARAGRAPHS.replace(/\n+/g, ' ');
      const out = execFileSync(nativeCli(), ['translate', '-m', MODEL, '--', line], {
        encoding: 'utf8',
      });
      assert.equal(out, `${(await t.translate(line)).text}\n`);
    },
  );
});
