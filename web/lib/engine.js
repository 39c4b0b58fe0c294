// The engine and the bytes it reads: locating and reading a URL or file (with progress), the
// WebAssembly SIMD check, the Embind module compiled once per location (single-thread or
// pthreads, with its pool of workers) and a model's bytes. Internal; nothing runs at import.
// Not the typed API (heed.js) nor its option checks (options.js).

import {
  HeedError,
  IS_NODE,
  badInput,
  browserPackageHint,
  describe,
  hasScheme,
  isPackageFile,
  readBody,
} from './common.js';

// ---- environment -----------------------------------------------------------------------

let nodeApi = null;
/** fs/url/path/module, imported only under Node (browsers never load them). */
function node() {
  nodeApi ??= Promise.all([
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises'),
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:url'),
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:path'),
    import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:module'),
  ]).then(([fs, url, path, module]) => ({
    readFile: fs.readFile,
    stat: fs.stat,
    fileURLToPath: url.fileURLToPath,
    pathToFileURL: url.pathToFileURL,
    resolve: path.resolve,
    createRequire: module.createRequire,
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

/**
 * A model's location: as locate(), except that under Node a string naming no existing file
 * but reading as a package's file (`heed-models/multi.heed`, `@scope/name/file`) is that file
 * of an installed package. Browsers cannot resolve package names (the string stays a URL).
 */
export async function locateModel(where, what) {
  const url = await locate(where, what);
  if (!IS_NODE || !isPackageFile(where)) return url;
  const api = await node();
  const exists = await api.stat(api.fileURLToPath(url)).then(
    () => true,
    () => false,
  );
  return exists ? url : api.pathToFileURL(packageFile(api, where));
}

/**
 * The path of `spec` (`name/file`) found as `import` finds it: from heed's own folder (a
 * package installed beside heed), then from the working directory's project (linked or
 * nested installs). LOAD_FAILED saying what to install when no package holds it.
 */
function packageFile(api, spec) {
  const name = spec.split('/', spec.startsWith('@') ? 2 : 1).join('/');
  let installed = false;
  for (const base of [import.meta.url, api.pathToFileURL(api.resolve('package.json')).href]) {
    const require = api.createRequire(base);
    try {
      return require.resolve(spec);
    } catch (e) {
      installed ||= e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
    }
    try {
      require.resolve(`${name}/package.json`);
      installed = true;
    } catch (e) {
      installed ||= e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
    }
  }
  throw new HeedError(
    'LOAD_FAILED',
    installed
      ? `the model '${spec}' is not a file, and the installed package '${name}' has no such file`
      : `the model '${spec}' is not a file, and the package '${name}' is not installed: ` +
          `npm install ${name}`,
  );
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
export function getCore(wasmUrl, threaded = false) {
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
export async function growPool(core, count) {
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
export function unwrap(r) {
  if ('code' in r) throw new HeedError(r.code, r.message);
  return r.value;
}

// ---- models ----------------------------------------------------------------------------

/**
 * options.marian's files as bytes, for the engine's loadMarian: {model, vocabs, shortlist,
 * source, target} (languages 'und' when not given). Progress is the model file's.
 */
export async function marianBytes(m, onProgress) {
  const [model, vocabs, shortlist] = await Promise.all([
    modelBytes(m.model, onProgress),
    Promise.all(m.vocabs.map((v) => modelBytes(v))),
    m.shortlist === undefined || m.shortlist === null ? null : modelBytes(m.shortlist),
  ]);
  return { model, vocabs, shortlist, source: m.source ?? 'und', target: m.target ?? 'und' };
}

/**
 * options.model's bytes: a buffer as it is (not copied), a URL, a file path or (Node) an
 * installed package's file read.
 */
export async function modelBytes(model, onProgress) {
  // why: a model still on its way (a promise) lets the engine be instantiated meanwhile
  if (typeof model?.then === 'function') model = await model;
  if (model instanceof Uint8Array) return model;
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (ArrayBuffer.isView(model))
    return new Uint8Array(model.buffer, model.byteOffset, model.byteLength);
  if (typeof model === 'string' || model instanceof URL)
    return readBytes(await locateModel(model, 'options.model'), 'the model', onProgress).catch(
      (e) => {
        throw browserPackageHint(e, model);
      },
    );
  throw badInput(
    'options.model must be a URL, a string, an ArrayBuffer or a Uint8Array' +
      `${IS_NODE ? ' (or a file path)' : ''}, got ${describe(model)}`,
  );
}
