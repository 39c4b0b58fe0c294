// The Heed–onnxruntime-web comparison itself, the same code in Node and in Chromium (bench.mjs
// drives both; page.html hosts the browser run): both engines single-threaded WASM with SIMD on
// the calling thread, the same model (Heed's file and the ONNX graphs export_onnx.py made from
// it), the same sentences, one per call, compared like with like (int8 vs int8, f32 vs f32).
//
// 1. Numerics: ORT's graphs against PyTorch outputs saved by the export (reference.json); the
//    int8 graphs against the torch forward of the same quantised modules, and each quantised
//    product alone.
// 2. Greedy decoding: Heed's npm API (beam 1, one sentence per call) and two ORT loops per
//    compute on Heed's own source ids: "no cache" (decoder.onnx on the whole prefix at every
//    step) and "KV cache" (encoder_kv.onnx once, then decoder_step.onnx on one token with the
//    cached self-attention K/V). Both stop as Heed does: at EOS or after 2·|source ids| + 10
//    tokens (capped by max_positions). Agreement: ORT's greedy ids against Heed's of the same
//    compute. Speed: after a warm-up, `rounds` rounds, the order of engines rotating per round;
//    words/s counts source words; Heed / it is the median of per-round ratios.

// why: the integer part of an int8 graph is exact, but its float parts (layer norm, softmax)
// round in another order than PyTorch's, and an activation within float noise of a rounding tie
// (x/scale = k + ½) then lands one quantisation step away and moves all that follows: on the
// reference ids one such flip moves PyTorch's own int8 logits by 6.9e-2 (the export's
// tie_spread, printed), against 1.8e-1 between int8 and float32 and whole units for a wrong
// graph. So int8 gets 0.1, and each quantised product alone must match exactly (PRODUCT_TOLERANCE
// of its largest output: one tie on 24×256 random inputs at most).
const TOLERANCE = { f32: 1e-2, int8: 0.1 };
const PRODUCT_TOLERANCE = 1e-5;
const COMPUTES = ['int8', 'f32'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const maxAbsDiff = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
function argmax(x) {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}
/** top-1 minus top-2 logit: how close a step was to a tie */
function margin(x) {
  let a = -Infinity,
    b = -Infinity;
  for (const v of x) {
    if (v > a) {
      b = a;
      a = v;
    } else if (v > b) b = v;
  }
  return a - b;
}
/** A [1, n] int64 tensor of token ids. */
const ids = (ort, list) =>
  new ort.Tensor('int64', BigInt64Array.from(list, BigInt), [1, list.length]);
const countWords = (texts) => texts.reduce((n, s) => n + s.split(/\s+/).filter(Boolean).length, 0);

/** ORT's greedy loops over one compute's graphs; `ort` is the onnxruntime-web module. */
function ortEngines(ort, g, cfg, kv, compute) {
  const noCache = {
    name: `ORT ${compute}, no cache (prefix re-run)`,
    async translate(src, maxLength, onLogits) {
      const { memory } = await g.encoder.run({ src: ids(ort, src) });
      const out = [cfg.decoder_start_id];
      for (let t = 0; t < maxLength; t++) {
        const { logits } = await g.decoder.run({ tgt: ids(ort, out), memory });
        const best = argmax(logits.data);
        if (onLogits) onLogits(t, logits.data);
        out.push(best);
        if (best === cfg.eos_id) break;
      }
      return out.slice(1);
    },
  };
  const kvCache = {
    name: `ORT ${compute}, KV cache`,
    async translate(src, maxLength, onLogits) {
      const cross = await g.encoderKv.run({ src: ids(ort, src) });
      const feeds = {};
      for (const n of kv.cross) feeds[n] = cross[n];
      const empty = [1, kv.heads, 0, kv.head_dim];
      for (const n of kv.past) feeds[n] = new ort.Tensor('float32', new Float32Array(0), empty);
      const out = [];
      let token = cfg.decoder_start_id;
      for (let t = 0; t < maxLength; t++) {
        feeds.token = ids(ort, [token]);
        const r = await g.step.run(feeds);
        kv.past.forEach((n, i) => {
          feeds[n] = r[kv.present[i]];
        });
        token = argmax(r.logits.data);
        if (onLogits) onLogits(t, r.logits.data);
        out.push(token);
        if (token === cfg.eos_id) break;
      }
      return out;
    },
  };
  return [noCache, kvCache];
}

/** Max |ORT - PyTorch| of one compute's four graphs on the reference ids (reference.json). */
async function numerics(ort, g, kv, want) {
  const { memory } = await g.encoder.run({ src: ids(ort, want.src) });
  const { logits } = await g.decoder.run({ tgt: ids(ort, want.tgt), memory });
  const cross = await g.encoderKv.run({ src: ids(ort, want.src) });
  const feeds = {};
  for (const n of kv.cross) feeds[n] = cross[n];
  for (const n of kv.past)
    feeds[n] = new ort.Tensor('float32', new Float32Array(0), [1, kv.heads, 0, kv.head_dim]);
  let stepLast = null;
  for (const tok of want.tgt) {
    // teacher-forced over the reference prefix
    feeds.token = ids(ort, [tok]);
    const r = await g.step.run(feeds);
    kv.past.forEach((n, i) => {
      feeds[n] = r[kv.present[i]];
    });
    stepLast = r.logits.data;
  }
  return {
    memory: maxAbsDiff(memory.data, want.memory),
    decoder: maxAbsDiff(logits.data, want.logits_last),
    step: maxAbsDiff(stepLast, want.step_logits_last),
  };
}

/** Greedy ids of `engine` against Heed's of the same compute: { same, notes }. */
async function agreement(engine, heedResults, maxLength) {
  let same = 0;
  const notes = [];
  for (const [i, r] of heedResults.entries()) {
    const margins = [];
    const got = await engine.translate(r.sourceIds, maxLength(r.sourceIds), (t, l) => {
      margins[t] = margin(l);
    });
    const want = r.targetIds;
    if (got.length === want.length && got.every((x, j) => x === want[j])) {
      same++;
      continue;
    }
    let j = 0;
    while (j < got.length && got[j] === want[j]) j++;
    notes.push(
      `  sentence ${i + 1}: first difference at step ${j} (ORT ${got[j]}, Heed ${want[j]}; ` +
        `ORT's top-2 logit margin there ${margins[j]?.toExponential(2)})`,
    );
  }
  return { same, notes };
}

/**
 * Runs the comparison. `ort`: the onnxruntime-web module (its env already set: one thread);
 * `loadTranslator`: Heed's; `graph(file)` -> the bytes of an ONNX file of the export;
 * `manifest`, `reference`: the export's manifest.json and reference.json; `model`: the Heed
 * file's bytes; `sentences`; `rounds`. Returns { lines, numerics, agreement, rows }: the report
 * as lines of text, and the figures (rows: one per engine, greedy words/s).
 */
export async function compareOrt({
  ort,
  loadTranslator,
  graph,
  manifest,
  reference,
  model,
  sentences,
  rounds,
}) {
  const lines = [];
  const say = (s = '') => lines.push(s);
  const cfg = manifest.config;
  const kv = manifest.kv;
  const words = countWords(sentences);
  const sessionOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const session = async (file) => ort.InferenceSession.create(await graph(file), sessionOptions);
  const sessions = async (graphs) => {
    const files = [graphs.encoder, graphs.decoder, graphs.encoder_kv, graphs.decoder_step];
    const [encoder, decoder, encoderKv, step] = await Promise.all(files.map(session));
    return { encoder, decoder, encoderKv, step };
  };
  const graphs = {
    int8: await sessions(manifest.graphs_int8),
    f32: await sessions(manifest.graphs),
  };
  const heed = {
    int8: await loadTranslator({ model: model.slice(), compute: 'int8' }),
    f32: await loadTranslator({ model: model.slice(), compute: 'f32' }),
  };

  // 1. numerics of the graphs against PyTorch
  const ref = reference;
  const want = {
    f32: { src: ref.src, tgt: ref.tgt, memory: ref.memory, logits_last: ref.logits_last },
    int8: { src: ref.src, tgt: ref.tgt, ...ref.int8 },
  };
  want.f32.step_logits_last = ref.logits_last;
  const num = {};
  for (const compute of COMPUTES) {
    const n = (num[compute] = await numerics(ort, graphs[compute], kv, want[compute]));
    say(
      `ORT ${compute} vs PyTorch ${compute}, max |diff|: encoder memory ` +
        `${n.memory.toExponential(2)}, decoder logits ${n.decoder.toExponential(2)}, ` +
        `decoder_step logits ${n.step.toExponential(2)} (tolerance ${TOLERANCE[compute]})`,
    );
    if (Math.max(n.memory, n.decoder, n.step) > TOLERANCE[compute])
      throw new Error(`ORT ${compute} graphs disagree with PyTorch`);
  }
  say(
    `(PyTorch int8 against itself, every quantised input jittered by 1e-7: memory ` +
      `${ref.int8.tie_spread.memory.toExponential(2)}, logits ` +
      `${ref.int8.tie_spread.logits.toExponential(2)}: the spread of one rounding tie)`,
  );
  const products = [];
  for (const p of ref.int8.products) {
    const s = await session(p.file);
    const { y } = await s.run({ x: new ort.Tensor('float32', Float32Array.from(p.x), [p.M, p.K]) });
    await s.release();
    const rel = maxAbsDiff(y.data, p.y) / p.y.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    products.push(`${p.file.replace(/^matmul_int8_|\.onnx$/g, '')} ${rel.toExponential(1)}`);
    if (rel > PRODUCT_TOLERANCE) throw new Error(`ORT's ${p.file} disagrees with PyTorch`);
  }
  say(
    `ORT int8 product alone vs PyTorch (x [24, K]), max |diff| / max |y|: ${products.join(', ')}`,
  );

  // 2a. Heed's tokens and greedy ids; ORT's greedy ids on the same source ids
  const heedResults = { int8: [], f32: [] };
  for (const compute of COMPUTES)
    for (const s of sentences)
      heedResults[compute].push(await heed[compute].translate(s, { beam: 1 }));
  const maxLength = (src) => Math.min(2 * src.length + 10, cfg.max_positions);
  const ortOf = {};
  for (const compute of COMPUTES)
    ortOf[compute] = ortEngines(ort, graphs[compute], cfg, kv, compute);
  const agree = {};
  for (const compute of COMPUTES)
    for (const e of ortOf[compute]) {
      const { same, notes } = await agreement(e, heedResults[compute], maxLength);
      agree[e.name] = same;
      say(
        `greedy ids, ${e.name} vs Heed ${compute}: ${same}/${sentences.length} sentences identical`,
      );
      notes.forEach((n) => say(n));
    }
  const same = heedResults.int8.filter((r, i) => {
    const f = heedResults.f32[i].targetIds;
    return r.targetIds.length === f.length && r.targetIds.every((x, j) => x === f[j]);
  }).length;
  say(`(for scale: Heed int8 vs Heed f32: ${same}/${sentences.length} sentences identical)`);
  for (const compute of COMPUTES) {
    const n = heedResults[compute].reduce((k, r) => k + r.targetIds.length, 0);
    say(`(Heed ${compute}: ${n} target tokens in all, EOS included)`);
  }
  say();

  // 2b. speed
  const srcIds = heedResults.int8.map((r) => r.sourceIds);
  const engines = [];
  for (const compute of COMPUTES) {
    engines.push({
      name: `Heed ${compute} (npm API, beam 1, one sentence per call)`,
      compute,
      heed: true,
      pass: async () => {
        for (const s of sentences) await heed[compute].translate(s, { beam: 1 });
      },
    });
    for (const e of ortOf[compute])
      engines.push({
        name: e.name,
        compute,
        pass: async () => {
          for (const src of srcIds) await e.translate(src, maxLength(src));
        },
      });
  }
  for (const e of engines) {
    await e.pass();
    await e.pass();
  } // warm-up
  const times = engines.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < engines.length; k++) {
      const i = (k + round) % engines.length;
      const t0 = performance.now();
      await engines[i].pass();
      times[i].push((performance.now() - t0) / 1000);
    }
  }
  const wps = times.map((ts) => ts.map((t) => words / t));
  const heedOf = (compute) => engines.findIndex((e) => e.heed && e.compute === compute);
  const ratio = (i) => {
    const h = times[heedOf(engines[i].compute)];
    return median(times[i].map((t, r) => t / h[r]));
  };
  say(
    `greedy translation, ${rounds} rounds after warm-up (words/s = source words / time of one ` +
      `pass; ${sentences.length} sentences, ${words} source words)`,
  );
  say(
    `${'compute'.padEnd(8)}${'engine'.padEnd(52)} ${'median w/s'.padStart(10)} ` +
      `${'best w/s'.padStart(9)} ${'Heed / it, same compute'.padStart(24)}`,
  );
  const rows = engines.map((e, i) => ({
    name: e.name,
    compute: e.compute,
    heed: Boolean(e.heed),
    wordsPerSecond: median(wps[i]),
    best: Math.max(...wps[i]),
    heedOverIt: e.heed ? 1 : ratio(i),
  }));
  for (const r of rows)
    say(
      `${r.compute.padEnd(8)}${r.name.padEnd(52)} ${r.wordsPerSecond.toFixed(1).padStart(10)} ` +
        `${r.best.toFixed(1).padStart(9)} ` +
        `${(r.heed ? '' : `${r.heedOverIt.toFixed(2)}×`).padStart(24)}`,
    );
  heed.int8.dispose();
  heed.f32.dispose();
  for (const g of Object.values(graphs)) for (const s of Object.values(g)) await s.release();
  return { lines, numerics: num, agreement: agree, rows };
}
