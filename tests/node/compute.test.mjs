// int8 compute through the package: the `compute` load option (in-thread and in a worker),
// what info reports, and int8 against the f32 reference on a shipped int8 model.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { loadTranslator } from 'heed';
import { spawnTranslator } from 'heed/worker';
import { rejectsWith } from './helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const EN_FR = path.join(ROOT, 'models', 'en-fr.heed');
const TINY = path.join(ROOT, 'models', 'tiny', 'tiny.heed');
const SENTENCES = [
  'This package contains the development files for the library.',
  'A simple text editor for the terminal.',
  'The program reads a configuration file and starts the server.',
];

test('an int8 model is multiplied as int8 by default, and as f32 when asked', async () => {
  const int8 = await loadTranslator({ model: EN_FR });
  const f32 = await loadTranslator({ model: EN_FR, compute: 'f32' });
  try {
    assert.equal(int8.info.compute, 'int8');
    assert.equal(f32.info.compute, 'f32');
    const { size } = await import('node:fs').then((fs) => fs.statSync(EN_FR));
    assert.ok(int8.info.weightBytes <= 1.3 * size, `${int8.info.weightBytes} vs file ${size}`);
    assert.ok(f32.info.weightBytes > 3 * size);
    const a = await int8.translate(SENTENCES);
    const b = await f32.translate(SENTENCES);
    for (let i = 0; i < SENTENCES.length; i++) {
      assert.deepEqual(a[i].targetIds, b[i].targetIds, SENTENCES[i]);
      a[i].tokenProbs.forEach((p, j) => assert.ok(Math.abs(p - b[i].tokenProbs[j]) < 1e-3));
    }
  } finally {
    int8.dispose();
    f32.dispose();
  }
});

test('an f32 model stays f32; a bad compute value is BAD_INPUT (also in a worker)', async () => {
  const t = await loadTranslator({ model: TINY, compute: 'int8' });
  assert.equal(t.info.compute, 'f32');
  t.dispose();
  await rejectsWith(loadTranslator({ model: TINY, compute: 'int4' }), 'BAD_INPUT', /compute/);
  await rejectsWith(spawnTranslator({ model: TINY, compute: 8 }), 'BAD_INPUT', /compute/);
  const w = await spawnTranslator({ model: EN_FR, compute: 'f32' });
  try {
    assert.equal(w.info.compute, 'f32');
  } finally {
    w.dispose();
  }
});

test('step events carry this step only: rows of width t+1 and S, encoderSelf once', async () => {
  const t = await loadTranslator({ model: EN_FR });
  try {
    const events = [];
    const r = await t.translate(SENTENCES[0], { onStep: (e) => events.push(e), attention: true });
    const [L, H, T, S] = r.attention.cross.shape;
    assert.equal(events.length, T);
    events.forEach((e, i) => {
      assert.deepEqual(e.decoderSelf.shape, [L, H, i + 1]);
      assert.deepEqual(e.cross.shape, [L, H, S]);
      assert.equal('encoderSelf' in e, i === 0);
      // the rows are the final trace's row i
      for (let lh = 0; lh < L * H; lh++)
        for (let s = 0; s < S; s++)
          assert.equal(e.cross.data[lh * S + s], r.attention.cross.data[(lh * T + i) * S + s]);
    });
  } finally {
    t.dispose();
  }
});

test('shortlist: only the allowed pieces are scored, attention is as without it', async () => {
  const t = await loadTranslator({ model: EN_FR });
  try {
    assert.deepEqual(t.info.shortlists, ['fr']);
    for (const beam of [1, 4]) {
      const r = await t.translate(SENTENCES[1], { shortlist: true, attention: true, beam });
      assert.ok(r.outputSize > 0 && r.outputSize < 8000, `${r.outputSize}`);
      const f = await t.translate(SENTENCES[1], {
        attention: true,
        forcedPrefix: r.targetIds,
        maxLength: r.targetIds.length,
      });
      assert.equal(f.outputSize, 8000);
      assert.deepEqual(f.targetIds, r.targetIds);
      assert.deepEqual(f.attention.cross.data, r.attention.cross.data);
      assert.deepEqual(f.attention.decoderSelf.data, r.attention.decoderSelf.data);
    }
    await rejectsWith(t.translate('x', { shortlist: 'yes' }), 'BAD_INPUT', /shortlist/);
  } finally {
    t.dispose();
  }
  const tiny = await loadTranslator({ model: TINY });
  try {
    assert.deepEqual(tiny.info.shortlists, []);
    await rejectsWith(tiny.translate('x', { shortlist: true }), 'BAD_INPUT', /no output shortlist/);
  } finally {
    tiny.dispose();
  }
});
