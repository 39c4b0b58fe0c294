// The demo's URL state (web/demo/app/state.js) for the Surgery view: every surgery setting survives
// formatState -> parseState, defaults stay out of the URL, and bad values fall back to defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULTS, parseState, formatState } from '../../web/demo/app/state.js';

test('surgery settings round-trip through the URL hash', () => {
  const s = {
    ...DEFAULTS,
    text: 'A simple text editor',
    model: 'tiny',
    view: 'surgery',
    ablate: 'e0.1_c1.2',
    amean: true,
    temp: 0.55,
    win: 3,
    sparse: true,
    rblocks: 2,
    nopos: true,
    lin: 'favor',
    feat: 128,
    shuf: 7,
  };
  const hash = formatState(s);
  assert.deepEqual(parseState(hash), s);
  for (const k of ['ablate=e0.1_c1.2', 'amean=1', 'temp=0.55', 'win=3', 'lin=favor', 'shuf=7'])
    assert.ok(hash.includes(k), `${hash} lacks ${k}`);
});

test('surgery defaults stay out of the URL; bad values fall back', () => {
  const hash = formatState({ ...DEFAULTS, text: 'x', model: 'm', view: 'surgery' });
  for (const k of [
    'ablate',
    'amean',
    'temp',
    'win',
    'sparse',
    'rblocks',
    'nopos',
    'lin',
    'feat',
    'shuf',
  ])
    assert.ok(!new URLSearchParams(hash.slice(1)).has(k), `${hash} has ${k}`);
  const s = parseState('#ablate=q1.1_e0.0_e0.0&temp=0&win=99&lin=softmax&feat=0&rblocks=-1&shuf=x');
  assert.equal(s.ablate, 'e0.0');
  assert.equal(s.temp, 1);
  assert.equal(s.win, -1);
  assert.equal(s.lin, 'none');
  assert.equal(s.feat, DEFAULTS.feat);
  assert.equal(s.rblocks, DEFAULTS.rblocks);
  assert.equal(s.shuf, 0);
});
