// The npm packages as a user installs them: `npm pack` of the engine (this repository) and of
// the models (models/), both tarballs installed side by side into an empty project. Shared by
// tests/node/package.test.mjs and tests/browser/package_page.mjs; not a test itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `npm pack` of the package in `dir` into `work`: { tarball, size, files (sorted paths) }. */
function pack(dir, work) {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  return {
    tarball: path.join(work, packed.filename),
    size: packed.size,
    files: packed.files.map((f) => f.path).sort(),
  };
}

/**
 * Packs `heed` and `heed-models` into `work` and installs both tarballs offline into `work`/app;
 * returns { app, engine, models }, each package as pack() describes it.
 */
export function installPackedTarball(work) {
  const engine = pack(ROOT, work);
  const models = pack(path.join(ROOT, 'models'), work);
  const app = path.join(work, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  execFileSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', engine.tarball, models.tarball],
    { cwd: app, stdio: 'ignore' },
  );
  return { app, engine, models };
}
