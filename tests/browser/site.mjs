// Browser checks of the static site (scripts/build-site.mjs), run by run.mjs: the site is built
// into a temporary folder with the tiny model and served by a plain static file server written
// here (files with their MIME types, nothing of serve.mjs), once without and once with the two
// headers of cross-origin isolation. Each time the page translates the text as the Node API
// does, and its status line and the engine it fetches say threads are off, then on; no console
// errors, no request leaves the site. Also: a folder that is not a build is refused, and a second
// build replaces the first and keeps a file the user added.

import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { REPO, assert, openPage, screenshots } from './helpers.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** COOP and COEP: what makes a page cross-origin isolated (SharedArrayBuffer, threads). */
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** A plain static file server of `root` on a free loopback port, adding `headers` to each file. */
async function staticServer(root, headers = {}) {
  const server = createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    let file = path.join(root, decodeURIComponent(pathname));
    let info = file.startsWith(root) ? await stat(file).catch(() => null) : null;
    if (info?.isDirectory()) {
      if (!pathname.endsWith('/')) {
        res.writeHead(301, { Location: `${pathname}/` });
        return res.end();
      }
      file = path.join(file, 'index.html');
      info = await stat(file).catch(() => null);
    }
    if (!info?.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return res.end('not found\n');
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': info.size,
      ...headers,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, stop: () => server.close() };
}

/** Runs scripts/build-site.mjs with `args`; {status, out}. */
function buildSite(args) {
  const r = spawnSync(process.execPath, ['scripts/build-site.mjs', ...args], {
    cwd: REPO,
    encoding: 'utf8',
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

export async function siteChecks({ check, browser, text, expected, shots, settled }) {
  const shot = screenshots(shots);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'heed-site-'));
  const site = path.join(tmp, 'site');
  const tiny = 'models/tiny/tiny.heed';
  try {
    await check('build:site writes the page, both engines and the chosen model', async () => {
      const r = buildSite(['--out', site, '--models', tiny]);
      assert(r.status === 0, `build-site exited ${r.status}: ${r.out}`);
      assert(/total [\d.]+ [kM]B in \d+ files/.test(r.out), `no total size printed: ${r.out}`);
      for (const f of [
        'index.html',
        'demo/index.html',
        'demo/app/boot.js',
        'lib/heed-worker.js',
        'lib/heed.wasm',
        'lib/mt/heed-mt.wasm',
        'lib/mt/heed-mt.worker.js',
        'models/tiny.heed',
        '_headers',
        'HOSTING.txt',
      ])
        assert(await stat(path.join(site, f)).catch(() => null), `the site lacks ${f}`);
      const list = JSON.parse(await readFile(path.join(site, 'models/models.json'), 'utf8'));
      assert(
        list.length === 1 && list[0].id === 'tiny' && list[0].file === 'tiny.heed',
        `models.json: ${JSON.stringify(list)}`,
      );
      const headers = await readFile(path.join(site, '_headers'), 'utf8');
      for (const h of [
        'Cross-Origin-Opener-Policy: same-origin',
        'Cross-Origin-Embedder-Policy: require-corp',
        'Content-Type: application/wasm',
      ])
        assert(headers.includes(h), `_headers lacks ${h}`);
    });

    await check('build:site refuses a folder that is not a build; rebuilds its own', async () => {
      const other = path.join(tmp, 'notes');
      await mkdir(other);
      await writeFile(path.join(other, 'notes.txt'), 'mine\n');
      const refused = buildSite(['--out', other, '--models', tiny]);
      assert(refused.status === 1, `wrote into a folder of the user's: ${refused.out}`);
      assert(/not a site written by this script/.test(refused.out), refused.out);
      assert((await readFile(path.join(other, 'notes.txt'), 'utf8')) === 'mine\n', 'notes.txt');
      await writeFile(path.join(site, 'CNAME'), 'example.org\n');
      const again = buildSite(['--out', site, '--models', tiny]);
      assert(again.status === 0, `a second build was refused: ${again.out}`);
      assert(
        (await readFile(path.join(site, 'CNAME'), 'utf8')) === 'example.org\n',
        "the second build lost the user's CNAME",
      );
    });

    for (const isolated of [false, true]) {
      const name = isolated ? 'with COOP and COEP: threads on' : 'a plain server: threads off';
      await check(`static site, ${name}; translates, no console errors`, async () => {
        const server = await staticServer(site, isolated ? ISOLATION : {});
        const errors = [];
        const requests = [];
        const route = (r) => {
          const url = new URL(r.request().url());
          if (url.origin !== new URL(server.url).origin && !/^(blob|data):$/.test(url.protocol)) {
            errors.push(`request left the site: ${url.href}`);
            return r.abort();
          }
          requests.push(url.pathname);
          return r.continue();
        };
        const watch = (p) => {
          p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
          p.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
        };
        const { ctx, p } = await openPage(browser, { route, watch });
        try {
          await p.goto(server.url);
          await p.waitForURL(/\/demo\/$/); // index.html sends the visitor to demo/
          await p.goto(`${server.url}demo/#model=tiny&beam=1&text=${encodeURIComponent(text)}`);
          await settled(p);
          const got = await p.evaluate(() => ({
            state: document.documentElement.dataset.heed,
            text: document.getElementById('output').dataset.text,
            status: document.getElementById('model-status').textContent,
            isolated: self.crossOriginIsolated,
            cores: navigator.hardwareConcurrency,
            threads: window.heedDemo.translator?.info?.threads,
          }));
          await shot(p, `30-site-${isolated ? 'isolated' : 'plain'}`);
          assert(got.state === 'translated', `page state ${got.state}: ${got.status}`);
          assert(
            got.text === expected.text,
            `the site says ${JSON.stringify(got.text)}, Node ${JSON.stringify(expected.text)}`,
          );
          assert(got.isolated === isolated, `crossOriginIsolated is ${got.isolated}`);
          const mt = requests.some((u) => u.endsWith('/lib/mt/heed-mt.wasm'));
          if (isolated) {
            const n = Math.min(4, got.cores);
            const says = n > 1 ? `· ${n} threads` : '· one thread';
            assert(got.status.includes(says), `status does not say “${says}”: ${got.status}`);
            assert(got.threads === n, `the translator runs on ${got.threads} threads, not ${n}`);
            assert(n === 1 || mt, 'the pthreads engine was not fetched');
          } else {
            const off = /· threads off \(not cross-origin isolated\)/g;
            assert(
              (got.status.match(off) ?? []).length === 1,
              `status does not say once that threads are off: ${got.status}`,
            );
            assert(got.threads === 1, `the translator runs on ${got.threads} threads`);
            assert(!mt, 'the pthreads engine was fetched on a page that cannot run it');
          }
          assert(errors.length === 0, errors.join('\n'));
        } finally {
          await ctx.close();
          server.stop();
        }
      });
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
