// Words/s of one 40-word sentence (bench/long_sentence.txt) on 1 and 2 threads, greedy and
// beam 4, in the pthreads WebAssembly build under Node (loadTranslator({ threads: 2 }); each
// call's `threads` picks 1 or 2) and, with --browser, in headless Chromium on a cross-origin
// isolated page (bench/sentence_threads.html): the threads share each matrix product of the
// sentence. The native figures: build/sentence_threads. Measurement only, no assertions; the
// load average is printed beside the figures (the machine may be shared).
//
//   node bench/sentence_threads.mjs [--model PATH] [--to LANG] [--rounds N] [--browser]
//   (default models/multi.heed --to de, 15 rounds; each round times both thread counts)

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadTranslator } from 'heed';

import { inBenchPage } from './serve_repo.mjs';
import { threadRounds } from './sentence_threads_rounds.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const MODEL = path.resolve(value('--model', path.join(ROOT, 'models', 'multi.heed')));
const TO = value('--to', 'de');
const ROUNDS = Math.max(1, Number(value('--rounds', '15')));
const BROWSER = args.includes('--browser');

const SENTENCE = readFileSync(path.join(ROOT, 'bench', 'long_sentence.txt'), 'utf8').trim();
const WORDS = SENTENCE.split(/\s+/).length;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const where = BROWSER ? 'headless Chromium' : 'Node';
console.log(
  `${MODEL}, one sentence of ${WORDS} words, to ${TO}, pthreads WebAssembly build in ${where}; ` +
    `load average ${load()} at the start`,
);
const options = { to: TO, rounds: ROUNDS };
const lines = BROWSER
  ? await inBenchPage(
      '/bench/sentence_threads.html',
      { '/model.heed': MODEL },
      (page) =>
        page.evaluate((a) => window.runThreads(a), {
          model: '/model.heed',
          sentence: SENTENCE,
          ...options,
        }),
      { isolated: true },
    )
  : await inNode();
for (const line of lines) console.log(line);
console.log(`load average ${load()} at the end (wall clock)`);

async function inNode() {
  const t = await loadTranslator({ model: MODEL, threads: 2 });
  try {
    return await threadRounds(t, SENTENCE, options);
  } finally {
    t.dispose();
  }
}
