// The package in real Chromium under a strict Content-Security-Policy (no 'unsafe-eval', no
// inline script; only 'wasm-unsafe-eval'): loadTranslator on the page and spawnTranslator in a
// module worker give the Node API's tokens, the attention lab works, and an abort stops the
// worker mid-sentence (with cross-origin isolation, through the shared flag). Skipped when
// Chromium or playwright-core is missing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { loadTranslator } from 'heed';
import { ROOT, TINY } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const playwright = await import('playwright-core').catch(() => null);
const skip =
  (!existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`) ||
  (!playwright && 'playwright-core not installed');

const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'";
const TEXT = 'It reads the configuration file and starts the server in the background.';

const PAGE = `<!doctype html><meta charset="utf-8"><title>heed</title>
<script type="module" src="/probe.mjs"></script>`;

// why: runs in the page; every failure is reported in window.heedProbe rather than thrown
const PROBE = `
import { HeedError, loadAttentionLab, loadTranslator } from '/lib/heed.js';
import { spawnTranslator } from '/lib/heed-worker.js';
const out = { isolated: globalThis.crossOriginIsolated };
try {
  const t = await loadTranslator({ model: '/tiny.heed' });
  const r = await t.translate(${JSON.stringify(TEXT)}, { attention: true });
  out.main = r.targetIds;
  out.crossShape = r.attention.cross.shape;
  out.badInput = await t.translate('').catch((e) => e instanceof HeedError && e.code);
  t.dispose();
  const lab = await loadAttentionLab();
  out.lab = [...lab.attention({ q: [[1, 0]], k: [[1, 0], [0, 1]], v: [[1], [0]],
    score: 'dot' }).weights.data];
  const w = await spawnTranslator({ model: '/tiny.heed' });
  const events = [];
  out.worker = (await w.translate(${JSON.stringify(TEXT)}, { onStep: (e) => events.push(e.step) }))
    .targetIds;
  out.events = events.length;
  const c = new AbortController();
  let n = 0;
  out.abort = await w.translate(${JSON.stringify(TEXT)}, { beam: 4, signal: c.signal,
    onStep: () => { if (++n === 2) c.abort(); } }).catch((e) => e.code);
  // steps that still arrive after the abort are dropped; the worker must stay usable
  out.afterAbort = (await w.translate('A simple text editor')).targetIds.length > 0;
  w.dispose();
  out.disposed = await w.translate('x').catch((e) => e.code);
} catch (e) {
  out.error = String(e) + '\\n' + e.stack;
}
window.heedProbe = out;
`;

/** Serves the probe page, web/lib and the tiny model with the strict CSP. */
async function serve(isolated) {
  const files = {
    '/index.html': ['text/html; charset=utf-8', PAGE],
    '/probe.mjs': ['text/javascript; charset=utf-8', PROBE],
    '/tiny.heed': ['application/octet-stream', await readFile(TINY)],
    '/favicon.ico': ['image/x-icon', ''],
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let entry = files[url.pathname];
    if (!entry && /^\/lib\/[\w.-]+\.(m?js|wasm)$/.test(url.pathname)) {
      const file = path.join(ROOT, 'web', url.pathname);
      if (existsSync(file))
        entry = [
          file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript; charset=utf-8',
          await readFile(file),
        ];
    }
    if (!entry) {
      res.writeHead(404).end();
      return;
    }
    const headers = { 'content-type': entry[0], 'content-security-policy': CSP };
    if (isolated) {
      headers['cross-origin-opener-policy'] = 'same-origin';
      headers['cross-origin-embedder-policy'] = 'require-corp';
    }
    res.writeHead(200, headers).end(entry[1]);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

let browser, expected;
before(async () => {
  if (skip) return;
  browser = await playwright.chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const t = await loadTranslator({ model: TINY });
  expected = (await t.translate(TEXT)).targetIds;
  t.dispose();
});
after(() => browser?.close());

for (const isolated of [false, true])
  test(
    `strict CSP page${isolated ? ', cross-origin isolated' : ''}: page and worker translate`,
    { skip },
    async () => {
      const server = await serve(isolated);
      const page = await browser.newPage();
      const problems = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      try {
        await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
        await page.waitForFunction(() => window.heedProbe, null, { timeout: 60_000 });
        const out = await page.evaluate(() => window.heedProbe);
        assert.equal(out.error, undefined, out.error);
        assert.deepEqual(problems, []);
        assert.equal(out.isolated, isolated);
        assert.deepEqual(out.main, expected);
        assert.deepEqual(out.worker, expected);
        assert.equal(out.events, expected.length);
        assert.equal(out.crossShape.length, 4);
        assert.equal(out.badInput, 'BAD_INPUT');
        assert.equal(out.lab.length, 2);
        assert.equal(out.abort, 'ABORTED');
        assert.equal(out.afterAbort, true);
        assert.equal(out.disposed, 'DISPOSED');
      } finally {
        await page.close();
        server.close();
      }
    },
  );
