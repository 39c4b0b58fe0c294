// Pieces shared by the in-thread façade (heed.js) and the worker client (heed-worker.js):
// the error type, argument validation, steps(), the worker's transfer list and the body reader.
// Internal (not in "exports", so nothing outside the package imports it); nothing runs at
// import. The result shaping is in results.js.

/** True under Node (and not in a browser page that happens to define `process`). */
export const IS_NODE =
  typeof process === 'object' &&
  typeof process.versions?.node === 'string' &&
  typeof window === 'undefined';

/** Whether `where` begins with a URL scheme (`https:`, `file:`); a drive (`C:\`) is not one. */
export function hasScheme(where) {
  return /^[a-z][a-z0-9+.-]*:/i.test(where) && !/^[a-z]:[\\/]/i.test(where);
}

/** Whether `where` reads as a file of an npm package: `name/file` or `@scope/name/file`. */
export function isPackageFile(where) {
  return (
    typeof where === 'string' &&
    !hasScheme(where) &&
    /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*\/[^\\]+$/i.test(where)
  );
}

/**
 * A model read that failed in a browser (readBytes' 'cannot read the model'), told when the
 * string read as a package's file that only Node resolves package names; others as they are.
 */
export function browserPackageHint(error, model) {
  if (IS_NODE || !isPackageFile(model) || error?.code !== 'LOAD_FAILED') return error;
  if (!error.message.startsWith('cannot read the model ')) return error;
  return new HeedError(
    'LOAD_FAILED',
    `${error.message} (if '${model}' names a file of an npm package: browsers cannot resolve ` +
      "package names, so pass the file's URL, e.g. the one a bundler's asset import gives, " +
      'or the path your server serves it at)',
    { cause: error },
  );
}

const CODES = new Set([
  'BAD_MODEL',
  'BAD_INPUT',
  'DISPOSED',
  'NO_SIMD',
  'ABORTED',
  'LOAD_FAILED',
  'INTERNAL',
]);

/** Raised for every user-facing failure; `code` says which kind. */
export class HeedError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'HeedError';
    this.code = CODES.has(code) ? code : 'INTERNAL';
  }
}

export const badInput = (message) => new HeedError('BAD_INPUT', message);

/** Throws BAD_INPUT unless `x` is a plain object (or undefined, when `optional`). */
export function checkObject(x, what, optional = false) {
  if (x === undefined && optional) return;
  if (x === null || typeof x !== 'object' || Array.isArray(x))
    throw badInput(`${what} must be an object, got ${describe(x)}`);
}

export function describe(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'string') return `the string ${JSON.stringify(x.slice(0, 40))}`;
  return typeof x === 'object' ? (x.constructor?.name ?? 'an object') : `${typeof x} ${String(x)}`;
}

/**
 * Checks the JS-only options (onStep, signal) and splits them from the engine's, which pass on
 * unchanged under their public names: heed.js checks those against the engine's limits.
 */
export function splitOptions(options) {
  checkObject(options, 'options', true);
  const { onStep, signal, ...engine } = options ?? {};
  if (onStep !== undefined && typeof onStep !== 'function')
    throw badInput(`options.onStep must be a function, got ${describe(onStep)}`);
  if (
    signal !== undefined &&
    (signal === null || typeof signal !== 'object' || typeof signal.aborted !== 'boolean')
  )
    throw badInput(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  return { engine, onStep, signal };
}

const LOAD_KEYS = new Set(['model', 'marian', 'wasmUrl', 'onProgress', 'compute', 'threads']);
const MARIAN_KEYS = new Set(['model', 'vocabs', 'shortlist', 'source', 'target']);

/** Checks options.marian's shape (each file is a model source, checked when it is read). */
function checkMarian(m) {
  checkObject(m, 'options.marian');
  for (const key of Object.keys(m))
    if (!MARIAN_KEYS.has(key)) throw badInput(`unknown option 'marian.${key}'`);
  if (m.model === undefined) throw badInput('options.marian.model is required');
  if (!Array.isArray(m.vocabs) || m.vocabs.length < 1 || m.vocabs.length > 4)
    throw badInput(
      'options.marian.vocabs must be an array of one to four files: one SentencePiece ' +
        "vocabulary (shared) or two (source, then target), or OPUS-MT's vocab.yml with " +
        `source.spm and target.spm, got ${describe(m.vocabs)}`,
    );
  for (const key of ['source', 'target'])
    if (m[key] !== undefined && (typeof m[key] !== 'string' || !/^[a-z]{1,8}$/.test(m[key])))
      throw badInput(
        `options.marian.${key} must be a language code such as 'en' (1 to 8 letters a-z), got ${describe(m[key])}`,
      );
}
/**
 * A threads option is a positive integer; its upper bound is the engine's (limits().threads),
 * checked once the engine is loaded.
 */
export function checkThreads(t) {
  if (!(Number.isInteger(t) && t >= 1))
    throw badInput(`options.threads must be a positive integer, got ${describe(t)}`);
}

/** Checks LoadOptions (plus the `extra` keys a caller accepts). */
export function checkLoadOptions(options, extra = []) {
  checkObject(options, 'options');
  for (const key of Object.keys(options))
    if (!LOAD_KEYS.has(key) && !extra.includes(key)) throw badInput(`unknown load option '${key}'`);
  if (options.model !== undefined && options.marian !== undefined)
    throw badInput('give options.model or options.marian, not both');
  if (options.marian !== undefined) checkMarian(options.marian);
  else if (options.model === undefined)
    throw badInput('options.model (or options.marian) is required');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw badInput(`options.onProgress must be a function, got ${describe(options.onProgress)}`);
  const t = options.threads;
  if (t !== undefined) checkThreads(t);
  if (t > 1 && !IS_NODE && !globalThis.crossOriginIsolated)
    throw badInput(
      'options.threads > 1 needs SharedArrayBuffer: a cross-origin isolated page ' +
        '(served with Cross-Origin-Opener-Policy: same-origin and ' +
        'Cross-Origin-Embedder-Policy: require-corp)',
    );
  if (options.compute !== undefined && options.compute !== 'int8' && options.compute !== 'f32')
    throw badInput(`options.compute must be 'int8' or 'f32', got ${describe(options.compute)}`);
}

/** Checks translate()'s text argument: a string or an array of strings. */
function checkTexts(text) {
  if (typeof text === 'string') return;
  if (!Array.isArray(text))
    throw badInput(`text must be a string or an array of strings, got ${describe(text)}`);
  text.forEach((t, i) => {
    if (typeof t !== 'string') throw badInput(`text[${i}] must be a string, got ${describe(t)}`);
  });
}

/**
 * Checks translate(text, options) and returns splitOptions(options), its engine options passed
 * through `checkEngine`; an already aborted signal throws ABORTED.
 */
export function checkTranslate(text, options, checkEngine = (engine) => engine) {
  checkTexts(text);
  const parsed = splitOptions(options);
  if (Array.isArray(text) && parsed.onStep)
    throw badInput('options.onStep needs a single text, not an array');
  if (parsed.signal?.aborted) throw abortedError(parsed.signal);
  return { ...parsed, engine: checkEngine(parsed.engine) };
}

export function abortedError(signal) {
  return new HeedError('ABORTED', 'the translation was aborted', { cause: signal?.reason });
}

export function disposedError() {
  return new HeedError('DISPOSED', 'this translator was disposed');
}

/**
 * How every public call of a translator begins: after dispose() it rejects DISPOSED; when
 * `check()` throws it rejects with that error (never throws synchronously); else it returns
 * `start(what check() returned)`.
 */
export function guarded(disposed, check, start) {
  let checked;
  try {
    if (disposed) throw disposedError();
    checked = check();
  } catch (e) {
    return Promise.reject(e);
  }
  return start(checked);
}

/** The names of the engine's AttentionBlock values (bindings.cpp), checked before a call. */
export const BLOCKS = ['encoder', 'decoder', 'cross'];

export function checkExplain(result, where) {
  checkObject(result, 'result');
  if (
    !Array.isArray(result.sourceIds) ||
    !Array.isArray(result.targetIds) ||
    !Array.isArray(result.sourceTokens) ||
    !Array.isArray(result.targetTokens)
  )
    throw badInput('result must be a TranslationResult returned by translate()');
  if (Array.isArray(result.sentences) && result.sentences.length > 1)
    throw badInput(
      `result holds ${result.sentences.length} sentences; explain one of them: ` +
        'explainHead(result.sentences[i], where)',
    );
  if (result.to !== undefined && typeof result.to !== 'string')
    throw badInput(`result.to must be a language code string, got ${describe(result.to)}`);
  checkObject(where, 'where');
  if (!BLOCKS.includes(where.block))
    throw badInput(`where.block must be one of ${BLOCKS.join(', ')}, got ${describe(where.block)}`);
  for (const key of ['layer', 'head'])
    if (!Number.isInteger(where[key]) || where[key] < 0)
      throw badInput(`where.${key} must be a non-negative integer, got ${describe(where[key])}`);
}

/**
 * Token labels of an explained head. Queries of the decoder-side blocks are labelled with the
 * token each position produced (as the rows of the attention trace); decoder self-attention
 * keys with the token each position consumed (the start token, then the previous outputs).
 */
export function explainTokens(result, block, startToken) {
  const src = result.sourceTokens,
    tgt = result.targetTokens;
  if (block === 'encoder') return { queryTokens: [...src], keyTokens: [...src] };
  const inputs = [startToken, ...tgt.slice(0, -1)];
  return { queryTokens: [...tgt], keyTokens: block === 'cross' ? [...src] : inputs };
}

/**
 * The steps() async generator over any translate(text, options) that supports onStep and
 * signal: yields each StepEvent, returns the TranslationResult. Leaving the loop early aborts
 * the translation. A `text` that is not one string rejects the first next().
 */
export async function* stepsOf(translate, text, options) {
  if (typeof text !== 'string') throw badInput(`steps() needs a string, got ${describe(text)}`);
  checkObject(options, 'options', true);
  const userSignal = options?.signal;
  const userOnStep = options?.onStep;
  const controller = new AbortController();
  const onUserAbort = () => controller.abort(userSignal.reason);
  if (userSignal?.aborted) controller.abort(userSignal.reason);
  else userSignal?.addEventListener?.('abort', onUserAbort, { once: true });
  const queue = [];
  let wake = null,
    settled = false,
    result,
    error;
  const poke = () => {
    if (wake) {
      const w = wake;
      wake = null;
      w();
    }
  };
  translate(text, {
    ...options,
    signal: controller.signal,
    onStep: (event) => {
      userOnStep?.(event);
      queue.push(event);
      poke();
    },
  })
    .then(
      (r) => {
        result = r;
      },
      (e) => {
        error = e;
      },
    )
    .finally(() => {
      settled = true;
      poke();
    });
  try {
    for (;;) {
      if (queue.length) {
        yield queue.shift();
        continue;
      }
      if (settled) {
        if (error) throw error;
        return result;
      }
      await new Promise((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    userSignal?.removeEventListener?.('abort', onUserAbort);
    if (!settled) controller.abort(new Error('steps() iteration ended early'));
  }
}

/** What both translators (heed.js, heed-worker.js) share: steps() over their translate(). */
export class TranslatorBase {
  steps(text, options) {
    return stepsOf((t, o) => this.translate(t, o), text, options);
  }
}

/** Distinct buffers of the typed arrays in a value (the transfer list out of a worker). */
export function transferables(value, out = new Set()) {
  if (ArrayBuffer.isView(value)) out.add(value.buffer);
  else if (Array.isArray(value)) for (const v of value) transferables(v, out);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) transferables(v, out);
  return out;
}

/**
 * Reads a fetch Response's body into one Uint8Array, calling onChunk(bytesSoFar) after each
 * streamed chunk (never when the body is not a stream). Progress policy is the caller's.
 */
export async function readBody(response, onChunk) {
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onChunk(loaded);
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}
