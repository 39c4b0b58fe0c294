// Exact input handling at the Embind boundary: sparse arrays, non-strings and lone
// surrogates are BAD_INPUT before WASM runs, batches have documented limits and per-item
// errors, oversized model buffers are BAD_MODEL, integers are checked as safe integers in
// range instead of wrapping or truncating, and every limits() field is enforced. In-thread and
// in the worker.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { limits, loadAttentionLab, loadTranslator, memoryStats } from 'heed';
import { ROOT, TINY, localAndWorker } from './helpers.mjs';

const code = (p) =>
  p.then(
    () => 'resolved',
    (e) => `${e.code}: ${e.message}`,
  );

// why: one of each for every case below; disposed when the file's tests end
const both = await localAndWorker(TINY);
const translators = both.map(([, t]) => t);

for (const [which, t] of both) {
  test(`${which}: a sparse array or a non-string item is BAD_INPUT`, async () => {
    // eslint-disable-next-line no-sparse-arrays
    assert.match(await code(t.translate(['a', , 'b'])), /^BAD_INPUT: text\[1\] is a hole/);
    assert.match(await code(t.translate(['a', 7])), /^BAD_INPUT: text\[1\] must be a string/);
  });

  test(`${which}: a lone surrogate is BAD_INPUT, a pair is fine`, async () => {
    for (const text of ['x\uDC00yz', 'x\uD800', '\uD800\uD800\uDC00'])
      assert.match(await code(t.translate(text)), /^BAD_INPUT: text has a lone UTF-16 surrogate/);
    assert.match(await code(t.translate(['ok', 'x\uDC00yz'])), /^BAD_INPUT: text\[1\] has a lone/);
    assert.equal(await code(t.translate('A simple text editor \u{1F600}')), 'resolved');
  });

  test(`${which}: a refused text is its own error item in a batch`, async () => {
    const texts = ['A simple text editor', '', 'This package'];
    const r = await t.translate(texts, { maxLength: 10 });
    assert.equal(r.length, 3);
    assert.equal(r[1].error.code, 'BAD_INPUT');
    assert.match(r[1].error.message, /empty text/);
    for (const i of [0, 2])
      assert.deepEqual(r[i].targetIds, (await t.translate(texts[i], { maxLength: 10 })).targetIds);
  });

  test(`${which}: more than 256 texts is BAD_INPUT at once`, async () => {
    assert.match(
      await code(t.translate(Array(257).fill('A simple text editor'))),
      /^BAD_INPUT: a call holds at most 256 texts \(got 257\)/,
    );
  });

  test(`${which}: one call's budget: bytes per text, bytes and sentences in all`, async () => {
    const sentences = (n) => Array(n).fill('Ab cd.').join(' ');
    const over = sentences(2900); // 20,299 bytes of short sentences
    assert.match(
      await code(t.translate(over)),
      /^BAD_INPUT: text is too long \(20299 bytes; at most 20000\): split it into several texts/,
    );
    assert.match(await code(t.translate(['A b.', over])), /^BAD_INPUT: text\[1\] is too long/);
    // 'é' is two bytes in UTF-8: 10,001 of them are 20,002 bytes
    assert.match(await code(t.translate('é'.repeat(10001))), /\(20002 bytes; at most 20000\)/);
    const big = Array(4).fill('a'.repeat(16385)); // 65,540 bytes
    assert.match(
      await code(t.translate(big)),
      /^BAD_INPUT: a call holds at most 65536 bytes of text \(got 65540\)/,
    );
    assert.match(
      await code(t.translate(Array(2).fill(sentences(513)))),
      /^BAD_INPUT: a call holds at most 1024 sentences \(got 1026\)/,
    );
    assert.match(
      await code(t.translate(Array(1100).fill('Ab.').join(' '))),
      /^BAD_INPUT: a call holds at most 1024 sentences \(got 1100\)/,
    );
  });

  test(`${which}: options Embind would wrap or choke on are BAD_INPUT with a message`, async () => {
    const text = 'A simple text editor';
    // eslint-disable-next-line no-sparse-arrays
    const holed = [{ block: 'cross', layer: 0, head: 0 }, , { block: 'cross', layer: 0, head: 1 }];
    assert.match(
      await code(t.translate(text, { interventions: { ablate: holed } })),
      /^BAD_INPUT: options\.interventions\.ablate\[1\] is a hole/,
    );
    assert.match(
      await code(t.translate(text, { forcedPrefix: [2 ** 31] })),
      /^BAD_INPUT: options\.forcedPrefix\[0\] must be a target id of this model \(an integer in 0\.\.399\), got number 2147483648/,
    );
    // eslint-disable-next-line no-sparse-arrays
    assert.match(
      await code(t.translate(text, { forcedPrefix: [5, , 6] })),
      /forcedPrefix\[1\] is a hole/,
    );
    assert.match(
      await code(t.translate(text, { forcedPrefix: [3] })),
      /^BAD_INPUT: forcedPrefix\[0\] = 3 is <\/s>: a translation that ends before its first piece/,
    );
    const huge = await code(t.translate(text, { to: 'x'.repeat(1 << 20) }));
    assert.match(
      huge,
      /^BAD_INPUT: options\.to must be a language code string .*\(1048576 characters\)$/,
    );
    assert.ok(huge.length < 400, huge.slice(0, 400));
  });

  test(`${which}: explainHead layer/head/ids are checked, not wrapped`, async () => {
    const r = await t.translate('A simple text editor', { maxLength: 6 });
    for (const [where, want] of [
      [
        { block: 'cross', layer: 2 ** 31, head: 0 },
        /where\.layer: there is no cross layer 2147483648 \(0\.\.1\)/,
      ],
      [{ block: 'cross', layer: 2, head: 0 }, /where\.layer/],
      [
        { block: 'encoder', layer: 0, head: 1.5 },
        /where\.head must be a non-negative integer, got number 1\.5/,
      ],
      [{ block: 'encoder', layer: 0, head: 4 }, /where\.head: there is no head 4 \(0\.\.3\)/],
    ])
      assert.match(await code(t.explainHead(r, where)), want);
    const fractional = { ...r, sourceIds: [...r.sourceIds.slice(0, -1), 3.5] };
    assert.match(
      await code(t.explainHead(fractional, { block: 'cross', layer: 0, head: 0 })),
      /^BAD_INPUT: result\.sourceIds\[\d+\] must be an integer, got number 3\.5/,
    );
    const outside = { ...r, targetIds: [...r.targetIds, 2 ** 32 + 5] };
    assert.match(
      await code(t.explainHead(outside, { block: 'cross', layer: 0, head: 0 })),
      /result\.targetIds\[\d+\]: there is no vocabulary id 4294967301 \(0\.\.399\)/,
    );
  });
}

test('sparse arrays leave no WASM memory behind', async () => {
  const t = await loadTranslator({ model: TINY });
  await t.translate(['A simple text editor']);
  const before = (await memoryStats()).inUse;
  // eslint-disable-next-line no-sparse-arrays
  for (let i = 0; i < 50; i++) await t.translate(['A simple text editor', , 'x']).catch(() => null);
  assert.equal((await memoryStats()).inUse, before);
  t.dispose();
});

test('a call over its bytes is BAD_INPUT before decoding', async () => {
  const t = await loadTranslator({ model: path.join(ROOT, 'models', 'en-fr.heed') });
  const sixty = 'configuration files '.repeat(60);
  assert.match(
    await code(t.translate(Array(200).fill(sixty))),
    /^BAD_INPUT: a call holds at most 65536 bytes of text \(got 240000\)/,
  );
  t.dispose();
});

test('limits() states every limit', async () => {
  assert.deepEqual(
    { ...(await limits()) },
    {
      beam: 16,
      maxLength: 1024,
      lengthPenalty: 10,
      topK: 100,
      threads: 16,
      temperature: 100,
      window: 4096,
      randomBlocks: 64,
      sparseBlock: 256,
      linearFeatures: 4096,
      seed: 2 ** 32 - 1,
      layers: 32,
      heads: 64,
      textBytes: 20000,
      batchTexts: 256,
      batchBytes: 65536,
      batchSentences: 1024,
      batchPieces: 16384,
      modelBytes: 2 ** 30,
      labSize: 4096,
      labMaskInt: 2 ** 24,
    },
  );
});

test('every limits() field is enforced just past it, by the local and the worker translator', async () => {
  const L = await limits();
  const over = {
    beam: { beam: L.beam + 1 },
    maxLength: { maxLength: L.maxLength + 1 },
    lengthPenalty: { lengthPenalty: L.lengthPenalty + 0.5 },
    topK: { topK: L.topK + 1 },
    temperature: { interventions: { temperature: L.temperature * 1.5 } },
    window: { interventions: { window: L.window + 1 } },
    randomBlocks: {
      interventions: { sparse: { enabled: true, randomBlocks: L.randomBlocks + 1 } },
    },
    sparseBlock: { interventions: { sparse: { enabled: true, block: L.sparseBlock + 1 } } },
    linearFeatures: {
      interventions: { linear: { kind: 'favor', features: L.linearFeatures + 1 } },
    },
    seed: { interventions: { linear: { kind: 'favor', seed: L.seed + 1 } } },
    layers: { interventions: { ablate: [{ block: 'encoder', layer: L.layers, head: 0 }] } },
    heads: { interventions: { ablate: [{ block: 'encoder', layer: 0, head: L.heads }] } },
  };
  const texts = {
    textBytes: 'a'.repeat(L.textBytes + 1),
    batchTexts: Array(L.batchTexts + 1).fill('a'),
    batchBytes: Array(Math.ceil(L.batchBytes / L.textBytes) + 1).fill('a'.repeat(L.textBytes)),
    batchSentences: 'A. '.repeat(L.batchSentences + 1),
  };
  for (const t of translators) {
    for (const [field, options] of Object.entries(over))
      assert.match(await code(t.translate('a', options)), /^BAD_INPUT: /, field);
    for (const [field, text] of Object.entries(texts))
      assert.match(await code(t.translate(text)), /^BAD_INPUT: /, field);
  }
  assert.match(
    await code(loadTranslator({ model: TINY, threads: L.threads + 1 })),
    new RegExp(`^BAD_INPUT: options.threads must be an integer in 1..${L.threads}`),
  );
  assert.match(
    await code(loadTranslator({ model: new Uint8Array(L.modelBytes + 1) })),
    /^BAD_MODEL: /,
  );
  const lab = await loadAttentionLab();
  assert.throws(() => lab.sinusoidalPositions(L.labSize + 1, 8), /length must be an integer/);
  const mask = { kind: 'causal', offset: L.labMaskInt + 1 };
  assert.throws(
    () => lab.attention({ q: [[1]], k: [[1]], v: [[1]], score: 'dot', mask }),
    /mask\.offset must be an integer/,
  );
  // why: batchPieces bounds one engine batch; a call within the other limits never reaches it
  // (64 sentences of at most 250 pieces), so it is enforced natively (batch_limits_test.cpp)
  assert.ok(64 * 250 <= L.batchPieces);
});

test('the lab refuses a matrix over its size, and positions come without similarity', async () => {
  const lab = await loadAttentionLab();
  const rows = { shape: [50000, 2], data: new Float32Array(100000) };
  const small = [
    [1, 0],
    [0, 1],
  ];
  assert.throws(
    () => lab.linearAttention({ q: rows, k: small, v: small }),
    (e) =>
      e.code === 'BAD_INPUT' &&
      /q is \[50000, 2\]: the lab takes at most 4096 rows/.test(e.message),
  );
  const p = lab.sinusoidalPositions(4096, 8);
  assert.deepEqual(p.shape, [4096, 8]);
  assert.deepEqual(lab.positionSimilarity(3, 4).shape, [3, 3]);
});

test('a model buffer over 1 GiB is BAD_MODEL, not INTERNAL', async () => {
  // why: zero-filled buffers are allocated lazily, so this costs no real memory
  assert.match(
    await code(loadTranslator({ model: new Uint8Array(2 ** 31 + 1) })),
    /^BAD_MODEL: the model is 2147483649 bytes, over the limit of 1073741824/,
  );
});

test('the lab refuses a causal offset that would wrap', async () => {
  const lab = await loadAttentionLab();
  const inputs = {
    q: [[1, 0]],
    k: [
      [1, 0],
      [0, 1],
    ],
    v: [[1], [0]],
    score: 'dot',
  };
  assert.throws(
    () => lab.attention({ ...inputs, mask: { kind: 'causal', offset: 2 ** 31 } }),
    (e) => e.code === 'BAD_INPUT' && /mask\.offset must be an integer/.test(e.message),
  );
  assert.throws(
    () => lab.attention({ ...inputs, mask: { kind: 'local', window: 1.5 } }),
    (e) => e.code === 'BAD_INPUT',
  );
  const big = lab.attention({ ...inputs, mask: { kind: 'causal', offset: 5 } });
  assert.deepEqual(
    [...big.weights.data].map((x) => x > 0),
    [true, true],
    'offset 5 sees all',
  );
});
