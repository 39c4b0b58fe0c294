// Control pieces typed into the text, through the package (in-thread and in the worker): a
// target-language token (`<2de>`), `<s>`, `</s>` or `<pad>` at the start, in the middle or at
// the end of a sentence is spelt out of ordinary pieces, the translation never holds a control
// piece but its final `</s>`, and a forced prefix that would emit one is refused.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { ROOT, localAndWorker, rejectsWith } from './helpers.mjs';

const MULTI = path.join(ROOT, 'models', 'multi.heed');
const CONTROLS = ['<2de>', '<2fr>', '<2en>', '<s>', '</s>', '<pad>'];
const typedIn = (c) => [
  `${c} This package contains the development files.`,
  `Please read ${c} the manual.`,
  `A simple text editor ${c}`,
];

for (const [which, t] of await localAndWorker(MULTI)) {
  test(`${which}: each control string typed at start, middle and end stays text`, async () => {
    const texts = CONTROLS.flatMap(typedIn);
    for (const to of ['de', 'en']) {
      const results = await t.translate(texts, { to, maxLength: 24, attention: true });
      results.forEach((r, i) => {
        assert.equal(r.to, to);
        for (const piece of r.sourceTokens.slice(0, -1))
          assert.ok(!CONTROLS.includes(piece), `${texts[i]}: source piece ${piece}`);
        r.targetTokens.forEach((piece, k) => {
          const lastEnd = piece === '</s>' && k === r.targetTokens.length - 1;
          assert.ok(lastEnd || !CONTROLS.includes(piece), `${texts[i]} -> ${to}: ${piece}`);
        });
        for (const step of r.attention.steps)
          for (const c of step.top)
            assert.ok(c.piece === '</s>' || !CONTROLS.includes(c.piece), c.piece);
      });
    }
    // read as text, a typed target token neither switches the language nor cuts the sentence
    // (the model of 76,135 updates stops after "Please read <2fr>", a miss of its own)
    const r = await t.translate('Open the <2fr> settings and choose a new password.', { to: 'de' });
    assert.match(r.text, /<2fr> Einstellungen und/);
  });

  test(`${which}: a forced prefix with a control piece or starting with </s> is refused`, async () => {
    const ids = (await t.translate('A simple text editor', { to: 'de' })).targetIds;
    const twoDe = 4; // the first direction's target token: info's decoder_start_id
    assert.equal(t.info.config.decoder_start_id, twoDe);
    await rejectsWith(
      t.translate('A simple text editor', { forcedPrefix: [twoDe] }),
      'BAD_INPUT',
      /forcedPrefix\[0\] = 4 is the control piece '<2de>', which the decoder never emits/,
    );
    await rejectsWith(
      t.translate('A simple text editor', { forcedPrefix: [3] }),
      'BAD_INPUT',
      /forcedPrefix\[0\] = 3 is <\/s>: a translation that ends before its first piece/,
    );
    const ended = await t.translate('A simple text editor', { forcedPrefix: [ids[0], 3] });
    assert.deepEqual(ended.targetIds, [ids[0], 3]);
  });
}
