#!/usr/bin/env node
// Writes the demo as a static site: one folder that any static file server can serve (no server
// of ours), holding the page (web/demo/), the engine (web/lib/: the single-thread build and the
// pthreads one) and the chosen models with a models.json that lists only them, laid out as
// scripts/serve.mjs serves the repository (demo/, lib/, models/) so the page's relative URLs
// resolve; plus index.html (to demo/), _headers (Netlify, Cloudflare Pages) and HOSTING.txt.
// Not a server; nothing is fetched from the network. No dependencies beyond Node.
//
//   node scripts/build-site.mjs [--out DIR] [--models LIST]      (npm run build:site -- ...)
//     --out DIR      the folder (default: site/ in the repository); a folder that holds
//                    anything but a previous build of this script is refused
//     --models LIST  comma-separated models.json ids (multi-en-fr), files (multi.heed, or
//                    multi: every direction of that file) or paths to .heed files; default:
//                    every model models/models.json lists (the demo's list)

import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import path from 'node:path';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEMO = path.join(REPO, 'web/demo');
const LIB = path.join(REPO, 'web/lib');
const MODELS = path.join(REPO, 'models');
/** The file that marks a folder as written here; it lists the files of that build. */
const MARKER = '.heed-site.json';
/** What scripts/build-wasm.sh writes; the rest of web/lib is committed. */
const ENGINE = [
  'heed-core.mjs',
  'heed.wasm',
  'mt/heed-mt.mjs',
  'mt/heed-mt.wasm',
  'mt/heed-mt.worker.js',
];
const WASM_PATHS = ['/lib/heed.wasm', '/lib/mt/heed-mt.wasm'];

const USAGE = `usage: node scripts/build-site.mjs [--out DIR] [--models ID|FILE|PATH,...]
  --out DIR     the folder to write (default: site/); refused when it holds anything but a
                previous build (${MARKER})
  --models ...  models.json ids, model files (multi.heed or multi) or paths to .heed files;
                default: every model models/models.json lists`;

class Refusal extends Error {}

/** Every file under `dir` as paths relative to it (sorted), less dotfiles. */
async function walk(dir, rel = '') {
  const out = [];
  const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(dir, r)));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

/** A models.json `file`: a relative path inside models/ (no '..', not absolute). */
function safeFile(file) {
  const parts = typeof file === 'string' ? file.split('/') : [];
  return (
    parts.length > 0 && parts.every((p) => p !== '' && p !== '.' && p !== '..' && !/\\/.test(p))
  );
}

/**
 * The models.json entries the tokens name, in the tokens' order, and each model file's source
 * path: {entries, sources: Map(file -> absolute path)}.
 */
function pickModels(list, tokens) {
  const entries = [];
  const sources = new Map();
  const add = (e, source) => {
    if (entries.some((x) => x.id === e.id)) {
      if (entries.some((x) => x.id === e.id && x.file === e.file)) return;
      throw new Refusal(`two models have the id '${e.id}'`);
    }
    if (sources.has(e.file) && sources.get(e.file) !== source)
      throw new Refusal(`two different model files would be models/${e.file}`);
    entries.push(e);
    sources.set(e.file, source);
  };
  for (const token of tokens) {
    const stem = token.replace(/\.heed$/, '');
    let found = list.filter((e) => e.id === token);
    if (!found.length) found = list.filter((e) => e.file === token || e.file === `${stem}.heed`);
    if (!found.length && existsSync(token) && statSync(token).isFile()) {
      const where = path.resolve(token);
      const rel = path.relative(MODELS, where).split(path.sep).join('/');
      found = list.filter((e) => e.file === rel);
      if (!found.length) {
        const file = path.basename(where);
        add({ id: path.basename(file, '.heed'), file, name: path.basename(file, '.heed') }, where);
        continue;
      }
    }
    if (!found.length)
      throw new Refusal(
        `no model '${token}': models/models.json lists the ids ${list.map((e) => e.id).join(', ')} ` +
          `and the files ${[...new Set(list.map((e) => e.file))].join(', ')}; a path to a .heed file also works`,
      );
    for (const e of found) add(e, path.join(MODELS, ...e.file.split('/')));
  }
  return { entries, sources };
}

/** The engine's generated files, built with scripts/build-wasm.sh when any is missing. */
function ensureEngine() {
  const missing = () => ENGINE.filter((f) => !existsSync(path.join(LIB, f)));
  if (!missing().length) return;
  const emcc = spawnSync('sh', ['-c', 'command -v emcc'], { stdio: 'ignore' }).status === 0;
  if (!emcc)
    throw new Refusal(
      `the engine is not built (web/lib/ lacks ${missing().join(', ')}), and emcc is not ` +
        'installed to build it: run bash scripts/setup.sh, or bash scripts/build-wasm.sh ' +
        'where Emscripten is installed, then build the site again',
    );
  console.log(`build-site: web/lib/ lacks ${missing().join(', ')}: running scripts/build-wasm.sh`);
  const built = spawnSync('bash', [path.join(REPO, 'scripts/build-wasm.sh')], { stdio: 'inherit' });
  if (built.status !== 0 || missing().length)
    throw new Refusal('scripts/build-wasm.sh failed; the site was not written');
}

/**
 * The files of the previous build in `out` (to replace), or [] for a missing or empty folder;
 * refuses any other folder, and a file of the new build that the previous one did not write.
 */
async function previousBuild(out, planned) {
  let info;
  try {
    info = await stat(out);
  } catch {
    return [];
  }
  if (!info.isDirectory()) throw new Refusal(`${out} exists and is not a folder`);
  const present = await readdir(out);
  if (!present.length) return [];
  let files;
  try {
    ({ files } = JSON.parse(await readFile(path.join(out, MARKER), 'utf8')));
    if (!Array.isArray(files) || !files.every(safeFile)) throw new Error('malformed');
  } catch {
    throw new Refusal(
      `${out} is not empty and is not a site written by this script (no ${MARKER}); ` +
        'nothing was written: name an empty or new folder with --out',
    );
  }
  const ours = new Set(files);
  const clash = planned.filter((f) => !ours.has(f) && existsSync(path.join(out, ...f.split('/'))));
  if (clash.length)
    throw new Refusal(
      `${out} holds files this build would overwrite that no build wrote: ${clash.join(', ')}; ` +
        'nothing was written',
    );
  return files;
}

/** Deletes a previous build's files and the folders they leave empty (nothing else). */
async function removeBuild(out, files) {
  const dirs = new Set();
  for (const f of files) {
    await rm(path.join(out, ...f.split('/')), { force: true });
    for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) dirs.add(d);
  }
  // deepest first, so a parent is tried after its children
  for (const d of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length))
    await rmdir(path.join(out, ...d.split('/'))).catch(() => {}); // not empty: the user's
}

function sizeText(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

const INDEX_HTML = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Heed</title>
<meta http-equiv="refresh" content="0; url=demo/">
<p><a href="demo/">Heed: see where every attention head looks</a></p>
`;

const HEADERS = `# Response headers for Netlify and Cloudflare Pages (written by scripts/build-site.mjs).
# The first two make the page cross-origin isolated, which turns the demo's threads on (the
# pthreads engine in lib/mt/); without them the demo works on one thread and says so.
/*
  Cross-Origin-Opener-Policy: same-origin
  Cross-Origin-Embedder-Policy: require-corp
  X-Content-Type-Options: nosniff
${WASM_PATHS.map((p) => `${p}\n  Content-Type: application/wasm\n`).join('')}`;

const HOSTING = `Heed demo: a static site written by scripts/build-site.mjs

Serve this folder with any static file server and open demo/ (index.html points there), e.g.
    python3 -m http.server -d . 8000        then http://localhost:8000/demo/
It may live under any path: every URL in the page is relative. Everything the page loads
comes from this folder; it asks no other origin for anything.

Threads: send these two headers with every file and the page is cross-origin isolated; the
demo then translates on the pthreads engine (lib/mt/) and its status line says how many
threads it runs on:
    Cross-Origin-Opener-Policy: same-origin
    Cross-Origin-Embedder-Policy: require-corp
Without them the demo works on one thread and its status line says "threads off (not
cross-origin isolated)". _headers sets them on Netlify and Cloudflare Pages; elsewhere e.g.
    nginx:   add_header Cross-Origin-Opener-Policy same-origin;
             add_header Cross-Origin-Embedder-Policy require-corp;
    Apache:  Header set Cross-Origin-Opener-Policy "same-origin"
             Header set Cross-Origin-Embedder-Policy "require-corp"
(GitHub Pages cannot set headers: the demo runs there with threads off.)

MIME types: serve .wasm as application/wasm (the engine then compiles while it downloads;
under another type it is downloaded first, then compiled) and .js and .mjs as
text/javascript (browsers refuse to run modules served as anything else). .heed model files
are plain bytes (application/octet-stream). A server that sends an ETag with them lets the
page keep models in the browser's cache and revalidate them (304) on the next visit.

${MARKER} marks this folder as a build: the next build into it replaces the files it lists.
`;

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: { out: { type: 'string' }, models: { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (err) {
    throw new Refusal(`${err.message}\n${USAGE}`);
  }
  if (values.help) return console.log(USAGE);
  const out = path.resolve(values.out ?? path.join(REPO, 'site'));
  for (const source of [DEMO, LIB, MODELS])
    if (out === source || out.startsWith(source + path.sep) || source.startsWith(out + path.sep))
      throw new Refusal(
        `--out ${out} overlaps ${path.relative(REPO, source)}/, which the site is built from`,
      );
  const list = JSON.parse(await readFile(path.join(MODELS, 'models.json'), 'utf8'));
  if (!Array.isArray(list) || !list.every((e) => typeof e?.id === 'string' && safeFile(e?.file)))
    throw new Refusal('models/models.json is not a list of {id, file} with files inside models/');
  const tokens = values.models
    ? values.models
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : list.map((e) => e.id);
  if (!tokens.length) throw new Refusal('--models names no model');
  const { entries, sources } = pickModels(list, tokens);
  for (const [file, source] of sources)
    if (!existsSync(source)) throw new Refusal(`models/${file} is missing (${source})`);
  ensureEngine();

  // what to write: [relative path in the site, source file | text]
  const plan = [];
  for (const f of await walk(DEMO))
    if (!f.endsWith('.md')) plan.push([`demo/${f}`, path.join(DEMO, f)]);
  // why: the browser needs the modules and the two engines, not the typings nor mt/package.json
  for (const f of await walk(LIB))
    if (/\.(m?js|wasm)$/.test(f)) plan.push([`lib/${f}`, path.join(LIB, f)]);
  for (const [file, source] of sources) plan.push([`models/${file}`, source]);
  const texts = [
    ['models/models.json', JSON.stringify(entries, null, 2) + '\n'],
    ['index.html', INDEX_HTML],
    ['_headers', HEADERS],
    ['HOSTING.txt', HOSTING],
  ];
  const planned = [...plan.map(([r]) => r), ...texts.map(([r]) => r)];

  const previous = await previousBuild(out, planned);
  await removeBuild(out, previous);
  await mkdir(out, { recursive: true });
  const groups = new Map(); // top folder -> {files, bytes}
  const count = (rel, bytes) => {
    const top = rel.includes('/') ? rel.split('/')[0] + '/' : 'top level';
    const g = groups.get(top) ?? { files: 0, bytes: 0 };
    groups.set(top, { files: g.files + 1, bytes: g.bytes + bytes });
  };
  for (const [rel, source] of plan) {
    const dest = path.join(out, ...rel.split('/'));
    await mkdir(path.dirname(dest), { recursive: true });
    await copyFile(source, dest);
    count(rel, (await stat(dest)).size);
  }
  for (const [rel, text] of texts) {
    await writeFile(path.join(out, ...rel.split('/')), text);
    count(rel, Buffer.byteLength(text));
  }
  const marker = { writtenBy: 'scripts/build-site.mjs', files: planned };
  await writeFile(path.join(out, MARKER), JSON.stringify(marker, null, 2) + '\n');

  const rel = path.relative(process.cwd(), out);
  const shown = rel === '' ? '.' : rel.startsWith('..') ? out : rel;
  console.log(`build-site: wrote ${shown}/`);
  let total = 0;
  for (const [top, g] of groups) {
    total += g.bytes;
    console.log(
      `  ${top.padEnd(12)} ${String(g.files).padStart(3)} files ${sizeText(g.bytes).padStart(9)}`,
    );
  }
  console.log(
    `  models: ${[...sources.keys()].join(', ')} (${entries.length} entries in models.json)`,
  );
  console.log(`  total ${sizeText(total)} in ${planned.length} files`);
  console.log(
    `serve it with any static file server, e.g. python3 -m http.server -d ${shown} 8000,`,
  );
  console.log('then open http://localhost:8000/demo/ (threads need the headers in HOSTING.txt)');
}

main().catch((err) => {
  if (!(err instanceof Refusal)) throw err;
  console.error(`build-site: ${err.message}`);
  process.exit(1);
});
