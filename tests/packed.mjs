// The npm package as a user installs it: `npm pack` of this repository, the tarball installed
// into an empty project. Shared by tests/node/package.test.mjs and tests/browser/package_page.mjs;
// not a test itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Packs into `work`, installs the tarball offline into `work`/app; returns { app, files }
 *  (files: the tarball's paths, sorted). */
export function installPackedTarball(work) {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  const app = path.join(work, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  execFileSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', path.join(work, packed.filename)],
    { cwd: app, stdio: 'ignore' },
  );
  return { app, files: packed.files.map((f) => f.path).sort() };
}
