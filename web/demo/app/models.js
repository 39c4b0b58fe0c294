// Fetching: the server's list of models (models.json) and one model's bytes, started in a
// Web Worker translator. Reports through status.js; not the page state (main.js).

import { fetchModel } from './model-store.js';
import { el } from '../widgets/ui.js';
import { page } from './page.js';
import { progress, showMessage, showStatus, sizeText } from './status.js';

/** Reads models.json and fills the model select; [] (and a message) when it cannot. */
export async function loadManifest() {
  let list;
  try {
    // why: boot.js started this request while the page's modules were still loading
    const early = window.heedEarly?.manifest;
    if (early) list = await early;
    else {
      const res = await fetch('../models/models.json', { cache: 'no-cache' });
      if (!res.ok) throw new Error(`the server answered ${res.status} for /models/models.json`);
      list = await res.json();
    }
    const valid = (m) => m && typeof m.id === 'string' && typeof m.file === 'string';
    if (!Array.isArray(list) || !list.every(valid))
      throw new Error('models.json is not a list of {id, file, name, size}');
  } catch (err) {
    showStatus('No models');
    showMessage(`Could not read the list of models: ${err.message}.`);
    return [];
  }
  const label = (m) => `${m.name ?? m.id}${m.size ? ` · ${sizeText(m.size)}` : ''}`;
  page().modelSelect.replaceChildren(
    ...list.map((m) => el('option', { value: m.id, text: label(m) })),
  );
  return list;
}

/** What the status line says once a model is up. */
function loadedText(entry, translator, size, source, ms) {
  const cfg = translator.info?.config ?? {};
  const params = translator.info?.parameters;
  const from =
    source === 'network'
      ? 'downloaded'
      : source === 'cache'
        ? 'from the browser cache'
        : 'offline copy';
  return (
    `${entry.name ?? entry.id}: ${sizeText(size)}` +
    `${params ? `, ${(params / 1e6).toFixed(1)} M parameters` : ''}` +
    `${cfg.encoder_layers ? `, ${cfg.encoder_layers}+${cfg.decoder_layers} layers × ${cfg.heads} heads` : ''}` +
    ` — ${from} in ${(ms / 1000).toFixed(2)} s${threadsText(translator.info)}`
  );
}

/**
 * Threads for the page's translators: with cross-origin isolation (SharedArrayBuffer) the
 * pthreads build on up to 4 of the device's cores, else 1 (the single-thread build).
 */
export function pageThreads() {
  if (globalThis.crossOriginIsolated !== true) return 1;
  return Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
}

/** The status line's word on threads (`info`: a translator's): how many, or why they are off. */
export function threadsText(info) {
  if (globalThis.crossOriginIsolated !== true) return ' · threads off (not cross-origin isolated)';
  const n = info?.threads ?? 1;
  return n > 1 ? ` · ${n} threads` : ' · one thread';
}

/** The engine's files for pageThreads(): the pthreads build's or the single-thread one's. */
function engineFiles() {
  return pageThreads() > 1
    ? ['mt/heed-mt.mjs', 'mt/heed-mt.wasm', 'mt/heed-mt.worker.js']
    : ['heed-core.mjs', 'heed.wasm'];
}

let lastLoad = null; // how the loaded file came: its size, from where, in how long

/** The status line for another direction of the file already loaded (no second download). */
export function showShared(entry, translator) {
  if (lastLoad)
    showStatus(loadedText(entry, translator, lastLoad.size, lastLoad.source, lastLoad.ms));
}

/** The line under the model select: what the entry's model was trained on. */
export function showAbout(entry) {
  const about = page().modelAbout;
  about.textContent = typeof entry.about === 'string' ? entry.about : '';
  about.hidden = !about.textContent;
}

/** The download boot.js started, if it is of `file` and not taken yet (it is used once). */
async function earlyModel(file) {
  const early = await window.heedEarly?.model;
  if (!early || early.taken || early.file !== file) return null;
  early.taken = true;
  return early;
}

/** The page again says that `entry` is loading: its download, started at `t0`, still runs. */
export function resumeLoad(entry, t0) {
  const name = entry.name ?? entry.id;
  progress.start(`Loading ${name}…`);
  progress.t0 = t0;
  if (!entry.local) showAbout(entry);
  showStatus(`Loading ${name}…`);
  document.documentElement.dataset.heed = 'loading';
}

let warming = null;

/**
 * The worker client's module, imported while the model downloads; the worker's scripts and
 * heed.wasm are fetched then too (by boot.js on a first load, here when boot.js did not run),
 * so the worker started later revalidates them (304) instead of downloading them after the
 * model. Once.
 */
function warmEngine() {
  warming ??= (() => {
    if (!window.heedEarly)
      for (const file of ['worker.js', 'heed.js', ...engineFiles()])
        fetch(new URL(`../../lib/${file}`, import.meta.url))
          .then((r) => r.arrayBuffer())
          .catch(() => {}); // a real failure is reported by the worker when it loads
    return import('../../lib/heed-worker.js');
  })();
  return warming;
}

/**
 * Downloads (or revalidates) a models.json entry and starts a worker translator on it,
 * showing progress; on failure says why and rethrows. Once `current()` is false (another
 * model was chosen meanwhile) it no longer touches the page.
 */
export async function openModel(entry, current = () => true) {
  const name = entry.name ?? entry.id;
  progress.start(`Loading ${name}…`);
  showAbout(entry);
  showStatus(`Loading ${name}…`);
  document.documentElement.dataset.heed = 'loading';
  const t0 = performance.now();
  // why: the worker's scripts and the engine are fetched while the model downloads, not after
  const engine = warmEngine();
  try {
    const url = new URL(`../models/${entry.file}`, location.href).href;
    const early = await earlyModel(entry.file);
    if (early) {
      // boot.js has been downloading this model since the page was parsed: follow it
      progress.t0 = early.t0;
      if (early.seen.bytes) progress.update(early.seen.fraction, early.seen.bytes);
      early.seen.listener = (f, n) => current() && progress.update(f, n);
    }
    const fetched =
      early?.promise ??
      fetchModel(url, {
        expectedSize: entry.size,
        onProgress: (f, n) => current() && progress.update(f, n),
      });
    let size = 0;
    const bytes = fetched.then((r) => {
      size = r.bytes.length; // why: the worker client may transfer (detach) the buffer
      if (current()) progress.say('Starting the engine…');
      return r.bytes;
    });
    bytes.catch(() => {}); // why: awaited by spawnTranslator; reported below when it fails
    const { spawnTranslator } = await engine;
    // why: the worker starts and compiles the engine while the model is still downloading
    const translator = await spawnTranslator({ model: bytes, threads: pageThreads() });
    const { source } = await fetched;
    if (!current()) return translator;
    lastLoad = { size, source, ms: performance.now() - t0 };
    showStatus(loadedText(entry, translator, size, source, lastLoad.ms));
    progress.done();
    document.documentElement.dataset.heed = 'loaded';
    return translator;
  } catch (err) {
    if (!current()) throw err;
    progress.done();
    document.documentElement.dataset.heed = 'load-failed';
    const why = err?.code ? `${err.code}: ${err.message}` : err.message;
    showStatus(`Could not load ${name}`);
    showMessage(
      `The model “${name}” could not be loaded — ${why}` +
        (err?.code === 'NO_SIMD'
          ? ' This browser lacks WebAssembly SIMD; use a current Chrome, Firefox or Safari.'
          : ''),
    );
    throw err;
  }
}
