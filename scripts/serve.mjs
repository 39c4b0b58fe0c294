#!/usr/bin/env node
// Zero-dependency static server for the Heed demo: serves web/ (so /demo/ and /lib/) and the
// shipped models under /models/ (models.json and the files it lists, nothing else), on
// 127.0.0.1 only, answering only requests whose Host is a loopback name (no DNS rebinding).
// Single byte ranges are served (206, or 416 when unsatisfiable). At most 256 connections are
// open at once (more are closed as they arrive).
// Not a production server: no multi-range responses, no directory listings, no writes.
//
//   node scripts/serve.mjs            # PORT from the environment, default 8080 (next free if busy)
//
// Caching: every response carries an ETag and `Cache-Control: no-cache`, so browsers revalidate
// and get `304 Not Modified` on the next visit (the demo also keeps model bytes in the Cache API).

import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import zlib from 'node:zlib';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.heed': 'application/octet-stream',
};
// why: float weights barely shrink under gzip and cost CPU on a 2-core box; text and wasm do.
const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.wasm',
  '.svg',
  '.txt',
  '.md',
  '.ts',
  '.map',
]);

// Same-origin only: the page may load nothing from anywhere else, and runs no eval
// ('wasm-unsafe-eval' only allows compiling WebAssembly; the engine is built without eval).
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// why: a page on another site can rebind its own name to 127.0.0.1; the browser then sends
// that name as Host, so only loopback names are answered.
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when the Host header names this machine (any port). */
function isLoopbackHost(header, listenHost) {
  if (!header) return false;
  const name = header.toLowerCase().replace(/:\d+$/, '');
  return LOOPBACK_HOSTS.has(name) || name === listenHost;
}

/** The model files models.json lists, by name; empty when it is missing or malformed. */
async function listedModels(modelsRoot) {
  try {
    const list = JSON.parse(await readFile(path.join(modelsRoot, 'models.json'), 'utf8'));
    return new Set(list.map((m) => m.file).filter((f) => typeof f === 'string'));
  } catch {
    return new Set();
  }
}

/**
 * One `bytes=` range of a `size`-byte file as {start, end} (inclusive), 'unsatisfiable', or
 * null to send the whole file (no header, another unit, several ranges, or malformed).
 */
function parseRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start, end;
  if (m[1] === '') {
    // suffix: the last N bytes
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Maps a URL path to a file on disk, or null when it is not servable. */
function resolvePath(urlPath, webRoot, modelsRoot, models) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const parts = decoded.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return null;
  if (parts[0] === 'models') {
    // why: only models.json and the files it lists; checkpoints and test models stay private
    const rest = parts.slice(1);
    const name = rest.join('/');
    if (!(name === 'models.json' || (rest.length === 1 && models.has(name)))) return null;
    if (urlPath.endsWith('/')) return null;
    return { file: path.join(modelsRoot, ...rest), root: modelsRoot };
  }
  // why: `canonical` has no empty or '.' segments: a redirect built from it can never start
  // with '//' (a scheme-relative URL naming another host, as /.//demo once gave)
  return {
    file: path.join(webRoot, ...parts),
    root: webRoot,
    dirLike: urlPath.endsWith('/'),
    canonical: '/' + parts.map(encodeURIComponent).join('/'),
  };
}

/** The ETag of a file's bytes (gzipped or not). */
function tagOf(info, gzip) {
  return `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}${gzip ? '-gz' : ''}"`;
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

/**
 * Starts the server. Returns { server, port, url }.
 * @param {{port?: number, host?: string, webRoot?: string, modelsRoot?: string,
 *          tries?: number, log?: boolean, maxConnections?: number}} [options]
 *   maxConnections: open connections at most (default 256); more are closed when they open
 */
export async function startServer(options = {}) {
  const host = options.host ?? '127.0.0.1';
  const webRoot = path.resolve(options.webRoot ?? path.join(REPO, 'web'));
  const modelsRoot = path.resolve(options.modelsRoot ?? path.join(REPO, 'models'));
  const gzCache = new Map(); // file + etag -> gzipped Buffer

  async function handle(req, res) {
    if (!isLoopbackHost(req.headers.host, host)) {
      return send(res, 403, 'forbidden: this server answers only to localhost\n');
    }
    // why: as a path, so '//demo' is the folder, not a URL naming the host 'demo'
    const url = new URL(req.url.startsWith('/') ? `http://localhost${req.url}` : req.url);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(res, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    }
    if (url.pathname === '/' || url.pathname === '/demo') {
      return send(res, 302, 'see /demo/\n', { Location: '/demo/' + url.search });
    }
    const target = resolvePath(url.pathname, webRoot, modelsRoot, await listedModels(modelsRoot));
    if (!target || !target.file.startsWith(target.root + path.sep)) {
      return send(res, 404, 'not found\n');
    }
    let file = target.file;
    let info;
    try {
      info = await stat(file);
    } catch {
      return send(res, 404, 'not found\n');
    }
    if (info.isDirectory()) {
      if (target.root !== webRoot) return send(res, 404, 'not found\n');
      const index = path.join(file, 'index.html');
      try {
        info = await stat(index);
      } catch {
        return send(res, 404, 'not found\n');
      }
      // why: relative links in index.html need the trailing slash.
      if (!target.dirLike) {
        return send(res, 301, 'moved\n', { Location: target.canonical + '/' + url.search });
      }
      file = index;
    }
    if (!info.isFile()) return send(res, 404, 'not found\n');
    // why: /lib/heed.js/ must not answer as /lib/heed.js (relative URLs would resolve wrongly)
    if (target.dirLike && file === target.file) return send(res, 404, 'not found\n');

    const ext = path.extname(file).toLowerCase();
    const type = MIME[ext] ?? 'application/octet-stream';
    const ifRange = req.headers['if-range'];
    const range =
      req.headers.range && (!ifRange || ifRange === tagOf(info, false))
        ? parseRange(req.headers.range, info.size)
        : null;
    // why: ranges count bytes of the file itself, so a range request is never gzipped
    const gzip =
      !range && COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const tag = tagOf(info, gzip);
    const headers = {
      'Content-Type': type,
      ETag: tag,
      'Cache-Control': 'no-cache',
      Vary: 'Accept-Encoding',
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'same-origin',
      // why: cross-origin isolation gives pages SharedArrayBuffer, which the package's
      // pthreads build (loadTranslator({threads})) needs; everything here is same-origin
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Accept-Ranges': 'bytes',
    };
    if (ext === '.html') {
      headers['Content-Security-Policy'] = CSP;
      headers['Referrer-Policy'] = 'no-referrer';
    }
    const inm = req.headers['if-none-match'];
    if (
      inm &&
      inm
        .split(',')
        .map((s) => s.trim().replace(/^W\//, ''))
        .includes(tag)
    ) {
      res.writeHead(304, headers);
      return res.end();
    }
    if (gzip) {
      const key = file + tag;
      let body = gzCache.get(key);
      if (!body) {
        body = zlib.gzipSync(await readFile(file), { level: 6 });
        if (gzCache.size > 64) gzCache.clear();
        gzCache.set(key, body);
      }
      res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      return res.end(req.method === 'HEAD' ? undefined : body);
    }
    if (range === 'unsatisfiable') {
      return send(res, 416, 'range not satisfiable\n', { 'Content-Range': `bytes */${info.size}` });
    }
    if (range) {
      res.writeHead(206, {
        ...headers,
        'Content-Length': range.end - range.start + 1,
        'Content-Range': `bytes ${range.start}-${range.end}/${info.size}`,
      });
    } else {
      res.writeHead(200, { ...headers, 'Content-Length': info.size });
    }
    if (req.method === 'HEAD') return res.end();
    const stream = createReadStream(file, range ?? {});
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
      if (options.log !== false) console.error(err);
    });
  });
  // why: each open socket costs memory and a file descriptor; past the cap, new connections
  // are closed at once (a page needs a handful; a flood of idle sockets gets no more)
  server.maxConnections = options.maxConnections ?? 256;

  const first = options.port ?? 8080;
  const tries = options.tries ?? 50;
  for (let port = first; port < first + tries; port++) {
    const ok = await new Promise((resolve, reject) => {
      const onError = (err) => {
        server.off('listening', onListening);
        if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(false);
        else reject(err);
      };
      const onListening = () => {
        server.off('error', onError);
        resolve(true);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, host);
    });
    if (ok) {
      const actual = server.address().port;
      return { server, port: actual, url: `http://${host}:${actual}/` };
    }
  }
  throw new Error(`no free port in ${first}..${first + tries - 1}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = process.env.PORT ? Number(process.env.PORT) : 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: PORT must be an integer 0..65535, got ${process.env.PORT}`);
    process.exit(2);
  }
  const { url } = await startServer({ port });
  console.log(`Heed demo: ${url}demo/`);
}
