#!/usr/bin/env node
// Heed against Bergamot (Firefox's translation engine: Marian compiled to WASM,
// @browsermt/bergamot-translator 0.4.9) on THE SAME MODEL, in headless Chromium and in Node.
// Not a test: it prints figures, and exits non-zero only when it cannot run or the Marian
// export does not belong to the model.
//
//   npm install --prefix bench/bergamot                         # once: the pinned package
//   /usr/bin/python3 -m bench.bergamot.export_marian            # once per model: marian/
//   node bench/bergamot/bench.mjs [--rounds N] [--agreement N] [--node-only | --browser-only] [--json]
//
// The model is models/en-fr-marian.heed: Marian cannot compute the shipped pre-norm models
// exactly (models/pipeline/marian_compat.py says why), so this one was trained here to be computable by
// both (train.py --marian); export_marian.py converts it exactly. What is measured, and how, is
// in compare.mjs: agreement (greedy and beam 4, f32 and int8), words/s one sentence per call,
// load -> first translation, WASM memory. Both engines are single-threaded WASM with SIMD.
// --agreement N: the first N sentences of the DDTP en-fr test split when the corpus is built
// (models/corpus/build_corpus.py), otherwise the timed sentences.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inBenchPage } from '../serve_repo.mjs';
import { SENTENCES } from '../sentences.mjs';
import { compare, report } from './compare.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const PKG = path.join(HERE, 'node_modules', '@browsermt', 'bergamot-translator', 'worker');
const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const ROUNDS = Number(value('--rounds', '5'));
const AGREEMENT = Number(value('--agreement', '200'));
const MARIAN = path.resolve(value('--marian', path.join(HERE, 'marian')));
const JSON_OUT = args.includes('--json');

function fail(msg) {
  console.error(`bench/bergamot: ${msg}`);
  process.exit(2);
}

async function files() {
  if (!existsSync(path.join(PKG, 'bergamot-translator-worker.wasm')))
    fail('Bergamot is not installed: npm install --prefix bench/bergamot');
  if (!existsSync(path.join(MARIAN, 'manifest.json')))
    fail('no Marian export: /usr/bin/python3 -m bench.bergamot.export_marian');
  const manifest = JSON.parse(await readFile(path.join(MARIAN, 'manifest.json'), 'utf8'));
  const heed = await readFile(path.join(ROOT, manifest.model));
  if (createHash('sha256').update(heed).digest('hex') !== manifest.sha256)
    fail(`${manifest.model} changed since the export: run export_marian.py again`);
  return {
    manifest,
    model: {
      heed: new Uint8Array(heed),
      marian: new Uint8Array(await readFile(path.join(MARIAN, 'model.bin'))),
      marianInt8: new Uint8Array(await readFile(path.join(MARIAN, 'model.int8.bin'))),
      vocab: new Uint8Array(await readFile(path.join(MARIAN, 'vocab.spm'))),
    },
  };
}

async function agreementSentences() {
  const test = path.join(ROOT, 'models', 'data', 'ddtp', 'en-fr.test.en');
  if (!existsSync(test)) return { from: 'the timed sentences', list: SENTENCES };
  const lines = (await readFile(test, 'utf8')).split('\n').filter((l) => l.trim());
  return {
    from: `the DDTP en-fr test split's first ${AGREEMENT}`,
    list: lines.slice(0, AGREEMENT),
  };
}

async function inNode(model, agreement) {
  const heed = await import('../../web/lib/heed.js');
  const glue = await readFile(path.join(PKG, 'bergamot-translator-worker.js'), 'utf8');
  const wasmBinary = await readFile(path.join(PKG, 'bergamot-translator-worker.wasm'));
  const { loadBergamot } = await import('./bergamot.mjs');
  return compare({
    loadTranslator: heed.loadTranslator,
    memoryStats: heed.memoryStats,
    loadBergamot: async () => {
      // why: the glue is a classic script; under Node it reads require/__dirname as globals
      globalThis.require = createRequire(import.meta.url);
      globalThis.__dirname = PKG;
      return loadBergamot({ glue, wasmBinary });
    },
    model,
    sentences: SENTENCES,
    agreement,
    rounds: ROUNDS,
    log: (m) => console.error(`  node: ${m}`),
  });
}

async function inChromium(manifest, agreement) {
  // why: the model may live outside the repository (export_marian.py --model PATH)
  const extra = { '/model.heed': path.resolve(ROOT, manifest.model) };
  return inBenchPage('/bench/bergamot/page.html', extra, (page) =>
    page.evaluate((a) => window.runComparison(a), {
      heed: '/model.heed',
      marian: `/${path.relative(ROOT, MARIAN)}/model.bin`,
      marianInt8: `/${path.relative(ROOT, MARIAN)}/model.int8.bin`,
      vocab: `/${path.relative(ROOT, MARIAN)}/vocab.spm`,
      sentences: SENTENCES,
      agreement,
      rounds: ROUNDS,
    }),
  );
}

const { manifest, model } = await files();
const agreement = await agreementSentences();
const load = (await import('node:os'))
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(
  `Heed vs Bergamot on ${manifest.model} (Marian export: ${path.relative(ROOT, MARIAN)}), ` +
    `${ROUNDS} rounds, agreement on ${agreement.from}; load average ${load}`,
);
const results = {};
if (!args.includes('--node-only')) {
  results.chromium = await inChromium(manifest, agreement.list);
  console.log(report(results.chromium, 'Chromium'));
}
if (!args.includes('--browser-only')) {
  results.node = await inNode(model, agreement.list);
  console.log(report(results.node, 'Node'));
}
const after = (await import('node:os'))
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(`load average after: ${after}`);
if (JSON_OUT) console.log(`JSON ${JSON.stringify(results)}`);
process.exit(0); // why: the Bergamot glue installs process handlers that keep Node alive
