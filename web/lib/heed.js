// Heed — the JS façade of the WASM engine (types: heed.d.ts), the package's entry. Loads a model
// into the engine (engine.js) and turns the Embind objects of bindings.cpp into the typed API:
// translate, steps, explainHead, memoryStats, limits, and the attention lab (lab.js). Nothing
// runs at import. Not the worker client (heed-worker.js).

import {
  HeedError,
  abortedError,
  checkExplain,
  checkLoadOptions,
  checkObject,
  checkThreads,
  checkTranslate,
  disposedError,
  explainTokens,
  guarded,
  TranslatorBase,
} from './common.js';
import { getCore, growPool, marianBytes, modelBytes, unwrap } from './engine.js';
import { checkInt, engineOptions } from './options.js';
import { paragraphResult, shapeResult } from './results.js';
import { checkExplainRange, checkModelSize, checkTextInput } from './validate.js';

export { HeedError };
export { loadAttentionLab } from './lab.js';

// ---- loading ---------------------------------------------------------------------------

/** Loads the engine and a model; see heed.d.ts. */
export async function loadTranslator(options) {
  checkLoadOptions(options);
  const threads = options.threads ?? 1;
  const core = getCore(options.wasmUrl, threads > 1);
  core.catch(() => {}); // why: awaited below; a model error must not leave it unhandled
  const bytes = options.marian
    ? await marianBytes(options.marian, options.onProgress)
    : await modelBytes(options.model, options.onProgress);
  const engine = await core;
  const limits = engine.limits();
  checkInt(threads, 'threads', 1, limits.threads);
  for (const b of options.marian ? [bytes.model, ...bytes.vocabs] : [bytes])
    checkModelSize(b, limits);
  if (threads > 1) await growPool(engine, threads - 1);
  const handle = new engine.Translator();
  try {
    const int8 = options.compute !== 'f32';
    unwrap(options.marian ? handle.loadMarian(bytes, int8) : handle.load(bytes, int8));
    const info = unwrap(handle.info());
    return new Translator(
      handle,
      {
        config: JSON.parse(info.config),
        metadata: JSON.parse(info.metadata),
        parameters: info.parameters,
        directions: info.directions,
        weightBytes: info.weightBytes,
        compute: info.compute,
        shortlists: info.shortlists,
        threads,
      },
      engine,
    );
  } catch (e) {
    handle.delete();
    throw e;
  }
}

/** A Marian bundle as a Heed model file; see heed.d.ts. */
export async function convertMarian(bundle, options = {}) {
  checkLoadOptions({ ...options, marian: bundle });
  const core = getCore(options.wasmUrl);
  core.catch(() => {});
  const bytes = await marianBytes(bundle);
  const engine = await core;
  for (const b of [bytes.model, ...bytes.vocabs]) checkModelSize(b, engine.limits());
  return unwrap(engine.marianToHeed(bytes));
}

// ---- the translator --------------------------------------------------------------------

/** A view of WASM memory as a copied {shape, data}. */
const copied = (t) => ({ shape: t.shape, data: t.data.slice() });

/** A StepEvent from the engine's step object (its rows view WASM memory: copied here). */
function stepEvent(e) {
  const t = e.targetTokens.length - 1;
  return {
    step: e.step,
    token: e.targetTokens[t],
    id: e.targetIds[t],
    prob: e.prob,
    top: e.top,
    cross: copied(e.cross),
    decoderSelf: copied(e.decoderSelf),
    ...(e.forget ? { forget: copied(e.forget) } : {}),
    tokens: e.targetTokens,
    sourceTokens: e.sourceTokens,
    sourceIds: e.sourceIds,
    sentence: e.sentence,
    sentences: e.sentences,
    // why: the encoder runs once, before the first step; sent once so a listener holds a
    // whole trace at every step (a stopped translation keeps its attention)
    ...(e.encoderSelf && { encoderSelf: copied(e.encoderSelf) }),
  };
}

class Translator extends TranslatorBase {
  #handle;
  #engine; // the Embind module (its enums)
  #contract; // {defaults, limits} of TranslateOptions, from the engine
  #queue = Promise.resolve();
  #busy = false;
  #disposed = false;

  constructor(handle, info, engine) {
    super();
    this.#handle = handle;
    this.#engine = engine;
    this.#contract = {
      // why: a translator loaded with threads decodes batches on them unless a call says less
      defaults: { ...engine.defaultOptions(), threads: info.threads },
      limits: Object.freeze(engine.limits()),
      blocks: engine.AttentionBlock,
      vocab: info.config.vocab_size,
    };
    /** @type {import('./heed.d.ts').ModelInfo} */
    this.info = info;
  }

  translate(text, options) {
    const check = () => (
      checkTextInput(text, this.#contract.limits),
      checkTranslate(text, options, (engine) => engineOptions(engine, this.#contract))
    );
    return guarded(this.#disposed, check, (parsed) =>
      this.#run(() => this.#translate(text, parsed)),
    );
  }

  explainHead(result, where) {
    const check = () => (
      checkExplain(result, where),
      checkExplainRange(result, where, this.info.config)
    );
    return guarded(this.#disposed, check, () => this.#run(() => this.#explain(result, where)));
  }

  /** The engine's limits (see limits()), which translate() checks before any work. */
  get limits() {
    return this.#contract.limits;
  }

  #explain(result, { block, layer, head }) {
    const { sourceIds, targetIds } = result;
    const where = this.#engine.AttentionBlock[block];
    const e = this.#handle.explainHead(sourceIds, targetIds, where, layer, head, result.to ?? '');
    const { startToken, ...explanation } = unwrap(e);
    return { ...explanation, ...explainTokens(result, block, startToken) };
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    // why: dispose() called from onStep runs inside the engine call; free after it returns
    if (!this.#busy) this.#handle.delete();
  }

  /** Runs jobs one at a time, in call order (the engine is not re-entrant). */
  #run(job) {
    const p = this.#queue.then(() => {
      if (this.#disposed) throw disposedError();
      this.#busy = true;
      try {
        return job();
      } catch (e) {
        if (e instanceof WebAssembly.RuntimeError)
          throw new HeedError('INTERNAL', `the engine crashed: ${e.message}`, { cause: e });
        throw e;
      } finally {
        this.#busy = false;
        if (this.#disposed) this.#handle.delete();
      }
    });
    this.#queue = p.catch(() => {});
    return p;
  }

  #translate(text, { engine, onStep, signal }) {
    if (signal?.aborted) throw abortedError(signal);
    const shape = (r) => shapeResult(r, engine.attention);
    // why: the engine splits, chunks and joins (Translator::translate_texts); a batch
    // streams no steps
    const many = Array.isArray(text);
    const items = this.#translateTexts(many ? text : [text], engine, !many && onStep, signal);
    const results = items.map((item) =>
      item.error ? { error: item.error } : paragraphResult(item, shape, engine.surgery),
    );
    if (many) return results;
    if (results[0].error) throw new HeedError(results[0].error.code, results[0].error.message);
    return results[0];
  }

  /** The engine's translateTexts, with step events and abort when asked for. */
  #translateTexts(texts, engine, onStep, signal) {
    if (!onStep && !signal) return unwrap(this.#handle.translateTexts(texts, engine, null));
    let aborted = false,
      failure = null;
    const callback = (event) => {
      try {
        if (signal?.aborted) {
          aborted = true;
          return false;
        }
        if (onStep) onStep(stepEvent(event));
        if (signal?.aborted) {
          aborted = true;
          return false;
        }
        return true;
      } catch (e) {
        failure = { error: e };
        return false;
      }
    };
    // why: step events carry attention rows, so the engine records them whenever onStep is set
    const items = unwrap(
      this.#handle.translateTexts(
        texts,
        { ...engine, attention: engine.attention || Boolean(onStep) },
        callback,
      ),
    );
    if (failure) throw failure.error;
    if (aborted) throw abortedError(signal);
    return items;
  }
}

// ---- the engine ----------------------------------------------------------------------

/**
 * Bytes of WASM memory in use by malloc and in total (for leak checks and the demo), of the
 * single-thread engine, or with `threads` > 1 of the pthreads engine (whose pool of workers it
 * counts too).
 */
export async function memoryStats(options) {
  checkObject(options, 'options', true);
  const threads = options?.threads ?? 1;
  checkThreads(threads);
  const core = await getCore(options?.wasmUrl, threads > 1);
  checkInt(threads, 'threads', 1, core.limits().threads);
  const stats = core.heapStats();
  if (threads === 1) return stats;
  const { unusedWorkers, runningWorkers } = core.PThread;
  return { ...stats, workers: unusedWorkers.length + runningWorkers.length };
}

/** Every limit of the engine (options, one call's budget, model size, lab); see heed.d.ts. */
export async function limits(options) {
  checkObject(options, 'options', true);
  const core = await getCore(options?.wasmUrl);
  return Object.freeze(core.limits());
}
