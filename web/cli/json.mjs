// JSON as build/heed writes it (nlohmann::json's dump), so that npx heed prints `info` and writes
// `--attention` files the same way: object keys in byte order, floats in nlohmann's layout (1.0,
// 0.0001, 1e-05, 1.5e+16), and a parser that keeps a number's kind (1 vs 1.0) for the texts the
// engine hands over as JSON. Not a general JSON library; nothing runs at import.
//
// A float is a Real, or an element of a Float32Array / Float64Array; a plain number is written
// as an integer when it is one. Digits: the shortest that round-trip (JavaScript's); nlohmann's
// Grisu2 gives the same digits for about 99.6% of float32 values and, for the rest, other digits
// of the same value (the CLI test compares such files by value).

/** A number written as a float even when integral (nlohmann's number_float). */
export class Real {
  constructor(value) {
    this.value = value;
  }
}

/** `x` as nlohmann writes a double: digits[.0], 0.000ddd, or d.ddde±XX; NaN and ±∞ are null. */
export function formatReal(x) {
  if (!Number.isFinite(x)) return 'null';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const k = digits.length;
  const n = Number(exponent) + 1; // where the decimal point goes, counted from the first digit
  let body;
  if (k <= n && n <= 15) body = `${digits}${'0'.repeat(n - k)}.0`;
  else if (0 < n && n <= 15) body = `${digits.slice(0, n)}.${digits.slice(n)}`;
  else if (-4 < n && n <= 0) body = `0.${'0'.repeat(-n)}${digits}`;
  else {
    const e = n - 1;
    const sign = e < 0 ? '-' : '+';
    body = `${k === 1 ? digits : `${digits[0]}.${digits.slice(1)}`}e${sign}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return x < 0 ? `-${body}` : body;
}

/** std::string's order: by UTF-8 bytes (code points), not UTF-16 units. */
function byBytes(a, b) {
  return /^[\x00-\x7f]*$/.test(a + b)
    ? a < b
      ? -1
      : a > b
        ? 1
        : 0
    : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** `value` as nlohmann's dump(indent): compact when indent < 0. */
export function dump(value, indent = -1) {
  const out = [];
  write(value, indent, '', out);
  return out.join('');
}

function write(v, indent, pad, out) {
  if (v === null || v === undefined) return void out.push('null');
  if (typeof v === 'boolean' || typeof v === 'bigint') return void out.push(String(v));
  if (typeof v === 'number') return void out.push(Number.isInteger(v) ? String(v) : formatReal(v));
  if (typeof v === 'string') return void out.push(JSON.stringify(v));
  if (v instanceof Real) return void out.push(formatReal(v.value));
  const typed = v instanceof Float32Array || v instanceof Float64Array;
  const items = Array.isArray(v) || typed ? v : null;
  const keys = items ? null : Object.keys(v).sort(byBytes);
  const count = items ? items.length : keys.length;
  const [open, close] = items ? ['[', ']'] : ['{', '}'];
  if (count === 0) return void out.push(open + close);
  const inner = indent < 0 ? '' : pad + ' '.repeat(indent);
  const newline = indent < 0 ? '' : '\n';
  out.push(open + newline);
  for (let i = 0; i < count; i++) {
    out.push(i ? `,${newline}${inner}` : inner);
    if (typed) out.push(formatReal(items[i]));
    else if (items) write(items[i], indent, inner, out);
    else {
      out.push(JSON.stringify(keys[i]) + (indent < 0 ? ':' : ': '));
      write(v[keys[i]], indent, inner, out);
    }
  }
  out.push(newline + (indent < 0 ? '' : pad) + close);
}

const NUMBER = '\u0000number';

/**
 * JSON text parsed as nlohmann parses it: a literal with a fraction or exponent is a Real, an
 * integer stays an integer (a BigInt beyond 2**53, a Real beyond 64 bits).
 */
export function parse(text) {
  // why: JSON.parse forgets that 1.0 was not 1; each number is wrapped in an object first
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) =>
    m[0] === '"' ? m : `{"\\u0000number":"${m}"}`,
  );
  return JSON.parse(marked, (key, value) =>
    value !== null && typeof value === 'object' && NUMBER in value ? number(value[NUMBER]) : value,
  );
}

function number(literal) {
  if (/[.eE]/.test(literal)) return new Real(Number(literal));
  const n = BigInt(literal);
  if (n < -(2n ** 63n) || n >= 2n ** 64n) return new Real(Number(literal));
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(n)
    : n;
}
