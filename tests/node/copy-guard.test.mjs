// The copy guard through the package (in-thread and in the worker): on by default, a run of
// another script that the four-way model begins is written whole (its unguarded greedy search
// drops a κ of a man page's "mandb(λνκκυφγ)", its three sentences taken as one), copyGuard: false
// gives the model's own choice, and anything but a boolean is refused.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, localAndWorker, rejectsWith } from './helpers.mjs';

const MULTI = path.join(ROOT, 'models', 'multi.heed');
const TEXT =
  'It is extremely important that this format is followed, and that there is a backslash ' +
  'before the single dash which follows the item name. This syntax is used by the ' +
  'mandb(λνκκυφγ) program to create a database of short descriptions for the whatis(1) and ' +
  'apropos(1) commands. (See lexgrog(1) for further details on the syntax of the NAME section.)';

for (const [which, t] of await localAndWorker(MULTI)) {
  test(`${which}: copyGuard keeps a begun run whole; false gives the model's own text`, async () => {
    const guarded = await t.translate(TEXT, { to: 'fr', split: false });
    assert.ok(guarded.text.includes('λνκκυφγ'), guarded.text);
    const beam = await t.translate(TEXT, { to: 'fr', beam: 4, split: false });
    assert.ok(beam.text.includes('λνκκυφγ'), beam.text);
    const raw = await t.translate(TEXT, { to: 'fr', split: false, copyGuard: false });
    assert.ok(!raw.text.includes('λνκκυφγ') && raw.text.includes('λνκυφγ'), raw.text);
    await rejectsWith(t.translate(TEXT, { copyGuard: 'yes' }), 'BAD_INPUT', /copyGuard/);
  });
}
