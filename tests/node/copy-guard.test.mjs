// The copy guard through the package (in-thread and in the worker): on by default, a run of
// another script that the four-way model begins is written whole (its unguarded greedy search
// drops a у of "Еууцб"), copyGuard: false gives the model's own choice, and anything but a
// boolean is refused.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, localAndWorker, rejectsWith } from './helpers.mjs';

const MULTI = path.join(ROOT, 'models', 'multi.heed');
const TEXT = 'Universal Input Method - Еууцб plugin';

for (const [which, t] of await localAndWorker(MULTI)) {
  test(`${which}: copyGuard keeps a begun run whole; false gives the model's own text`, async () => {
    const guarded = await t.translate(TEXT, { to: 'fr' });
    assert.ok(guarded.text.includes('Еууцб'), guarded.text);
    const beam = await t.translate(TEXT, { to: 'fr', beam: 4 });
    assert.ok(beam.text.includes('Еууцб'), beam.text);
    const raw = await t.translate(TEXT, { to: 'fr', copyGuard: false });
    assert.ok(!raw.text.includes('Еууцб') && raw.text.includes('Еуцб'), raw.text);
    await rejectsWith(t.translate(TEXT, { copyGuard: 'yes' }), 'BAD_INPUT', /copyGuard/);
  });
}
