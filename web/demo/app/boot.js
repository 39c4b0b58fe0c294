// Starts the downloads a first translation waits for, the model list and the model the link
// (or else the list's first entry) names, and the worker's scripts and engine, as soon as the
// page is parsed, before the rest of the page's modules have loaded; models.js takes them over.
// Nothing else: no DOM, no engine started.

function start() {
  const t0 = performance.now();
  const manifest = fetch('../models/models.json', { cache: 'no-cache' }).then((res) => {
    if (!res.ok) throw new Error(`the server answered ${res.status} for /models/models.json`);
    return res.json();
  });
  manifest.catch(() => {}); // why: models.js awaits it and says what went wrong
  // why: imported now, not statically, so the list's request leaves without waiting for it
  const store = import('./model-store.js');
  const model = manifest.then(
    (list) => {
      const id = new URLSearchParams(location.hash.replace(/^#/, '')).get('model');
      const entry = Array.isArray(list) ? (list.find((m) => m?.id === id) ?? list[0]) : null;
      if (typeof entry?.file !== 'string') return null;
      const url = new URL(`../models/${entry.file}`, location.href).href;
      const seen = { fraction: NaN, bytes: 0, listener: null };
      const promise = store.then(({ fetchModel }) =>
        fetchModel(url, {
          expectedSize: entry.size,
          onProgress: (fraction, bytes) => {
            Object.assign(seen, { fraction, bytes });
            seen.listener?.(fraction, bytes);
          },
        }),
      );
      promise.catch(() => {}); // why: models.js awaits it and says what went wrong
      return { file: entry.file, t0, promise, seen, taken: false };
    },
    () => null,
  );
  // the worker's scripts and the engine, into the HTTP cache while the model downloads (the
  // worker started later revalidates them, 304, instead of downloading them after the model);
  // the pthreads build where the page is cross-origin isolated (models.js's pageThreads())
  const engine =
    self.crossOriginIsolated && navigator.hardwareConcurrency > 1
      ? ['mt/heed-mt.mjs', 'mt/heed-mt.wasm', 'mt/heed-mt.worker.js']
      : ['heed-core.mjs', 'heed.wasm'];
  for (const file of ['heed-worker.js', 'worker.js', 'heed.js', ...engine])
    fetch(new URL(`../../lib/${file}`, import.meta.url))
      .then((r) => r.arrayBuffer())
      .catch(() => {}); // a real failure is reported by the worker when it loads
  return { manifest, model };
}

window.heedEarly = start();
