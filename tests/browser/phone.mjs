// Browser checks on a phone (390 × 844, touch) and of the tour on both screens, run by run.mjs:
// a tapped head thumbnail's map is scrolled into view; every control of the translate panel,
// the timeline (what-if candidates and the step slider included) and the attention maps is at
// least 24 px to tap, the primary ones 44 px tall; each view's long explanation is folded
// behind “About this view”; each tour step shows its box and the top of what it points at on
// screen.

import { assert, openPage, screenshots, PHONE } from './helpers.mjs';

/** In the page: controls smaller than their minimum tap size, as "what: w × h". */
function smallTargets() {
  const primary = '#translate-btn, #stop-btn, [role="tab"]';
  const out = [];
  const controls = document.querySelectorAll(
    'header button, main button, main select, main input, main textarea, main summary',
  );
  for (const c of controls) {
    // why: a checkbox or radio is tapped through its label, the whole label is the target
    const target = ['checkbox', 'radio'].includes(c.type) ? (c.closest('label') ?? c) : c;
    const r = target.getBoundingClientRect();
    if (!r.width || !r.height || c.closest('[hidden]')) continue; // not shown
    const min = c.matches(primary) ? 44 : 24;
    if (r.height < min - 0.5 || r.width < 24 - 0.5)
      out.push(
        `${c.id ? `#${c.id}` : c.className || c.tagName.toLowerCase()}${c.type ? `[${c.type}]` : ''} “${(c.textContent || c.getAttribute('aria-label') || '').trim().slice(0, 20)}”: ${Math.round(r.width)} × ${Math.round(r.height)} (min ${min})`,
      );
  }
  return out;
}

export async function phoneChecks({
  check,
  browser,
  route,
  server,
  tiny,
  text,
  shots,
  watch,
  settled,
}) {
  const shot = screenshots(shots);
  const url = `${server.url}demo/#model=${encodeURIComponent(tiny.id)}&text=${encodeURIComponent(text)}`;
  const { ctx: phone, p } = await openPage(browser, { route, watch, ...PHONE });

  try {
    await check('phone: a tapped head thumbnail opens its map on screen', async () => {
      await p.goto(url);
      await settled(p);
      await p.tap('#tab-attention');
      const thumb = '.head-grid button[data-block="encoder"][data-layer="0"][data-head="1"]';
      await p.waitForSelector(thumb);
      await p.$eval(thumb, (b) => b.scrollIntoView({ block: 'center' }));
      await p.tap(thumb);
      // why: the scroll may be smooth; wait for it to settle, then measure (no time asserted)
      await p
        .waitForFunction(
          () => {
            const r = document.querySelector('.view-attention .att-main').getBoundingClientRect();
            return r.top >= 0 && r.top < window.innerHeight / 2;
          },
          null,
          { timeout: 5000 },
        )
        .catch(() => {});
      const got = await p.evaluate(() => ({
        top: Math.round(
          document.querySelector('.view-attention .att-main').getBoundingClientRect().top,
        ),
        height: window.innerHeight,
        head: window.heedDemo.state.head,
      }));
      await shot(p, '30-phone-thumbnail-map');
      assert(got.head === 1, `the tap opened head ${got.head}`);
      assert(
        got.top >= 0 && got.top < got.height,
        `the map's top is at ${got.top} px of a ${got.height} px screen`,
      );
    });

    await check('phone: controls at least 24 px to tap, primary ones 44 px', async () => {
      const small = [];
      await p.tap('#tab-timeline');
      await p.waitForSelector('.view-timeline .matrix-canvas');
      await p.tap('.view-timeline button[aria-label="First step"]');
      await p.tap('.view-timeline button[aria-label="Next step"]');
      await p.waitForSelector('.view-timeline button.whatif-pick');
      small.push(...(await p.evaluate(smallTargets)).map((s) => `timeline: ${s}`));
      await p.$eval('.view-timeline .cands', (c) => c.scrollIntoView({ block: 'center' }));
      await shot(p, '31-phone-timeline-targets');
      await p.tap('#tab-attention');
      await p.waitForSelector('.head-grid button');
      small.push(...(await p.evaluate(smallTargets)).map((s) => `attention: ${s}`));
      await p.evaluate(() => window.scrollTo(0, 0));
      await shot(p, '32-phone-translate-panel');
      assert(small.length === 0, `${small.length} too small:\n${small.join('\n')}`);
    });
    await check('phone: long explanations folded behind “About this view”', async () => {
      const seen = {};
      for (const view of ['timeline', 'attention', 'lab', 'positions', 'surgery']) {
        await p.tap(`#tab-${view}`);
        await p.waitForTimeout(150);
        seen[view] = await p.$$eval(`.view-${view} details.about`, (ds) =>
          ds.map((d) => ({ open: d.open, shown: d.getBoundingClientRect().height > 0 })),
        );
        if (view === 'attention') {
          await p.$eval('#tabs', (t) => t.scrollIntoView({ block: 'start' }));
          await shot(p, '35-phone-about-folded');
        }
      }
      const folded = Object.entries(seen).filter(([, ds]) => ds.length && ds.every((d) => !d.open));
      assert(
        folded.length === 5,
        `folded: ${folded.map(([v]) => v).join(', ')} of ${JSON.stringify(seen)}`,
      );
      await p.tap('#tab-attention');
      await p.tap('.view-attention details.about > summary');
      assert(
        await p.$eval('.view-attention details.about', (d) => d.open),
        'a tap did not unfold the explanation',
      );
    });
  } finally {
    await phone.close();
  }

  for (const [name, viewport, touch] of [
    ['desktop', { width: 1440, height: 900 }, false],
    ['phone', { width: 390, height: 844 }, true],
  ]) {
    await check(`tour (${name}): every step's box and its target's top are on screen`, async () => {
      const { ctx, p: t } = await openPage(browser, {
        route,
        watch,
        tour: true,
        viewport,
        hasTouch: touch,
        isMobile: touch,
      });
      try {
        await t.goto(url);
        await settled(t);
        await t.waitForSelector('.tour[role="dialog"]');
        const bad = [];
        for (let k = 0; k < 12 && (await t.$('.tour')); k++) {
          const s = await t.evaluate(() => {
            const box = document.querySelector('.tour').getBoundingClientRect();
            const target = document.querySelector('.tour-target')?.getBoundingClientRect();
            return {
              step: Number(document.querySelector('.tour').dataset.step) + 1,
              box: [Math.round(box.top), Math.round(box.bottom)],
              target: target && Math.round(target.top),
              height: window.innerHeight,
            };
          });
          if (s.step === 6) await shot(t, `33-tour-step6-${name}`);
          if (s.box[0] < 0 || s.box[1] > s.height || s.target < 0 || s.target > s.height)
            bad.push(JSON.stringify(s));
          await t.keyboard.press('Enter');
        }
        assert(bad.length === 0, `steps off screen: ${bad.join(', ')}`);
      } finally {
        await ctx.close();
      }
    });
  }
}
