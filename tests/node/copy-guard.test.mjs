// The copy guard through the package (in-thread and in the worker): on by default, a run of
// another script that the four-way model begins is written whole (its unguarded greedy search
// drops a ζ of "οζζεψλλβ"), copyGuard: false gives the model's own choice, and anything but a
// boolean is refused.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, localAndWorker, rejectsWith } from './helpers.mjs';

const MULTI = path.join(ROOT, 'models', 'multi.heed');
const TEXT = 'Zeilennummer des Elements, ab οζζεψλλβ gezählt.';

for (const [which, t] of await localAndWorker(MULTI)) {
  test(`${which}: copyGuard keeps a begun run whole; false gives the model's own text`, async () => {
    const guarded = await t.translate(TEXT, { to: 'en' });
    assert.ok(guarded.text.includes('οζζεψλλβ'), guarded.text);
    const beam = await t.translate(TEXT, { to: 'en', beam: 4 });
    assert.ok(beam.text.includes('οζζεψλλβ'), beam.text);
    const raw = await t.translate(TEXT, { to: 'en', copyGuard: false });
    assert.ok(!raw.text.includes('οζζεψλλβ') && raw.text.includes('οζεψλλβ'), raw.text);
    await rejectsWith(t.translate(TEXT, { copyGuard: 'yes' }), 'BAD_INPUT', /copyGuard/);
  });
}
