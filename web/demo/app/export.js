// Export of the active figure (a view's matrix, links or plot) as PNG, SVG or JSON, and the
// label saying what will be exported. The figure itself supplies png(), svg() and json().

import { announce, download } from '../widgets/ui.js';
import { page } from './page.js';
import { traceOf } from '../data/trace.js';

/** Names the export target next to the buttons, or disables them when there is none. */
export function showExportTarget(target) {
  const p = page();
  p.exportTarget.textContent = target ? `Export “${target.title}”:` : 'Nothing to export yet';
  for (const button of [p.exportPng, p.exportSvg, p.exportJson]) button.disabled = !target;
  p.exportTrace.disabled = !window.heedDemo?.doc;
}

/**
 * Downloads the whole translation as one JSON file (data/trace.js): every sentence with its
 * tokens, ids, probabilities, steps (top candidates), attention of every layer and head and,
 * under beam search, the beam tree; `about` says which model, text and options made it.
 */
export function exportTrace(doc, about) {
  const data = traceOf(doc, about, location.href);
  const name = `heed-trace-${about.model || 'model'}.json`;
  download(new Blob([JSON.stringify(data)], { type: 'application/json' }), name);
  announce('Exported the whole trace as JSON');
}

/** Downloads `target` as `kind` ('png' | 'svg' | 'json'); `about` goes into the JSON. */
export async function exportFigure(target, kind, about) {
  // why: slugs often start with their view's name already ("timeline-cross-step3")
  const slug = (target.slug ?? 'view').replace(new RegExp(`^${about.view}-`), '');
  const sentence = about.sentences > 1 ? `-sentence${about.sentence + 1}` : '';
  const base = `heed-${about.view}-${slug}${sentence}`;
  if (kind === 'png') download(await target.png(), `${base}.png`);
  else if (kind === 'svg')
    download(new Blob([target.svg()], { type: 'image/svg+xml' }), `${base}.svg`);
  else {
    const data = { app: 'heed-demo', ...about, url: location.href, ...target.json() };
    const json = JSON.stringify(data, null, 1);
    download(new Blob([json], { type: 'application/json' }), `${base}.json`);
  }
  announce(`Exported ${target.title} as ${kind.toUpperCase()}`);
}
