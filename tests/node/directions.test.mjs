// Directions through the package's public exports: info.directions, and options.to starting the
// decoder with that target's token, with the ids PyTorch's greedy decoder gives for the same
// weights (tests/data/multi_goldens.json, models/goldens/make_multi_fixture.py); in the worker too.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { loadTranslator } from 'heed';
import { spawnTranslator } from 'heed/worker';
import { DATA, ROOT, assertClose, readJson, rejectsWith } from './helpers.mjs';

const MULTI = path.join(ROOT, 'models', 'tiny', 'tiny-multi.heed');
const GOLDENS = readJson(path.join(DATA, 'multi_goldens.json'));

for (const [where, open] of [
  ['calling thread', (model) => loadTranslator({ model })],
  ['worker', (model) => spawnTranslator({ model })],
]) {
  describe(`directions (${where})`, () => {
    let t;
    before(async () => {
      t = await open(MULTI);
    });
    after(() => t.dispose());

    test('info lists every direction, the default first', () => {
      assert.deepEqual(t.info.directions, ['en-fr', 'en-de']);
    });

    test('options.to picks the target; each matches PyTorch greedy', async () => {
      for (const c of GOLDENS.cases)
        for (const lang of ['fr', 'de']) {
          const r = await t.translate(c.text, { to: lang, maxLength: GOLDENS.max_length });
          assert.deepEqual(r.targetIds, c[lang], `${c.text} → ${lang}`);
        }
    });

    test('the result names its target; explainHead re-runs from that target', async () => {
      const r = await t.translate(GOLDENS.cases[0].text, {
        to: 'de',
        attention: true,
        maxLength: GOLDENS.max_length,
      });
      assert.equal(r.to, 'de');
      const [, , T, S] = r.attention.cross.shape;
      const e = await t.explainHead(r, { block: 'cross', layer: 0, head: 0 });
      assertClose(e.weights.data, Array.from(r.attention.cross.data.subarray(0, T * S)), 1e-4);
      const d = await t.explainHead(r, { block: 'decoder', layer: 0, head: 0 });
      assert.equal(d.keyTokens[0], GOLDENS.languages.target_tokens.de, 'keys start with its token');
      assert.equal((await t.translate('hello')).to, 'fr');
    });

    test('no target means the first direction', async () => {
      const c = GOLDENS.cases[0];
      const r = await t.translate(c.text, { maxLength: GOLDENS.max_length });
      assert.deepEqual(r.targetIds, c.fr);
    });

    test('a target the model lacks, or not a string, is BAD_INPUT naming it', async () => {
      await rejectsWith(t.translate('hello', { to: 'es' }), 'BAD_INPUT', /'es'.*en-fr, en-de/);
      await rejectsWith(t.translate('hello', { to: 5 }), 'BAD_INPUT', /options\.to/);
    });
  });
}
