// The npm packages as a user gets them: `npm pack` of the engine and of the models, both
// installed into an empty project and imported from Node; a model named by its package; the
// exports map; nothing runs at import; NO_SIMD on engines without SIMD.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { loadTranslator } from 'heed';
import { ROOT, TINY, nativeCli } from './helpers.mjs';
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

const SHIPPED_TEXT = 'It is a simple text editor for the terminal.';
const work = mkdtempSync(path.join(tmpdir(), 'heed-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));

test("a model named by its package's file is read from the installed package", () => {
  // a project with a model package (no `heed` in it: the engine is the repository's, so the
  // package is found from the working directory, not beside heed), and a folder of files
  const project = path.join(work, 'project');
  mkdirSync(path.join(project, 'node_modules', 'tiny-models'), { recursive: true });
  writeFileSync(
    path.join(project, 'node_modules', 'tiny-models', 'package.json'),
    JSON.stringify({ name: 'tiny-models', exports: { './*.heed': './*.heed' } }),
  );
  copyFileSync(TINY, path.join(project, 'node_modules', 'tiny-models', 'tiny.heed'));
  mkdirSync(path.join(project, 'local'));
  copyFileSync(TINY, path.join(project, 'local', 'tiny.heed'));
  const heed = pathToFileURL(path.join(ROOT, 'web/lib/heed.js')).href;
  const worker = pathToFileURL(path.join(ROOT, 'web/lib/heed-worker.js')).href;
  // why: a file, not runModule's --input-type, which the worker threads would inherit
  writeFileSync(
    path.join(project, 'check.mjs'),
    `
    const { loadTranslator } = await import(${JSON.stringify(heed)});
    const { spawnTranslator } = await import(${JSON.stringify(worker)});
    const out = {};
    for (const [name, load] of [['main', loadTranslator], ['worker', spawnTranslator]])
      for (const model of ['tiny-models/tiny.heed', 'local/tiny.heed', 'tiny-models/none.heed',
                           'no-such-models/tiny.heed', '@acme/no-models/tiny.heed'])
        out[name + ' ' + model] = await load({ model }).then(
          async (t) => { const r = await t.translate('A simple text editor'); t.dispose();
                         return r.targetIds; },
          (e) => [e.code, e.message]);
    console.log(JSON.stringify(out));`,
  );
  const got = JSON.parse(
    execFileSync(process.execPath, ['check.mjs'], { cwd: project, encoding: 'utf8' }),
  );
  for (const where of ['main', 'worker']) {
    const ids = got[`${where} tiny-models/tiny.heed`];
    assert.ok(Array.isArray(ids) && ids.length > 0, `${where}: ${JSON.stringify(ids)}`);
    assert.deepEqual(got[`${where} local/tiny.heed`], ids, `${where}: a path in the project`);
    const [code, message] = got[`${where} tiny-models/none.heed`];
    assert.equal(code, 'LOAD_FAILED');
    assert.match(message, /the installed package 'tiny-models' has no such file/);
    for (const [model, name] of [
      ['no-such-models/tiny.heed', 'no-such-models'],
      ['@acme/no-models/tiny.heed', '@acme/no-models'],
    ]) {
      const [missing, says] = got[`${where} ${model}`];
      assert.equal(missing, 'LOAD_FAILED');
      assert.ok(
        says.includes(`the package '${name}' is not installed: npm install ${name}`),
        `${where}: ${says}`,
      );
    }
  }
});

test('npm pack of both packages, installed side by side in an empty project, used as a user would', async () => {
  const { app, engine, models } = installPackedTarball(work);
  const files = engine.files;
  assert.ok(engine.size <= 2 * 1024 * 1024, `the engine tarball is ${engine.size} bytes (> 2 MB)`);
  assert.ok(!files.some((f) => f.endsWith('.heed')), 'the engine tarball holds a model');
  assert.deepEqual(models.files, [
    'README.md',
    'cards/licences.txt',
    'cards/multi.md',
    'models.json',
    'multi.heed',
    'package.json',
  ]);
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
    'web/cli/heed.mjs',
    'web/cli/args.mjs',
    'web/cli/io.mjs',
    'web/cli/json.mjs',
    'src/cli/cli.json',
    'LICENSE',
    'NOTICE',
  ])
    assert.ok(files.includes(needed), `${needed} missing from the tarball`);
  for (const f of files)
    assert.ok(
      /^(package\.json|README\.md|LICENSE|NOTICE|CHANGELOG\.md|web\/lib\/(mt\/)?[^/]+|web\/cli\/[^/]+\.mjs|src\/cli\/cli\.json)$/.test(
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

  // a shipped model by its package name, run from outside the project: found beside heed
  writeFileSync(
    path.join(app, 'models.mjs'),
    `
    import { readFileSync } from 'node:fs';
    import { createRequire } from 'node:module';
    import { loadTranslator } from 'heed';
    import { spawnTranslator } from 'heed/worker';
    const model = 'heed-models/multi.heed';
    const t = await loadTranslator({ model });
    const r = await t.translate(${JSON.stringify(SHIPPED_TEXT)});
    t.dispose();
    const w = await spawnTranslator({ model });
    const rw = await w.translate(${JSON.stringify(SHIPPED_TEXT)});
    w.dispose();
    const require = createRequire(import.meta.url);
    const missing = await loadTranslator({ model: 'heed-models/none.heed' }).catch((e) => e.code);
    console.log(JSON.stringify({ ids: r.targetIds, workerIds: rw.targetIds, missing,
      resolved: import.meta.resolve(model), required: require.resolve(model),
      directions: JSON.parse(readFileSync(require.resolve('heed-models/models.json'))).length }));`,
  );
  const shipped = JSON.parse(
    execFileSync(process.execPath, [path.join(app, 'models.mjs')], { cwd: work, encoding: 'utf8' }),
  );
  const repoModel = await loadTranslator({ model: path.join(ROOT, 'models', 'multi.heed') });
  const wantShipped = await repoModel.translate(SHIPPED_TEXT);
  repoModel.dispose();
  assert.deepEqual(shipped.ids, wantShipped.targetIds);
  assert.deepEqual(shipped.workerIds, wantShipped.targetIds);
  assert.equal(shipped.missing, 'LOAD_FAILED');
  assert.match(shipped.resolved, /^file:.*\/app\/node_modules\/heed-models\/multi\.heed$/);
  assert.equal(shipped.required, path.join(app, 'node_modules', 'heed-models', 'multi.heed'));
  assert.equal(shipped.directions, 4);

  // the package's bin: npx heed in the project, a model by path or by its package's file
  const npx = (...args) =>
    execFileSync('npx', ['--no-install', 'heed', ...args], { cwd: app, encoding: 'utf8' });
  assert.equal(
    npx('translate', '-m', TINY, '--max-length', '20', 'A simple text editor'),
    'Une égumentation de calisémentation de che\n',
  );
  const info = npx('info', '-m', 'heed-models/multi.heed');
  assert.match(info, /^directions: en-de, de-en, en-fr, fr-en\n\{\n {2}"compute": "int8",\n/);
  const cli = nativeCli();
  if (cli)
    assert.equal(
      info,
      execFileSync(cli, ['info', '-m', path.join(ROOT, 'models', 'multi.heed')], {
        encoding: 'utf8',
      }),
    );
});
