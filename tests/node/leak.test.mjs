// WASM memory does not leak: malloc's bytes in use (memoryStats) return to the same level after
// 200 translations of every kind (attention, steps, batches, beam, errors, aborts) and after
// loading and disposing translators.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadTranslator, memoryStats } from 'heed';
import { TINY } from './helpers.mjs';

const TEXTS = [
  'This package contains the development files.',
  'A simple text editor',
  'It reads the configuration file and starts the server in the background.',
];

async function mixedCall(t, i) {
  const text = TEXTS[i % TEXTS.length];
  switch (i % 8) {
    case 0:
      return t.translate(text);
    case 1:
      return t.translate(text, { attention: true });
    case 2:
      return t.translate(text, { onStep: () => {} });
    case 3:
      return t.translate(TEXTS, { attention: true });
    case 4:
      return t.translate(text, { beam: 3, attention: true });
    case 5:
      return t.translate('').catch(() => null);
    case 6: {
      const c = new AbortController();
      return t
        .translate(text, { signal: c.signal, onStep: (e) => e.step === 2 && c.abort() })
        .catch(() => null);
    }
    default: {
      const r = await t.translate(text);
      return t.explainHead(r, { block: 'cross', layer: 0, head: 1 });
    }
  }
}

test('200 translations leave malloc usage where it was', async () => {
  const t = await loadTranslator({ model: TINY });
  for (let i = 0; i < 16; i++) await mixedCall(t, i); // warm-up: first-use allocations
  const before = (await memoryStats()).inUse;
  for (let i = 0; i < 200; i++) await mixedCall(t, i);
  const after = (await memoryStats()).inUse;
  t.dispose();
  assert.ok(after - before <= 0, `grew by ${after - before} bytes over 200 translations`);
});

test('load + dispose returns malloc usage to its level', async () => {
  const warm = await loadTranslator({ model: TINY });
  warm.dispose();
  const before = (await memoryStats()).inUse;
  for (let i = 0; i < 20; i++) {
    const t = await loadTranslator({ model: TINY });
    await t.translate(TEXTS[0], { attention: true });
    t.dispose();
  }
  await loadTranslator({ model: new Uint8Array(64) }).catch(() => null); // failed load
  const after = (await memoryStats()).inUse;
  assert.ok(after - before <= 0, `grew by ${after - before} bytes over 20 loads`);
});
