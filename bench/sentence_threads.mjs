#!/usr/bin/env node
// Words/s of one 40-word sentence (bench/long_sentence.txt) on 1 and 2 threads, greedy and
// beam 4, in the pthreads WebAssembly build under Node (loadTranslator({ threads: 2 }); each
// call's `threads` picks 1 or 2): the threads share each matrix product of the sentence. The
// native figures: build/sentence_threads. Measurement only, no assertions; the load average is
// printed beside the figures (the machine may be shared).
//
//   node bench/sentence_threads.mjs [--model PATH] [--to LANG] [--rounds N]
//   (default models/multi.heed --to de, 15 rounds; each round times both thread counts)

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadTranslator } from 'heed';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const MODEL = path.resolve(value('--model', path.join(ROOT, 'models', 'multi.heed')));
const TO = value('--to', 'de');
const ROUNDS = Math.max(1, Number(value('--rounds', '15')));

const SENTENCE = readFileSync(path.join(ROOT, 'bench', 'long_sentence.txt'), 'utf8').trim();
const WORDS = SENTENCE.split(/\s+/).length;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

const t = await loadTranslator({ model: MODEL, threads: 2 });
try {
  console.log(
    `${MODEL}, one sentence of ${WORDS} words, to ${TO}, pthreads WebAssembly build; ` +
      `load average ${load()} at the start`,
  );
  for (const beam of [1, 4]) {
    const secs = { 1: [], 2: [] };
    const ids = {};
    for (let round = -1; round < ROUNDS; round++)
      // round -1: warm-up
      for (const threads of [1, 2]) {
        const t0 = performance.now();
        const [r] = await t.translate([SENTENCE], { to: TO, beam, threads, split: false });
        const dt = (performance.now() - t0) / 1000;
        ids[threads] = r.targetIds.join(' ');
        if (round >= 0) secs[threads].push(dt);
      }
    const [m1, m2] = [median(secs[1]), median(secs[2])];
    const [b1, b2] = [Math.min(...secs[1]), Math.min(...secs[2])];
    console.log(
      `${(beam === 1 ? 'greedy' : 'beam 4').padEnd(7)} 1 thread ${(WORDS / m1).toFixed(1).padStart(7)} ` +
        `words/s, 2 threads ${(WORDS / m2).toFixed(1).padStart(7)} words/s: ${(m1 / m2).toFixed(2)}x ` +
        `(median of ${ROUNDS}; best ${(b1 / b2).toFixed(2)}x), ` +
        `${ids[1] === ids[2] ? 'same ids' : 'DIFFERENT ids'}`,
    );
  }
  console.log(`load average ${load()} at the end (wall clock)`);
} finally {
  t.dispose();
}
