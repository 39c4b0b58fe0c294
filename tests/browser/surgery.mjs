// Browser checks of the demo's Surgery view (web/demo/views/surgery/view.js), run by run.mjs in its
// browser context with the tiny random model: ablating a head by keyboard changes the
// translation or its scores and the modified map (never the unmodified one); the shuffled source
// without positions gives a permuted encoder attention (and with positions does not); "which
// heads matter" ranks every head, can be cancelled, and a row applies its ablation; the URL
// restores the surgery; export; the linear-attention control and the cost table, FAVOR+ sent as
// chosen and changing the costs; one sentence of a paragraph is operated on alone; the page's
// max-pieces limit and a what-if's forced pieces hold; no horizontal overflow at 390 px with touch.

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assert, pngSize, canvasStats, openPage, screenshots, PHONE } from './helpers.mjs';

/**
 * Runs the checks. `check(name, fn)` records one result, `watch(page)` collects console
 * errors, `route` answers a request with run.mjs's fixtures (the tiny model, models.json).
 */
export async function surgeryChecks({
  check,
  context,
  browser,
  route,
  server,
  tiny,
  text,
  shots,
  watch,
}) {
  const screen = screenshots(shots); // screen(p, name): what is on screen
  const shot = (p, name) => screen(p, name, true);
  const done = (p) =>
    p.waitForFunction(
      () => {
        const v = document.querySelector('.view-surgery');
        return v && ['done', 'failed'].includes(v.dataset.state);
      },
      null,
      { timeout: 60_000 },
    );
  const view = (p) =>
    p.evaluate(() => {
      const j = window.heedDemo.views.surgery.exportTarget()?.json();
      return {
        state: document.querySelector('.view-surgery').dataset.state,
        base: j?.unmodified,
        mod: j?.modified,
        chrf: j?.chrf,
        interventions: j?.interventions,
      };
    });
  const mapStats = async (p) =>
    Promise.all((await p.$$('.sg-maps .matrix-canvas')).map((h) => h.evaluate(canvasStats)));

  const page = await context.newPage();
  watch(page);
  const url = `${server.url}demo/#model=${encodeURIComponent(tiny.id)}&beam=1&view=surgery&block=cross&layer=1&text=${encodeURIComponent(text)}`;
  let sharedUrl = '';

  await check(
    'surgery: ablating a head (keyboard) changes the output and the modified map',
    async () => {
      await page.goto(url);
      await done(page);
      const plain = await view(page);
      assert(plain.state === 'done', `state ${plain.state}`);
      assert(
        plain.chrf === 100 && plain.mod.text === plain.base.text,
        'no surgery, yet the runs differ',
      );
      const [before0, after0] = await mapStats(page);
      assert(before0.hash === after0.hash, 'without surgery the two maps differ');
      // keyboard: focus the encoder's layer 1 head 1 thumbnail and press Space
      const thumb = '.sg-head[data-block="encoder"][data-layer="0"][data-head="0"]';
      await page.focus(thumb);
      await page.keyboard.press('Space');
      assert((await page.getAttribute(thumb, 'aria-pressed')) === 'true', 'thumbnail not pressed');
      assert(/[#&]ablate=e0\.0\b/.test(page.url()), `ablation not in the URL: ${page.url()}`);
      await page.waitForFunction(
        () => document.querySelector('.view-surgery').dataset.state !== 'done',
      );
      await done(page);
      const cut = await view(page);
      assert(
        JSON.stringify(cut.interventions.ablate) ===
          JSON.stringify([{ block: 'encoder', layer: 0, head: 0, mean: false }]),
        `interventions ${JSON.stringify(cut.interventions)}`,
      );
      assert(
        cut.mod.text !== cut.base.text || Math.abs(cut.mod.scores - cut.base.scores) > 1e-4,
        'the ablation changed neither the translation nor its score',
      );
      assert(cut.chrf < 100 || cut.mod.text === cut.base.text, `chrF ${cut.chrf}`);
      const shown = await page.$eval('.sg-chrf', (e) => e.dataset.chrf);
      assert(
        Math.abs(Number(shown) - cut.chrf) < 1e-3,
        `chrF shown ${shown}, computed ${cut.chrf}`,
      );
      // “Attention of both runs” now shows the ablated head; back to the head shown before
      const opened = await page.evaluate(() => {
        const { block, layer, head } = window.heedDemo.state;
        return { block, layer, head };
      });
      assert(
        JSON.stringify(opened) === JSON.stringify({ block: 'encoder', layer: 0, head: 0 }),
        `the maps show ${JSON.stringify(opened)}, not the ablated head`,
      );
      await page.evaluate(() => window.heedDemo.set({ block: 'cross', layer: 1, head: 0 }));
      await done(page);
      const [before1, after1] = await mapStats(page);
      assert(before1.hash === before0.hash, 'the unmodified map changed');
      assert(
        after1.hash !== after0.hash && after1.opaque > 1000,
        'the modified map did not change',
      );
      if (cut.mod.text !== cut.base.text) {
        const changed = await page.$$eval('.sg-out .tok.changed', (t) => t.length);
        assert(changed > 0, 'different translations but no piece marked as changed');
      }
      console.log(
        `     ablating encoder L1 H1: “${cut.base.text}” → “${cut.mod.text}” (chrF ${cut.chrf.toFixed(1)})`,
      );
      await shot(page, '20-surgery-ablate');
    },
  );

  await check(
    'surgery: shuffled source is a permutation without positions, not with them',
    async () => {
      await page.click('#sg-shuffle');
      await page.waitForFunction(
        () =>
          ['pass', 'fail', 'untokenizable', 'failed'].includes(
            document.querySelector('.sg-shuffle').dataset.shuffle,
          ),
        null,
        { timeout: 60_000 },
      );
      const r = await page.evaluate(() => ({
        verdict: document.querySelector('.sg-shuffle').dataset.shuffle,
        nopos: document.querySelector('.sg-verdict[data-check="nopos"]')?.dataset.ok,
        pos: document.querySelector('.sg-verdict[data-check="pos"]')?.dataset.ok,
        // both outcomes are the expected ones, so neither is marked as a failure (red ✗)
        expected: [...document.querySelectorAll('.sg-verdict')].map((v) => ({
          as: v.dataset.expected,
          mark: v.querySelector('strong').textContent,
          colour: getComputedStyle(v.querySelector('strong')).color,
          err: getComputedStyle(document.documentElement).getPropertyValue('--err').trim(),
        })),
        summary: window.heedDemo.views.surgery.exportTarget().json().shuffle,
        text: document.querySelector('.sg-verdicts').textContent,
      }));
      assert(r.verdict === 'pass', `verdict ${r.verdict}: ${r.text}`);
      assert(
        r.nopos === 'true' && r.pos === 'false',
        `checks: no positions ${r.nopos}, positions ${r.pos}`,
      );
      assert(
        r.expected.length === 2 &&
          r.expected.every((v) => v.as === 'true' && v.mark.startsWith('✓')),
        `verdict marks: ${JSON.stringify(r.expected)}`,
      );
      assert(r.summary.maxDiffNoPositions < 1e-4, `no positions: ${r.summary.maxDiffNoPositions}`);
      assert(
        r.summary.maxDiffWithPositions > 1e-2,
        `with positions: ${r.summary.maxDiffWithPositions}`,
      );
      assert(
        r.summary.permutation.some((p, i) => p !== i),
        'the shuffle left every piece in place',
      );
      assert(/[#&]shuf=1\b/.test(page.url()), 'the shuffle seed is not in the URL');
      const maps = await page.$$eval('.sg-shuffle .matrix-canvas', (cs) => cs.length);
      assert(maps === 5, `${maps} shuffle maps`);
      console.log(
        `     max |Δ| no positions ${r.summary.maxDiffNoPositions.toExponential(2)}, with positions ${r.summary.maxDiffWithPositions.toFixed(3)}`,
      );
      await page.$eval('.sg-shuffle', (e) => e.scrollIntoView());
      await shot(page, '21-surgery-shuffle');
      // the maps follow the head picker, the encoder's rollout included
      await page.selectOption('#sg-block', 'encoder');
      await page.selectOption('#sg-head', 'rollout');
      const sub = await page.textContent('.sg-shuffle .matrix-sub');
      assert(/rollout/.test(sub), `shuffle map subtitle: ${sub}`);
      await page.selectOption('#sg-block', 'cross');
      await page.selectOption('#sg-layer', '1');
      await page.selectOption('#sg-head', '0');
    },
  );

  await check(
    'surgery: "which heads matter?" ranks every head; a row applies its ablation',
    async () => {
      await page.click('#sg-rank');
      await page.waitForFunction(
        () => document.querySelector('.sg-ranking').dataset.ranking === 'done',
        null,
        {
          timeout: 90_000,
        },
      );
      const rows = await page.$$eval('.sg-rank tbody tr', (trs) =>
        trs.map((tr) => ({
          block: tr.dataset.block,
          layer: Number(tr.dataset.layer),
          head: Number(tr.dataset.head),
          drop: Number(tr.children[2].textContent.replace('−', '-')),
        })),
      );
      const heads = await page.evaluate(() => {
        const a = window.heedDemo.result.attention;
        return [a.encoderSelf, a.decoderSelf, a.cross].reduce(
          (n, t) => n + t.shape[0] * t.shape[1],
          0,
        );
      });
      assert(rows.length === heads, `${rows.length} rows for ${heads} heads`);
      // the tie-break: the unmodified output's log-probability under each ablation, scored by
      // forcing that output (options.forcedPrefix); forced without surgery it is the
      // unmodified run's own
      const scoring = await page.evaluate(async () => {
        const app = window.heedDemo;
        const base = app.result;
        const sum = (ps) => ps.reduce((a, p) => a + Math.log(p), 0);
        const f = await app.translator.translate(base.source ?? app.resultText, {
          split: false,
          forcedPrefix: base.targetIds,
        });
        const cells = [...document.querySelectorAll('.sg-rank tbody tr')].map(
          (tr) => tr.children[3].textContent,
        );
        return {
          forced: sum(f.tokenProbs.slice(0, base.targetIds.length)),
          own: sum(base.tokenProbs),
          cells,
        };
      });
      assert(
        Math.abs(scoring.forced - scoring.own) < 1e-3,
        `forcing the unmodified output gives log P ${scoring.forced}, its run ${scoring.own}`,
      );
      assert(
        scoring.cells.every((c) => /^[+−-]?\d/.test(c)),
        `log-probability change missing: ${scoring.cells}`,
      );
      assert(
        rows.every((r, i) => i === 0 || rows[i - 1].drop >= r.drop - 0.05),
        `not sorted by chrF drop: ${rows.map((r) => r.drop)}`,
      );
      // cancel: a run stopped before its first head answers keeps no rows and says so
      await page.evaluate(() => {
        document.getElementById('sg-rank').click();
        document.getElementById('sg-rank-cancel').click();
      });
      await page.waitForFunction(
        () => document.querySelector('.sg-ranking').dataset.ranking === 'stopped',
      );
      const said = await page.textContent('.sg-ranking [role="status"]');
      assert(/Cancelled after 0 of/.test(said), `after cancel: ${said}`);
      await page.click('#sg-rank');
      await page.waitForFunction(
        () => document.querySelector('.sg-ranking').dataset.ranking === 'done',
        null,
        { timeout: 90_000 },
      );
      const top = rows[0];
      await page.click('.sg-rank tbody tr:first-child button');
      const letter = { encoder: 'e', decoder: 'd', cross: 'c' }[top.block];
      assert(
        new RegExp(`[#&]ablate=${letter}${top.layer}\\.${top.head}(&|$)`).test(page.url()),
        `apply did not set the ablation: ${page.url()}`,
      );
      assert(
        (await page.getAttribute('.sg-rank tbody tr:first-child button', 'aria-pressed')) ===
          'true',
        'applied row not marked',
      );
      await done(page);
      const v = await view(page);
      assert(
        v.interventions.ablate.length === 1 && v.interventions.ablate[0].block === top.block,
        'ablation not applied',
      );
      console.log(
        `     top head: ${top.block} L${top.layer + 1} H${top.head + 1} (chrF drop ${top.drop})`,
      );
      await page.$eval('.sg-ranking', (e) => e.scrollIntoView());
      await shot(page, '22-surgery-ranking');
    },
  );

  let restored = null;
  await check('surgery: the URL restores the surgery and its result', async () => {
    await page.click('.sg-head[data-block="cross"][data-layer="1"][data-head="2"]');
    await page.click('.view-surgery .seg button:nth-child(2)'); // mean of the others
    await page.$eval('#sg-temp', (e) => {
      e.value = '0.5';
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.check('#sg-nopos');
    await page.waitForFunction(
      () => document.querySelector('.view-surgery').dataset.state !== 'done',
    );
    await done(page);
    sharedUrl = page.url();
    for (const k of ['view=surgery', 'amean=1', 'temp=0.5', 'nopos=1', 'shuf=1', 'ablate='])
      assert(sharedUrl.includes(k), `URL lacks ${k}: ${sharedUrl}`);
    const original = { ...(await view(page)), maps: await mapStats(page) };
    const p2 = await context.newPage();
    watch(p2);
    await p2.goto(sharedUrl);
    await done(p2);
    const again = { ...(await view(p2)), maps: await mapStats(p2) };
    assert(
      JSON.stringify(again.interventions) === JSON.stringify(original.interventions),
      `interventions ${JSON.stringify(again.interventions)} vs ${JSON.stringify(original.interventions)}`,
    );
    assert(
      again.mod.text === original.mod.text && again.chrf === original.chrf,
      'modified run differs',
    );
    assert(again.maps[1].hash === original.maps[1].hash, 'reopened modified map differs in pixels');
    const controls = await p2.evaluate(() => ({
      temp: document.getElementById('sg-temp').value,
      nopos: document.getElementById('sg-nopos').checked,
      pressed: [...document.querySelectorAll('.sg-head[aria-pressed="true"]')].length,
      mean: document
        .querySelector('.view-surgery .seg button:nth-child(2)')
        .getAttribute('aria-pressed'),
    }));
    assert(
      controls.temp === '0.5' &&
        controls.nopos &&
        controls.mean === 'true' &&
        controls.pressed === original.interventions.ablate.length,
      `controls not restored: ${JSON.stringify(controls)}`,
    );
    await p2.waitForFunction(
      () => document.querySelector('.sg-shuffle').dataset.shuffle === 'pass',
      null,
      {
        timeout: 60_000,
      },
    );
    restored = again;
    await p2.close();
  });

  await check('surgery: export PNG, SVG and JSON of both runs', async () => {
    const grab = async (id) => {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
      return { name: dl.suggestedFilename(), bytes: await readFile(await dl.path()) };
    };
    const png = await grab('#export-png');
    const size = pngSize(png.bytes);
    assert(size.width > size.height, `the PNG of both runs is ${size.width} × ${size.height}`);
    await writeFile(path.join(shots, 'export-surgery.png'), png.bytes);
    assert(
      png.name.startsWith('heed-surgery-') && size.width > 100,
      `png ${png.name} ${JSON.stringify(size)}`,
    );
    const svg = (await grab('#export-svg')).bytes.toString('utf8');
    const cells = await page.evaluate((t) => {
      const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
      return doc.querySelector('parsererror') ? -1 : doc.querySelectorAll('rect').length;
    }, svg);
    assert(cells > 10, `svg has ${cells} cells`);
    assert((svg.match(/<svg /g) ?? []).length === 3, 'the SVG does not hold both runs');
    const json = JSON.parse((await grab('#export-json')).bytes.toString('utf8'));
    assert(
      json.view === 'surgery' &&
        typeof json.chrf === 'number' &&
        json.modified.text &&
        json.unmodified.text,
      `json: ${Object.keys(json)}`,
    );
    assert(
      json.interventions.noPositions === true && json.ranking?.length > 0 && json.shuffle,
      'json lacks the surgery or the experiments',
    );
  });

  await check('surgery: the linear-attention control and the cost table are there', async () => {
    const r = await page.evaluate(() => ({
      disabled: document.getElementById('sg-linear').disabled,
      costTable: !!document.querySelector('.sg-costtable'),
    }));
    assert(!r.disabled, 'the linear-attention control is disabled');
    assert(r.costTable, 'no cost table');
  });
  await check('surgery: FAVOR+ linear attention on the real engine, with its costs', async () => {
    // the request goes to the engine as it is sent; the engine echoes it and reports costs
    await page.evaluate(() => {
      const t = window.heedDemo.translator;
      const real = t.translate.bind(t);
      window.heedSent = [];
      t.translate = (text, options = {}) => {
        window.heedSent.push(structuredClone(options.interventions ?? {}));
        return real(text, options);
      };
    });
    await page.click('#translate-btn');
    await page.waitForFunction(() => !document.getElementById('sg-linear').disabled, null, {
      timeout: 60_000,
    });
    const macs = () =>
      page.$$eval('.sg-costtable tbody tr', (rows) => rows.map((r) => r.textContent));
    const before = await macs();
    await page.selectOption('#sg-linear', 'favor');
    await page.waitForFunction(
      () => document.querySelector('.view-surgery').dataset.state !== 'done',
    );
    await done(page);
    const r = await page.evaluate(() => ({
      sent: window.heedSent.at(-1),
      layers:
        window.heedDemo.result.attention.encoderSelf.shape[0] +
        2 * window.heedDemo.result.attention.cross.shape[0],
      rows: document.querySelectorAll('.sg-costtable tbody tr').length,
      features: document.getElementById('sg-features').disabled,
      url: location.hash,
    }));
    assert(
      JSON.stringify(r.sent.linear) === JSON.stringify({ kind: 'favor', features: 64, seed: 1 }),
      `sent ${JSON.stringify(r.sent)}`,
    );
    assert(r.rows === r.layers, `${r.rows} cost rows for ${r.layers} block layers`);
    assert(!r.features && /lin=favor/.test(r.url), `features slider off or URL ${r.url}`);
    const after = await macs();
    assert(JSON.stringify(after) !== JSON.stringify(before), 'FAVOR+ did not change the costs');
    await page.$eval('.sg-costs', (e) => e.scrollIntoView());
    await screen(page, '25-surgery-costs');
    await page.evaluate(() => {
      const t = window.heedDemo.translator;
      delete t.translate; // the instance's own method again
    });
    await page.selectOption('#sg-linear', 'none');
    await done(page);
  });
  await check(
    'surgery on a paragraph: the shown sentence is re-translated on its own',
    async () => {
      const p3 = await context.newPage();
      watch(p3);
      const para = `${text} It is a simple text editor for the terminal.`;
      await p3.goto(
        `${server.url}demo/#model=${encodeURIComponent(tiny.id)}&beam=1&view=surgery&sentence=1&text=${encodeURIComponent(para)}`,
      );
      await done(p3);
      const r = await p3.evaluate(() => ({
        sentences: window.heedDemo.doc?.sentences.length,
        source: window.heedDemo.result.source,
        j: window.heedDemo.views.surgery.exportTarget().json(),
      }));
      assert(r.sentences === 2, `${r.sentences} sentences`);
      assert(r.source === 'It is a simple text editor for the terminal.', `shows ${r.source}`);
      assert(
        r.j.chrf === 100 && r.j.modified.text === r.j.unmodified.text,
        `without surgery the runs of the sentence differ: ${r.j.modified.text} / ${r.j.unmodified.text}`,
      );
      await p3.click('#sg-shuffle');
      await p3.waitForFunction(
        () =>
          ['pass', 'fail', 'untokenizable', 'failed'].includes(
            document.querySelector('.sg-shuffle').dataset.shuffle,
          ),
        null,
        { timeout: 60_000 },
      );
      const verdict = await p3.$eval('.sg-shuffle', (e) => e.dataset.shuffle);
      assert(verdict === 'pass', `shuffle of the second sentence: ${verdict}`);
      await p3.close();
    },
  );
  await check(
    "surgery keeps the page's max-pieces limit and a what-if's forced pieces",
    async () => {
      const p4 = await context.newPage();
      watch(p4);
      await p4.goto(
        `${server.url}demo/#model=${encodeURIComponent(tiny.id)}&beam=1&view=surgery&maxlen=4&text=${encodeURIComponent(text)}`,
      );
      await done(p4);
      const j = await p4.evaluate(() => window.heedDemo.views.surgery.exportTarget().json());
      assert(j.unmodified.targetTokens.length <= 4, `${j.unmodified.targetTokens.length} pieces`);
      assert(
        j.chrf === 100 &&
          JSON.stringify(j.modified.targetTokens) === JSON.stringify(j.unmodified.targetTokens),
        `cut runs differ: ${j.modified.targetTokens} / ${j.unmodified.targetTokens}`,
      );
      // a "what if" run (a candidate forced at step 1): the surgery forces the same pieces
      await p4.evaluate(async () => {
        const app = window.heedDemo;
        await app.whatIf(1, app.result.attention.steps[1].top[1]);
        app.set({ view: 'surgery' });
      });
      await p4.waitForFunction(() => window.heedDemo.result.whatIf);
      await done(p4);
      const w = await p4.evaluate(() => window.heedDemo.views.surgery.exportTarget().json());
      assert(
        w.chrf === 100 &&
          JSON.stringify(w.modified.targetTokens) === JSON.stringify(w.unmodified.targetTokens),
        `what-if runs differ: ${w.modified.targetTokens} / ${w.unmodified.targetTokens}`,
      );
      await p4.close();
    },
  );
  await page.close();

  await check(
    'surgery at 390×844 with touch: no horizontal overflow, taps toggle heads',
    async () => {
      const { ctx: phone, p } = await openPage(browser, { route, watch, ...PHONE });
      await p.goto(sharedUrl || url);
      await done(p);
      await p.waitForFunction(
        () => document.querySelector('.sg-shuffle').dataset.shuffle === 'pass',
        null,
        {
          timeout: 60_000,
        },
      );
      await p.tap('.sg-head[data-block="decoder"][data-layer="0"][data-head="1"]');
      assert(/d0\.1/.test(p.url()), `tap did not ablate: ${p.url()}`);
      await done(p);
      const w = await p.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth,
        wide: [...document.querySelectorAll('main *')]
          .filter(
            (e) =>
              e.getBoundingClientRect().right > 391 && !e.closest('.matrix-scroll, .sg-tablewrap'),
          )
          .slice(0, 5)
          .map((e) => `${e.tagName}.${e.className}`),
      }));
      assert(w.scroll <= 390 && w.inner === 390, `page is ${w.scroll} px wide at 390: ${w.wide}`);
      await shot(p, '23-surgery-phone');
      await p.$eval('.sg-compare', (e) => e.scrollIntoView());
      await screen(p, '24-surgery-phone-compare');
      await phone.close();
      if (restored) console.log(`     phone: restored “${restored.mod.text}”`);
    },
  );
}
