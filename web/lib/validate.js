// Exact checks of what crosses into WASM, shared by heed.js and heed-worker.js: texts (dense
// arrays of well-formed strings, within the batch limit), model size, and integers that Embind
// would otherwise wrap or truncate. Each failure is a HeedError before the engine is called,
// so no JS exception ever unwinds through C++ frames. Internal; nothing runs at import.
import { HeedError, badInput, describe } from './common.js';

/** Bytes of `s` in UTF-8 (a well-formed string: a surrogate pair is 4 bytes). */
function utf8Bytes(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) (i++, (n += 2));
    else if (c >= 0x800) n += 2;
    else if (c >= 0x80) n += 1;
  }
  return n;
}

/** One text within the call's budget of bytes; returns its UTF-8 bytes. */
function checkTextBytes(s, name, limits) {
  const bytes = utf8Bytes(s);
  if (bytes > limits.textBytes)
    throw badInput(
      `${name} is too long (${bytes} bytes; at most ${limits.textBytes}): ` +
        'split it into several texts',
    );
  return bytes;
}

/** Index of the first lone UTF-16 surrogate in `s`, or -1. */
function loneSurrogate(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = s.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

function checkWellFormed(s, name) {
  const at = loneSurrogate(s);
  // why: Embind's UTF-8 encoder swallows the code unit after a lone surrogate ('x\uDC00yz'
  // lost its y), so such text is refused rather than silently changed
  if (at >= 0)
    throw badInput(
      `${name} has a lone UTF-16 surrogate (U+${s
        .charCodeAt(at)
        .toString(16)
        .toUpperCase()}) at index ${at}, which has no UTF-8 form`,
    );
}

/**
 * translate()'s text: a string, or a dense array (no holes) of at most batchTexts strings,
 * none with a lone surrogate, each at most textBytes and all at most batchBytes in UTF-8
 * (`limits`: the engine's limits(), which the engine checks again, counting the sentences too). Other types are left to checkTranslate's message.
 */
export function checkTextInput(text, limits) {
  if (typeof text === 'string') {
    checkWellFormed(text, 'text');
    return void checkTextBytes(text, 'text', limits);
  }
  if (!Array.isArray(text)) return;
  if (text.length > limits.batchTexts)
    throw badInput(`a call holds at most ${limits.batchTexts} texts (got ${text.length})`);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    // why: forEach and map skip holes, so ['a', , 'b'] passed the string check and then
    // failed inside Embind's conversion with a raw BindingError
    if (!Object.prototype.hasOwnProperty.call(text, i))
      throw badInput(`text[${i}] is a hole: sparse arrays are not accepted`);
    if (typeof text[i] !== 'string')
      throw badInput(`text[${i}] must be a string, got ${describe(text[i])}`);
    checkWellFormed(text[i], `text[${i}]`);
    bytes += checkTextBytes(text[i], `text[${i}]`, limits);
  }
  if (bytes > limits.batchBytes)
    throw badInput(
      `a call holds at most ${limits.batchBytes} bytes of text (got ${bytes}): ` +
        'split it into several calls',
    );
}

/** Model bytes over the engine's limit are BAD_MODEL before they are copied into WASM. */
export function checkModelSize(bytes, limits) {
  if (bytes.byteLength > limits.modelBytes)
    throw new HeedError(
      'BAD_MODEL',
      `the model is ${bytes.byteLength} bytes, over the limit ` + `of ${limits.modelBytes}`,
    );
}

/** `value` must be a safe integer in 0..count-1; `what` names one of them ("layer"). */
function checkIndex(value, name, count, what) {
  if (!Number.isSafeInteger(value))
    throw badInput(`${name} must be an integer, got ${describe(value)}`);
  if (value < 0 || value >= count)
    throw badInput(`${name}: there is no ${what} ${value} (0..${count - 1})`);
}

/** explainHead's layer and head within the model, and ids that are vocabulary indices. */
export function checkExplainRange(result, where, config) {
  const layers = where.block === 'encoder' ? config.encoder_layers : config.decoder_layers;
  checkIndex(where.layer, 'where.layer', layers, `${where.block} layer`);
  checkIndex(where.head, 'where.head', config.heads, 'head');
  for (const key of ['sourceIds', 'targetIds'])
    for (let i = 0; i < result[key].length; i++)
      checkIndex(result[key][i], `result.${key}[${i}]`, config.vocab_size, 'vocabulary id');
}

/**
 * The lab's mask integers (offset, window): safe integers within ±limits.labMaskInt (the
 * engine's bound, before Embind would wrap a larger one to 32 bits).
 */
export function checkLabMask(mask, limits) {
  if (mask === null || typeof mask !== 'object') return;
  for (const key of ['offset', 'window'])
    if (
      mask[key] !== undefined &&
      (!Number.isSafeInteger(mask[key]) || Math.abs(mask[key]) > limits.labMaskInt)
    )
      throw badInput(
        `mask.${key} must be an integer in -${limits.labMaskInt}..${limits.labMaskInt}, ` +
          `got ${describe(mask[key])}`,
      );
}
