// Attention surgery through the package (options.interventions): the WASM engine gives the same
// ids as the native CLI's flags for the same surgery, the result says how it was made, and every
// bad specification is BAD_INPUT naming the field; in the worker too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
  [{ linear: { kind: 'favor', features: 64, seed: 3 } }, ['--linear', 'favor:64:3']],
  [{ linear: { kind: 'favor', features: 16 } }, ['--linear', 'favor:16']],
  [{ linear: { kind: 'elu' } }, ['--linear', 'elu']],
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
        linear: { kind: 'none', features: 256, seed: 1 },
      });
      assert.deepEqual((await t.translate(TEXT)).interventions.ablate, []);
      const linear = { kind: 'favor', features: 32, seed: 9 };
      assert.deepEqual(
        (await t.translate(TEXT, { interventions: { linear } })).interventions.linear,
        linear,
      );
    });

    test('linear attention: same seed same ids, the trace keeps row-normalised weights', async () => {
      const favor = (seed) => ({
        maxLength: 20,
        attention: true,
        interventions: { linear: { kind: 'favor', features: 8, seed } },
      });
      const a = await t.translate(TEXT, favor(1));
      const b = await t.translate(TEXT, favor(1));
      assert.deepEqual(a.targetIds, b.targetIds);
      assert.deepEqual(a.tokenProbs, b.tokenProbs);
      for (const view of ['encoderSelf', 'decoderSelf', 'cross']) {
        const cols = a.attention[view].shape.at(-1);
        const data = a.attention[view].data;
        for (let i = 0; i < data.length; i += cols) {
          let sum = 0;
          for (let j = 0; j < cols; j++) sum += data[i + j];
          // decoder self: rows of steps not yet taken are all zero
          assert.ok(
            Math.abs(sum - 1) < 1e-4 || (view === 'decoderSelf' && sum === 0),
            `${view} row ${i / cols}: ${sum}`,
          );
        }
      }
    });

    test('result.costs: one entry per block and layer, by the documented formulas', async () => {
      const { config } = t.info;
      const D = config.d_model,
        H = config.heads,
        Dh = D / H;
      const costs = async (interventions) => {
        const r = await t.translate(TEXT, { maxLength: 20, interventions });
        return { costs: r.costs, S: r.sourceIds.length, T: r.targetIds.length };
      };
      const full = await costs({});
      const { S, T } = full;
      const want = [];
      for (let l = 0; l < config.encoder_layers; l++)
        want.push({
          block: 'encoder',
          layer: l,
          macs: H * S * S * 2 * Dh,
          stateBytes: 4 * H * S * S,
        });
      for (let l = 0; l < config.decoder_layers; l++) {
        const self = (T * (T + 1)) / 2;
        want.push({
          block: 'decoder',
          layer: l,
          macs: H * self * 2 * Dh,
          stateBytes: 4 * H * self,
        });
        want.push({
          block: 'cross',
          layer: l,
          macs: H * T * S * 2 * Dh,
          stateBytes: 4 * H * T * S,
        });
      }
      assert.deepEqual(full.costs, want);
      // FAVOR+ r = 32: H·[(Lq + Lk)·r·Dh + (Lq + Lk)·r·(Dh + 1)], state 4·H·r·(Dh + 1)
      const r = 32;
      const lin = await costs({ linear: { kind: 'favor', features: r } });
      const per = (Lq, Lk) => H * (Lq + Lk) * r * (2 * Dh + 1);
      assert.deepEqual(
        lin.costs.map((c) => [c.block, c.macs, c.stateBytes]),
        want.map((c) => [
          c.block,
          c.block === 'encoder'
            ? per(lin.S, lin.S)
            : c.block === 'decoder'
              ? per(lin.T, lin.T)
              : per(lin.T, lin.S),
          4 * H * r * (Dh + 1),
        ]),
      );
    });

    test(
      'result.costs equals the CLI --attention file costs',
      { skip: !nativeCli() && 'no native build' },
      async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'heed-costs-'));
        const file = path.join(dir, 'a.json');
        execFileSync(nativeCli(), [
          'translate',
          '-m',
          TINY,
          '--max-length',
          '20',
          '--window',
          '1',
          '--attention',
          file,
          TEXT,
        ]);
        const cli = JSON.parse(readFileSync(file, 'utf8'))[0];
        rmSync(dir, { recursive: true });
        const r = await t.translate(TEXT, { maxLength: 20, interventions: { window: 1 } });
        assert.deepEqual(r.costs, cli.costs);
        assert.deepEqual(r.interventions, cli.interventions);
      },
    );

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
      await refuses(
        bad({ linear: { kind: 'performer' } }),
        /interventions\.linear\.kind must be one of none, favor, elu/,
      );
      await refuses(
        bad({ linear: { kind: 'favor', features: 0 } }),
        /interventions\.linear\.features must be an integer in \[1, 4096\], got number 0/,
      );
      await refuses(
        bad({ linear: { kind: 'favor', features: 4097 } }),
        /interventions\.linear\.features/,
      );
      await refuses(
        bad({ linear: { kind: 'favor', features: 2.5 } }),
        /interventions\.linear\.features/,
      );
      await refuses(bad({ linear: { seed: -1 } }), /interventions\.linear\.seed/);
      await refuses(bad({ linear: { heads: 2 } }), /interventions\.linear\.heads/);
      await refuses(bad({ linear: 'favor' }), /options\.interventions\.linear/);
      await refuses(
        bad({ linear: { kind: 'elu' }, window: 2 }),
        /cannot be combined with interventions\.window/,
      );
      await refuses(
        bad({ linear: { kind: 'elu' }, temperature: 2 }),
        /interventions\.temperature must be 1/,
      );
    });
  });
}
