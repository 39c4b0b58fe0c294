// End to end through the package's public exports on the tiny random models: exact token ids
// and attention against the PyTorch goldens, attention shapes and row sums, step streaming,
// the one-head explainer, and every error path of loadTranslator/translate/dispose.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { loadTranslator } from 'heed';
import {
  assertClose,
  DATA,
  product,
  readJson,
  rejectsWith,
  rowSums,
  TINY,
  TINY_POST,
} from './helpers.mjs';

const GOLDENS_FILE = path.join(DATA, 'tiny_goldens.json');
const GOLDENS = existsSync(GOLDENS_FILE) ? readJson(GOLDENS_FILE) : null;
const TEXTS = [
  'This package contains the development files.',
  'A simple text editor',
  'It reads the configuration file and starts the server in the background.',
  'Hello, world! 42 ☃',
];
const SENTENCE = 'This package contains the development files.';

/** Row t of [L][H][T][K] as a flat array of L*H*width values. */
function rowOf(tensor, t, width) {
  const [L, H, T, K] = tensor.shape;
  const out = [];
  for (let lh = 0; lh < L * H; lh++)
    out.push(...tensor.data.subarray((lh * T + t) * K, (lh * T + t) * K + width));
  return out;
}

/** Head (layer, head) of [L][H][Q][K] as a flat array. */
function headOf(tensor, layer, head) {
  const [, H, Q, K] = tensor.shape;
  const start = (layer * H + head) * Q * K;
  return tensor.data.subarray(start, start + Q * K);
}

for (const [name, file] of [
  ['tiny', TINY],
  ['tiny-post', TINY_POST],
]) {
  describe(
    `${name} model matches the PyTorch goldens`,
    { skip: !GOLDENS && 'tests/data/tiny_goldens.json is missing' },
    () => {
      const g = GOLDENS?.[name];
      let t;
      before(async () => {
        t = await loadTranslator({ model: file });
      });
      after(() => t.dispose());

      test('info carries the config, metadata and parameter count', () => {
        assert.equal(t.info.config.d_model, g.config.d_model);
        assert.equal(t.info.config.heads, g.config.heads);
        assert.ok(t.info.parameters > 0);
        assert.equal(typeof t.info.metadata, 'object');
      });

      test('greedy token ids and attention (teacher-forced in PyTorch) agree', async () => {
        for (const c of g.cases) {
          // why: the goldens run each case as one sequence, as PyTorch did
          const r = await t.translate(c.text, {
            maxLength: g.max_length,
            attention: true,
            split: false,
          });
          assert.deepEqual(r.sourceIds, c.source_ids, c.text);
          assert.deepEqual(r.targetIds, c.greedy_ids, c.text);
          const a = r.attention;
          const layers = [
            ['encoder', a.encoderSelf],
            ['decoder_self', a.decoderSelf],
            ['cross', a.cross],
          ];
          for (const [key, tensor] of layers)
            c.attention[key].forEach((want, layer) => {
              const per = product(tensor.shape.slice(1));
              assert.equal(want.length, per, `${key} size`);
              assertClose(
                tensor.data.subarray(layer * per, (layer + 1) * per),
                want,
                1e-4,
                `${c.text} ${key} layer ${layer}`,
              );
            });
        }
      });

      test('beam search ids and score agree', async () => {
        for (const c of g.cases) {
          const r = await t.translate(c.text, {
            beam: g.beam,
            maxLength: g.max_length,
            lengthPenalty: g.length_penalty,
            split: false,
          });
          assert.deepEqual(r.targetIds, c.beam_ids, c.text);
          assert.ok(Math.abs(r.scores - c.beam_score) < 1e-4, `${r.scores} vs ${c.beam_score}`);
        }
      });
    },
  );
}

describe('translate', () => {
  let t;
  before(async () => {
    t = await loadTranslator({ model: TINY });
  });
  after(() => t.dispose());

  test('result fields, attention shapes, row sums and causality', async () => {
    const r = await t.translate(SENTENCE, { attention: true });
    const { encoder_layers: Le, decoder_layers: Ld, heads: H } = t.info.config;
    const S = r.sourceTokens.length,
      T = r.targetTokens.length;
    assert.equal(typeof r.text, 'string');
    assert.equal(r.sourceIds.length, S);
    assert.equal(r.targetIds.length, T);
    assert.equal(r.tokenProbs.length, T);
    assert.equal(typeof r.scores, 'number');
    const a = r.attention;
    assert.deepEqual(a.encoderSelf.shape, [Le, H, S, S]);
    assert.deepEqual(a.decoderSelf.shape, [Ld, H, T, T]);
    assert.deepEqual(a.cross.shape, [Ld, H, T, S]);
    for (const tensor of [a.encoderSelf, a.decoderSelf, a.cross]) {
      assert.ok(tensor.data instanceof Float32Array);
      assert.equal(tensor.data.length, product(tensor.shape));
      for (const s of rowSums(tensor)) assert.ok(Math.abs(s - 1) < 1e-5, `row sum ${s}`);
    }
    for (let lh = 0; lh < Ld * H; lh++)
      for (let q = 0; q < T; q++)
        for (let k = q + 1; k < T; k++)
          assert.equal(a.decoderSelf.data[(lh * T + q) * T + k], 0, 'causal');
    assert.equal(a.steps.length, T);
    a.steps.forEach((s, i) => {
      assert.equal(s.step, i);
      assert.equal(s.token, r.targetTokens[i]);
      assert.equal(s.id, r.targetIds[i]);
      assert.equal(s.top.length, 5);
      assert.equal(s.top[0].id, s.id, 'greedy picks the most probable');
      for (let j = 1; j < s.top.length; j++) assert.ok(s.top[j - 1].prob >= s.top[j].prob);
    });
  });

  test('no attention unless asked', async () => {
    assert.equal((await t.translate(SENTENCE)).attention, undefined);
  });

  test('a batch gives the same translations as one at a time', async () => {
    const texts = TEXTS;
    const batch = await t.translate(texts);
    assert.equal(batch.length, texts.length);
    for (let i = 0; i < texts.length; i++)
      assert.deepEqual(batch[i].targetIds, (await t.translate(texts[i])).targetIds);
    assert.deepEqual(await t.translate([]), []);
  });

  test("onStep streams every step in order with that step's attention rows", async () => {
    const events = [];
    const r = await t.translate(SENTENCE, { attention: true, onStep: (e) => events.push(e) });
    const T = r.targetTokens.length;
    assert.equal(events.length, T);
    events.forEach((e, i) => {
      assert.equal(e.step, i);
      assert.equal(e.token, r.targetTokens[i]);
      assert.equal(e.id, r.targetIds[i]);
      assert.deepEqual(e.tokens, r.targetTokens.slice(0, i + 1));
      assert.deepEqual(e.sourceTokens, r.sourceTokens);
      assert.deepEqual(e.cross.shape, [
        r.attention.cross.shape[0],
        r.attention.cross.shape[1],
        r.sourceTokens.length,
      ]);
      assert.deepEqual(e.decoderSelf.shape.at(-1), i + 1);
      assertClose(
        e.cross.data,
        rowOf(r.attention.cross, i, r.sourceTokens.length),
        1e-6,
        `cross row ${i}`,
      );
      assertClose(
        e.decoderSelf.data,
        rowOf(r.attention.decoderSelf, i, i + 1),
        1e-6,
        `decoder self row ${i}`,
      );
      for (const s of rowSums(e.cross)) assert.ok(Math.abs(s - 1) < 1e-5);
    });
  });

  test('steps() yields the same events, then returns the result', async () => {
    const it = t.steps(SENTENCE, { beam: 1 });
    const seen = [];
    let next;
    while (!(next = await it.next()).done) seen.push(next.value.token);
    assert.deepEqual(seen, next.value.targetTokens);
    assert.equal(next.value.attention, undefined, 'attention only when asked');
  });

  test('onStep works with beam search and leaves the result unchanged', async () => {
    let n = 0;
    const r = await t.translate(SENTENCE, {
      beam: 3,
      onStep: () => {
        n++;
      },
    });
    assert.ok(n > 0);
    assert.deepEqual(r.targetIds, (await t.translate(SENTENCE, { beam: 3 })).targetIds);
  });

  test('an AbortSignal stops between steps with ABORTED', async () => {
    await rejectsWith(t.translate(SENTENCE, { signal: AbortSignal.abort() }), 'ABORTED');
    const controller = new AbortController();
    let n = 0;
    await rejectsWith(
      t.translate(SENTENCE, {
        signal: controller.signal,
        onStep: () => {
          if (++n === 3) controller.abort();
        },
      }),
      'ABORTED',
    );
    assert.equal(n, 3);
    assert.ok((await t.translate(SENTENCE)).text.length > 0, 'usable after an abort');
  });

  test('an error thrown by onStep rejects the call; the translator stays usable', async () => {
    await assert.rejects(
      t.translate(SENTENCE, {
        onStep: () => {
          throw new Error('boom');
        },
      }),
      /boom/,
    );
    assert.ok((await t.translate(SENTENCE)).text.length > 0);
  });

  test('explainHead recomputes the traced weights of every block', async () => {
    const r = await t.translate(SENTENCE, { attention: true });
    const S = r.sourceTokens.length,
      T = r.targetTokens.length;
    const D = t.info.config.d_model,
      Dh = D / t.info.config.heads;
    const cases = [
      ['encoder', r.attention.encoderSelf, S, S],
      ['decoder', r.attention.decoderSelf, T, T],
      ['cross', r.attention.cross, T, S],
    ];
    for (const [block, traced, Lq, Lk] of cases) {
      const e = await t.explainHead(r, { block, layer: 1, head: 2 });
      assert.equal(e.dk, Dh);
      assert.deepEqual(e.q.shape, [Lq, Dh]);
      assert.deepEqual(e.k.shape, [Lk, Dh]);
      assert.deepEqual(e.weights.shape, [Lq, Lk]);
      assert.deepEqual(e.concat.shape, [Lq, D]);
      assert.deepEqual(e.valueNorms.shape, [Lk]);
      assert.ok(
        Array.from(e.valueNorms.data).every((x) => x > 0),
        `${block} value norms`,
      );
      assert.equal(e.queryTokens.length, Lq);
      assert.equal(e.keyTokens.length, Lk);
      assertClose(e.weights.data, [...headOf(traced, 1, 2)], 1e-5, `${block} weights`);
      for (const s of rowSums(e.weightsUnscaled)) assert.ok(Math.abs(s - 1) < 1e-5);
    }
    await rejectsWith(
      t.explainHead(r, { block: 'encoder', layer: 99, head: 0 }),
      'BAD_INPUT',
      /layer 99/,
    );
    await rejectsWith(t.explainHead(r, { block: 'nope', layer: 0, head: 0 }), 'BAD_INPUT');
    await rejectsWith(
      t.explainHead({ text: 'x' }, { block: 'encoder', layer: 0, head: 0 }),
      'BAD_INPUT',
      /TranslationResult/,
    );
  });

  test('bad text and options reject with BAD_INPUT and a message naming the problem', async () => {
    await rejectsWith(t.translate(''), 'BAD_INPUT', /empty/);
    await rejectsWith(t.translate('   '), 'BAD_INPUT', /empty/);
    // in a batch, a refused text is its own {error} item (tests/node/input.test.mjs)
    assert.match((await t.translate(['fine', '']))[1].error.message, /empty/);
    await rejectsWith(t.translate('x'.repeat(5000)), 'BAD_INPUT', /too long/);
    await rejectsWith(t.translate(42), 'BAD_INPUT', /string/);
    await rejectsWith(t.translate(['a', 3]), 'BAD_INPUT', /text\[1\]/);
    await rejectsWith(t.translate(), 'BAD_INPUT');
    await rejectsWith(t.translate('a', { beam: 0 }), 'BAD_INPUT', /beam/);
    await rejectsWith(t.translate('a', { beam: 17 }), 'BAD_INPUT', /beam/);
    await rejectsWith(t.translate('a', { beam: 1.5 }), 'BAD_INPUT', /beam/);
    await rejectsWith(t.translate('a', { maxLength: -1 }), 'BAD_INPUT', /maxLength/);
    await rejectsWith(t.translate('a', { maxLength: 5000 }), 'BAD_INPUT', /maxLength/);
    await rejectsWith(t.translate('a', { lengthPenalty: NaN }), 'BAD_INPUT', /lengthPenalty/);
    await rejectsWith(t.translate('a', { attention: 'yes' }), 'BAD_INPUT', /attention/);
    await rejectsWith(t.translate('a', { beamSize: 2 }), 'BAD_INPUT', /unknown option 'beamSize'/);
    await rejectsWith(t.translate('a', { onStep: 1 }), 'BAD_INPUT', /onStep/);
    await rejectsWith(t.translate(['a'], { onStep() {} }), 'BAD_INPUT', /single text/);
    await rejectsWith(t.translate('a', null), 'BAD_INPUT', /options/);
  });
});

describe('loading', () => {
  test('bad model bytes reject with BAD_MODEL and the C++ message', async () => {
    await rejectsWith(
      loadTranslator({ model: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]) }),
      'BAD_MODEL',
      /\w{4,}/,
    );
    const bytes = await readFile(TINY);
    await rejectsWith(
      loadTranslator({ model: bytes.subarray(0, bytes.length - 100) }),
      'BAD_MODEL',
      /\w{4,}/,
    );
    await rejectsWith(loadTranslator({ model: new ArrayBuffer(0) }), 'BAD_MODEL');
  });

  test('models load from a path, a file: URL, a Uint8Array and an ArrayBuffer', async () => {
    const bytes = await readFile(TINY);
    const sources = [
      TINY,
      pathToFileURL(TINY),
      pathToFileURL(TINY).href,
      new Uint8Array(bytes),
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    ];
    for (const model of sources) {
      const t = await loadTranslator({ model });
      assert.equal(t.info.config.d_model, 32);
      t.dispose();
    }
  });

  test('an HTTP model reports progress; a missing one rejects with LOAD_FAILED', async () => {
    const bytes = await readFile(TINY);
    const server = createServer((req, res) => {
      if (req.url !== '/tiny.heed') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': bytes.length });
      // why: several chunks, so progress is reported more than once
      for (let i = 0; i < bytes.length; i += 65536) res.write(bytes.subarray(i, i + 65536));
      res.end();
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${server.address().port}`;
    try {
      const seen = [];
      const t = await loadTranslator({
        model: `${base}/tiny.heed`,
        onProgress: (fraction, loaded) => seen.push([fraction, loaded]),
      });
      t.dispose();
      assert.ok(seen.length >= 2, `progress calls: ${seen.length}`);
      assert.deepEqual(seen.at(-1), [1, bytes.length]);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i][0] >= seen[i - 1][0]);
      await rejectsWith(
        loadTranslator({ model: new URL('/missing.heed', base) }),
        'LOAD_FAILED',
        /404/,
      );
    } finally {
      server.close();
    }
  });

  test('bad load options reject with BAD_INPUT; unreadable files with LOAD_FAILED', async () => {
    await rejectsWith(loadTranslator(), 'BAD_INPUT');
    await rejectsWith(loadTranslator({}), 'BAD_INPUT', /model/);
    await rejectsWith(loadTranslator({ model: 42 }), 'BAD_INPUT', /model/);
    await rejectsWith(loadTranslator({ model: TINY, onProgress: 'x' }), 'BAD_INPUT');
    await rejectsWith(loadTranslator({ model: TINY, wasmUrl: 7 }), 'BAD_INPUT', /wasmUrl/);
    await rejectsWith(loadTranslator({ model: TINY, extra: 1 }), 'BAD_INPUT', /extra/);
    await rejectsWith(loadTranslator({ model: '/no/such/model.heed' }), 'LOAD_FAILED', /ENOENT/);
    await rejectsWith(
      loadTranslator({ model: TINY, wasmUrl: '/no/such/heed.wasm' }),
      'LOAD_FAILED',
    );
  });

  test('after dispose every call rejects with DISPOSED', async () => {
    const t = await loadTranslator({ model: TINY });
    const r = await t.translate('A simple text editor');
    const queued = t.translate('A simple text editor');
    t.dispose();
    t.dispose(); // idempotent
    await rejectsWith(queued, 'DISPOSED');
    await rejectsWith(t.translate('A simple text editor'), 'DISPOSED');
    await rejectsWith(t.explainHead(r, { block: 'encoder', layer: 0, head: 0 }), 'DISPOSED');
    const it = t.steps('A simple text editor');
    await rejectsWith(it.next(), 'DISPOSED');
  });

  test('dispose() from inside onStep lets the running call finish, then frees', async () => {
    const t = await loadTranslator({ model: TINY });
    const r = await t.translate(SENTENCE, {
      onStep: (e) => {
        if (e.step === 1) t.dispose();
      },
    });
    assert.ok(r.targetTokens.length > 2);
    await rejectsWith(t.translate(SENTENCE), 'DISPOSED');
  });
});
