// "What if": a forced target prefix (the decoder takes these ids first, then decodes on), and
// the beam tree (every hypothesis kept at every step, the winner's path back through parents).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { loadTranslator } from 'heed';
import { ROOT, nativeCli, rejectsWith } from './helpers.mjs';

const MODEL = path.join(ROOT, 'models', 'en-fr.heed');
const TEXT = 'A simple text editor for the terminal.';

describe('what if', () => {
  let t, base;
  before(async () => {
    t = await loadTranslator({ model: MODEL });
    base = await t.translate(TEXT, { attention: true, topK: 5 });
  });
  after(() => t.dispose());

  test("forcing the model's own choices changes nothing", async () => {
    for (const k of [1, 3, base.targetIds.length]) {
      const r = await t.translate(TEXT, { forcedPrefix: base.targetIds.slice(0, k) });
      assert.deepEqual(r.targetIds, base.targetIds, `prefix of ${k}`);
      assert.deepEqual(r.tokenProbs, base.tokenProbs);
    }
  });

  test("forcing another candidate keeps the model's probability of it and decodes on", async () => {
    const k = 1;
    const other = base.attention.steps[k].top[1];
    const prefix = [...base.targetIds.slice(0, k), other.id];
    const r = await t.translate(TEXT, { forcedPrefix: prefix, attention: true });
    assert.deepEqual(r.targetIds.slice(0, k + 1), prefix);
    assert.ok(Math.abs(r.tokenProbs[k] - other.prob) < 1e-5, `${r.tokenProbs[k]} vs ${other.prob}`);
    assert.equal(r.targetTokens.at(-1), '</s>', 'it decodes on to the end');
    assert.notDeepEqual(r.targetIds, base.targetIds);
    // the steps before the forced one saw the same inputs: identical attention rows
    const [L, H, , S] = base.attention.cross.shape;
    const T0 = base.attention.cross.shape[2],
      T1 = r.attention.cross.shape[2];
    for (let lh = 0; lh < L * H; lh++)
      for (let s = 0; s <= k; s++)
        assert.deepEqual(
          r.attention.cross.data.subarray((lh * T1 + s) * S, (lh * T1 + s + 1) * S),
          base.attention.cross.data.subarray((lh * T0 + s) * S, (lh * T0 + s + 1) * S),
        );
  });

  test('beam search takes the prefix too', async () => {
    const prefix = [base.attention.steps[0].top[2].id];
    const r = await t.translate(TEXT, { beam: 4, forcedPrefix: prefix });
    assert.equal(r.targetIds[0], prefix[0]);
  });

  test(
    'the native CLI forces the same prefix',
    { skip: !nativeCli() && 'CLI not built' },
    async () => {
      const prefix = [...base.targetIds.slice(0, 1), base.attention.steps[1].top[1].id];
      const out = execFileSync(
        nativeCli(),
        ['translate', '-m', MODEL, '--ids', '--forced-prefix', prefix.join(','), '--', TEXT],
        { encoding: 'utf8' },
      );
      const r = await t.translate(TEXT, { forcedPrefix: prefix });
      assert.equal(out, `${r.text}\t${r.targetIds.join(' ')}\n`);
    },
  );

  test('bad prefixes are BAD_INPUT naming the field', async () => {
    await rejectsWith(
      t.translate(TEXT, { forcedPrefix: [99999] }),
      'BAD_INPUT',
      /forcedPrefix\[0\]/,
    );
    await rejectsWith(t.translate(TEXT, { forcedPrefix: [1.5] }), 'BAD_INPUT', /forcedPrefix/);
    await rejectsWith(t.translate(TEXT, { forcedPrefix: 'x' }), 'BAD_INPUT', /forcedPrefix/);
    await rejectsWith(
      t.translate('One sentence. Another one.', { forcedPrefix: [5] }),
      'BAD_INPUT',
      /one sentence/,
    );
  });
});

describe('beam tree', () => {
  let t;
  before(async () => (t = await loadTranslator({ model: MODEL })));
  after(() => t.dispose());

  test("the winner's path through the parents spells the translation", async () => {
    const K = 4;
    const r = await t.translate(TEXT, { beam: K, attention: true });
    const { beam, beamWinner } = r.attention;
    assert.equal(beam.length, r.targetIds.length, 'one list of nodes per step');
    const path = [];
    for (let s = beam.length - 1, k = beamWinner; s >= 0; k = beam[s].at(k)?.parent, s--) {
      const node = beam[s][k];
      assert.ok(node, `step ${s} node ${k}`);
      path.unshift(node);
    }
    assert.deepEqual(
      path.map((n) => n.token),
      r.targetIds,
    );
    assert.deepEqual(
      path.map((n) => n.piece),
      r.targetTokens,
    );
    const total = r.tokenProbs.reduce((sum, p) => sum + Math.log(p), 0);
    assert.ok(Math.abs(path.at(-1).logprob - total) < 1e-3, `${path.at(-1).logprob} vs ${total}`);
    for (const [s, nodes] of beam.entries()) {
      assert.ok(nodes.length >= 1 && nodes.length <= 2 * K, `step ${s}: ${nodes.length} nodes`);
      for (const n of nodes) {
        assert.equal(n.finished, n.piece === '</s>');
        if (s === 0) assert.equal(n.parent, -1);
        else assert.ok(n.parent >= 0 && n.parent < beam[s - 1].length);
      }
    }
  });

  test('greedy results carry no beam tree', async () => {
    const r = await t.translate(TEXT, { attention: true });
    assert.equal(r.attention.beam, undefined);
  });
});
