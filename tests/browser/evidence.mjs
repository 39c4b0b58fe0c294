// Browser checks of attention beside the evidence, on the shipped models/multi.heed (en → de,
// beam 4), run by run.mjs on a desktop (1440 × 900) and a phone (390 × 844, touch): a losing
// node of the beam tree, hovered or tapped, shows a cross-attention row that differs from the
// winner's and equals the row of that hypothesis re-decoded with forcedPrefix in Node; hovering
// across nodes starts few re-decodes; the Inside-one-head view's “Attention beside what
// mattered” has one row per source word whose probability drops equal forcedPrefix rescoring in
// Node of the text without that word; tap targets of both are at least 24 px on the phone.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { assert, openPage, screenshots, PHONE, REPO } from './helpers.mjs';

const SENTENCE = 'The king ordered his soldiers to defend the old castle until dawn.';
const TO = 'de';

/** In the page: the forced prefix of node (s, k) of the shown beam, walked back by parents. */
function pathIds([s, k]) {
  const beam = window.heedDemo.result.attention.beam;
  const ids = [];
  for (let t = s, j = k; t >= 0; j = beam[t][j].parent, t--) ids.unshift(beam[t][j].token);
  return ids;
}

/**
 * In the page: a losing node whose past already differs from the winner's (its parent is not
 * the winner's node of the step before; a sibling of the winner has the winner's row), as [s, k].
 */
function losingNode() {
  const beam = window.heedDemo.result.attention.beam;
  const won = {};
  for (const g of document.querySelectorAll('.beam-tree .bt-node.bt-won'))
    won[g.dataset.step] = Number(g.dataset.k);
  const nodes = [...document.querySelectorAll('.beam-tree .bt-node:not(.bt-won)')];
  const g = nodes.find((n) => {
    const s = Number(n.dataset.step);
    return s >= 1 && s in won && beam[s][Number(n.dataset.k)].parent !== won[s - 1];
  });
  return [Number(g.dataset.step), Number(g.dataset.k)];
}

const nodeSelector = ([s, k]) => `.beam-tree .bt-node[data-step="${s}"][data-k="${k}"] .bt-hit`;

function maxDiff(a, b) {
  return a.reduce((m, x, j) => Math.max(m, Math.abs(x - b[j])), 0);
}

export async function evidenceChecks({ check, browser, route, server, shots, watch, settled }) {
  const { loadTranslator } = await import(pathToFileURL(path.join(REPO, 'web/lib/heed.js')).href);
  const bytes = await readFile(path.join(REPO, 'models/multi.heed'));
  const node = await loadTranslator({ model: new Uint8Array(bytes) });
  const shot = screenshots(shots);
  const url = `${server.url}demo/#model=multi-en-de&beam=4&text=${encodeURIComponent(SENTENCE)}`;

  for (const [name, device] of [
    ['desktop', { viewport: { width: 1440, height: 900 } }],
    ['phone', PHONE],
  ]) {
    const { ctx, p } = await openPage(browser, { route, watch, ...device });
    const touch = name === 'phone';
    try {
      await p.goto(url);
      await settled(p);
      await p.click('#translate-btn');
      await settled(p);

      await check(`${name}: a losing beam node shows its own cross-attention row`, async () => {
        await p.evaluate(() => window.heedDemo.set({ view: 'timeline', layer: 1, head: 2 }));
        await p.waitForSelector('.beam-tree .bt-node:not(.bt-won)');
        const at = await p.evaluate(losingNode);
        const target = nodeSelector(at);
        await p.$eval(target, (r) => r.scrollIntoView({ block: 'center', inline: 'center' }));
        if (touch) await p.tap(target);
        else await p.hover(target);
        await p.waitForFunction(
          ([s, k]) => {
            const d = document.querySelector('.beam-compare')?.dataset.rows;
            return d && JSON.parse(d).step === s && JSON.parse(d).k === k;
          },
          at,
          { timeout: 30_000 },
        );
        const rows = JSON.parse(await p.$eval('.beam-compare', (b) => b.dataset.rows));
        const ids = await p.evaluate(pathIds, at);
        const r = await node.translate(SENTENCE, {
          beam: 1,
          attention: true,
          split: false,
          to: TO,
          forcedPrefix: ids,
        });
        const [, H, T, S] = r.attention.cross.shape;
        const base = ((rows.layer * H + rows.head) * T + at[0]) * S;
        const want = Array.from(r.attention.cross.data.slice(base, base + S));
        const off = maxDiff(rows.hyp, want);
        const apart = rows.win ? maxDiff(rows.hyp, rows.win) : 0;
        console.log(
          `     node ${at[1]} of step ${at[0] + 1} (${ids.length} pieces): |row − forced run| ${off.toExponential(1)}, max |row − winner's| ${apart.toFixed(3)}`,
        );
        assert(off < 1e-5, `the shown row differs from the forced run's by ${off}`);
        assert(rows.win && apart > 1e-3, `the row equals the winner's (max diff ${apart})`);
        const sel = await p.$eval(`${target}`, (r) => r.parentNode.classList.contains('bt-sel'));
        assert(sel, 'the node is not marked as selected');
        await p.$eval('.beam-compare', (b) => b.scrollIntoView({ block: 'center' }));
        await shot(p, `evidence-${name}-beam-compare`);
      });

      if (!touch)
        await check('desktop: hovering across the tree starts few re-decodes', async () => {
          const calls = await p.evaluate(async () => {
            const t = window.heedDemo.translator;
            let n = 0;
            const own = t.translate;
            t.translate = (...a) => (n++, own.apply(t, a));
            try {
              const hits = [...document.querySelectorAll('.beam-tree .bt-node .bt-hit')];
              for (const h of hits.slice(0, 12)) {
                h.dispatchEvent(new PointerEvent('pointerenter', { pointerType: 'mouse' }));
                await new Promise((r) => setTimeout(r, 20));
              }
              await new Promise((r) => setTimeout(r, 600));
              return n;
            } finally {
              t.translate = own;
            }
          });
          assert(calls <= 1, `${calls} re-decodes for 12 nodes crossed in 240 ms`);
        });

      await check(`${name}: drop-a-word bars match forcedPrefix rescoring`, async () => {
        const piece = 2;
        await p.evaluate(() =>
          window.heedDemo.set({ view: 'explain', block: 'cross', layer: 1, head: 0 }),
        );
        await p.waitForSelector('.ev-pieces button');
        const button = `.ev-pieces button:nth-child(${piece + 1})`;
        if (touch) await p.tap(button);
        else await p.click(button);
        await p.waitForFunction(
          (k) =>
            document.querySelector(`.ev-pieces button:nth-child(${k + 1})`)?.ariaPressed ===
              'true' && document.querySelectorAll('.ev-row[data-drop]').length > 0,
          piece,
          { timeout: 60_000 },
        );
        const got = await p.evaluate(() => ({
          rows: [...document.querySelectorAll('.ev-row[data-drop]')].map((r) => ({
            word: r.dataset.word,
            drop: Number(r.dataset.drop),
            attn: Number(r.dataset.attn),
            norm: Number(r.dataset.norm),
          })),
          targetIds: window.heedDemo.result.targetIds,
          said: document.querySelector('.ev-said').textContent,
        }));
        const words = SENTENCE.split(' ');
        assert(
          got.rows.length === words.length,
          `${got.rows.length} rows for ${words.length} words`,
        );
        const own = { beam: 1, split: false, to: TO, forcedPrefix: got.targetIds };
        const base = (await node.translate(SENTENCE, own)).tokenProbs[piece];
        for (const [k, row] of got.rows.entries()) {
          assert(row.word === words[k], `row ${k} is “${row.word}”, not “${words[k]}”`);
          const text = words.filter((_, i) => i !== k).join(' ');
          const want = base - (await node.translate(text, own)).tokenProbs[piece];
          assert(
            Math.abs(row.drop - want) < 1e-5,
            `“${row.word}”: drop ${row.drop}, forced rescoring gives ${want}`,
          );
        }
        const sum = (key) => got.rows.reduce((s, r) => s + r[key], 0);
        assert(sum('attn') <= 1 + 1e-5 && sum('norm') <= 1 + 1e-5, 'shares above 1');
        assert(/Spearman/.test(got.said), `no agreement sentence: ${got.said}`);
        console.log(`     ${got.said}`);
        await p.$eval('.evidence', (e) => e.scrollIntoView({ block: 'start' }));
        await shot(p, `evidence-${name}-drop-a-word`);
      });

      if (touch)
        await check(
          'phone: the new views tap at 24 px or more and do not scroll sideways',
          async () => {
            const small = await p.evaluate(() => {
              const out = [];
              for (const b of document.querySelectorAll(
                '.ev-pieces button, .evidence summary, .beam-tree .bt-hit',
              )) {
                const r = b.getBoundingClientRect();
                if (r.width && (r.width < 23.5 || r.height < 23.5))
                  out.push(`${b.className?.baseVal ?? b.textContent}: ${r.width} × ${r.height}`);
              }
              return { out, wide: document.documentElement.scrollWidth };
            });
            assert(small.out.length === 0, small.out.join('\n'));
            assert(small.wide <= 390, `the page is ${small.wide} px wide`);
          },
        );
    } finally {
      await ctx.close();
    }
  }
  node.dispose();
}
