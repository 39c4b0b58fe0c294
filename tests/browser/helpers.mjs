// Helpers for the demo's browser tests: start scripts/serve.mjs as a child process, launch
// Debian's Chromium through playwright-core, open a page in a new context the way every group
// does (run.mjs's routes, the tour seen, console errors watched), screenshots, a minimal check()
// harness, PNG header parsing and canvas pixel statistics. No test logic here.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/** Starts `node scripts/serve.mjs` on a free port; resolves { url, stop }. */
export function startServe({ env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, 'scripts/serve.mjs')], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`serve.mjs printed no URL: ${out}`));
    }, 10_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}/`, stop: () => child.kill() });
      }
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code) reject(new Error(`serve.mjs exited ${code}: ${out}`));
    });
  });
}

export async function launchChromium() {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    throw new Error('playwright-core is not installed (npm install --save-dev playwright-core)');
  }
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/** A phone: 390 × 844 CSS pixels, touch, at 2×. */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
  deviceScaleFactor: 2,
};

/** An init script: the first-visit tour counts as seen (a fresh profile would open it). */
export const tourSeen = () => localStorage.setItem('heed-tour', 'done');

/**
 * A new browser context (`options`: viewport and the like) that answers requests with `route`
 * (run.mjs's fixtures) and has seen the tour unless `tour` is true, and one page in it whose
 * console errors `watch` collects. Resolves {ctx, p}; close ctx when done.
 */
export async function openPage(browser, { route, watch, tour = false, ...options }) {
  const ctx = await browser.newContext(options);
  if (!tour) await ctx.addInitScript(tourSeen);
  await ctx.route('**/*', route);
  const p = await ctx.newPage();
  watch(p);
  return { ctx, p };
}

/** shot(page, name, full): a screenshot as dir/name.png, the whole page when `full`. */
export function screenshots(dir) {
  return (p, name, full = false) =>
    p.screenshot({ path: path.join(dir, `${name}.png`), fullPage: full });
}

/** A tiny harness: check(name, fn) runs fn, records pass/fail, never throws. */
export function harness() {
  const results = [];
  // HEED_BROWSER_ONLY=regexp runs only the checks whose names match it (a dev aid)
  const only = process.env.HEED_BROWSER_ONLY && new RegExp(process.env.HEED_BROWSER_ONLY);
  async function check(name, fn) {
    if (only && !only.test(name)) return;
    const t0 = Date.now();
    try {
      await fn();
      results.push({ name, ok: true });
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (err) {
      results.push({ name, ok: false, err });
      console.log(`FAIL ${name}: ${err?.stack ?? err}`);
    }
  }
  return { check, results };
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** Width and height from a PNG's IHDR chunk; throws if the bytes are not a PNG. */
export function pngSize(buf) {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  assert(buf.length > 24 && sig.every((b, i) => buf[i] === b), 'not a PNG signature');
  assert(buf.toString('latin1', 12, 16) === 'IHDR', 'PNG without IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/**
 * Runs in the page: pixel statistics of a canvas — how many pixels are opaque, how many
 * distinct colours, and a hash of the pixels (to compare two drawings).
 */
export function canvasStats(canvas) {
  const ctx = canvas.getContext('2d');
  const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
  let opaque = 0,
    hash = 2166136261;
  const colours = new Set();
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 0) opaque++;
    if (data[i + 3] === 255 && colours.size < 5000)
      colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    hash = Math.imul(
      hash ^ data[i] ^ (data[i + 1] << 8) ^ (data[i + 2] << 16) ^ (data[i + 3] << 24),
      16777619,
    );
  }
  return {
    width: canvas.width,
    height: canvas.height,
    opaque,
    colours: colours.size,
    hash: hash >>> 0,
  };
}
