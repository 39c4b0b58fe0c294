// The pthreads build through the package: loadTranslator({threads}) in Node (and inside the
// package's worker), a batch decoded on several threads equal to one thread, the options
// checked, and the process free to exit afterwards.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadTranslator } from 'heed';
import { spawnTranslator } from 'heed/worker';
import { SENTENCES } from '../../bench/sentences.mjs';
import { rejectsWith } from './helpers.mjs';

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
    `import { loadTranslator } from 'heed';` +
    `const t = await loadTranslator({ model: ${JSON.stringify(EN_FR)}, threads: 2 });` +
    `console.log((await t.translate(['A simple text editor.', 'A game.'])).length);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30000,
  });
  assert.equal(out.trim(), '2');
});
