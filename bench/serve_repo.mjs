// A static server of the repository's files for the benchmarks' Chromium pages (bench/bergamot,
// bench/ort), on 127.0.0.1 and a free port, and the run of one such page in headless Chromium.
// Not the demo's server (scripts/serve.mjs).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MIME = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/**
 * Serves the repository's files (and `extra`: URL path -> file); resolves the listening server.
 * `isolated`: with the two headers that make a page cross-origin isolated (the pthreads build).
 */
export function serveRepo(extra = {}, { isolated = false } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const file =
      extra[url.pathname] ?? path.join(ROOT, path.normalize(decodeURIComponent(url.pathname)));
    if (!extra[url.pathname] && !file.startsWith(ROOT + path.sep)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
        ...(isolated && {
          'Cross-Origin-Opener-Policy': 'same-origin',
          'Cross-Origin-Embedder-Policy': 'require-corp',
        }),
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * Serves the repository (and `extra`), opens `page` (a path such as /bench/ort/page.html) in
 * headless Chromium, its console on stderr, and resolves `run(page)`; closes both after.
 * `serving`: serveRepo's options.
 */
export async function inBenchPage(page, extra, run, serving = {}) {
  const { launchChromium } = await import('../tests/browser/helpers.mjs');
  const server = await serveRepo(extra, serving);
  const browser = await launchChromium();
  try {
    const p = await browser.newPage();
    p.on('console', (m) => console.error(`  chromium: ${m.text()}`));
    await p.goto(`http://127.0.0.1:${server.address().port}${page}`);
    return await run(p);
  } finally {
    await browser.close();
    server.close();
  }
}
