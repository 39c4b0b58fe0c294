// The pthreads build through the package: loadTranslator({threads}) in Node (and inside the
// package's worker), a batch decoded on several threads equal to one thread, one long sentence
// with its products shared out over 2 and 3 threads equal to one thread bit for bit, every thread
// count of the range on a batch of 16 (no hang), the options checked, the pthreads heap flat
// over 2,000 calls, and the process free to exit afterwards.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadTranslator, memoryStats } from 'heed';
import { spawnTranslator } from 'heed/worker';
import { SENTENCES } from '../../bench/sentences.mjs';
import { TINY, rejectsWith } from './helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const EN_FR = path.join(ROOT, 'models', 'en-fr.heed');

test('a batch on 2 threads translates as on 1 (greedy and beam), in order', async () => {
  const one = await loadTranslator({ model: EN_FR });
  const two = await loadTranslator({ model: EN_FR, threads: 2 });
  try {
    assert.equal(one.info.threads, 1);
    assert.equal(two.info.threads, 2);
    for (const beam of [1, 4]) {
      const a = await one.translate(SENTENCES, { beam });
      const b = await two.translate(SENTENCES, { beam });
      const c = await two.translate(SENTENCES, { beam, threads: 1 });
      a.forEach((r, i) => {
        assert.deepEqual(b[i].targetIds, r.targetIds, SENTENCES[i]);
        assert.deepEqual(c[i].targetIds, r.targetIds, SENTENCES[i]);
      });
    }
    await rejectsWith(two.translate(SENTENCES, { threads: 3 }), 'BAD_INPUT', /threads/);
    await rejectsWith(one.translate(SENTENCES, { threads: 2 }), 'BAD_INPUT', /threads/);
  } finally {
    one.dispose();
    two.dispose();
  }
});

test('one long sentence on 2 and 3 threads (products shared) equals 1 thread bit for bit', async () => {
  const long = readFileSync(path.join(ROOT, 'bench', 'long_sentence.txt'), 'utf8').trim();
  const t = await loadTranslator({ model: path.join(ROOT, 'models', 'multi.heed'), threads: 3 });
  try {
    for (const beam of [1, 4]) {
      const options = { to: 'de', beam, attention: true };
      const [want] = await t.translate([long], { ...options, threads: 1 });
      assert.ok(want.attention, 'the trace is returned');
      for (const threads of [2, 3]) {
        const [got] = await t.translate([long], { ...options, threads });
        const what = `beam ${beam}, ${threads} threads`;
        assert.deepEqual(got.targetIds, want.targetIds, what);
        assert.deepEqual(got.tokenProbs, want.tokenProbs, what);
        assert.equal(got.scores, want.scores, what);
        assert.deepEqual(got.attention, want.attention, what);
      }
      // the paragraph path with step events (one sentence at a time) shares products too
      let steps = 0;
      const streamed = await t.translate(long, {
        ...options,
        threads: 2,
        onStep: () => void steps++,
      });
      assert.deepEqual(streamed.sentences[0].targetIds, want.targetIds, `beam ${beam}, onStep`);
      assert.ok(steps > 0);
    }
  } finally {
    t.dispose();
  }
});

test('threads out of range are BAD_INPUT; a worker can use threads too', async () => {
  for (const bad of [0, 17, 1.5, '2'])
    await rejectsWith(loadTranslator({ model: EN_FR, threads: bad }), 'BAD_INPUT', /threads/);
  const w = await spawnTranslator({ model: EN_FR, threads: 2 });
  try {
    assert.equal(w.info.threads, 2);
    const r = await w.translate(SENTENCES.slice(0, 4));
    assert.equal(r.length, 4);
  } finally {
    w.dispose();
  }
});

test('a process that loaded the threaded build exits on its own', () => {
  const script =
    `import { loadTranslator, memoryStats } from 'heed';` +
    `const t = await loadTranslator({ model: ${JSON.stringify(EN_FR)}, threads: 2 });` +
    `console.log((await t.translate(['A simple text editor.', 'A game.'])).length);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30000,
  });
  assert.equal(out.trim(), '2');
});

// why: a hang (the calling thread blocked in join on a worker that never loads) would stop
// this process's timers too, so the sweep runs in a child; its timeout only ends a hang
test('every thread count 1..16 translates a batch of 16 sentences as one thread does', () => {
  const script = `
    import { loadTranslator } from 'heed';
    import { SENTENCES } from './bench/sentences.mjs';
    const texts = SENTENCES.slice(0, 16);
    const model = ${JSON.stringify(EN_FR)};
    let want;
    for (let n = 1; n <= 16; n++) {
      const t = await loadTranslator({ model, threads: n });
      const ids = (await t.translate(texts)).map((r) => r.targetIds.join(' '));
      want ??= ids;
      const same = ids.every((x, i) => x === want[i]);
      console.log(n, texts.length, same ? 'same' : 'DIFFERENT');
      t.dispose();
    }`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 16, out);
  lines.forEach((line, i) => assert.equal(line, `${i + 1} 16 same`));
});

test('the pthreads heap stays flat over 2,000 calls and 20 loads (memoryStats({threads}))', async () => {
  const texts = ['A simple text editor', 'This package', 'A game.', 'Fonts for the screen'];
  const t = await loadTranslator({ model: TINY, threads: 4 });
  try {
    for (let i = 0; i < 20; i++) await t.translate(texts, { maxLength: 6 }); // first-use allocations
    const before = await memoryStats({ threads: 4 });
    assert.equal(before.workers, 3, 'threads - 1 workers besides the caller');
    for (let i = 0; i < 2000; i++) await t.translate(texts, { maxLength: 6 });
    for (let i = 0; i < 20; i++) {
      const other = await loadTranslator({ model: TINY, threads: 4 });
      await other.translate(texts, { maxLength: 6 });
      other.dispose();
    }
    const after = await memoryStats({ threads: 4 });
    assert.ok(after.inUse - before.inUse <= 0, `grew by ${after.inUse - before.inUse} bytes`);
    assert.equal(after.workers, before.workers, 'the pool did not grow');
    assert.equal(after.size, before.size, 'linear memory did not grow');
  } finally {
    t.dispose();
  }
  await rejectsWith(memoryStats({ threads: 17 }), 'BAD_INPUT', /threads/);
});
