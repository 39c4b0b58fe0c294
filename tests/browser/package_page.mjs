#!/usr/bin/env node
// The packed npm packages in a user's own browser page: `npm pack` of `heed` and `heed-models`,
// both installed into an empty project, a plain page (no bundler) that imports `heed` and
// `heed/worker` from node_modules, served (scripts/serve.mjs, with its strict CSP) and opened in
// Chromium. The page translates a model of the installed `heed-models` by its URL with attention
// on the main thread and in the worker wrapper; the answers must equal the Node API's, from the
// same installed packages, which names the model by its package. A bare package name in the
// page fails with a message saying browsers cannot resolve it.
//
//   node tests/browser/package_page.mjs      exit 0 when every check passes

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { REPO, launchChromium, harness, assert } from './helpers.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { installPackedTarball } from '../packed.mjs';

const TEXT = 'It can be used to monitor network traffic in real time.';
const MODEL = 'node_modules/heed-models/multi.heed';
const BARE = 'heed-models/multi.heed'; // a package name: Node resolves it, a browser cannot
const SHOT = path.join(REPO, 'tests/browser/screenshots/12-package-page.png');

// What a user's page does: everything below runs in the browser, as a module script.
const PAGE_SCRIPT = `
import { loadTranslator, HeedError } from './node_modules/heed/web/lib/heed.js';
import { spawnTranslator } from './node_modules/heed/web/lib/heed-worker.js';

const TEXT = ${JSON.stringify(TEXT)};
const MODEL = new URL(${JSON.stringify(MODEL)}, location.href).href;
const BARE = ${JSON.stringify(BARE)};
const rowSums = (t) => {
  const n = t.shape[t.shape.length - 1], sums = [];
  for (let i = 0; i < t.data.length; i += n) sums.push(t.data.subarray(i, i + n).reduce((a, b) => a + b, 0));
  return sums;
};
const codeOf = (p) => p.then(() => 'resolved', (e) => (e instanceof HeedError ? e.code : String(e)));
const failure = (p) => p.then(() => ['resolved'], (e) => [e.code, e.message]);

async function main() {
  const out = {};
  const t = await loadTranslator({ model: MODEL });
  let streamed = 0;
  const r = await t.translate(TEXT, { attention: true, onStep: () => { streamed++; } });
  out.main = { text: r.text, targetIds: r.targetIds, streamed,
    shapes: Object.fromEntries(['encoderSelf', 'decoderSelf', 'cross'].map((k) => [k, r.attention[k].shape])),
    sums: [...rowSums(r.attention.encoderSelf), ...rowSums(r.attention.decoderSelf), ...rowSums(r.attention.cross)] };
  t.dispose();
  out.afterDispose = await codeOf(t.translate(TEXT));

  const w = await spawnTranslator({ model: MODEL });
  const steps = [];
  const iter = w.steps(TEXT, { attention: true });
  let next;
  while (!(next = await iter.next()).done) steps.push(next.value.token);
  out.worker = { text: next.value.text, targetIds: next.value.targetIds, steps,
    cross: next.value.attention.cross.shape };
  const ac = new AbortController();
  const aborted = codeOf(w.translate(TEXT, { beam: 4, signal: ac.signal }));
  ac.abort();
  out.aborted = await aborted;
  out.afterAbort = (await w.translate(TEXT)).text;
  w.dispose();
  out.badModel = await codeOf(loadTranslator({ model: new Uint8Array(16) }));
  out.bare = await failure(loadTranslator({ model: BARE }));
  out.bareWorker = await failure(spawnTranslator({ model: BARE }));
  return out;
}
main().then((out) => {
  document.querySelector('output').textContent = out.main.text;
  window.heedResult = out;
}, (err) => {
  document.querySelector('output').textContent = 'failed: ' + err.message;
  window.heedResult = { error: String(err && err.stack || err) };
});
`;

const PAGE_HTML = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>heed from npm</title>
<p>Translated in this page by the <code>heed</code> package from node_modules:</p>
<output></output>
<script type="module" src="main.js"></script>
</html>
`;

export async function run() {
  const { check, results } = harness();
  const work = mkdtempSync(path.join(tmpdir(), 'heed-page-'));
  let server, browser;
  try {
    // ---- the user's project: an empty folder, the tarball installed, a page ----
    const { app } = installPackedTarball(work);
    writeFileSync(path.join(app, 'index.html'), PAGE_HTML);
    writeFileSync(path.join(app, 'main.js'), PAGE_SCRIPT);

    // ---- the same package from Node: the expected answer ----
    const heed = await import(
      pathToFileURL(path.join(app, 'node_modules/heed/web/lib/heed.js')).href
    );
    const nodeT = await heed.loadTranslator({ model: BARE });
    const want = await nodeT.translate(TEXT, { attention: true });
    nodeT.dispose();

    server = await startServer({
      port: 0,
      webRoot: app,
      modelsRoot: path.join(work, 'none'),
      log: false,
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 900, height: 300 } });
    const external = [],
      errors = [];
    await context.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname !== '127.0.0.1') {
        external.push(u.href);
        return route.abort();
      }
      return route.continue();
    });
    const page = await context.newPage();
    page.on('console', (m) => {
      // why: the bare package name is asked for once per thread and must 404
      if (m.type() === 'error' && !m.location().url.endsWith(`/${BARE}`)) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => window.heedResult, null, { timeout: 60_000 });
    const got = await page.evaluate(() => window.heedResult);
    await page.screenshot({ path: SHOT });
    if (got.error) throw new Error(`the page failed: ${got.error}`);

    await check('main thread: same translation and ids as Node, from the installed tarball', () => {
      assert(got.main.text === want.text, `page "${got.main.text}" vs Node "${want.text}"`);
      assert(
        JSON.stringify(got.main.targetIds) === JSON.stringify(want.targetIds),
        'target ids differ',
      );
      assert(
        got.main.streamed === want.targetIds.length,
        `onStep ran ${got.main.streamed} times for ${want.targetIds.length} tokens`,
      );
    });
    await check("main thread: attention shapes equal Node's, every row sums to 1", () => {
      for (const k of ['encoderSelf', 'decoderSelf', 'cross'])
        assert(
          JSON.stringify(got.main.shapes[k]) === JSON.stringify(want.attention[k].shape),
          `${k} shape ${got.main.shapes[k]}`,
        );
      assert(
        got.main.sums.length > 0 && got.main.sums.every((s) => Math.abs(s - 1) < 1e-4),
        `row sums off: ${got.main.sums.filter((s) => Math.abs(s - 1) >= 1e-4).slice(0, 3)}`,
      );
    });
    await check("worker wrapper: streamed steps and result equal Node's; abort and dispose", () => {
      assert(got.worker.text === want.text, `worker "${got.worker.text}"`);
      assert(
        JSON.stringify(got.worker.targetIds) === JSON.stringify(want.targetIds),
        'worker ids differ',
      );
      assert(
        got.worker.steps.length === want.targetIds.length,
        `${got.worker.steps.length} steps streamed`,
      );
      assert(
        JSON.stringify(got.worker.cross) === JSON.stringify(want.attention.cross.shape),
        'worker cross shape',
      );
      assert(got.aborted === 'ABORTED', `abort gave ${got.aborted}`);
      assert(got.afterAbort === want.text, 'the worker is unusable after an abort');
      assert(got.afterDispose === 'DISPOSED', `after dispose: ${got.afterDispose}`);
      assert(got.badModel === 'BAD_MODEL', `bad model: ${got.badModel}`);
    });
    await check(
      'a bare package name in the page: LOAD_FAILED saying browsers cannot resolve it',
      () => {
        for (const [code, message] of [got.bare, got.bareWorker]) {
          assert(code === 'LOAD_FAILED', `code ${code}: ${message}`);
          assert(/browsers cannot resolve package names/.test(message), message);
        }
      },
    );
    await check('no console errors, no request left localhost (strict CSP page)', () => {
      assert(errors.length === 0, `console: ${errors.join(' | ')}`);
      assert(external.length === 0, `external: ${external.join(' ')}`);
    });
  } catch (err) {
    results.push({ name: 'setup', ok: false, err });
    console.log(`FAIL could not run the page: ${err?.stack ?? err}`);
  } finally {
    await browser?.close();
    server?.server.close();
    rmSync(work, { recursive: true, force: true });
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  return failed;
}

if (
  process.argv[1] &&
  path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)
) {
  const guard = setTimeout(() => {
    console.log('package page test: timed out after 180 s');
    process.exit(2);
  }, 180_000);
  run().then(
    (failed) => {
      clearTimeout(guard);
      process.exit(failed ? 1 : 0);
    },
    (err) => {
      console.log(`package page test could not run: ${err.stack ?? err}`);
      process.exit(2);
    },
  );
}
