// Marian bundles in the WASM engine (loadTranslator({marian})), against the test bundles of
// tests/data/marian/ and their expected.json: greedy ids from an independent numpy transcription
// of Marian's inference (tests/marian_reference.py), which Bergamot itself agrees with on every
// sentence (recorded there). An SSRU decoder's forget gates and the cross-attention match the
// reference's; the lexical shortlist selects as Marian's does (padded to a multiple of 8 ids);
// <unk> is never chosen, as Marian's search suppresses it; a LayerNorm on the embeddings
// (transformer-postprocess-emb n) is computed as Marian computes it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { convertMarian, loadTranslator } from 'heed';
import { DATA, maxAbsDiff, readJson } from './helpers.mjs';

const DIR = path.join(DATA, 'marian');
const EXPECTED = readJson(path.join(DIR, 'expected.json'));
const file = (f) => path.join(DIR, f);

/** The reference stops at ceil(2 × source ids) tokens (Marian's max-length-factor 2), Heed at
 *  2 × source + 10: a capped reference is compared as a prefix. */
function sameIds(got, want) {
  const capped = want.at(-1) !== EXPECTED.fixtures.ssru.eos_id && want.at(-1) !== 0;
  return capped ? got.slice(0, want.length).join() === want.join() : got.join() === want.join();
}

/** Each sentence's source ids equal the reference's, its target ids too (sameIds). */
function assertSameIds(got, cases) {
  got.forEach((s, i) => {
    assert.deepEqual(s.sourceIds, cases[i].source_ids, cases[i].text);
    assert.ok(
      sameIds(s.targetIds, cases[i].ids),
      `${cases[i].text}: ${s.targetIds} vs ${cases[i].ids}`,
    );
  });
}

async function ids(translator, opts = {}) {
  const out = [];
  for (const text of EXPECTED.sentences) {
    const r = await translator.translate(text, { split: false, attention: true, ...opts });
    out.push(r.sentences[0]);
  }
  return out;
}

const BUNDLES = [
  {
    name: 'ssru float32',
    fixture: 'ssru',
    marian: { model: file('ssru/model.bin'), vocabs: [file('ssru/vocab.spm')] },
  },
  {
    name: 'ssru npz',
    fixture: 'ssru',
    marian: { model: file('ssru/model.npz'), vocabs: [file('ssru/vocab.spm')] },
  },
  {
    name: 'embedding norm (transformer-postprocess-emb dn)',
    fixture: 'embnorm',
    marian: { model: file('embnorm/model.bin'), vocabs: [file('ssru/vocab.spm')] },
  },
  {
    name: 'separate vocabularies',
    fixture: 'separate',
    marian: {
      model: file('separate/model.bin'),
      vocabs: [file('separate/source.spm'), file('separate/target.spm')],
    },
  },
];

for (const b of BUNDLES) {
  test(`${b.name}: greedy ids, cross-attention and forget gates equal the reference`, async () => {
    const t = await loadTranslator({ marian: b.marian, compute: 'f32' });
    try {
      assert.equal(t.info.config.decoder_self, 'ssru');
      const cases = EXPECTED.fixtures[b.fixture].cases;
      const got = await ids(t);
      assertSameIds(got, cases);
      for (const i of [0, 1]) {
        const a = got[i].attention;
        const T = cases[i].forget_gates[0].length;
        // [L][T][D] and [L][H][T][S]: the reference's first T steps
        const forget = cases[i].forget_gates.flat(2);
        const [L, Tg, D] = a.forget.shape;
        const mine = [];
        for (let l = 0; l < L; l++)
          mine.push(...a.forget.data.slice(l * Tg * D, l * Tg * D + T * D));
        assert.ok(
          maxAbsDiff(mine, forget).worst < 1e-4,
          `forget gates differ by ${maxAbsDiff(mine, forget).worst}`,
        );
        const cross = cases[i].cross_attention.flat(3);
        const [, H, , S] = a.cross.shape;
        const rows = [];
        for (let lh = 0; lh < L * H; lh++)
          rows.push(...a.cross.data.slice(lh * Tg * S, lh * Tg * S + T * S));
        assert.ok(
          maxAbsDiff(rows, cross).worst < 1e-4,
          `cross-attention differs by ${maxAbsDiff(rows, cross).worst}`,
        );
        assert.ok(
          a.decoderSelf.data.every((x) => x === 0),
          'an SSRU decoder has no self-attention',
        );
      }
    } finally {
      t.dispose();
    }
  });
}

test('OPUS-MT bundle (npz, vocab.yml with source.spm and target.spm): ids and text as the reference', async () => {
  const o = (f) => file(`opus/${f}`);
  const t = await loadTranslator({
    marian: { model: o('model.npz'), vocabs: [o('vocab.yml'), o('source.spm'), o('target.spm')] },
    compute: 'f32',
  });
  try {
    assert.equal(t.info.config.decoder_self, 'attention');
    const cases = EXPECTED.fixtures.opus.cases;
    const got = await ids(t);
    assertSameIds(got, cases);
    got.forEach((s, i) => {
      if (s.targetIds.join() === cases[i].ids.join()) assert.equal(s.text, cases[i].output);
    });
  } finally {
    t.dispose();
  }
});

test('the lexical shortlist selects as Marian: the same ids as the reference with it', async () => {
  const t = await loadTranslator({
    marian: {
      model: file('ssru/model.bin'),
      vocabs: [file('ssru/vocab.spm')],
      shortlist: file('ssru/lex.s2t.bin'),
      target: 'xx',
    },
    compute: 'f32',
  });
  try {
    assert.deepEqual(t.info.shortlists, ['xx']);
    const cases = EXPECTED.fixtures.ssru.cases;
    const got = await ids(t, { shortlist: true });
    got.forEach((s, i) => assert.ok(sameIds(s.targetIds, cases[i].shortlist.ids), cases[i].text));
  } finally {
    t.dispose();
  }
});

test('<unk> is never chosen, as Marian suppresses it; nothing else is', async () => {
  const fx = EXPECTED.fixtures.embnorm;
  const unk = fx.unk_id;
  // the fixture's <unk> would be emitted by a search that did not suppress it
  assert.ok(fx.cases.filter((c) => c.unk_allowed.ids.includes(unk)).length >= 3);
  const t = await loadTranslator({
    marian: { model: file('embnorm/model.bin'), vocabs: [file('ssru/vocab.spm')] },
    compute: 'f32',
  });
  try {
    assert.equal(t.info.config.search_rules, 'marian');
    assert.equal(t.info.config.embedding_norm, true);
    const got = await ids(t);
    assertSameIds(got, fx.cases);
    for (const s of got) assert.ok(!s.targetIds.includes(unk), `${s.targetIds}`);
    const beam = await t.translate(EXPECTED.sentences, { beam: 4 });
    for (const r of beam) assert.ok(!r.sentences[0].targetIds.includes(unk));
    // a control piece is not banned for a Marian model (Marian bans none): a forced <s> is taken
    const bos = t.info.config.bos_id;
    const forced = await t.translate('Hello world.', { forcedPrefix: [5, bos] });
    assert.deepEqual(forced.sentences[0].targetIds.slice(0, 2), [5, bos]);
    await assert.rejects(
      t.translate('Hello world.', { forcedPrefix: [unk] }),
      (e) => e.code === 'BAD_INPUT' && /unknown piece/.test(e.message),
    );
  } finally {
    t.dispose();
  }
});

test('the shortlist is padded to a multiple of 8 ids as Marian pads it', async () => {
  const fx = EXPECTED.fixtures.embnorm;
  const t = await loadTranslator({
    marian: {
      model: file('embnorm/model.bin'),
      vocabs: [file('ssru/vocab.spm')],
      shortlist: file('ssru/lex.s2t.bin'),
      target: 'xx',
    },
    compute: 'f32',
  });
  try {
    const got = await ids(t, { shortlist: true });
    got.forEach((s, i) =>
      assert.ok(sameIds(s.targetIds, fx.cases[i].shortlist.ids), fx.cases[i].text),
    );
    // where a padding id changes the output, Heed's is the padded selection's
    const changed = fx.cases.filter((c) => c.shortlist_unpadded);
    assert.ok(changed.length >= 2, `${changed.length} outputs hinge on the padding`);
    for (const c of changed) {
      const s = got[fx.cases.indexOf(c)];
      assert.notEqual(s.targetIds.join(), c.shortlist_unpadded.ids.join(), c.text);
    }
  } finally {
    t.dispose();
  }
});

test('intgemm8 and alphas bundles load and translate every sentence', async () => {
  for (const model of ['ssru/model.intgemm8.bin', 'ssru/model.alphas.bin']) {
    const t = await loadTranslator({
      marian: { model: file(model), vocabs: [file('ssru/vocab.spm')] },
    });
    try {
      assert.equal(t.info.compute, 'int8');
      assert.equal(JSON.parse(t.info.metadata['heed.marian']).weights, 'intgemm8');
      const r = await t.translate(EXPECTED.sentences);
      assert.equal(r.length, EXPECTED.sentences.length);
    } finally {
      t.dispose();
    }
  }
});

test('convertMarian gives a Heed file that translates as the bundle', async () => {
  const marian = { model: file('ssru/model.bin'), vocabs: [file('ssru/vocab.spm')] };
  const heedFile = await convertMarian(marian);
  const a = await loadTranslator({ model: heedFile, compute: 'f32' });
  const b = await loadTranslator({ marian, compute: 'f32' });
  try {
    assert.deepEqual(await a.translate(EXPECTED.sentences), await b.translate(EXPECTED.sentences));
  } finally {
    a.dispose();
    b.dispose();
  }
});

test('a broken bundle is BAD_MODEL naming the problem; bad options are BAD_INPUT', async () => {
  await assert.rejects(
    loadTranslator({
      marian: { model: file('separate/model.bin'), vocabs: [file('ssru/vocab.spm')] },
    }),
    (e) => e.code === 'BAD_MODEL' && /vocabulary/.test(e.message),
  );
  await assert.rejects(
    loadTranslator({ marian: { model: file('ssru/vocab.spm'), vocabs: [file('ssru/vocab.spm')] } }),
    (e) => e.code === 'BAD_MODEL' && /Marian model/.test(e.message),
  );
  await assert.rejects(
    loadTranslator({ marian: { model: file('ssru/model.bin'), vocabs: [] } }),
    (e) => e.code === 'BAD_INPUT',
  );
  await assert.rejects(
    loadTranslator({
      model: file('ssru/model.bin'),
      marian: { model: file('ssru/model.bin'), vocabs: [] },
    }),
    (e) => e.code === 'BAD_INPUT' && /not both/.test(e.message),
  );
  await assert.rejects(
    loadTranslator({
      marian: { model: file('ssru/model.bin'), vocabs: [file('ssru/vocab.spm')], target: 'f r' },
    }),
    (e) => e.code === 'BAD_INPUT' && /language code/.test(e.message),
  );
});

test('ablating a decoder self-attention head of an SSRU model is refused by name', async () => {
  const t = await loadTranslator({
    marian: { model: file('ssru/model.bin'), vocabs: [file('ssru/vocab.spm')] },
  });
  try {
    await assert.rejects(
      t.translate('Hello world.', {
        interventions: { ablate: [{ block: 'decoder', layer: 0, head: 0 }] },
      }),
      (e) => e.code === 'BAD_INPUT' && /SSRU/.test(e.message),
    );
  } finally {
    t.dispose();
  }
});
