// Fetches model files with download progress and keeps them in the Cache API, so the next
// visit revalidates with the stored ETag (304, no download) and still works when offline.
// The .wasm and the page's own files rely on HTTP caching: the server sends an ETag and
// `Cache-Control: no-cache`, so the browser revalidates them and gets 304 Not Modified.

const CACHE = 'heed-models-v1';

/**
 * Reads a Response body into one Uint8Array, reporting (fraction, bytes) as chunks pass
 * through a counting stream (the package's own reader is internal to it).
 */
async function readWithProgress(res, expected, onProgress) {
  const total = Number(res.headers.get('content-length')) || expected || NaN;
  let loaded = 0;
  const counted = res.body?.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        loaded += chunk.length;
        onProgress?.(Number.isFinite(total) ? Math.min(1, loaded / total) : NaN, loaded);
        controller.enqueue(chunk);
      },
    }),
  );
  const bytes = new Uint8Array(await (counted ? new Response(counted) : res).arrayBuffer());
  if (!counted) onProgress?.(1, bytes.length); // not streamed: no chunk was reported
  return bytes;
}

/**
 * Returns { bytes, source } where source is 'network', 'cache' (304 revalidated) or
 * 'offline-cache' (network failed, stored copy used). Throws Error with a readable reason.
 */
export async function fetchModel(url, { expectedSize, onProgress, signal } = {}) {
  const cache = 'caches' in window ? await caches.open(CACHE).catch(() => null) : null;
  const stored = cache ? await cache.match(url).catch(() => null) : null;
  const headers = {};
  const tag = stored?.headers.get('etag');
  if (tag) headers['If-None-Match'] = tag;
  let res;
  try {
    res = await fetch(url, { headers, cache: 'no-store', signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (stored) {
      const bytes = new Uint8Array(await stored.arrayBuffer());
      onProgress?.(1, bytes.length);
      return { bytes, source: 'offline-cache' };
    }
    throw new Error(`could not reach the server for ${url} (${err.message})`);
  }
  if (res.status === 304 && stored) {
    const bytes = new Uint8Array(await stored.arrayBuffer());
    onProgress?.(1, bytes.length);
    return { bytes, source: 'cache' };
  }
  if (!res.ok)
    throw new Error(`the server answered ${res.status} ${res.statusText || ''} for ${url}`.trim());
  const bytes = await readWithProgress(res, expectedSize, onProgress);
  if (cache && res.headers.get('etag')) {
    const copy = new Response(bytes, {
      headers: {
        'content-type': 'application/octet-stream',
        etag: res.headers.get('etag'),
        'content-length': String(bytes.length),
      },
    });
    // why: not awaited: storing 10+ MB takes a while and only the next visit needs it (the
    // Response has copied the bytes already); a quota error only costs that visit a download
    cache.put(url, copy).catch(() => {});
  }
  return { bytes, source: 'network' };
}
