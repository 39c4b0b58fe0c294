// Colour maps for the demo, computed here: a perceptually ordered sequential ramp (dark violet →
// blue → teal → green → yellow, readable with the common colour-vision deficiencies) and a
// blue ↔ orange diverging ramp for signed values. Interpolation is done in OKLab.

function srgbToLinear(c) {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
function linearToSrgb(c) {
  return c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
}

function hexToOklab(hex) {
  const n = parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => srgbToLinear(v / 255));
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

function oklabToRgb255([L, a, b]) {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const rgb = [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ];
  return rgb.map((c) => Math.round(255 * Math.min(1, Math.max(0, linearToSrgb(c)))));
}

/** Builds a 256-entry RGB lookup table (Uint8Array, 3 bytes per entry) through the anchors. */
function buildLut(anchors) {
  const labs = anchors.map(hexToOklab);
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const x = (i / 255) * (labs.length - 1);
    const k = Math.min(labs.length - 2, Math.floor(x));
    const t = x - k;
    const lab = labs[k].map((v, c) => v + (labs[k + 1][c] - v) * t);
    lut.set(oklabToRgb255(lab), i * 3);
  }
  return lut;
}

// Lightness rises monotonically along both halves, so order survives greyscale printing too.
const SEQUENTIAL = buildLut(['#440a57', '#3b4d8c', '#28798e', '#21a685', '#78cf55', '#f6e528']);
const DIVERGING = buildLut([
  '#1d4f91',
  '#5b93c7',
  '#c9dceb',
  '#f3efe9',
  '#f4cfa6',
  '#e08a3c',
  '#93430e',
]);

export const MAPS = { sequential: SEQUENTIAL, diverging: DIVERGING };

/** RGB triple for t in [0, 1] on the named map. */
export function rgbAt(map, t) {
  const lut = MAPS[map];
  const i = Math.max(0, Math.min(255, Math.round((Number.isFinite(t) ? t : 0) * 255))) * 3;
  return [lut[i], lut[i + 1], lut[i + 2]];
}

export function cssAt(map, t) {
  const [r, g, b] = rgbAt(map, t);
  return `rgb(${r},${g},${b})`;
}

/** Relative luminance, to pick black or white text over a cell. */
export function textColourOn([r, g, b]) {
  const y =
    0.2126 * srgbToLinear(r / 255) +
    0.7152 * srgbToLinear(g / 255) +
    0.0722 * srgbToLinear(b / 255);
  return y > 0.3 ? '#111' : '#fff';
}

/**
 * A scale maps a value to [0, 1]: sequential over [min, max]; diverging symmetric around 0.
 * @param {'sequential'|'diverging'} map
 */
export function makeScale(map, values, fixed) {
  let lo = Infinity,
    hi = -Infinity;
  if (fixed) [lo, hi] = fixed;
  else {
    for (const v of values)
      if (Number.isFinite(v)) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    if (!Number.isFinite(lo)) {
      lo = 0;
      hi = 1;
    }
  }
  if (map === 'diverging' && !fixed) {
    const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
    lo = -m;
    hi = m;
  }
  if (hi === lo) hi = lo + 1;
  return { map, min: lo, max: hi, t: (v) => (v - lo) / (hi - lo) };
}
