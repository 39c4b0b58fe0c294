// The Surgery view's exports: a map with the surgery it shows, both runs' maps side by side in
// one PNG or SVG, and everything the view shows as JSON (both runs, chrF, the experiments).

import { chrf } from '../../data/chrf.js';
import { interventionsOf } from '../../data/surgery-data.js';

const GAP = 24; // px between the two figures of a side-by-side export

/** Two PNG figures side by side in one PNG. */
export async function pngPair(a, b) {
  const [x, y] = await Promise.all([a, b].map((blob) => createImageBitmap(blob)));
  const cv = document.createElement('canvas');
  cv.width = x.width + GAP * 2 + y.width;
  cv.height = Math.max(x.height, y.height);
  const ctx = cv.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.drawImage(x, 0, 0);
  ctx.drawImage(y, x.width + GAP * 2, 0); // why: the PNGs are at 2×, so is the gap
  return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
}

/** Two SVG figures side by side, nested in one SVG. */
export function svgPair(a, b) {
  const size = (svg) =>
    svg
      .match(/width="([\d.]+)" height="([\d.]+)"/)
      .slice(1)
      .map(Number);
  const [w1, h1] = size(a);
  const [w2, h2] = size(b);
  const w = w1 + GAP + w2;
  const h = Math.max(h1, h2);
  const at = (svg, x) => svg.replace('<svg ', `<svg x="${x}" y="0" `);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="#fff"/>${at(a, 0)}${at(b, w1 + GAP)}</svg>`
  );
}

/** What a summary keeps of one run's result. */
const runSummary = (r) =>
  r && {
    text: r.text,
    targetTokens: r.targetTokens,
    tokenProbs: r.tokenProbs,
    scores: r.scores,
    costs: r.costs,
  };

/**
 * The view's export targets: `mapTarget(mv, slug)` for a focused map, `exportTarget()` for both
 * runs. `parts`: the view's maps, modified run, ranking and shuffle check.
 */
export function surgeryFigures(app, { maps, modified, ranking, shuffle }) {
  function mapTarget(mv, slug) {
    return {
      title: mv.o.title,
      slug: `surgery-${slug}`,
      png: () => mv.toPNG(notes(mv)),
      svg: () => mv.toSVG(notes(mv)),
      json: () => mv.toJSON({ ...summary(), map: slug }),
    };
  }

  /** The line under an exported map's title: the surgery it shows, or the check it is from. */
  function notes(mv) {
    const iv = JSON.stringify(interventionsOf(app.state, app.result));
    if (mv === maps.before) return [`no surgery (compared with ${iv})`];
    if (mv === maps.after) return [`surgery: ${iv}`];
    return [`shuffled-source check, seed ${app.state.shuf}: encoder self-attention`];
  }

  /** Everything the view shows, as data (the JSON export). */
  function summary() {
    const base = app.result;
    const mod = modified.result()?.result;
    return {
      interventions: interventionsOf(app.state, base),
      unmodified: runSummary(base),
      modified: runSummary(mod),
      chrf: mod ? chrf(mod.text, base.text) : null,
      ranking: ranking.rows(),
      shuffle: shuffle.summary(),
    };
  }

  function exportTarget() {
    if (!modified.result()?.result) return null;
    const [a, b] = [maps.before, maps.after];
    return {
      title: 'Surgery: both runs',
      slug: 'surgery-comparison',
      png: async () => pngPair(await a.toPNG(notes(a)), await b.toPNG(notes(b))),
      svg: () => svgPair(a.toSVG(notes(a)), b.toSVG(notes(b))),
      json: () => ({ ...summary(), maps: [a.toJSON(), b.toJSON()] }),
    };
  }

  return { mapTarget, exportTarget };
}
