// Shared fixtures of the npm package tests: repository paths, the tiny test model, tolerances.
// Not a test file itself (node --test runs *.test.mjs only).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

import { HeedError, loadTranslator } from 'heed';
import { spawnTranslator } from 'heed/worker';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TINY = path.join(ROOT, 'models', 'tiny', 'tiny.heed');
export const TINY_POST = path.join(ROOT, 'models', 'tiny', 'tiny-post.heed');
export const DATA = path.join(ROOT, 'tests', 'data');

/** The native CLI: $HEED_CLI, else build-js/heed, else build/heed (null when none is built). */
export function nativeCli() {
  const candidates = [
    process.env.HEED_CLI,
    path.join(ROOT, 'build-js', 'heed'),
    path.join(ROOT, 'build', 'heed'),
  ].filter(Boolean);
  return candidates.find((p) => existsSync(p)) ?? null;
}

export function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Max |a - b| over two equal-length numeric arrays; both infinite with equal sign count 0. */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let worst = 0,
    at = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i],
      y = b[i] ?? -Infinity; // null in goldens = -inf
    if (x === y) continue;
    const d = Math.abs(x - y);
    if (!(d <= worst)) {
      worst = d;
      at = i;
    }
  }
  return { worst, at };
}

/** Asserts two arrays agree within `tol`, naming the index and both values when not. */
export function assertClose(actual, expected, tol, what) {
  const { worst, at } = maxAbsDiff(Array.from(actual), expected.flat(Infinity));
  if (worst > tol || Number.isNaN(worst))
    throw new Error(
      `${what}: max |diff| ${worst} > ${tol} at index ${at} ` +
        `(got ${actual[at]}, want ${expected.flat(Infinity)[at]})`,
    );
}

/** Row sums of a [..., rows, cols] tensor's last axis. */
export function rowSums(tensor) {
  const cols = tensor.shape.at(-1);
  const sums = [];
  for (let i = 0; i < tensor.data.length; i += cols) {
    let s = 0;
    for (let j = 0; j < cols; j++) s += tensor.data[i + j];
    sums.push(s);
  }
  return sums;
}

export const product = (shape) => shape.reduce((a, b) => a * b, 1);

/** Asserts that `promise` rejects with a HeedError of `code` whose message matches `pattern`. */
export const rejectsWith = (promise, code, pattern = /./) =>
  assert.rejects(promise, (e) => {
    assert.ok(e instanceof HeedError, `not a HeedError: ${e}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, pattern);
    return true;
  });

/** One translator of `model` in this thread and one in a worker, as [['local', t], ['worker',
 *  t]] for a test each; both disposed when the calling file's tests end. */
export async function localAndWorker(model) {
  const translators = await Promise.all([loadTranslator({ model }), spawnTranslator({ model })]);
  after(() => translators.forEach((t) => t.dispose()));
  return [
    ['local', translators[0]],
    ['worker', translators[1]],
  ];
}
