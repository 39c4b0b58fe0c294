// The bench-only WebAssembly module with LinearBench (`bash scripts/build-wasm.sh --bench`,
// left in BUILD_DIR, default build-wasm; never the shipped heed.wasm), for the GEMM tables of
// scripts/bench.mjs and bench/ort/bench.mjs.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The module instantiated; `root` is the repository's root. */
export async function loadHeedBench(root) {
  const dir = path.resolve(root, process.env.BUILD_DIR || 'build-wasm');
  const loader = path.join(dir, 'heed-bench.mjs');
  if (!existsSync(loader))
    throw new Error(`${loader} not found: build it with bash scripts/build-wasm.sh --bench`);
  const { default: createHeedBench } = await import(pathToFileURL(loader).href);
  const wasmBinary = await readFile(path.join(dir, 'heed-bench.wasm'));
  return createHeedBench({ wasmBinary });
}
