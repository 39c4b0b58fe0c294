// The page state that a URL can carry: what was translated with which model, and what is on
// screen. Kept in the hash (#text=...&model=...), so a view can be shared and reopened.

import { formatAblate, parseAblate } from '../data/surgery-data.js';

export const DEFAULTS = {
  text: '',
  model: '',
  beam: 4, // beam search by default: on the shipped models it costs well under a second
  maxlen: 0, // max target pieces per sentence (0 = the engine's automatic limit)
  shortlist: false, // score only the model's output shortlist (when the model has one)
  view: 'timeline', // timeline | attention | explain | lab | positions | surgery
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
  // surgery: ablated heads ("e0.1_c1.2", surgery-data.js), zero or mean, temperature, window
  // radius (-1 none), sparse with random blocks, no positions, linear attention and its
  // random features, and the seed of the shuffled-source experiment (0 = not run); the URL
  // accepts the ranges of the view's sliders
  ablate: '',
  amean: false,
  temp: 1,
  win: -1,
  sparse: false,
  rblocks: 1,
  nopos: false,
  lin: 'none',
  feat: 64,
  shuf: 0,
};

const VIEWS = ['timeline', 'attention', 'explain', 'lab', 'positions', 'surgery'];
const LINEAR = ['none', 'favor', 'elu'];
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
  s.shortlist = p.get('shortlist') === '1';
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
  if (p.has('ablate')) s.ablate = formatAblate(parseAblate(p.get('ablate')));
  s.amean = p.get('amean') === '1';
  const temp = Number(p.get('temp'));
  if (p.has('temp') && Number.isFinite(temp) && temp >= 0.1 && temp <= 4) s.temp = temp;
  s.win = int(p.get('win'), -1, 32, DEFAULTS.win);
  s.sparse = p.get('sparse') === '1';
  s.rblocks = int(p.get('rblocks'), 0, 8, DEFAULTS.rblocks);
  s.nopos = p.get('nopos') === '1';
  if (LINEAR.includes(p.get('lin'))) s.lin = p.get('lin');
  s.feat = int(p.get('feat'), 8, 256, DEFAULTS.feat);
  s.shuf = int(p.get('shuf'), 0, 1e6, 0);
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
