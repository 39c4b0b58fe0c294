// Native CLI vs WASM on the same model and sentences: the same tokens, and attention, token
// probabilities and scores within 1e-4 (SIMDe on SSE/AVX natively, SIMD128 in WASM). Runs
// `heed translate -m MODEL --attention OUT.json TEXT...`; skipped when the CLI is not built.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { loadTranslator } from 'heed';
import { ROOT, TINY, TINY_POST, assertClose, nativeCli } from './helpers.mjs';

const CLI = nativeCli();
const TEXTS = [
  'This package contains the development files.',
  'A simple text editor',
  'It reads the configuration file and starts the server in the background.',
  'Hello, world! 42 ☃',
  'Fonts for displaying mathematical formulas on the screen.',
];
const MODELS = [
  TINY,
  TINY_POST,
  path.join(ROOT, 'models', 'en-fr.heed'),
  path.join(ROOT, 'models', 'en-de.heed'),
].filter((m) => existsSync(m));
const work = mkdtempSync(path.join(tmpdir(), 'heed-native-'));
after(() => rmSync(work, { recursive: true, force: true }));

function native(model, beam) {
  const out = path.join(work, 'attention.json');
  execFileSync(
    CLI,
    ['translate', '-m', model, '--beam', String(beam), '--attention', out, '--', ...TEXTS],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return JSON.parse(readFileSync(out, 'utf8'));
}

for (const model of MODELS)
  for (const beam of [1, 3])
    test(
      `${path.basename(model)} beam ${beam}: native and WASM agree`,
      { skip: !CLI && 'native CLI not built (build-js/heed or build/heed)' },
      async () => {
        const want = native(model, beam);
        const t = await loadTranslator({ model });
        try {
          // why: both sides split each text into sentences; the CLI writes one entry per
          // sentence ('Hello, world! 42 ☃' is two), the package one result per text
          const got = (await t.translate(TEXTS, { beam, attention: true })).flatMap(
            (r) => r.sentences,
          );
          assert.equal(got.length, TEXTS.length + 1);
          assert.equal(got.length, want.length);
          for (let i = 0; i < got.length; i++) {
            const g = got[i],
              w = want[i];
            assert.equal(g.source, w.source);
            assert.deepEqual(g.sourceIds, w.sourceIds, g.source);
            assert.deepEqual(g.targetIds, w.targetIds, g.source);
            assert.equal(g.text, w.text);
            assertClose(g.tokenProbs, w.tokenProbs, 1e-4, `${g.source} token probs`);
            // why: a sum of log-probabilities, each within ~1e-4 (int8 compute rounds
            // activations to int16, so a last-bit difference can move one by a step)
            const tol = 1e-4 * w.targetIds.length;
            assert.ok(Math.abs(g.scores - w.score) < tol, `score ${g.scores} vs ${w.score}`);
            for (const key of ['encoderSelf', 'decoderSelf', 'cross']) {
              assert.deepEqual(g.attention[key].shape, w.attention[key].shape, key);
              assertClose(g.attention[key].data, w.attention[key].data, 1e-4, `${g.source} ${key}`);
            }
            g.attention.steps.forEach((s, j) => {
              assert.deepEqual(
                s.top.map((c) => c.id),
                w.attention.steps[j].top.map((c) => c.id),
              );
            });
          }
        } finally {
          t.dispose();
        }
      },
    );
