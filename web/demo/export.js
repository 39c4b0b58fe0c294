// Export of the active figure (a view's matrix, links or plot) as PNG, SVG or JSON, and the
// label saying what will be exported. The figure itself supplies png(), svg() and json().

import { announce, download } from './ui.js';
import { page } from './page.js';

/** Names the export target next to the buttons, or disables them when there is none. */
export function showExportTarget(target) {
  const p = page();
  p.exportTarget.textContent = target ? `Export “${target.title}”:` : 'Nothing to export yet';
  for (const button of [p.exportPng, p.exportSvg, p.exportJson]) button.disabled = !target;
}

/** Downloads `target` as `kind` ('png' | 'svg' | 'json'); `about` goes into the JSON. */
export async function exportFigure(target, kind, about) {
  const base = `heed-${about.view}-${target.slug ?? 'view'}`;
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
