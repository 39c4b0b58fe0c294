// Heed — the JS façade of the WASM engine (types: heed.d.ts). Loads heed.wasm and a model, and
// turns the Embind objects of bindings.cpp into the typed API: translate, steps, explainHead,
// the attention lab. Nothing runs at import. Not the worker client (heed-worker.js).

import {
  BLOCKS,
  HeedError,
  IS_NODE,
  abortedError,
  badInput,
  checkExplain,
  checkLoadOptions,
  checkObject,
  checkThreads,
  checkTranslate,
  describe,
  disposedError,
  explainTokens,
  guarded,
  hasScheme,
  readBody,
  paragraphResult,
  shapeResult,
  TranslatorBase,
} from './common.js';

import { checkExplainRange, checkLabMask, checkModelSize, checkTextInput } from './validate.js';
export { HeedError };

// ---- environment -----------------------------------------------------------------------

let nodeApi = null;
/** fs/url/path, imported only under Node (browsers never load them). */
function node() {
  nodeApi ??= Promise.all([
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises'),
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:url'),
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:path'),
  ]).then(([fs, url, path]) => ({
    readFile: fs.readFile,
    fileURLToPath: url.fileURLToPath,
    pathToFileURL: url.pathToFileURL,
    resolve: path.resolve,
  }));
  return nodeApi;
}

// why: a hand-assembled module whose one function runs i8x16.splat; engines without SIMD
// reject it, so we fail early with a clear message instead of a CompileError on heed.wasm.
const SIMD_PROBE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // \0asm, version 1
  0x01,
  0x05,
  0x01,
  0x60,
  0x00,
  0x01,
  0x7b, // type: () -> v128
  0x03,
  0x02,
  0x01,
  0x00, // one function of that type
  0x0a,
  0x08,
  0x01,
  0x06,
  0x00, // code: one body, no locals
  0x41,
  0x00,
  0xfd,
  0x0f,
  0x0b, // i32.const 0; i8x16.splat; end
]);

function checkSimd() {
  if (typeof WebAssembly !== 'object')
    throw new HeedError('NO_SIMD', 'this JavaScript engine has no WebAssembly support');
  if (!WebAssembly.validate(SIMD_PROBE))
    throw new HeedError(
      'NO_SIMD',
      'Heed needs WebAssembly SIMD (128-bit), which this ' +
        'JavaScript engine lacks or has disabled; it is available in Chrome/Edge 91+, ' +
        'Firefox 89+, Safari 16.4+ and Node 16.4+',
    );
}

/** A string or URL as a URL; under Node a string without a scheme is a file path. */
async function locate(where, what) {
  if (where instanceof URL) return where;
  if (typeof where !== 'string' || where === '')
    throw badInput(`${what} must be a URL or a non-empty string, got ${describe(where)}`);
  try {
    if (IS_NODE && !hasScheme(where)) {
      const { pathToFileURL, resolve } = await node();
      return pathToFileURL(resolve(where));
    }
    return new URL(where, globalThis.location?.href);
  } catch (e) {
    throw badInput(`${what} is not a valid URL or path: ${where}`);
  }
}

const USER_ERROR = Symbol('user callback error');

/** Reads a URL's bytes: fs for file: URLs under Node, else fetch with progress. */
async function readBytes(url, what, onProgress) {
  const report = (fraction, loaded) => {
    try {
      onProgress?.(fraction, loaded);
    } catch (e) {
      throw { [USER_ERROR]: e };
    }
  };
  try {
    if (url.protocol === 'file:' && IS_NODE) {
      const { readFile, fileURLToPath } = await node();
      const b = await readFile(fileURLToPath(url));
      const bytes = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      report(1, bytes.length);
      return bytes;
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
    const length = response.headers.get('content-length');
    // why: with a content-encoding, content-length counts compressed bytes, not what we read
    const total =
      length !== null && !response.headers.get('content-encoding') ? Number(length) : NaN;
    const bytes = await readBody(response, (loaded) => {
      if (loaded < total) report(loaded / total, loaded);
      else if (Number.isNaN(total)) report(NaN, loaded);
    });
    report(1, bytes.length);
    return bytes;
  } catch (e) {
    if (e && e[USER_ERROR] !== undefined) throw e[USER_ERROR];
    throw new HeedError('LOAD_FAILED', `cannot read ${what} from ${url.href}: ${e.message}`, {
      cause: e,
    });
  }
}

// ---- the engine module -----------------------------------------------------------------

const cores = new Map(); // wasm URL (and build) -> Promise<Embind module>

/**
 * The instantiated engine for a wasm location, compiled once per location: the single-thread
 * build, or (`threaded`) the pthreads build mt/heed-mt.mjs + mt/heed-mt.wasm.
 */
function getCore(wasmUrl, threaded = false) {
  checkSimd();
  if (wasmUrl !== undefined && typeof wasmUrl !== 'string' && !(wasmUrl instanceof URL))
    return Promise.reject(badInput(`wasmUrl must be a string or URL, got ${describe(wasmUrl)}`));
  const key = `${threaded ? 'mt:' : ''}${wasmUrl === undefined ? '' : String(wasmUrl)}`;
  let core = cores.get(key);
  if (!core) {
    core = instantiateCore(wasmUrl, threaded);
    cores.set(key, core);
    core.catch(() => cores.delete(key));
  }
  return core;
}

/**
 * The pthreads build's loader. Under Node, 3.1.6's ES6 loader reads `require` and `__dirname`
 * (CommonJS names absent in ES modules) while its factory runs: they are lent as globals for
 * that long (`run`), then put back.
 */
async function threadedLoader() {
  const loader = await import('./mt/heed-mt.mjs');
  if (!IS_NODE) return { loader, run: (f) => f() };
  const [{ createRequire }, { fileURLToPath }] = await Promise.all([
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:module'),
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:url'),
  ]);
  const run = async (f) => {
    const saved = { require: globalThis.require, __dirname: globalThis.__dirname };
    globalThis.require = createRequire(import.meta.url);
    globalThis.__dirname = fileURLToPath(new URL('./mt', import.meta.url));
    try {
      const core = await f();
      // why: the pool's worker_threads would keep Node's event loop (the process) alive;
      // they only ever run while the calling thread waits for them inside a translate call
      const { unusedWorkers = [], runningWorkers = [] } = core.PThread ?? {};
      for (const w of [...unusedWorkers, ...runningWorkers]) w.unref?.();
      return core;
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete globalThis[k];
        else globalThis[k] = v;
    }
  };
  return { loader, run };
}

/**
 * Makes the pthreads engine's pool hold at least `count` loaded workers. why: a translate call
 * on n threads starts n - 1 pthreads while the calling thread blocks in join; a worker the
 * pool lacks would be created then, and it cannot finish loading while its creator is blocked
 * (the call never returned). Workers go back to the pool at each join, so the pool only grows
 * to the most threads a translator asked for, less one.
 */
async function growPool(core, count) {
  const pool = core.PThread;
  const loading = [];
  while (pool.unusedWorkers.length + pool.runningWorkers.length + loading.length < count) {
    pool.allocateUnusedWorker();
    // why: kept out of the pool until it has loaded, so no call can take it half-started
    const worker = pool.unusedWorkers.pop();
    loading.push(
      new Promise((resolve) => pool.loadWasmModuleToWorker(worker, resolve)).then(() => {
        worker.unref?.(); // why: as the first pool's workers (threadedLoader)
        pool.unusedWorkers.push(worker);
      }),
    );
  }
  await Promise.all(loading);
}

async function instantiateCore(wasmUrl, threaded) {
  const url =
    wasmUrl === undefined
      ? new URL(threaded ? './mt/heed-mt.wasm' : './heed.wasm', import.meta.url)
      : await locate(wasmUrl, 'wasmUrl');
  let module = null;
  if (url.protocol !== 'file:' && typeof WebAssembly.compileStreaming === 'function') {
    // why: streaming compiles while downloading; it refuses a wrong MIME type, so fall back
    module = await WebAssembly.compileStreaming(fetch(url)).catch(() => null);
  }
  if (!module) {
    const bytes = await readBytes(url, 'the WebAssembly engine');
    try {
      module = await WebAssembly.compile(bytes);
    } catch (e) {
      throw new HeedError(
        'LOAD_FAILED',
        `${url.href} is not a usable WebAssembly engine: ` + e.message,
        { cause: e },
      );
    }
  }
  let createHeedCore;
  let run = (f) => f();
  const loaderName = threaded ? 'heed-mt.mjs' : 'heed-core.mjs';
  try {
    if (threaded) {
      const mt = await threadedLoader();
      ({ default: createHeedCore } = mt.loader);
      run = mt.run;
    } else ({ default: createHeedCore } = await import('./heed-core.mjs'));
  } catch (e) {
    throw new HeedError(
      'LOAD_FAILED',
      `cannot load ${loaderName} (is the package built? ` + `run \`npm run build\`): ${e.message}`,
      { cause: e },
    );
  }
  let failed;
  const instantiateFailed = new Promise((_, reject) => {
    failed = reject;
  });
  return Promise.race([
    instantiateFailed,
    run(() =>
      createHeedCore({
        instantiateWasm(imports, receive) {
          WebAssembly.instantiate(module, imports).then(
            (instance) => receive(instance, module),
            (e) =>
              failed(
                new HeedError('LOAD_FAILED', `cannot instantiate ${url.href}: ` + e.message, {
                  cause: e,
                }),
              ),
          );
          return {};
        },
      }),
    ),
  ]);
}

/** {value} -> value; {code, message} -> throws HeedError (see bindings.cpp `guarded`). */
function unwrap(r) {
  if ('code' in r) throw new HeedError(r.code, r.message);
  return r.value;
}

// ---- models ----------------------------------------------------------------------------

async function modelBytes(model, onProgress) {
  if (model instanceof Uint8Array) return model;
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (ArrayBuffer.isView(model))
    return new Uint8Array(model.buffer, model.byteOffset, model.byteLength);
  if (typeof model === 'string' || model instanceof URL)
    return readBytes(await locate(model, 'options.model'), 'the model', onProgress);
  throw badInput(
    'options.model must be a URL, a string, an ArrayBuffer or a Uint8Array' +
      `${IS_NODE ? ' (or a file path)' : ''}, got ${describe(model)}`,
  );
}

// ---- options ---------------------------------------------------------------------------

function checkInt(value, name, lo, hi) {
  if (!Number.isInteger(value) || value < lo || value > hi)
    throw badInput(`options.${name} must be an integer in ${lo}..${hi}, got ${describe(value)}`);
  return value;
}

/**
 * The engine's TranslateOptions from the caller's, under the same names (bindings.cpp
 * value_object): defaults and limits come from the C++ definitions, checked here once so that
 * a wrong option is named as the caller wrote it.
 */
function engineOptions(options, { defaults, limits, blocks, vocab }) {
  for (const key of Object.keys(options))
    if (!(key in defaults))
      throw badInput(
        `unknown option '${key}' (known: ${Object.keys(defaults).join(', ')}, ` + 'onStep, signal)',
      );
  const o = { ...defaults };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) o[key] = value;
  checkInt(o.beam, 'beam', 1, limits.beam);
  if (options.maxLength !== undefined) checkInt(o.maxLength, 'maxLength', 1, limits.maxLength);
  checkInt(o.topK, 'topK', 0, limits.topK);
  const p = o.lengthPenalty;
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > limits.lengthPenalty)
    throw badInput(
      `options.lengthPenalty must be a number in 0..${limits.lengthPenalty}, ` +
        `got ${describe(p)}`,
    );
  if (typeof o.attention !== 'boolean')
    throw badInput(`options.attention must be a boolean, got ${describe(o.attention)}`);
  const prefix = o.forcedPrefix;
  if (!Array.isArray(prefix) || prefix.length > limits.maxLength)
    throw badInput(
      `options.forcedPrefix must be an array of at most ${limits.maxLength} target ids ` +
        `(non-negative integers), got ${describe(prefix)}`,
    );
  // why: Embind converts each id to a 32-bit int (2**31 wrapped to -2147483648) and reads a
  // hole as undefined; every id is checked here against the model's vocabulary instead
  denseArray(prefix, 'options.forcedPrefix').forEach((id, i) => {
    if (!Number.isSafeInteger(id) || id < 0 || id >= vocab)
      throw badInput(
        `options.forcedPrefix[${i}] must be a target id of this model (an integer in ` +
          `0..${vocab - 1}), got ${describe(id)}`,
      );
  });
  checkInt(o.threads, 'threads', 1, defaults.threads);
  if (typeof o.shortlist !== 'boolean')
    throw badInput(`options.shortlist must be a boolean, got ${describe(o.shortlist)}`);
  if (typeof o.split !== 'boolean')
    throw badInput(`options.split must be a boolean, got ${describe(o.split)}`);
  // why: a language code is short; a megabyte of text is not one, and is not copied into WASM
  if (typeof o.to !== 'string' || !/^([a-z]{1,8})?$/.test(o.to))
    throw badInput(
      `options.to must be a language code string (1 to 8 letters a-z, e.g. 'de'; '' for the ` +
        `model's first direction), got ${describe(o.to)}` +
        (typeof o.to === 'string' && o.to.length > 40 ? ` (${o.to.length} characters)` : ''),
    );
  o.surgery = checkInterventions(options.interventions ?? {}, defaults.interventions, limits);
  o.interventions = { ...o.surgery, ablate: o.surgery.ablate.map((a) => ({ ...a })) };
  for (const a of o.interventions.ablate) a.block = blocks[a.block];
  return o;
}

/** The elements of `array`, refusing a hole (map and every skip holes; Embind does not). */
function denseArray(array, name) {
  for (let i = 0; i < array.length; i++)
    if (!Object.prototype.hasOwnProperty.call(array, i))
      throw badInput(`${name}[${i}] is a hole: sparse arrays are not accepted`);
  return array;
}

const INTERVENTIONS = ['temperature', 'window', 'noPositions', 'ablate', 'sparse', 'linear'];
const SPARSE = ['enabled', 'randomBlocks', 'block', 'seed'];
const LINEAR = ['kind', 'features', 'seed'];
const LINEAR_KINDS = ['none', 'favor', 'elu'];

/**
 * options.interventions (attention surgery) completed with the engine's defaults, in the
 * public form (block names); the engine checks layers and heads against the model.
 */
function checkInterventions(given, defaults, limits) {
  checkObject(given, 'options.interventions');
  for (const key of Object.keys(given))
    if (!INTERVENTIONS.includes(key))
      throw badInput(`unknown option 'interventions.${key}' (known: ${INTERVENTIONS.join(', ')})`);
  const iv = { ...defaults, ...given, ablate: given.ablate ?? [] };
  checkObject(iv.sparse, 'options.interventions.sparse');
  for (const key of Object.keys(iv.sparse))
    if (!SPARSE.includes(key))
      throw badInput(`unknown option 'interventions.sparse.${key}' (known: ${SPARSE.join(', ')})`);
  iv.sparse = { ...defaults.sparse, ...iv.sparse };
  if (typeof iv.sparse.enabled !== 'boolean')
    throw badInput(
      `options.interventions.sparse.enabled must be a boolean, got ${describe(iv.sparse.enabled)}`,
    );
  checkInt(iv.sparse.randomBlocks, 'interventions.sparse.randomBlocks', 0, limits.randomBlocks);
  checkInt(iv.sparse.block, 'interventions.sparse.block', 1, limits.sparseBlock);
  checkInt(iv.sparse.seed, 'interventions.sparse.seed', 0, limits.seed);
  checkObject(iv.linear, 'options.interventions.linear');
  for (const key of Object.keys(iv.linear))
    if (!LINEAR.includes(key))
      throw badInput(`unknown option 'interventions.linear.${key}' (known: ${LINEAR.join(', ')})`);
  iv.linear = { ...defaults.linear, ...iv.linear };
  if (!LINEAR_KINDS.includes(iv.linear.kind))
    throw badInput(
      `options.interventions.linear.kind must be one of ${LINEAR_KINDS.join(', ')}, ` +
        `got ${describe(iv.linear.kind)}`,
    );
  const features = iv.linear.features;
  if (!Number.isInteger(features) || features < 1 || features > limits.linearFeatures)
    throw badInput(
      `options.interventions.linear.features must be an integer in [1, ${limits.linearFeatures}], ` +
        `got ${describe(features)}`,
    );
  checkInt(iv.linear.seed, 'interventions.linear.seed', 0, limits.seed);
  const t = iv.temperature;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > limits.temperature)
    throw badInput(
      `options.interventions.temperature must be a number in (0, ${limits.temperature}], ` +
        `got ${describe(t)}`,
    );
  checkInt(iv.window, 'interventions.window', -1, limits.window);
  if (typeof iv.noPositions !== 'boolean')
    throw badInput(
      `options.interventions.noPositions must be a boolean, got ${describe(iv.noPositions)}`,
    );
  if (!Array.isArray(iv.ablate))
    throw badInput(
      `options.interventions.ablate must be an array of {block, layer, head, mean?}, ` +
        `got ${describe(iv.ablate)}`,
    );
  iv.ablate = denseArray(iv.ablate, 'options.interventions.ablate').map((a, i) => {
    const field = `interventions.ablate[${i}]`;
    checkObject(a, `options.${field}`);
    if (!BLOCKS.includes(a.block))
      throw badInput(
        `options.${field}.block must be one of ${BLOCKS.join(', ')}, got ${describe(a.block)}`,
      );
    checkInt(a.layer, `${field}.layer`, 0, limits.layers - 1);
    checkInt(a.head, `${field}.head`, 0, limits.heads - 1);
    if (a.mean !== undefined && typeof a.mean !== 'boolean')
      throw badInput(`options.${field}.mean must be a boolean, got ${describe(a.mean)}`);
    return { block: a.block, layer: a.layer, head: a.head, mean: a.mean ?? false };
  });
  return iv;
}

/** Loads the engine and a model; see heed.d.ts. */
export async function loadTranslator(options) {
  checkLoadOptions(options);
  const threads = options.threads ?? 1;
  const core = getCore(options.wasmUrl, threads > 1);
  core.catch(() => {}); // why: awaited below; a model error must not leave it unhandled
  const bytes = await modelBytes(options.model, options.onProgress);
  const engine = await core;
  const limits = engine.limits();
  checkInt(threads, 'threads', 1, limits.threads);
  checkModelSize(bytes, limits);
  if (threads > 1) await growPool(engine, threads - 1);
  const handle = new engine.Translator();
  try {
    unwrap(handle.load(bytes, options.compute !== 'f32'));
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

// ---- the attention lab -----------------------------------------------------------------

/** number[][] or {shape, data} -> {shape: [rows, cols], data: Float32Array}. */
function toMatrix(x, name) {
  if (x && !Array.isArray(x) && Array.isArray(x.shape)) {
    const [rows, cols] = x.shape;
    if (
      x.shape.length !== 2 ||
      !Number.isInteger(rows) ||
      !Number.isInteger(cols) ||
      rows < 0 ||
      cols < 0
    )
      throw badInput(`${name}.shape must be [rows, cols], got ${JSON.stringify(x.shape)}`);
    if (!(x.data instanceof Float32Array) && !Array.isArray(x.data))
      throw badInput(`${name}.data must be a Float32Array or number[]`);
    if (x.data.length !== rows * cols)
      throw badInput(`${name}.data has ${x.data.length} values, shape needs ${rows * cols}`);
    return { shape: [rows, cols], data: Float32Array.from(x.data) };
  }
  if (!Array.isArray(x) || x.length === 0 || !Array.isArray(x[0]))
    throw badInput(`${name} must be a non-empty number[][] or a Tensor, got ${describe(x)}`);
  const rows = x.length,
    cols = x[0].length;
  const data = new Float32Array(rows * cols);
  x.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== cols)
      throw badInput(`${name}[${i}] must be an array of ${cols} numbers (rows of equal length)`);
    row.forEach((v, j) => {
      if (typeof v !== 'number') throw badInput(`${name}[${i}][${j}] must be a number`);
      data[i * cols + j] = v;
    });
  });
  return { shape: [rows, cols], data };
}

function toFlags(x, length, name) {
  if (!Array.isArray(x) || x.length !== length || x.some((b) => typeof b !== 'boolean'))
    throw badInput(`${name} must be ${length} booleans`);
  return Uint8Array.from(x, Number);
}

function intOr(value, fallback, name, lo) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < lo)
    throw badInput(`${name} must be an integer >= ${lo}, got ${describe(value)}`);
  return value;
}

/** MaskSpec -> {kind (a name of MaskKind), offset, window, keyPadding?, blocked?}. */
function toMask(mask, Lq, Lk) {
  if (mask === undefined) return { kind: 'none', offset: 0, window: 0 };
  checkObject(mask, 'inputs.mask');
  const out = {
    kind: mask.kind,
    offset: intOr(mask.offset, 0, 'mask.offset', -Lk - Lq),
    window: 0,
  };
  switch (mask.kind) {
    case 'none':
    case 'causal':
      break;
    case 'padding':
      if (mask.keyPadding === undefined) throw badInput('a padding mask needs keyPadding');
      break;
    case 'local':
      out.window = intOr(mask.window, undefined, 'mask.window', 0);
      if (out.window === undefined) throw badInput('a local mask needs window');
      break;
    case 'custom':
      if (!Array.isArray(mask.blocked) || mask.blocked.length !== Lq)
        throw badInput(`mask.blocked must be ${Lq} rows of ${Lk} booleans`);
      out.blocked = new Uint8Array(Lq * Lk);
      mask.blocked.forEach((row, i) =>
        out.blocked.set(toFlags(row, Lk, `mask.blocked[${i}]`), i * Lk),
      );
      break;
    default:
      throw badInput(
        `mask.kind must be none, causal, padding, local or custom, ` + `got ${describe(mask.kind)}`,
      );
  }
  if (mask.keyPadding !== undefined)
    out.keyPadding = toFlags(mask.keyPadding, Lk, 'mask.keyPadding');
  return out;
}

const SCORES = ['dot', 'scaled_dot', 'general', 'additive'];

function qkv(inputs) {
  checkObject(inputs, 'inputs');
  return [toMatrix(inputs.q, 'q'), toMatrix(inputs.k, 'k'), toMatrix(inputs.v, 'v')];
}

function checkSize(value, name, hi) {
  if (!Number.isInteger(value) || value < 0 || value > hi)
    throw badInput(`${name} must be an integer in 0..${hi}, got ${describe(value)}`);
}

/** The attention primitives of ops/ on small matrices; see heed.d.ts. */
export async function loadAttentionLab(options) {
  checkObject(options, 'options', true);
  const core = await getCore(options?.wasmUrl);
  const limits = core.limits();
  return Object.freeze({
    attention(inputs) {
      const [q, k, v] = qkv(inputs);
      checkLabMask(inputs.mask);
      if (!SCORES.includes(inputs.score))
        throw badInput(`score must be one of ${SCORES.join(', ')}, got ${describe(inputs.score)}`);
      checkObject(inputs.params, 'inputs.params', true);
      const p = inputs.params ?? {};
      const params = {};
      if (p.w !== undefined) params.w = toMatrix(p.w, 'params.w');
      if (p.u !== undefined) params.u = toMatrix(p.u, 'params.u');
      if (p.v !== undefined) {
        if (!Array.isArray(p.v) || p.v.some((x) => typeof x !== 'number'))
          throw badInput('params.v must be a number[]');
        params.v = { shape: [p.v.length], data: Float32Array.from(p.v) };
      }
      const mask = toMask(inputs.mask, q.shape[0], k.shape[0]);
      mask.kind = core.MaskKind[mask.kind];
      return unwrap(core.attention(q, k, v, core.ScoreFunction[inputs.score], mask, params));
    },
    linearAttention(inputs) {
      const [q, k, v] = qkv(inputs);
      if (inputs.causal !== undefined && typeof inputs.causal !== 'boolean')
        throw badInput('causal must be a boolean');
      return unwrap(core.linearAttention(q, k, v, inputs.causal === true));
    },
    sinusoidalPositions(length, dModel) {
      checkSize(length, 'length', limits.labSize);
      checkSize(dModel, 'dModel', limits.labSize);
      return unwrap(core.sinusoidalPositions(length, dModel, false)).positions;
    },
    positionSimilarity(length, dModel) {
      checkSize(length, 'length', limits.labSize);
      checkSize(dModel, 'dModel', limits.labSize);
      return unwrap(core.sinusoidalPositions(length, dModel, true)).similarity;
    },
  });
}

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
