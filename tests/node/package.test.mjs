// The npm package as a user gets it: `npm pack`, install the tarball into an empty project and
// import it from Node; the exports map; nothing runs at import; NO_SIMD on engines without SIMD.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { loadTranslator } from 'heed';
import { ROOT, TINY } from './helpers.mjs';
import { installPackedTarball } from '../packed.mjs';

/** Runs an ES module snippet in a fresh Node process in `cwd`; returns its stdout. */
function runModule(source, cwd = ROOT) {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

test('importing the package starts nothing: no fetch, no compile, no worker', () => {
  const out = runModule(`
    const calls = [];
    for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
      const real = WebAssembly[name];
      WebAssembly[name] = (...a) => { calls.push(name); return real(...a); };
    }
    globalThis.fetch = () => { calls.push('fetch'); throw new Error('no'); };
    const threads = await import('node:worker_threads');
    const heed = await import('heed');
    const worker = await import('heed/worker');
    await new Promise((r) => setTimeout(r, 50));
    console.log(JSON.stringify({ calls, exports: Object.keys(heed).sort(),
      workerExports: Object.keys(worker).sort() }));`);
  const { calls, exports, workerExports } = JSON.parse(out);
  assert.deepEqual(calls, []);
  assert.deepEqual(exports, [
    'HeedError',
    'convertMarian',
    'limits',
    'loadAttentionLab',
    'loadTranslator',
    'memoryStats',
  ]);
  assert.deepEqual(workerExports, ['HeedError', 'spawnTranslator']);
});

test('an engine without WebAssembly SIMD gets NO_SIMD with a clear message', () => {
  const out = runModule(`
    WebAssembly.validate = () => false;
    const { loadTranslator, loadAttentionLab } = await import('heed');
    const codes = [];
    for (const call of [() => loadTranslator({ model: ${JSON.stringify(TINY)} }),
                        () => loadAttentionLab()])
      await call().catch((e) => codes.push([e.name, e.code, e.message]));
    console.log(JSON.stringify(codes));`);
  const codes = JSON.parse(out);
  assert.equal(codes.length, 2);
  for (const [name, code, message] of codes) {
    assert.equal(name, 'HeedError');
    assert.equal(code, 'NO_SIMD');
    assert.match(message, /WebAssembly SIMD/);
  }
});

test('internal files are not importable through the exports map', () => {
  assert.throws(
    () => runModule(`await import('heed/web/lib/common.js');`),
    /ERR_PACKAGE_PATH_NOT_EXPORTED/,
  );
});

const work = mkdtempSync(path.join(tmpdir(), 'heed-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('npm pack, install the tarball in an empty project, import it as a user would', async () => {
  const { app, files } = installPackedTarball(work);
  for (const needed of [
    'package.json',
    'web/lib/heed.js',
    'web/lib/heed.d.ts',
    'web/lib/heed-worker.js',
    'web/lib/heed-worker.d.ts',
    'web/lib/worker.js',
    'web/lib/common.js',
    'web/lib/validate.js',
    'web/lib/engine.js',
    'web/lib/options.js',
    'web/lib/lab.js',
    'web/lib/results.js',
    'web/lib/heed-core.mjs',
    'web/lib/heed.wasm',
    'web/lib/mt/heed-mt.mjs',
    'web/lib/mt/heed-mt.wasm',
    'web/lib/mt/heed-mt.worker.js',
    'web/lib/mt/package.json',
  ])
    assert.ok(files.includes(needed), `${needed} missing from the tarball`);
  for (const f of files)
    assert.ok(
      /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|web\/lib\/(mt\/)?[^/]+|models\/[^/]+\.heed)$/.test(
        f,
      ),
      `unexpected file in the tarball: ${f}`,
    );

  writeFileSync(
    path.join(app, 'main.mjs'),
    `
    import { loadTranslator, loadAttentionLab, HeedError } from 'heed';
    import { spawnTranslator } from 'heed/worker';
    const t = await loadTranslator({ model: ${JSON.stringify(TINY)} });
    const r = await t.translate('A simple text editor', { attention: true });
    t.dispose();
    const mt = await loadTranslator({ model: ${JSON.stringify(TINY)}, threads: 2 });
    const rt = await mt.translate(['A simple text editor', 'A game']);
    mt.dispose();
    const w = await spawnTranslator({ model: ${JSON.stringify(TINY)} });
    const rw = await w.translate('A simple text editor');
    w.dispose();
    const lab = await loadAttentionLab();
    const a = lab.attention({ q: [[1]], k: [[1], [2]], v: [[1], [2]], score: 'dot' });
    const err = await loadTranslator({ model: new Uint8Array(8) }).catch((e) => e);
    console.log(JSON.stringify({ ids: r.targetIds, workerIds: rw.targetIds,
      threadedIds: rt[0].targetIds,
      shape: r.attention.cross.shape, weights: [...a.weights.data],
      error: err instanceof HeedError && err.code,
      resolved: import.meta.resolve('heed') }));`,
  );
  const out = JSON.parse(
    execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }),
  );
  const local = await loadTranslator({ model: TINY });
  const want = await local.translate('A simple text editor');
  local.dispose();
  assert.deepEqual(out.ids, want.targetIds);
  assert.deepEqual(out.workerIds, want.targetIds);
  assert.deepEqual(out.threadedIds, want.targetIds);
  assert.equal(out.shape.length, 4);
  assert.equal(out.weights.length, 2);
  assert.equal(out.error, 'BAD_MODEL');
  assert.match(out.resolved, /node_modules\/heed\/web\/lib\/heed\.js$/);
});
