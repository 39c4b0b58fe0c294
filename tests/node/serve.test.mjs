// scripts/serve.mjs as an attacker would probe it (issue 16, finding 10): byte ranges (206 and
// 416), Host limited to loopback names (DNS rebinding), no file answering with a trailing
// slash, only the models models.json lists, and a CSP that forbids framing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
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

const MODEL = readFileSync(path.join(ROOT, 'models', 'en-fr.heed'));

test('a byte range is served as 206 with the exact bytes', async () => {
  const r = await get('/models/en-fr.heed', { range: 'bytes=8-23' });
  assert.equal(r.status, 206);
  assert.equal(r.headers['content-range'], `bytes 8-23/${MODEL.length}`);
  assert.deepEqual(r.body, MODEL.subarray(8, 24));
  const tail = await get('/models/en-fr.heed', { range: 'bytes=-5' });
  assert.equal(tail.status, 206);
  assert.deepEqual(tail.body, MODEL.subarray(MODEL.length - 5));
  const js = await get('/lib/heed.js', { range: 'bytes=0-0', 'accept-encoding': 'gzip' });
  assert.equal(js.status, 206, 'a range is never gzipped');
  assert.equal(js.body.length, 1);
  assert.equal(js.headers['content-encoding'], undefined);
});

test('a range past the end is 416', async () => {
  const r = await get('/models/en-fr.heed', { range: `bytes=${MODEL.length}-` });
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
  assert.equal((await get('/models/en-fr.heed/')).status, 404);
});

test('only the models listed in models.json are served', async () => {
  assert.equal((await get('/models/models.json')).status, 200);
  assert.equal((await get('/models/en-fr.heed')).status, 200);
  assert.equal((await get('/models/en-de.heed')).status, 200);
  for (const p of [
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
