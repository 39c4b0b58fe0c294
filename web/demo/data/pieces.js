// Target pieces as a reader sees them: SentencePiece's byte-fallback pieces (<0xE2><0x88><0x92>)
// decoded into the characters they spell, and a lone word-start piece "▁" joined to what follows
// it, so the visible and the copied translation read like result.text. Pure functions, no DOM.

const BYTE = /^<0x([0-9A-Fa-f]{2})>$/;

/** The byte a byte-fallback piece stands for, else -1. */
export function pieceByte(piece) {
  const m = BYTE.exec(piece);
  return m ? Number.parseInt(m[1], 16) : -1;
}

/**
 * Groups a sentence's target pieces into what is shown as one unit: `text` (bytes decoded as
 * UTF-8, an invalid run as U+FFFD), `space` (it starts a word after another unit), `steps`
 * (the indices of the pieces in it) and `pieces`. `</s>` is left out.
 */
export function pieceGroups(pieces) {
  const groups = [];
  let i = 0;
  const n = pieces.length;
  while (i < n) {
    const steps = [];
    let word = false;
    // why: a lone "▁" (a word start the vocabulary has no piece for) belongs to what follows
    while (i < n && pieces[i] === '▁') {
      word = true;
      steps.push(i++);
    }
    if (i < n && pieceByte(pieces[i]) >= 0) {
      const bytes = [];
      while (i < n && pieceByte(pieces[i]) >= 0) {
        bytes.push(pieceByte(pieces[i]));
        steps.push(i++);
      }
      const text = new TextDecoder('utf-8').decode(new Uint8Array(bytes));
      groups.push({ text, space: word, steps });
    } else if (i < n && pieces[i] !== '</s>') {
      const p = pieces[i];
      const starts = p.startsWith('▁');
      steps.push(i++);
      // a piece that starts a word after a lone "▁" still makes one space, not two
      groups.push({ text: starts ? p.slice(1) : p, space: word || starts, steps });
    } else {
      if (i < n) i++; // </s>
      // a lone "▁" at the end writes nothing: its step stays clickable in the unit before it
      if (steps.length && groups.length) groups.at(-1).steps.push(...steps);
      else if (steps.length) groups.push({ text: '', space: false, steps });
    }
  }
  groups.forEach((g, k) => {
    g.space = g.space && k > 0;
    g.pieces = g.steps.map((s) => pieces[s]);
  });
  return groups;
}

/** The text of target pieces as SentencePiece decodes it (▁ starts a word, bytes decoded). */
export function piecesText(pieces) {
  return pieceGroups(pieces)
    .map((g) => (g.space ? ' ' : '') + g.text)
    .join('')
    .replace(/\s+$/, '');
}
