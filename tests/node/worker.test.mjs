// spawnTranslator ('heed/worker') through the public exports: the same results as in-thread,
// step events across the worker boundary, steps(), aborts, explainHead, errors and dispose.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { HeedError, loadTranslator } from 'heed';
import { HeedError as WorkerHeedError, spawnTranslator } from 'heed/worker';
import { rejectsWith, TINY } from './helpers.mjs';

const SENTENCE = 'It reads the configuration file and starts the server in the background.';

describe('spawnTranslator', () => {
  let w, local;
  before(async () => {
    [w, local] = await Promise.all([
      spawnTranslator({ model: TINY }),
      loadTranslator({ model: TINY }),
    ]);
  });
  after(() => {
    w.dispose();
    local.dispose();
  });

  test('one HeedError class for both entry points', () => {
    assert.equal(WorkerHeedError, HeedError);
  });

  test('info and translations equal the in-thread translator', async () => {
    assert.deepEqual(w.info, local.info);
    const [a, b] = await Promise.all([
      w.translate(SENTENCE, { attention: true, beam: 2 }),
      local.translate(SENTENCE, { attention: true, beam: 2 }),
    ]);
    assert.deepEqual(a, b);
    assert.ok(a.attention.cross.data instanceof Float32Array);
    assert.deepEqual(
      await w.translate([SENTENCE, 'A simple text editor']),
      await local.translate([SENTENCE, 'A simple text editor']),
    );
  });

  test('step events cross the boundary in order, before the result', async () => {
    const events = [];
    let resolved = false;
    const r = await w
      .translate(SENTENCE, {
        onStep: (e) => {
          assert.equal(resolved, false);
          events.push(e);
        },
      })
      .then((x) => {
        resolved = true;
        return x;
      });
    assert.deepEqual(
      events.map((e) => e.step),
      r.targetTokens.map((_, i) => i),
    );
    assert.deepEqual(events.at(-1).tokens, r.targetTokens);
    assert.ok(events[0].cross.data instanceof Float32Array);
  });

  test('steps() yields events and returns the result', async () => {
    const tokens = [];
    const it = w.steps(SENTENCE);
    let next;
    while (!(next = await it.next()).done) tokens.push(next.value.token);
    assert.deepEqual(tokens, next.value.targetTokens);
  });

  test('leaving steps() early cancels the translation; the worker stays usable', async () => {
    const seen = [];
    for await (const e of w.steps(SENTENCE, { beam: 4 })) {
      seen.push(e.step);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, [0, 1]);
    assert.ok((await w.translate(SENTENCE)).text.length > 0);
  });

  test('abort rejects at once with ABORTED and the worker stays usable', async () => {
    const controller = new AbortController();
    let n = 0;
    await rejectsWith(
      w.translate(SENTENCE, {
        signal: controller.signal,
        onStep: () => {
          if (++n === 2) controller.abort();
        },
      }),
      'ABORTED',
    );
    await rejectsWith(w.translate(SENTENCE, { signal: AbortSignal.abort() }), 'ABORTED');
    // a queued call aborted before it starts
    const c2 = new AbortController();
    const first = w.translate(SENTENCE);
    const second = w.translate(SENTENCE, { signal: c2.signal });
    c2.abort();
    await rejectsWith(second, 'ABORTED');
    assert.ok((await first).text.length > 0);
    assert.ok((await w.translate(SENTENCE)).text.length > 0);
  });

  test('an onStep error rejects the call with that error', async () => {
    await assert.rejects(
      w.translate(SENTENCE, {
        onStep: () => {
          throw new Error('boom');
        },
      }),
      /boom/,
    );
    assert.ok((await w.translate(SENTENCE)).text.length > 0);
  });

  test('explainHead and errors come back with their codes', async () => {
    const r = await w.translate(SENTENCE);
    const e = await w.explainHead(r, { block: 'decoder', layer: 0, head: 3 });
    assert.deepEqual(e, await local.explainHead(r, { block: 'decoder', layer: 0, head: 3 }));
    await rejectsWith(w.translate(''), 'BAD_INPUT', /empty/);
    await rejectsWith(w.translate('a', { beam: 99 }), 'BAD_INPUT', /beam/);
    await rejectsWith(w.explainHead(r, { block: 'cross', layer: 5, head: 0 }), 'BAD_INPUT');
  });
});

describe('spawnTranslator loading and dispose', () => {
  test('bad model bytes reject with BAD_MODEL; bad paths with LOAD_FAILED', async () => {
    await rejectsWith(spawnTranslator({ model: new Uint8Array(100) }), 'BAD_MODEL');
    await rejectsWith(spawnTranslator({ model: '/no/such.heed' }), 'LOAD_FAILED');
    await rejectsWith(
      spawnTranslator({ model: TINY, workerUrl: '/no/such/worker.js' }),
      'LOAD_FAILED',
    );
    await rejectsWith(spawnTranslator({ model: TINY, bogus: 1 }), 'BAD_INPUT', /bogus/);
  });

  test('progress crosses the boundary; dispose rejects pending and later calls', async () => {
    const seen = [];
    (await spawnTranslator({ model: TINY, onProgress: (f) => seen.push(f) })).dispose();
    assert.deepEqual(seen, [1], 'a file is read in one go');
    const w = await spawnTranslator({ model: await readFile(TINY) });
    const pending = w.translate(SENTENCE, { beam: 4 });
    w.dispose();
    await rejectsWith(pending, 'DISPOSED');
    await rejectsWith(w.translate(SENTENCE), 'DISPOSED');
  });
});

describe('a model given as a promise (the engine starts while it downloads)', () => {
  const later = (value, ms = 50) => new Promise((resolve) => setTimeout(() => resolve(value), ms));
  for (const [which, load] of [
    ['local', loadTranslator],
    ['worker', spawnTranslator],
  ]) {
    test(`${which}: a promise of bytes or of a path loads as they do`, async () => {
      const bytes = await readFile(TINY);
      const reference = await load({ model: TINY });
      const want = (await reference.translate('Hello world.')).text;
      for (const model of [later(bytes), later(TINY)]) {
        const t = await load({ model });
        assert.equal((await t.translate('Hello world.')).text, want);
        t.dispose();
      }
      reference.dispose();
    });

    test(`${which}: a rejected promise fails the load with its own error`, async () => {
      const why = new Error('the download failed');
      await assert.rejects(
        load({ model: later(null).then(() => Promise.reject(why)) }),
        (e) => e === why,
      );
      await rejectsWith(load({ model: later(42) }), 'BAD_INPUT', /options\.model must be/);
    });
  }
});
