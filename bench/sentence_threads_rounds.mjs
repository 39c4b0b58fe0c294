// The rounds of bench/sentence_threads.mjs, shared by its Node run and its page in Chromium
// (bench/sentence_threads.html): one sentence on 1 and 2 threads, greedy and beam 4, the two
// thread counts alternating round by round. Measurement only, no assertions.

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/**
 * Times `sentence` with `translator` (loaded with threads: 2) for `rounds` rounds after one
 * warm-up round; resolves one line per search: words/s on 1 and 2 threads, their ratio (median
 * and best) and whether the ids agree.
 */
export async function threadRounds(translator, sentence, { to, rounds }) {
  const words = sentence.split(/\s+/).length;
  const now = () => globalThis.performance.now();
  const lines = [];
  for (const beam of [1, 4]) {
    const secs = { 1: [], 2: [] };
    const ids = {};
    for (let round = -1; round < rounds; round++)
      // round -1: warm-up
      for (const threads of [1, 2]) {
        const t0 = now();
        const [r] = await translator.translate([sentence], { to, beam, threads, split: false });
        const dt = (now() - t0) / 1000;
        ids[threads] = r.targetIds.join(' ');
        if (round >= 0) secs[threads].push(dt);
      }
    const [m1, m2] = [median(secs[1]), median(secs[2])];
    const [b1, b2] = [Math.min(...secs[1]), Math.min(...secs[2])];
    lines.push(
      `${(beam === 1 ? 'greedy' : 'beam 4').padEnd(7)} 1 thread ${(words / m1).toFixed(1).padStart(7)} ` +
        `words/s, 2 threads ${(words / m2).toFixed(1).padStart(7)} words/s: ${(m1 / m2).toFixed(2)}x ` +
        `(median of ${rounds}; best ${(b1 / b2).toFixed(2)}x), ` +
        `${ids[1] === ids[2] ? 'same ids' : 'DIFFERENT ids'}`,
    );
  }
  return lines;
}
