// The page's elements, looked up once by their ids in index.html: the one place that knows
// those ids. No behaviour (main.js wires the elements to the app).

const IDS = {
  modelStatus: 'model-status',
  modelSelect: 'model-select',
  modelAbout: 'model-about',
  openModelButton: 'open-model-btn',
  openModelInput: 'open-model-input',
  loadBox: 'load-box',
  loadProgress: 'load-progress',
  loadText: 'load-text',
  source: 'source-text',
  maxLength: 'max-length',
  shortlist: 'shortlist',
  examples: 'examples',
  translateButton: 'translate-btn',
  stopButton: 'stop-btn',
  output: 'output',
  staleNote: 'stale-note',
  confidenceLegend: 'conf-legend',
  stats: 'stats',
  sentencePicker: 'sentence-picker',
  findings: 'findings',
  message: 'message',
  view: 'view',
  exportTarget: 'export-target',
  exportPng: 'export-png',
  exportSvg: 'export-svg',
  exportJson: 'export-json',
  exportTrace: 'export-trace',
  copyLink: 'copy-link',
  tourButton: 'tour-btn',
};

let elements = null;

/** {role: element} for every id the demo uses; throws naming an id the page lacks. */
export function page() {
  if (elements) return elements;
  const found = {};
  for (const [role, id] of Object.entries(IDS)) {
    found[role] = document.getElementById(id);
    if (!found[role]) throw new Error(`the page has no #${id}`);
  }
  elements = found;
  return elements;
}
