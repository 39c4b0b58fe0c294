// Browser checks of a visitor's first minute, run by run.mjs: a cold first visit (a new profile)
// fetches the model, the worker and the engine side by side and prints how long the first
// translation took, then again on a second visit (warm: the model from Cache Storage); the model
// download shows its bytes and time left. On a slow connection: Translate pressed while the model
// still downloads translates once it is there (never an error); another direction chosen
// meanwhile shares the one download; another model chosen meanwhile is never replaced by the
// late file, and chosen again it waits for that download instead of fetching it twice; every
// control used meanwhile breaks nothing. Also: a paste over the length limit says what was kept;
// a link naming an unknown model says so; the header's status stays on one line on a wide screen.

import { assert, openPage, screenshots } from './helpers.mjs';

export async function firstVisitChecks({
  check,
  browser,
  route,
  server,
  tiny,
  entries,
  text,
  expected,
  shots,
  watch,
  settled,
}) {
  const shot = screenshots(shots);
  /** A new profile (no HTTP cache, no Cache API) at 1440 × 900 with run.mjs's routes. */
  function fresh(options = {}) {
    const viewport = { width: 1440, height: 900 };
    return openPage(browser, { route, watch, viewport, deviceScaleFactor: 1, ...options });
  }

  await check(
    'cold first visit: model, worker and engine fetched side by side; first translation time',
    async () => {
      const { ctx, p } = await fresh();
      try {
        const log = [];
        const t0 = Date.now();
        ctx.on('request', (r) => log.push({ url: r.url(), start: Date.now() - t0, end: null }));
        ctx.on('requestfinished', (r) => {
          const e = log.findLast((x) => x.url === r.url());
          if (e) e.end = Date.now() - t0;
        });
        await p.goto(`${server.url}demo/`);
        await settled(p);
        const ms = Date.now() - t0;
        const got = await p.evaluate(() => ({
          state: document.documentElement.dataset.heed,
          model: window.heedDemo.translatorModel,
          first: Math.round(window.heedDemo.firstTranslationMs),
          text: document.getElementById('output').dataset.text,
        }));
        await shot(p, '20-cold-first-visit');
        const at = (re) => log.find((e) => re.test(e.url)) ?? { start: NaN, end: NaN };
        const model = at(/\.heed$/);
        // why: a cross-origin isolated page (serve.mjs) loads the pthreads build
        const wasm = at(/\/lib\/(heed|mt\/heed-mt)\.wasm$/);
        const worker = at(/\/lib\/worker\.js$/);
        if (process.env.HEED_REQUESTS)
          for (const e of log) console.log(`       ${e.start}–${e.end} ${e.url}`);
        console.log(
          `     cold first translation (${got.model}): ${ms} ms from navigation (the page's own count: ${got.first} ms); ` +
            `model ${model.start}–${model.end} ms, worker.js from ${worker.start} ms, ${wasm.url?.split('/lib/')[1]} ${wasm.start}–${wasm.end} ms`,
        );
        assert(got.state === 'translated' && got.text, `state ${got.state}`);
        // why: an order, not a duration: the engine must not wait for the model's last byte
        assert(
          wasm.start < model.end && worker.start < model.end,
          `the worker (${worker.start} ms) and the engine (${wasm.start} ms) were requested only after the model arrived (${model.end} ms)`,
        );
        // the same visitor again: the model from Cache Storage, the engine revalidated
        const again = await ctx.newPage();
        watch(again);
        const statuses = [];
        again.on('response', (r) => /\.heed$/.test(r.url()) && statuses.push(r.status()));
        const t1 = Date.now();
        await again.goto(`${server.url}demo/`);
        await settled(again);
        const warmMs = Date.now() - t1;
        const warm = await again.evaluate(() => ({
          state: document.documentElement.dataset.heed,
          first: Math.round(window.heedDemo.firstTranslationMs),
        }));
        console.log(
          `     warm first translation (same profile, page opened again): ${warmMs} ms from navigation (the page's own count: ${warm.first} ms); model responses: ${statuses.join(', ')}`,
        );
        assert(warm.state === 'translated', `warm visit state ${warm.state}`);
        // why: the page revalidates its cached model with the stored ETag: 304, no download
        assert(
          statuses.length > 0 && statuses.every((st) => st === 304),
          `the second visit's model responses were ${statuses.join(', ') || 'none'}, not 304`,
        );
      } finally {
        await ctx.close();
      }
    },
  );

  await check('a slow model download shows bytes, the total and the time left', async () => {
    const { ctx, p } = await fresh();
    try {
      const cdp = await ctx.newCDPSession(p);
      // why: about 4 MB/s, so the 15 MB default model takes a few seconds to arrive
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 20,
        downloadThroughput: 4e6,
        uploadThroughput: 1e6,
      });
      const t0 = Date.now();
      await p.goto(`${server.url}demo/`);
      const arrived = settled(p).then(() => Date.now() - t0);
      const shown = await p
        .waitForFunction(
          () => /of [\d.]+ MB .*left/.test(document.getElementById('load-text').textContent),
          null,
          { timeout: 30_000 },
        )
        .then(
          () => true,
          () => false,
        );
      const said = await p.textContent('#load-text');
      const value = await p.$eval('#load-progress', (e) => e.value);
      await shot(p, '21-download-progress');
      const ms = await arrived;
      console.log(
        `     cold first translation at 4 MB/s: ${ms} ms from navigation (the page's own count: ${Math.round(await p.evaluate(() => window.heedDemo.firstTranslationMs))} ms)`,
      );
      console.log(`     says: ${said}`);
      assert(shown && value > 0 && value < 1, `progress bar at ${value}: “${said}”`);
    } finally {
      await ctx.close();
    }
  });

  await check(
    'Translate pressed while the model downloads: translated once it arrives',
    async () => {
      const { ctx, p } = await fresh();
      try {
        // why: the (default) model answers 6 s late, as on a slow connection
        await ctx.route('**/models/*.heed', async (r) => {
          await new Promise((resolve) => setTimeout(resolve, 6000));
          return route(r);
        });
        const typed = 'The printer is not connected.';
        await p.goto(`${server.url}demo/`);
        await p.waitForSelector('#examples button');
        await p.fill('#source-text', typed);
        await p.click('#translate-btn');
        const waiting = await p.textContent('#output');
        await shot(p, '22-translate-while-downloading');
        await p.waitForFunction(
          () =>
            ['translated', 'translate-failed', 'load-failed'].includes(
              document.documentElement.dataset.heed,
            ) && !window.heedDemo.abort,
          null,
          { timeout: 60_000 },
        );
        const got = await p.evaluate(() => ({
          state: document.documentElement.dataset.heed,
          text: document.getElementById('output').dataset.text,
          of: window.heedDemo.resultText,
          message: document.getElementById('message').hidden
            ? ''
            : document.getElementById('message').textContent,
        }));
        console.log(`     translated “${got.of}” as “${got.text}”`);
        assert(got.state === 'translated', `state ${got.state}: ${got.message}`);
        assert(!/failed|Cannot read/.test(got.message), `message: ${got.message}`);
        assert(got.of === typed && got.text, `the output is the translation of “${got.of}”`);
        assert(/downloading/.test(waiting), `while waiting the output said: ${waiting}`);
      } finally {
        await ctx.close();
      }
    },
  );
  /** Waits until the page has finished with its text (translated, failed or stopped). */
  const finished = (p) =>
    p.waitForFunction(
      () =>
        ['translated', 'translate-failed', 'load-failed', 'stopped'].includes(
          document.documentElement.dataset.heed,
        ) && !window.heedDemo.abort,
      null,
      { timeout: 60_000 },
    );
  const multi = entries.filter((e) => e.file === 'multi.heed');
  /** A fresh page whose multi.heed answers `ms` late, as on a slow connection: fn(p, seen),
   *  seen counting the file's requests and noting its arrival. */
  async function slowVisit(ms, fn) {
    const { ctx, p } = await fresh();
    const seen = { fetches: 0, arrived: false };
    try {
      await ctx.route('**/models/multi.heed', async (r) => {
        seen.fetches++;
        await new Promise((resolve) => setTimeout(resolve, ms));
        await route(r);
        seen.arrived = true;
      });
      await p.goto(`${server.url}demo/#model=${multi[0].id}&beam=1`);
      await p.waitForSelector('#examples button');
      await fn(p, seen);
    } finally {
      await ctx.close();
    }
  }
  /** What the page shows: its state, the model in use and its direction, the texts. */
  const facts = (p) =>
    p.evaluate(() => {
      const byId = (id) => document.getElementById(id);
      return {
        state: document.documentElement.dataset.heed,
        model: window.heedDemo.translatorModel,
        to: window.heedDemo.result?.to,
        of: window.heedDemo.resultText,
        select: byId('model-select').value,
        status: byId('model-status').textContent,
        text: byId('output').dataset.text,
        message: byId('message').hidden ? '' : byId('message').textContent,
        box: byId('load-box').hidden,
        beam: window.heedDemo.state.beam,
        thumbs: document.querySelectorAll('.head-grid canvas').length,
      };
    });
  await check(
    'another direction chosen while the model downloads: one download, that direction translates',
    () =>
      slowVisit(5000, async (p, seen) => {
        const other = multi.find((e) => e.source !== multi[0].source);
        await p.selectOption('#model-select', other.id);
        await p.fill('#source-text', other.examples[0]);
        await p.click('#translate-btn');
        await finished(p);
        const got = await facts(p);
        assert(got.state === 'translated', `state ${got.state}: ${got.message}`);
        assert(
          got.model === other.id && got.to === other.to && got.of === other.examples[0],
          `translated “${got.of}” with ${got.model} into ${got.to}, not ${other.id}`,
        );
        assert(got.status.startsWith(`${other.name}: `), `the status names: ${got.status}`);
        assert(seen.fetches === 1, `multi.heed was requested ${seen.fetches} times`);
      }),
  );
  await check(
    'another model chosen while one downloads: it translates, the late download never replaces it',
    () =>
      slowVisit(5000, async (p, seen) => {
        await p.selectOption('#model-select', tiny.id);
        await p.fill('#source-text', text);
        await p.click('#translate-btn');
        await finished(p);
        // the slow file lands after the tiny model answered; wait for it and a little more
        for (let t = 0; !seen.arrived && t < 100; t++) await p.waitForTimeout(200);
        // why: the landed file takes a moment to start in its worker (it replaced the tiny
        // model within a second of arriving before the fix)
        await p.waitForTimeout(4000);
        assert(seen.arrived, 'the slow download never finished');
        const got = await facts(p);
        assert(got.state === 'translated', `state ${got.state}: ${got.message}`);
        assert(got.model === tiny.id && got.select === tiny.id, `model ${got.model} ${got.select}`);
        assert(got.text === expected.text, `the output is “${got.text}”`);
        assert(got.status.startsWith(`${tiny.name}: `), `the status line says: ${got.status}`);
        assert(!/could not|failed/i.test(got.message), `message: ${got.message}`);
      }),
  );
  await check('a model chosen again while its first download still runs: not fetched twice', () =>
    slowVisit(6000, async (p, seen) => {
      await p.selectOption('#model-select', tiny.id);
      await finished(p);
      const between = (await facts(p)).model;
      await p.selectOption('#model-select', multi[0].id);
      const waiting = await p.textContent('#model-status');
      await p.waitForFunction((id) => window.heedDemo.translatorModel === id, multi[0].id, {
        timeout: 60_000,
      });
      await finished(p);
      const got = await facts(p);
      assert(between === tiny.id, `the tiny model was not used in between: ${between}`);
      assert(/^Loading /.test(waiting), `while it downloads the status says: ${waiting}`);
      assert(got.state === 'translated' && got.to === multi[0].to, `${got.state} ${got.to}`);
      assert(got.status.startsWith(`${multi[0].name}: `), `the status says: ${got.status}`);
      assert(seen.fetches === 1, `multi.heed was requested ${seen.fetches} times`);
      assert(got.box === true, 'the download box is still shown');
    }),
  );
  await check(
    'every control used while the model downloads: no error, the last choice is translated',
    () =>
      slowVisit(6000, async (p) => {
        const errors = [];
        p.on('pageerror', (e) => errors.push(e.message));
        p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        for (const view of ['timeline', 'attention', 'explain', 'lab', 'positions', 'surgery']) {
          await p.click(`#tab-${view}`);
          await p.waitForTimeout(100);
        }
        await p.check('input[name="decoding"][value="4"]');
        await p.check('input[name="decoding"][value="1"]');
        if (await p.isEnabled('#shortlist')) await p.click('#shortlist');
        await p.fill('#max-length', '40');
        await p.dispatchEvent('#max-length', 'change');
        await p.click('#examples button:nth-child(3)');
        await p.click('#translate-btn');
        await p.click('#tab-attention');
        await finished(p);
        const got = await facts(p);
        assert(errors.length === 0, `errors: ${errors.join(' | ')}`);
        assert(got.state === 'translated', `state ${got.state}`);
        assert(got.of === multi[0].examples[2], `translated “${got.of}”`);
        assert(got.beam === 1 && got.thumbs > 0, `beam ${got.beam}, ${got.thumbs} thumbnails`);
      }),
  );
  await check('a paste over the length limit says so and what was kept', async () => {
    const { ctx, p } = await fresh();
    try {
      await p.goto(`${server.url}demo/#model=${encodeURIComponent(tiny.id)}`);
      await settled(p);
      const sentence = 'This package contains the documentation for the library. ';
      const pasted = sentence.repeat(Math.ceil(30_000 / sentence.length));
      const got = await p.evaluate((pasted) => {
        const t = document.getElementById('source-text');
        t.focus();
        t.select();
        const data = new DataTransfer();
        data.setData('text/plain', pasted);
        t.dispatchEvent(
          new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
        );
        const m = document.getElementById('message');
        return { value: t.value, message: m.hidden ? '' : m.textContent };
      }, pasted);
      await shot(p, '23-paste-limit');
      assert(
        got.value.length > 0 && got.value.length <= 4000 && pasted.startsWith(got.value),
        `kept ${got.value.length} characters`,
      );
      assert(/\.$/.test(got.value), 'the kept text does not end at a sentence');
      assert(
        /30,\d{3} characters/.test(got.message) &&
          got.message.includes(got.value.length.toLocaleString('en')),
        `message: ${got.message}`,
      );
    } finally {
      await ctx.close();
    }
  });

  await check('a link naming a model the server lacks says so, after translating', async () => {
    const { ctx, p } = await fresh();
    try {
      await p.goto(`${server.url}demo/#model=no-such-model&text=${encodeURIComponent(text)}`);
      await settled(p);
      const message = await p.evaluate(() => {
        const m = document.getElementById('message');
        return m.hidden ? '' : m.textContent;
      });
      assert(/no-such-model/.test(message), `message after the translation: ${message}`);
    } finally {
      await ctx.close();
    }
  });

  await check('wide screen: the model status line stays on one line', async () => {
    const { ctx, p } = await fresh();
    try {
      await p.goto(`${server.url}demo/`);
      await settled(p);
      const box = await p.$eval('#model-status', (e) => ({
        height: e.getBoundingClientRect().height,
        line: parseFloat(getComputedStyle(e).lineHeight),
        text: e.textContent,
        title: e.title,
      }));
      await shot(p, '24-header');
      assert(box.height < box.line * 1.5, `status is ${box.height} px tall: ${box.text}`);
      assert(box.title === box.text, 'the full status is not in its title');
    } finally {
      await ctx.close();
    }
  });
}
