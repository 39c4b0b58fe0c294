// scripts/serve.mjs as an attacker would probe it: byte ranges (206 and
// 416), Host limited to loopback names (DNS rebinding), no file answering with a trailing
// slash, only the models models.json lists, and a CSP that forbids framing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { startServer } from '../../scripts/serve.mjs';
import { ROOT } from './helpers.mjs';

let server, port;
before(async () => {
  ({ server, port } = await startServer({ port: 0, log: false }));
});
after(() => server.close());

/** GET `urlPath` with the given headers (Host defaults to 127.0.0.1:port); body as a Buffer. */
function get(urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        headers: { host: `127.0.0.1:${port}`, ...headers },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const MODEL = readFileSync(path.join(ROOT, 'models', 'multi.heed'));

test('a byte range is served as 206 with the exact bytes', async () => {
  const r = await get('/models/multi.heed', { range: 'bytes=8-23' });
  assert.equal(r.status, 206);
  assert.equal(r.headers['content-range'], `bytes 8-23/${MODEL.length}`);
  assert.deepEqual(r.body, MODEL.subarray(8, 24));
  const tail = await get('/models/multi.heed', { range: 'bytes=-5' });
  assert.equal(tail.status, 206);
  assert.deepEqual(tail.body, MODEL.subarray(MODEL.length - 5));
  const js = await get('/lib/heed.js', { range: 'bytes=0-0', 'accept-encoding': 'gzip' });
  assert.equal(js.status, 206, 'a range is never gzipped');
  assert.equal(js.body.length, 1);
  assert.equal(js.headers['content-encoding'], undefined);
});

test('a range past the end is 416', async () => {
  const r = await get('/models/multi.heed', { range: `bytes=${MODEL.length}-` });
  assert.equal(r.status, 416);
  assert.equal(r.headers['content-range'], `bytes */${MODEL.length}`);
});

test('only loopback Host names are answered', async () => {
  for (const host of ['evil.example', 'evil.example:' + port, '127.0.0.1.evil.example'])
    assert.equal((await get('/demo/', { host })).status, 403, host);
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost'])
    assert.equal((await get('/demo/', { host })).status, 200, host);
});

test('a file path with a trailing slash is not the file', async () => {
  assert.equal((await get('/lib/heed.js')).status, 200);
  assert.equal((await get('/lib/heed.js/')).status, 404);
  assert.equal((await get('/models/multi.heed/')).status, 404);
});

test('only the models listed in models.json are served', async () => {
  assert.equal((await get('/models/models.json')).status, 200);
  assert.equal((await get('/models/multi.heed')).status, 200);
  for (const p of [
    '/models/en-fr.heed', // retired: in the repository for the tests, not in models.json
    '/models/checkpoints/en-fr.f16.heed',
    '/models/tiny/tiny.heed',
    '/models/tiny/tiny-post.heed',
  ])
    assert.equal((await get(p)).status, 404, p);
});

test('pages may not be framed', async () => {
  const r = await get('/demo/');
  assert.match(r.headers['content-security-policy'], /frame-ancestors 'none'/);
});

test('a folder redirect never names another host (/.//demo, //demo)', async () => {
  for (const [asked, want] of [
    ['/.//demo', '/demo/'],
    ['//demo?x=1', '/demo/?x=1'],
    ['/./demo', '/demo/'],
    ['/./demo', '/demo/'],
  ]) {
    const r = await get(asked);
    assert.ok([301, 302].includes(r.status), `${asked}: ${r.status}`);
    assert.equal(r.headers.location, want, asked);
    assert.ok(!r.headers.location.startsWith('//'), asked);
  }
});

test('connections over the cap are closed as they open; below it, requests are served', async () => {
  const { server: capped, port: cappedPort } = await startServer({
    port: 0,
    log: false,
    maxConnections: 2,
  });
  const open = () =>
    new Promise((resolve, reject) => {
      const s = connect(cappedPort, '127.0.0.1', () => resolve(s));
      s.on('error', reject);
    });
  const closed = (s) => new Promise((resolve) => s.once('close', resolve));
  try {
    const held = [await open(), await open()];
    while ((await new Promise((r, j) => capped.getConnections((e, n) => (e ? j(e) : r(n))))) < 2)
      await new Promise((r) => setImmediate(r));
    const third = await open();
    third.on('error', () => {}); // a reset is as good as a close here
    await closed(third); // the server closed it without an answer
    held[0].destroy();
    await closed(held[0]);
    while ((await new Promise((r, j) => capped.getConnections((e, n) => (e ? j(e) : r(n))))) > 1)
      await new Promise((r) => setImmediate(r));
    const r = await new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: cappedPort, path: '/lib/heed.js', agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(r, 200);
    held[1].destroy();
  } finally {
    capped.close();
  }
});
