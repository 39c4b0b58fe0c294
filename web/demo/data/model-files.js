// Which of the files a person chose is which part of a model: one Heed model (.heed), or a
// Marian bundle as Firefox Translations and OPUS-MT ship it (the model .bin or .npz, one shared
// or two SentencePiece vocabularies .spm, an optional lex.*.s2t.bin shortlist; OPUS-MT's
// vocab.yml id maps beside its source.spm and target.spm), and the languages its names give.
// By name and size only: no DOM, nothing read here (the engine tells a .yml from a .spm by its
// content, and wants each kind in source-then-target order).

const GZ = /\.gz$/i;

/** A file's name without a trailing .gz (such a file is read through gunzip), lower case. */
export const bareName = (name) => name.replace(GZ, '').toLowerCase();

/** Whether the file is gzip-compressed (Firefox's model repository keeps them so). */
export const isGzip = (name) => GZ.test(name);

const FIREFOX_PREFIXES = new Set(['model', 'vocab', 'srcvocab', 'trgvocab']);

/**
 * The pair of a Firefox-style name ('model.enfr.intgemm.alphas.bin', 'vocab.enfr.spm',
 * 'srcvocab.enja.spm', 'lex.50.50.enfr.s2t.bin') or a dotted 'en-fr' part: {source, target}
 * or null. Only these places are read: 'tiny.bin' or 'base.npz' name no languages.
 */
function pairOf(name) {
  const parts = bareName(name).split('.');
  const candidates = [];
  if (FIREFOX_PREFIXES.has(parts[0]) && parts.length > 2) candidates.push(parts[1]);
  const s2t = parts.indexOf('s2t');
  if (parts[0] === 'lex' && s2t > 1) candidates.push(parts[s2t - 1]);
  for (const c of candidates) {
    const m = c.match(/^([a-z]{2})([a-z]{2})$/);
    if (m) return { source: m[1], target: m[2] };
  }
  for (const p of parts) {
    const m = p.match(/^([a-z]{2,3})[-_]([a-z]{2,3})$/);
    if (m) return { source: m[1], target: m[2] };
  }
  return null;
}

/** The languages the files' names give (the model's name first), or null. */
export function languagesOf(names) {
  for (const n of names) {
    const pair = pairOf(n);
    if (pair) return pair;
  }
  return null;
}

/** 'source', 'target' or null: what a vocabulary's name says it is. */
function vocabSide(name, langs) {
  const n = bareName(name);
  if (/(^|[^a-z])(src|source)/.test(n)) return 'source';
  if (/(^|[^a-z])(trg|tgt|target)/.test(n)) return 'target';
  if (!langs) return null;
  const parts = n.split(/[._-]/);
  const has = (l) => parts.includes(l);
  if (has(langs.source) && !has(langs.target)) return 'source';
  if (has(langs.target) && !has(langs.source)) return 'target';
  return null;
}

/**
 * Two vocabularies in the order the engine wants them (source, then target): by their names
 * when they tell, else in the order chosen. {vocabs, told}: told is false in that last case.
 */
function orderVocabs([a, b], langs) {
  const sa = vocabSide(a.name, langs);
  const sb = vocabSide(b.name, langs);
  if (sa === 'target' || sb === 'source') {
    if (sa !== sb) return { vocabs: [b, a], told: true };
  } else if (sa === 'source' || sb === 'target') {
    if (sa !== sb) return { vocabs: [a, b], told: true };
  }
  return { vocabs: [a, b], told: false };
}

const list = (files) => files.map((f) => f.name).join(', ');

/**
 * The plan for `files` ([{name, size}], File objects, in the order chosen):
 *   {kind: 'heed', model, ignored}
 *   {kind: 'marian', model, vocabs: [shared] | [source, target], maps: [] | [joint] |
 *    [source, target], told, shortlist, source, target, ignored}  (`vocabs`: the SentencePiece
 *    models; `maps`: OPUS-MT's vocab.yml id maps; `told`: the names said which vocabulary is
 *    which; languages 'und' when the names give none; `ignored`: files that are none of these)
 * Throws an Error saying what is missing or too much.
 */
export function sortModelFiles(files) {
  if (!files.length) throw new Error('no file was chosen');
  const ext = (f) => bareName(f.name).split('.').pop();
  const heed = files.filter((f) => ext(f) === 'heed');
  if (heed.length) {
    if (files.length > 1)
      throw new Error(`a .heed file is a whole model: open it alone (chosen: ${list(files)})`);
    return { kind: 'heed', model: heed[0], ignored: [] };
  }
  const vocabs = files.filter((f) => ext(f) === 'spm');
  const maps = files.filter((f) => ['yml', 'yaml'].includes(ext(f)));
  const lex = files.filter((f) => /^lex\b.*\.bin$/.test(bareName(f.name)));
  const weights = files
    .filter((f) => ['bin', 'npz'].includes(ext(f)) && !lex.includes(f))
    .sort((a, b) => b.size - a.size);
  if (!weights.length)
    throw new Error(
      `no model among ${list(files)}: choose a Marian model (.bin or .npz) with its ` +
        'vocabulary (.spm; for OPUS-MT vocab.yml, source.spm and target.spm), or a Heed model ' +
        '(.heed)',
    );
  if (maps.length > 2)
    throw new Error(`three or more vocab.yml files (${list(maps)}): choose one joint or two`);
  if (maps.length && !vocabs.length)
    throw new Error(
      `${list(maps)} numbers the model’s pieces but does not cut text into them: an OPUS-MT ` +
        'model also needs the SentencePiece models beside it (source.spm and target.spm)',
    );
  if (!vocabs.length)
    throw new Error(
      `no vocabulary among ${list(files)}: a Marian model needs its SentencePiece ` +
        'vocabulary (.spm), one shared or the source’s and the target’s',
    );
  if (vocabs.length > 2)
    throw new Error(`three or more vocabularies (${list(vocabs)}): choose one shared or two`);
  if (lex.length > 1) throw new Error(`more than one shortlist (${list(lex)}): choose one`);
  const model = weights[0];
  const langs = languagesOf([model, ...vocabs, ...lex].map((f) => f.name));
  if (maps.length && vocabs.length === 1) {
    const side = vocabSide(vocabs[0].name, langs);
    const other = side === 'source' ? 'target' : 'source';
    if (side)
      throw new Error(
        `an OPUS-MT bundle needs the source’s and the target’s SentencePiece models: ` +
          `${vocabs[0].name} is the ${side}’s, the ${other}’s (${other}.spm) is missing`,
      );
  }
  const order = vocabs.length === 2 ? orderVocabs(vocabs, langs) : { vocabs, told: true };
  const mapOrder = maps.length === 2 ? orderVocabs(maps, langs) : { vocabs: maps, told: true };
  return {
    kind: 'marian',
    model,
    vocabs: order.vocabs,
    maps: mapOrder.vocabs,
    told: order.told,
    shortlist: lex[0] ?? null,
    source: langs?.source ?? 'und',
    target: langs?.target ?? 'und',
    ignored: files.filter(
      (f) => f !== model && !vocabs.includes(f) && !maps.includes(f) && !lex.includes(f),
    ),
  };
}
