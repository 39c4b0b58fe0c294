// The Heed–Bergamot comparison itself, the same code in Node (bench.mjs) and in Chromium
// (page.html): both engines single-threaded WASM on the calling thread, the same model (a Heed
// file and its exact Marian conversion, export_marian.py), the same sentences, one per call.
//
// 1. Agreement: each engine translates every `agreement` sentence alone, greedy and beam 4,
//    float32 and int8 (Heed from the Heed file and from the Marian files, Bergamot with <unk>
//    allowed and banned); identical output strings are counted, engine against engine and
//    each engine's int8 against its float32.
// 2. Speed: `rounds` rounds; in each, every configuration translates the timed sentences once,
//    one sentence per call (and greedy, the whole set in one call: a batch), the order of
//    configurations rotating per round; words/s counts source words; the median round is reported.
// 3. Load → first translation: the model bytes already in memory and each engine's module
//    already instantiated (measured once, separately), the median of `latencyRounds` fresh loads.
// 4. Memory: each engine's WASM linear memory before and after 3. (one model loaded at a time;
//    linear memory grows and never shrinks, so this is the peak with one model of each compute).

const CONFIGS = [
  { engine: 'heed', compute: 'f32', beam: 1 },
  { engine: 'bergamot', compute: 'f32', beam: 1 },
  { engine: 'heed', compute: 'int8', beam: 1 },
  { engine: 'bergamot', compute: 'int8', beam: 1 },
  { engine: 'heed', compute: 'f32', beam: 4 },
  { engine: 'bergamot', compute: 'f32', beam: 4 },
  { engine: 'heed', compute: 'int8', beam: 4 },
  { engine: 'bergamot', compute: 'int8', beam: 4 },
  // the whole set in one call: Heed's translate(array), Bergamot's batch of sentences
  { engine: 'heed', compute: 'f32', beam: 1, batch: true },
  { engine: 'bergamot', compute: 'f32', beam: 1, batch: true },
  { engine: 'heed', compute: 'int8', beam: 1, batch: true },
  { engine: 'bergamot', compute: 'int8', beam: 1, batch: true },
];
const GEMM = { f32: 'float32', int8: 'int8shiftAll' };
const marianFile = (model, compute) =>
  compute === 'int8' && model.marianInt8 ? model.marianInt8 : model.marian;
const label = (c) =>
  `${c.engine === 'heed' ? 'Heed' : 'Bergamot'} ${c.compute} beam ${c.beam}${c.batch ? ' batch' : ''}`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const countWords = (texts) => texts.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);

/**
 * @param {object} a
 * @param {Function} a.loadTranslator   heed's loadTranslator
 * @param {Function} a.memoryStats      heed's memoryStats
 * @param {Function} a.loadBergamot     () => Promise<bergamot api> (instantiates the module)
 * @param {{heed: Uint8Array, marian: Uint8Array, marianInt8?: Uint8Array, vocab: Uint8Array}} a.model
 *   marianInt8: Marian's own int8 file (export_marian.py model.int8.bin) for the int8 runs;
 *   without it Marian quantises model.bin at load
 * @param {string[]} a.sentences        timed
 * @param {string[]} a.agreement        checked for identical output
 * @param {number} [a.rounds]
 * @param {(msg: string) => void} [a.log]
 */
export async function compare({
  loadTranslator,
  memoryStats,
  loadBergamot,
  model,
  sentences,
  agreement,
  rounds = 5,
  latencyRounds = 5,
  log = () => {},
}) {
  const result = { configs: [], agreement: [], latency: {}, memory: {}, instantiate: {} };

  // like with like: each engine's module alone (memoryStats() instantiates Heed's); the first
  // model load after it is timed apart (it used to be counted in Heed's instantiation)
  let t0 = performance.now();
  const heedBefore = (await memoryStats()).size;
  result.instantiate.heed = performance.now() - t0;
  t0 = performance.now();
  const probe = await loadTranslator({ model: model.heed, compute: 'f32' });
  result.instantiate.heedFirstModel = performance.now() - t0;
  probe.dispose();
  t0 = performance.now();
  const bergamot = await loadBergamot();
  result.instantiate.bergamot = performance.now() - t0;
  const bergamotBefore = bergamot.memoryBytes();

  // ---- 3. load -> first translation; 4. memory ----
  for (const compute of ['f32', 'int8']) {
    const h = [];
    const b = [];
    for (let r = 0; r < latencyRounds; r++) {
      let start = performance.now();
      const t = await loadTranslator({ model: model.heed, compute });
      await t.translate(sentences[0]);
      h.push(performance.now() - start);
      t.dispose();
      start = performance.now();
      const m = bergamot.model({
        model: marianFile(model, compute),
        vocab: model.vocab,
        gemm: GEMM[compute],
      });
      m.translate([sentences[0]]);
      b.push(performance.now() - start);
      m.delete();
    }
    result.latency[compute] = { heed: median(h), bergamot: median(b) };
  }
  // why: before the speed runs load several models at once; one model at a time until here
  result.memory = {
    heed: { before: heedBefore, after: (await memoryStats()).size },
    bergamot: { before: bergamotBefore, after: bergamot.memoryBytes() },
  };

  // ---- engines, one per configuration ----
  const heed = {};
  const marian = {};
  for (const compute of ['f32', 'int8'])
    heed[compute] = await loadTranslator({ model: model.heed, compute });
  for (const c of CONFIGS.filter((c) => c.engine === 'bergamot'))
    marian[`${c.compute}/${c.beam}`] = bergamot.model({
      model: marianFile(model, c.compute),
      vocab: model.vocab,
      beam: c.beam,
      gemm: GEMM[c.compute],
    });
  // why: Marian stops at max-length-factor (2) × the source's pieces with </s>; Heed's own limit
  // is 2 × that + 10: give Heed Marian's, so both do the same work on a run-away sentence
  const limit = new Map();
  for (const s of new Set([...agreement, ...sentences]))
    limit.set(s, 2 * (await heed.f32.translate(s, { maxLength: 1 })).sourceIds.length);
  let truncated = false; // why: Heed's last result hit that limit
  const run = async (c, text) => {
    if (c.engine === 'bergamot') return marian[`${c.compute}/${c.beam}`].translate([text])[0];
    const r = await heed[c.compute].translate(text, { beam: c.beam, maxLength: limit.get(text) });
    truncated = r.truncated;
    return r.text;
  };

  // ---- 1. agreement ----
  // Two pairings of the same model. The Heed file (Heed's search rules) beside Bergamot with
  // <unk> allowed, as that search allows it; and Heed reading the Marian files themselves
  // (model.bin, model.int8.bin: the Marian reader, Marian's search rules) beside Bergamot as it
  // is by default (<unk> never chosen). Each form translates every sentence once per compute
  // and beam; the rows compare those outputs: one engine against the other, and each engine's
  // int8 against its own float32.
  const heedMarian = {};
  for (const compute of ['f32', 'int8'])
    heedMarian[compute] = await loadTranslator({
      marian: { model: marianFile(model, compute), vocabs: [model.vocab] },
      compute,
    });
  const FORMS = {
    heedFile: { name: 'Heed file (Heed search)', heed, limit: true },
    bergamotUnk: { name: 'Bergamot, allow-unk', allowUnk: true },
    heedMarian: { name: 'Heed, Marian files (Marian search)', heed: heedMarian },
    bergamot: { name: 'Bergamot', allowUnk: false },
  };
  const outputs = {}; // form/compute/beam -> [{ text, truncated }] per sentence
  for (const [key, form] of Object.entries(FORMS))
    for (const compute of ['f32', 'int8'])
      for (const beam of [1, 4]) {
        const out = [];
        if (form.heed) {
          for (const s of agreement) {
            // why: the Marian reader's default limit is Marian's own, each sentence's 2 × its
            // pieces; the Heed file's is longer, so it is given the text's (as in the speed runs)
            const maxLength = form.limit ? limit.get(s) : undefined;
            const r = await form.heed[compute].translate(s, { beam, maxLength });
            out.push({ text: r.text, truncated: r.truncated });
          }
        } else {
          // why: one model at a time (each holds its own workspace)
          const m = form.allowUnk
            ? marian[`${compute}/${beam}`]
            : bergamot.model({
                model: marianFile(model, compute),
                vocab: model.vocab,
                beam,
                gemm: GEMM[compute],
                allowUnk: false,
              });
          for (const s of agreement) out.push({ text: m.translate([s])[0], truncated: false });
          if (!form.allowUnk) m.delete();
        }
        outputs[`${key}/${compute}/${beam}`] = out;
      }
  for (const t of Object.values(heedMarian)) t.dispose();
  const agree = (name, beam, a, b) => {
    const [x, y] = [outputs[a], outputs[b]];
    let same = 0;
    let cut = 0; // differing, where the first (a Heed form) stopped at the length limit
    const differ = []; // the others (the report prints 3; --json has them all)
    agreement.forEach((source, i) => {
      if (x[i].text === y[i].text) same++;
      else if (x[i].truncated) cut++;
      else differ.push({ source, a: x[i].text, b: y[i].text });
    });
    result.agreement.push({ name, beam, same, cut, total: agreement.length, differ });
    log(`agreement ${name} beam ${beam}: ${same}/${agreement.length} identical`);
  };
  for (const [a, b] of [
    ['heedFile', 'bergamotUnk'],
    ['heedMarian', 'bergamot'],
  ])
    for (const compute of ['f32', 'int8'])
      for (const beam of [1, 4])
        agree(
          `${compute} ${FORMS[a].name} = ${FORMS[b].name}`,
          beam,
          `${a}/${compute}/${beam}`,
          `${b}/${compute}/${beam}`,
        );
  for (const key of ['bergamot', 'heedMarian', 'bergamotUnk', 'heedFile'])
    for (const beam of [1, 4])
      agree(`${FORMS[key].name}: int8 = f32`, beam, `${key}/int8/${beam}`, `${key}/f32/${beam}`);

  // ---- 2. speed ----
  const words = countWords(sentences);
  const times = CONFIGS.map(() => []);
  const pass = async (c) => {
    if (!c.batch) for (const s of sentences) await run(c, s);
    else if (c.engine === 'heed')
      await heed[c.compute].translate(sentences, {
        beam: c.beam,
        maxLength: Math.max(...sentences.map((s) => limit.get(s))),
      });
    else marian[`${c.compute}/${c.beam}`].translate(sentences);
  };
  for (const c of CONFIGS) await pass(c); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < CONFIGS.length; k++) {
      const i = (k + r) % CONFIGS.length;
      const start = performance.now();
      await pass(CONFIGS[i]);
      times[i].push((performance.now() - start) / 1000);
    }
    log(`round ${r + 1}/${rounds}`);
  }
  CONFIGS.forEach((c, i) => {
    const s = median(times[i]);
    result.configs.push({ ...c, name: label(c), seconds: s, wordsPerSecond: words / s });
  });
  for (const t of Object.values(heed)) t.dispose();
  for (const m of Object.values(marian)) m.delete();

  result.words = words;
  return result;
}

/** The result as the lines bench.mjs prints. */
export function report(r, where) {
  const lines = [];
  const mb = (x) => `${(x / 1e6).toFixed(1)} MB`;
  lines.push(`${where}: agreement (identical translations, each engine one sentence per call)`);
  for (const a of r.agreement) {
    lines.push(
      `  ${a.name} beam ${a.beam}: ${a.same}/${a.total}` +
        (a.cut ? ` (${a.cut} of the others: Heed stopped at its length limit)` : ''),
    );
    for (const d of a.differ.slice(0, 3))
      lines.push(`      "${d.source}"\n        ${d.a}\n        ${d.b}`);
  }
  lines.push(`${where}: words/s (median of the rounds; ${r.words} source words per round)`);
  const rows = [
    ['greedy', 1, false],
    ['beam 4', 4, false],
    ['batch ', 1, true],
  ];
  for (const [what, beam, batch] of rows)
    for (const compute of ['f32', 'int8']) {
      const find = (engine) =>
        r.configs.find(
          (c) =>
            c.engine === engine && c.compute === compute && c.beam === beam && !!c.batch === batch,
        );
      const [h, b] = [find('heed'), find('bergamot')];
      lines.push(
        `  ${what} ${compute.padEnd(4)}  Heed ${h.wordsPerSecond.toFixed(1).padStart(7)}   ` +
          `Bergamot ${b.wordsPerSecond.toFixed(1).padStart(7)}   ` +
          `Heed/Bergamot ${(h.wordsPerSecond / b.wordsPerSecond).toFixed(2)}×`,
      );
    }
  lines.push(`${where}: load -> first translation (model bytes in memory, module instantiated)`);
  for (const [compute, l] of Object.entries(r.latency))
    lines.push(
      `  ${compute.padEnd(4)}  Heed ${l.heed.toFixed(0)} ms   Bergamot ${l.bergamot.toFixed(0)} ms`,
    );
  lines.push(
    `  module instantiation alone: Heed ${r.instantiate.heed.toFixed(0)} ms, Bergamot ${r.instantiate.bergamot.toFixed(0)} ms ` +
      `(then Heed's first model load, f32: ${r.instantiate.heedFirstModel.toFixed(0)} ms)`,
  );
  lines.push(
    `${where}: WASM memory after loading and translating (one model at a time): Heed ${mb(r.memory.heed.after)} (${mb(
      r.memory.heed.before,
    )} before), Bergamot ${mb(r.memory.bergamot.after)} (${mb(r.memory.bergamot.before)} before)`,
  );
  return lines.join('\n');
}
