#!/usr/bin/env node
// Bergamot (@browsermt/bergamot-translator 0.4.9: the real Marian compiled to WASM) translating
// with one Marian bundle, the oracle the fixtures in tests/data/marian/ are checked against
// (models/goldens/make_marian_fixtures.py records its outputs, tests/marian_fixtures_test.py
// runs it again). Not a test itself: it prints what Bergamot produced.
//
//   node bench/bergamot/fixture_oracle.mjs --model M.bin --vocab V.spm [--vocab TARGET.spm]
//        [--shortlist lex.s2t.bin] [--gemm float32|int8shiftAll|int8shiftAlphaAll]
//        [--beam N] [--check] --sentences S.json
//   -> {"outputs": ["...", ...]} on stdout, one translation per sentence of S.json (a JSON list)
//
// Each sentence is translated alone (one call each: Marian's length limit, max-length-factor ×
// the batch's longest source, is then the sentence's own), greedy (beam 1; --beam N: beam search
// of N with the model's cost, skip-cost off, scores normalised by length), with the options
// Firefox passes (allow-unk off, max-length-factor 2), one sentence per line (ssplit-mode
// sentence: no splitting inside a sentence). One vocabulary: shared by source and target
// (Bergamot then also adds the source ids to the shortlist). --check: check-bytearray, Bergamot's
// checks of the model file and of the shortlist's checksum.
// Needs the package: cd bench/bergamot && npm ci --no-audit --no-fund

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBergamot } from './bergamot.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = path.join(HERE, 'node_modules', '@browsermt', 'bergamot-translator', 'worker');

function parse(argv) {
  const a = { vocab: [], gemm: 'float32', check: false, beam: '1' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--check') a.check = true;
    else if (k === '--vocab') a.vocab.push(argv[++i]);
    else if (['--model', '--shortlist', '--gemm', '--sentences', '--beam'].includes(k))
      a[k.slice(2)] = argv[++i];
    else throw new Error(`unknown argument ${k}`);
  }
  if (!/^[1-9][0-9]?$/.test(a.beam)) throw new Error(`--beam takes 1 to 99, not ${a.beam}`);
  if (!a.model || !a.sentences || a.vocab.length < 1 || a.vocab.length > 2)
    throw new Error(
      'usage: --model M --vocab V [--vocab T] [--shortlist L] [--gemm G] [--beam N] [--check] ' +
        '--sentences S.json',
    );
  return a;
}

function aligned(Module, bytes, alignment) {
  const memory = new Module.AlignedMemory(bytes.byteLength, alignment);
  memory.getByteArrayView().set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return memory;
}

/**
 * Runs `load` (bergamot.mjs's loadBergamot) and returns the BlockingService its api() creates.
 * why: that api fixes one vocabulary and no shortlist, so the TranslationModel is made here, and
 * a module holds one BlockingService only (a second one throws); the glue reads the global
 * `Module` loadBergamot assigns, so its onRuntimeInitialized is wrapped as it is assigned, to
 * keep the service api() constructs.
 */
async function serviceOf(load) {
  let module;
  let service = null;
  Object.defineProperty(globalThis, 'Module', {
    configurable: true,
    get: () => module,
    set(m) {
      module = m;
      const ready = m.onRuntimeInitialized;
      m.onRuntimeInitialized = () => {
        const Service = m.BlockingService;
        m.BlockingService = function BlockingService(config) {
          service = new Service(config);
          return service;
        };
        ready();
      };
    },
  });
  await load();
  if (!service) throw new Error('bergamot.mjs created no BlockingService');
  return service;
}

async function main() {
  const a = parse(process.argv.slice(2));
  if (!existsSync(path.join(PKG, 'bergamot-translator-worker.wasm')))
    throw new Error('Bergamot is not installed: cd bench/bergamot && npm ci --no-audit --no-fund');
  const sentences = JSON.parse(await readFile(a.sentences, 'utf8'));
  const glue = await readFile(path.join(PKG, 'bergamot-translator-worker.js'), 'utf8');
  const wasmBinary = await readFile(path.join(PKG, 'bergamot-translator-worker.wasm'));
  // why: the glue is a classic script; under Node it reads require/__dirname as globals
  globalThis.require = createRequire(import.meta.url);
  globalThis.__dirname = PKG;
  const service = await serviceOf(() => loadBergamot({ glue, wasmBinary }));
  const Module = globalThis.Module;

  const config = [
    `beam-size: ${a.beam}`,
    'normalize: 1.0',
    'word-penalty: 0',
    'max-length-break: 128',
    'mini-batch-words: 1024',
    'workspace: 128',
    'max-length-factor: 2.0',
    // why: skip-cost leaves the model's cost out of the search, which only greedy can afford
    `skip-cost: ${a.beam === '1'}`,
    'cpu-threads: 0',
    'quiet: true',
    'quiet-translation: true',
    'ssplit-mode: sentence',
    `gemm-precision: ${a.gemm}`,
    `check-bytearray: ${a.check}`,
  ].join('\n');
  const vocabs = new Module.AlignedMemoryList();
  for (const v of a.vocab) vocabs.push_back(aligned(Module, await readFile(v), 64));
  const shortlist = a.shortlist
    ? aligned(Module, await readFile(a.shortlist), 64)
    : new Module.AlignedMemory(0, 64);
  const model = new Module.TranslationModel(
    config,
    aligned(Module, await readFile(a.model), 256),
    shortlist,
    vocabs,
    null,
  );
  const outputs = [];
  for (const text of sentences) {
    const input = new Module.VectorString();
    const options = new Module.VectorResponseOptions();
    input.push_back(text);
    options.push_back({ qualityScores: false, alignment: false, html: false });
    const responses = service.translate(model, input, options);
    outputs.push(responses.get(0).getTranslatedText());
    input.delete();
    options.delete();
    responses.delete();
  }
  model.delete();
  process.stdout.write(`${JSON.stringify({ outputs })}\n`);
}

main().catch((e) => {
  console.error(`fixture_oracle: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
