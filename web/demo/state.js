// The page state that a URL can carry: what was translated with which model, and what is on
// screen. Kept in the hash (#text=...&model=...), so a view can be shared and reopened.

export const DEFAULTS = {
  text: '',
  model: '',
  beam: 1,
  maxlen: 0, // max target pieces per sentence (0 = the engine's automatic limit)
  view: 'timeline', // timeline | attention | explain | lab | positions
  sentence: 0, // which sentence of a paragraph the views show
  block: 'cross', // encoder | decoder | cross
  layer: 0,
  head: 0, // head: number, 'avg' or 'rollout' (encoder)
  step: -1, // timeline: tokens shown (-1 = all)
  merge: false,
  hide: false, // merge pieces into words; hide special tokens
  show: 'heatmap', // attention view: heatmap | links | overlay (links of every head)
  xstep: 0,
  unscaled: false, // explainer step, show the softmax without scaling
  lab: 'example',
  score: 'scaled_dot',
  mask: 'causal',
  window: 1,
  plen: 32,
  pdim: 64, // positional encoding length and width
};

const VIEWS = ['timeline', 'attention', 'explain', 'lab', 'positions'];
const BLOCKS = ['encoder', 'decoder', 'cross'];
const SCORES = ['dot', 'scaled_dot', 'general', 'additive', 'linear'];
const MASKS = ['none', 'causal', 'padding', 'local'];

function int(v, lo, hi, d) {
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= lo && n <= hi ? n : d;
}

/** Parses a hash ("#a=1&b=2") into a full, validated state. */
export function parseState(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const s = { ...DEFAULTS };
  if (p.has('text')) s.text = p.get('text').slice(0, 5000);
  if (p.has('model')) s.model = p.get('model');
  s.beam = int(p.get('beam'), 1, 8, DEFAULTS.beam);
  s.maxlen = int(p.get('maxlen'), 0, 256, 0);
  if (VIEWS.includes(p.get('view'))) s.view = p.get('view');
  s.sentence = int(p.get('sentence'), 0, 999, 0);
  if (BLOCKS.includes(p.get('block'))) s.block = p.get('block');
  s.layer = int(p.get('layer'), 0, 63, 0);
  s.head = ['avg', 'rollout'].includes(p.get('head'))
    ? p.get('head')
    : int(p.get('head'), 0, 63, 0);
  s.step = int(p.get('step'), -1, 1000, -1);
  s.merge = p.get('merge') === '1';
  s.hide = p.get('hide') === '1';
  if (['links', 'overlay'].includes(p.get('show'))) s.show = p.get('show');
  s.xstep = int(p.get('xstep'), 0, 8, 0);
  s.unscaled = p.get('unscaled') === '1';
  if (p.get('lab') === 'sentence') s.lab = 'sentence';
  if (SCORES.includes(p.get('score'))) s.score = p.get('score');
  if (MASKS.includes(p.get('mask'))) s.mask = p.get('mask');
  s.window = int(p.get('window'), 0, 64, DEFAULTS.window);
  s.plen = int(p.get('plen'), 2, 256, DEFAULTS.plen);
  s.pdim = int(p.get('pdim'), 2, 1024, DEFAULTS.pdim);
  if (s.pdim % 2) s.pdim += 1;
  return s;
}

/** Serialises only what differs from the defaults (text and model always). */
export function formatState(s) {
  const p = new URLSearchParams();
  for (const [k, d] of Object.entries(DEFAULTS)) {
    const v = s[k];
    if (k !== 'text' && k !== 'model' && v === d) continue;
    if (v === '' || v === undefined) continue;
    p.set(k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  }
  return `#${p.toString()}`;
}
