// Attention surgery through the package (options.interventions): the WASM engine gives the same
// ids as the native CLI's flags for the same surgery, the result says how it was made, and every
// bad specification is BAD_INPUT naming the field; in the worker too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { loadTranslator } from 'heed';
import { spawnTranslator } from 'heed/worker';
import { TINY, nativeCli, rejectsWith } from './helpers.mjs';

const refuses = (promise, pattern) => rejectsWith(promise, 'BAD_INPUT', pattern);

const TEXT = 'A simple text editor';
const CASES = [
  [{ window: 0 }, ['--window', '0']],
  [{ temperature: 0.5 }, ['--temperature', '0.5']],
  [{ noPositions: true }, ['--no-positions']],
  [{ ablate: [{ block: 'cross', layer: 0, head: 1 }] }, ['--ablate', 'cross:0:1']],
  [{ ablate: [{ block: 'encoder', layer: 1, head: 0, mean: true }] }, ['--ablate', 'enc:1:0:mean']],
];

const cliIds = (flags) =>
  execFileSync(nativeCli(), [
    'translate',
    '-m',
    TINY,
    '--max-length',
    '20',
    '--ids',
    ...flags,
    TEXT,
  ])
    .toString()
    .split('\t')[1]
    .trim()
    .split(' ')
    .map(Number);

for (const [where, open] of [
  ['calling thread', (model) => loadTranslator({ model })],
  ['worker', (model) => spawnTranslator({ model })],
]) {
  describe(`interventions (${where})`, () => {
    let t;
    before(async () => {
      t = await open(TINY);
    });
    after(() => t.dispose());

    test(
      'each surgery gives the native CLI ids and changes the translation',
      {
        skip: !nativeCli() && 'no native build',
      },
      async () => {
        const plain = (await t.translate(TEXT, { maxLength: 20 })).targetIds;
        for (const [interventions, flags] of CASES) {
          const r = await t.translate(TEXT, { maxLength: 20, interventions });
          assert.deepEqual(r.targetIds, cliIds(flags), JSON.stringify(interventions));
          assert.notDeepEqual(r.targetIds, plain, JSON.stringify(interventions));
        }
      },
    );

    test('the result says how it was made', async () => {
      const r = await t.translate(TEXT, {
        interventions: { ablate: [{ block: 'decoder', layer: 0, head: 1 }] },
      });
      assert.deepEqual(r.interventions, {
        temperature: 1,
        window: -1,
        noPositions: false,
        ablate: [{ block: 'decoder', layer: 0, head: 1, mean: false }],
        sparse: { enabled: false, randomBlocks: 0, block: 4, seed: 1 },
      });
      assert.deepEqual((await t.translate(TEXT)).interventions.ablate, []);
    });

    test('bad specifications are BAD_INPUT naming the field', async () => {
      const bad = (interventions) => t.translate(TEXT, { interventions });
      await refuses(
        bad({ ablate: [{ block: 'encoder', layer: 9, head: 0 }] }),
        /ablate\[0\]\.layer/,
      );
      await refuses(bad({ ablate: [{ block: 'cross', layer: 0, head: 99 }] }), /ablate\[0\]\.head/);
      await refuses(bad({ ablate: [{ block: 'x', layer: 0, head: 0 }] }), /ablate\[0\]\.block/);
      await refuses(bad({ temperature: 0 }), /interventions\.temperature/);
      await refuses(bad({ window: 1.5 }), /interventions\.window/);
      await refuses(bad({ noPositions: 'yes' }), /interventions\.noPositions/);
      await refuses(bad({ ablate: {} }), /interventions\.ablate/);
      await refuses(bad({ foo: 1 }), /interventions\.foo/);
      await refuses(bad(5), /options\.interventions/);
      await refuses(bad({ sparse: { enabled: true, randomBlocks: 99 } }), /sparse\.randomBlocks/);
      await refuses(bad({ sparse: { block: 0 } }), /sparse\.block/);
      await refuses(bad({ sparse: { seed: -1 } }), /sparse\.seed/);
      await refuses(bad({ sparse: { dense: true } }), /sparse\.dense/);
    });
  });
}
