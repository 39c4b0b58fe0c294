// spawnTranslator: the Translator API of heed.js run in a dedicated worker (browser module
// worker, or Node worker_threads), so translation never blocks the page. Each message carries
// an id and resolves one Promise; step events stream back as they happen; an AbortSignal posts
// a cancel (and, where SharedArrayBuffer is allowed, flips a flag the engine sees between
// steps). Types: heed-worker.d.ts. Nothing runs at import.

import {
  // the public calls: argument checks and the shared steps()
  TranslatorBase,
  checkLoadOptions,
  checkTranslate,
  checkExplain,
  guarded,
  // errors
  HeedError,
  abortedError,
  badInput,
  disposedError,
  // values crossing the boundary
  IS_NODE,
  browserPackageHint,
  describe,
  hasScheme,
  isPackageFile,
} from './common.js';
import { locateModel } from './engine.js';
import { checkExplainRange, checkTextInput } from './validate.js';

export { HeedError };

// ---- the worker endpoint ---------------------------------------------------------------

/** A started worker behind one small interface: post, terminate, ref/unref (Node only). */
async function startWorker(workerUrl, onMessage, onFailure) {
  const where = workerUrl ?? new URL('./worker.js', import.meta.url);
  if (typeof where !== 'string' && !(where instanceof URL))
    throw badInput(`workerUrl must be a string or URL, got ${describe(where)}`);
  if (IS_NODE) {
    const { Worker } = await import(/* webpackIgnore: true */ 'node:worker_threads');
    let worker;
    try {
      worker = new Worker(where);
    } catch (e) {
      throw new HeedError('LOAD_FAILED', `cannot start the worker ${where}: ${e.message}`);
    }
    worker.on('message', onMessage);
    worker.on('error', (e) => onFailure(e?.message ?? String(e)));
    worker.on('exit', (code) => onFailure(`the worker exited (code ${code})`));
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      terminate: () => {
        worker.removeAllListeners();
        worker.terminate();
      },
      ref: () => worker.ref(),
      unref: () => worker.unref(),
    };
  }
  let worker;
  try {
    worker = new Worker(where, { type: 'module' });
  } catch (e) {
    throw new HeedError('LOAD_FAILED', `cannot start the worker ${where}: ${e.message}`);
  }
  worker.addEventListener('message', (e) => onMessage(e.data));
  worker.addEventListener('error', (e) => {
    e.preventDefault?.();
    onFailure(e.message || `the worker script ${where} failed to load or threw`);
  });
  worker.addEventListener('messageerror', () => onFailure('a worker message could not be read'));
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    terminate: () => worker.terminate(),
    ref: () => {},
    unref: () => {},
  };
}

/** Calls into the worker: id-tagged messages, one pending Promise per id. */
class Client {
  #endpoint = null;
  #next = 1;
  #pending = new Map(); // id -> {resolve, reject, onProgress?, onStep?}
  #dead = null; // HeedError once the worker is gone
  #started = false; // the worker said 'ready'
  #ready = {};

  static async start(workerUrl) {
    const client = new Client();
    const ready = new Promise((resolve, reject) => {
      client.#ready = { resolve, reject };
    });
    client.#endpoint = await startWorker(
      workerUrl,
      (m) => client.#receive(m),
      (why) => client.#fail(why),
    );
    await ready;
    client.#endpoint.unref();
    return client;
  }

  /** Sends `message` with a fresh id; returns {id, promise}. */
  call(message, handlers = {}, transfer = []) {
    if (this.#dead) return { id: 0, promise: Promise.reject(this.#dead) };
    const id = this.#next++;
    const promise = new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, ...handlers });
    });
    this.#endpoint.ref(); // why: Node must not exit while a reply is awaited
    try {
      this.#endpoint.post({ ...message, id }, transfer);
    } catch (e) {
      // why: a value structured clone cannot copy (e.g. a function in options)
      this.abandon(id, badInput(`cannot send this call to the worker: ${e.message}`));
    }
    return { id, promise };
  }

  /** Settles call `id` now (abort, failed callback); its later replies are ignored. */
  abandon(id, error) {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#settle(id);
    p.reject(error);
  }

  post(message) {
    if (!this.#dead) this.#endpoint.post(message);
  }

  /** Stops the worker; pending calls reject with `error`. */
  terminate(error = disposedError()) {
    if (this.#dead) return;
    this.#dead = error;
    this.#endpoint?.terminate();
    for (const p of this.#pending.values()) p.reject(error);
    this.#pending.clear();
  }

  #settle(id) {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#endpoint.unref();
  }

  #receive(m) {
    if (m?.type === 'ready') {
      this.#started = true;
      this.#ready.resolve();
      return;
    }
    const p = this.#pending.get(m?.id);
    if (!p) return;
    try {
      if (m.type === 'progress') p.onProgress?.(m.fraction, m.loaded);
      else if (m.type === 'step') p.onStep?.(m.event);
      else if (m.type === 'result') {
        this.#settle(m.id);
        p.resolve(m.value);
      } else if (m.type === 'error') {
        this.#settle(m.id);
        p.reject(new HeedError(m.error.code, m.error.message));
      }
    } catch (e) {
      // a user callback threw: the call fails with that error and the worker stops the job
      this.post({ type: 'cancel', target: m.id });
      this.abandon(m.id, e);
    }
  }

  #fail(why) {
    if (this.#dead) return;
    const error = new HeedError(
      this.#started ? 'INTERNAL' : 'LOAD_FAILED',
      `the Heed worker failed: ${why}`,
    );
    this.#ready.reject(error);
    this.terminate(error);
  }
}

// ---- values that cross the boundary ----------------------------------------------------

/** A URL option the worker can use: an absolute URL or (Node) path string; others as they are. */
async function portableUrl(url) {
  if (url instanceof URL) return url.href;
  if (typeof url !== 'string') return url;
  if (IS_NODE) {
    if (hasScheme(url)) return url;
    const { resolve } = await import(/* webpackIgnore: true */ 'node:path');
    return resolve(url);
  }
  // why: the worker resolves relative URLs against its own script, not the page
  return new URL(url, globalThis.location?.href).href;
}

/**
 * A model option the worker can use: bytes (copied by structured clone), or an absolute URL or
 * path; under Node an installed package's file (`heed-models/multi.heed`) resolved here, as
 * loadTranslator resolves it. heed.js checks every other type.
 */
async function portableModel(model) {
  if (IS_NODE && isPackageFile(model)) return (await locateModel(model, 'options.model')).href;
  return portableUrl(model);
}

/** An Int32Array on shared memory for a mid-translation cancel, where the page allows it. */
function sharedFlag() {
  const allowed =
    typeof SharedArrayBuffer === 'function' && (IS_NODE || globalThis.crossOriginIsolated === true);
  return allowed ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
}

// ---- the translator --------------------------------------------------------------------

class WorkerTranslator extends TranslatorBase {
  #client;
  #limits;
  #disposed = false;

  constructor(client, { info, limits }) {
    super();
    this.#client = client;
    this.#limits = Object.freeze(limits);
    this.info = info;
  }

  /** The worker's engine limits (see limits()), which translate() checks before posting. */
  get limits() {
    return this.#limits;
  }

  translate(text, options) {
    const check = () => (checkTextInput(text, this.#limits), checkTranslate(text, options));
    return guarded(this.#disposed, check, (parsed) => this.#start(text, parsed));
  }

  /**
   * Posts a translate call with the caller's options as they are (less onStep and signal,
   * which stay here); the worker's heed.js checks them. An abort signal cancels the call.
   */
  #start(text, parsed) {
    const { engine, onStep, signal } = parsed;
    const flag = signal ? sharedFlag() : undefined;
    const { id, promise } = this.#client.call(
      {
        type: 'translate',
        text,
        options: engine,
        steps: Boolean(onStep),
        abortable: Boolean(signal),
        flag,
      },
      { onStep },
    );
    if (!signal) return promise;
    const onAbort = () => {
      if (flag) Atomics.store(flag, 0, 1);
      this.#client.post({ type: 'cancel', target: id });
      this.#client.abandon(id, abortedError(signal));
    };
    signal.addEventListener?.('abort', onAbort, { once: true });
    const cleanup = () => signal.removeEventListener?.('abort', onAbort);
    promise.then(cleanup, cleanup);
    return promise;
  }

  explainHead(result, where) {
    const check = () => (
      checkExplain(result, where),
      checkExplainRange(result, where, this.info.config)
    );
    return guarded(this.#disposed, check, () => this.#explain(result, where));
  }

  /** Posts an explain call with only what the worker needs (the result may hold much more). */
  #explain({ sourceIds, targetIds, sourceTokens, targetTokens, to }, { block, layer, head }) {
    const result = { sourceIds, targetIds, sourceTokens, targetTokens, to };
    return this.#client.call({ type: 'explain', result, where: { block, layer, head } }).promise;
  }

  /** Terminates the worker (and with it the WASM memory). Pending calls reject DISPOSED. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#client.terminate();
  }
}

/** Starts a worker, loads the model in it, and resolves to a Translator; see heed-worker.d.ts. */
export async function spawnTranslator(options) {
  checkLoadOptions(options, ['workerUrl']);
  // why: awaited below, once the worker runs; a failed download must not go unhandled before
  if (typeof options.model?.then === 'function') Promise.resolve(options.model).catch(() => {});
  const client = await Client.start(options.workerUrl);
  let model = options.model;
  try {
    const wasmUrl = await portableUrl(options.wasmUrl);
    if (typeof model?.then === 'function') {
      // why: the model is still on its way; the worker instantiates the engine meanwhile
      client.post({ type: 'warm', wasmUrl, threads: options.threads });
      model = await model;
    }
    const marian = options.marian && {
      ...options.marian,
      model: await portableModel(await options.marian.model),
      vocabs: await Promise.all(options.marian.vocabs.map(async (v) => portableModel(await v))),
      shortlist:
        options.marian.shortlist == null
          ? undefined
          : await portableModel(await options.marian.shortlist),
    };
    const { promise } = client.call(
      {
        type: 'load',
        model: marian ? undefined : await portableModel(model),
        marian,
        wasmUrl,
        compute: options.compute,
        threads: options.threads,
        progress: Boolean(options.onProgress),
      },
      { onProgress: options.onProgress },
    );
    return new WorkerTranslator(client, await promise);
  } catch (e) {
    client.terminate(e);
    throw browserPackageHint(e, model);
  }
}
