// npx heed (web/cli/heed.mjs, the package's bin) against build/heed: tests/cli_test.sh runs each
// case on both and compares stdout, stderr, exit codes and the files written; without a native
// build its behaviour checks run on npx heed alone. And the nlohmann-style JSON both write.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { Real, dump, formatReal, parse } from '../../web/cli/json.mjs';
import { ROOT, TINY, nativeCli } from './helpers.mjs';

test('floats are written as nlohmann::json writes them', () => {
  // what nlohmann 3.11's dump() printed for these doubles
  const want = [
    [1e-5, '1e-05'],
    [123456789012345, '123456789012345.0'],
    [1234567890123456, '1.234567890123456e+15'],
    [1e21, '1e+21'],
    [0.1, '0.1'],
    [1, '1.0'],
    [100, '100.0'],
    [1e-4, '0.0001'],
    [0.001, '0.001'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [-0, '-0.0'],
    [-2.5, '-2.5'],
    [NaN, 'null'],
  ];
  for (const [x, text] of want) assert.equal(formatReal(x), text, `formatReal(${x})`);
});

test('JSON keeps the kind of each number and sorts keys as std::map does', () => {
  const text = '{"b": 1.0, "a": [1, 2.5e-7, -0, 18446744073709551615], "\\u00e9": {}, "z": []}';
  assert.equal(dump(parse(text)), '{"a":[1,2.5e-07,0,18446744073709551615],"b":1.0,"z":[],"é":{}}');
  assert.equal(
    dump({ x: new Real(3), y: Float32Array.of(0.5, 0), s: 'a\u0001"' }, 2),
    '{\n  "s": "a\\u0001\\"",\n  "x": 3.0,\n  "y": [\n    0.5,\n    0.0\n  ]\n}',
  );
});

const native = nativeCli();
test(
  native
    ? `npx heed gives what ${path.relative(ROOT, native)} gives on the CLI test cases`
    : 'npx heed passes the CLI test cases (no native CLI built to compare with)',
  { timeout: 15 * 60 * 1000 },
  () => {
    const node = path.join(ROOT, 'web', 'cli', 'heed.mjs');
    const script = path.join(ROOT, 'tests', 'cli_test.sh');
    const r = spawnSync('bash', native ? [script, native, TINY, node] : [script, node, TINY], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
    const failed = r.stdout.split('\n').filter((line) => line && !line.startsWith('ok   '));
    // why: a native CLI built before the last change to src/cli/ differs for that reason alone
    const sources = ['cli.json', 'args.cpp', 'main.cpp'].map((f) =>
      path.join(ROOT, 'src', 'cli', f),
    );
    const stale =
      native && sources.some((f) => statSync(f).mtimeMs > statSync(native).mtimeMs)
        ? `\n(${native} is older than src/cli/: rebuild it)`
        : '';
    assert.equal(r.status, 0, `tests/cli_test.sh:\n${failed.join('\n')}${stale}`);
    assert.ok(r.stdout.split('\n').filter((line) => line.startsWith('ok   ')).length > 100);
  },
);
