"""Adventure games' spoken lines: Lure of the Temptress (lure-of-the-temptress: a village's
talk in a 1992 point-and-click adventure, ~1,700 texts a language, most of them characters'
lines: "What do you want, Ratpouch?", "Magpie beer is good, not like the other inn.") and
Pingus (pingus-data: its levels' hints and its story, ~450 German and ~310 French messages:
"Finally you reached the factory. Watch out as there are many dangers."), each English original
paired with the game's own human translation, then sentence by sentence where both sides have
as many sentences.

- Lure of the Temptress, as ScummVM reads it: each language's Disk1.vga holds three string
  tables (resources 0x10-0x12, texts 0-1999, 2000-3999, 4000-); a text is a bit stream of
  variable-length character codes, whose table (resource 0x3f19) sits in the language's block of
  lure.dat; bytes 0xa0 and above stand for word fragments (Disk1's resource 9), "%1" and "%2"
  for the names the game fills in (dropped, as placeholders; so are the debugger's room names,
  "ROOM61"). The game's font puts German and French letters at codes of its own (LURE_CHARS);
  a text with any other code is dropped.
  The translations moved a few texts (an item's name and description a few places on, two
  lines to the end of a table), so the texts are paired by a dynamic programme over each table
  (align: lengths, names, numbers, placeholders), and a pair is kept only where its neighbours
  on both sides were paired the same way (a run of three), which drops the pairs beside a move.
- Pingus: the .po files it ships (data/po/<lang>.po, read as games.po_messages reads
  SuperTuxKart's: fuzzy and untranslated messages dropped), cut into paragraphs as UFO: AI's
  are (strategy.paragraphs: a line break inside a paragraph wraps a long line).

Segments with placeholders, whose numbers differ, or that are mostly the English left in
(strategy.copied) are dropped. Lure's launcher catalog (lure.mo: its command-line options) is
read by no module (UNREAD, gettext_catalogs.claimed()).

Licences: Lure of the Temptress is freeware of Revolution Software, in Debian main under its
own licence (Lure-of-the-Temptress-License: free to distribute and to modify, not to sell on
its own); Pingus is GPL-2+.
Evaluated and not used: Drascula (ScummVM's drascula.dat: its texts are in capitals, German
umlauts spelled "ae"), Beneath a Steel Sky (its text's Huffman tree is in ScummVM's code, not
in the package), Colobot (mission briefings; French is the original and its German and English
are loose, a German paragraph machine-translated), OpenTTD, Minetest and Pioneers (interface
strings and item names, no dialogue).
"""
import glob
import math
import os
import re
import struct
import unicodedata

from . import games, strategy
from .common import each_once
from .gettext_catalogs import PLACEHOLDER

PACKAGES = {"all": ["lure-of-the-temptress", "pingus-data"]}
UNREAD = ["lure"]  # the launcher's command-line options: read by no module
LURE = "usr/share/scummvm/lure-of-the-temptress"
LURE_LANGUAGE = {"en": 3, "de": 7, "fr": 6}  # the ids of lure.dat's language blocks
LURE_TABLES = (0x10, 0x11, 0x12)  # Disk1's string tables
LURE_DECODER = 0x3f19  # in lure.dat's language block: each character's bit sequence
LURE_NAMES = 9  # Disk1's word fragments, which codes 0xa0 and up stand for
LURE_ENTRIES = 0xBF  # a resource file's header entries
# why: the game's font, not Latin-1; read off its words ("f\x8cr", "pass\x7f", "~a alors")
LURE_CHARS = {"de": dict(zip(b"\x8c\x8d\x8e\x8f\x90\x91\x92", "üäÄöÖÜß")),
              "fr": dict(zip(b"\x7e\x7f\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a",
                             "Çéâàçêëèïîôûù"))}
LURE_EMPTY = {"NULL", "?"}  # texts the game never shows
LURE_DEBUG = re.compile(r"[A-Za-z]\d")  # why: the debugger's room names ("ROOM61"), versions
RATIO = 1.12  # a translation's usual length against the English's (German 1.15, French 1.09)
GAP = -0.5  # the cost of leaving a text unpaired
BAND = 40  # how far apart two paired texts' places may be
PINGUS_PO = "usr/share/games/pingus/data/po/%s.po"
WORD = re.compile(r"[^\W\d_]+")
NUMBER = re.compile(r"\d+")


def resources(data, base=0):
    """{id: bytes} of a Lure resource file ("heywow", its number, then 8-byte entries: id,
    a spare byte, a 64 KiB size extension, size, offset in 32-byte units from `base`: the
    file's start, or in lure.dat its language block's)."""
    if data[base:base + 6] != b"heywow":
        raise ValueError("not a Lure resource file")
    found = {}
    for k in range(LURE_ENTRIES):
        rid, _, ext, size, offset = struct.unpack_from("<HBBHH", data, base + 8 + 8 * k)
        if rid == 0xFFFF:
            break
        start = base + offset * 0x20
        found[rid] = data[start:start + size + (0x10000 if ext else 0)]
    return found


def language_blocks(dat):
    """{language id: offset} of lure.dat: "lure", two version bytes, then 5-byte records (the
    language, where its resources start) up to a 0xff."""
    blocks, pos = {}, 6
    while dat[pos] != 0xFF:
        blocks[dat[pos]] = struct.unpack_from("<I", dat, pos + 1)[0]
        pos += 5
    return blocks


def decoder(block):
    """{(bits, value): code} of a decoder resource: each record a code, its bit sequence as
    "0"/"1" text (the first bit read first) and a NUL, up to a 0xff."""
    table, pos = {}, 0
    while block[pos] != 0xFF:
        end = block.index(0, pos + 1)
        sequence = block[pos + 1:end].decode("ascii")
        value = sum(1 << i for i, bit in enumerate(sequence) if bit == "1")
        table[(len(sequence), value)] = block[pos]
        pos = end + 1
    return table


def fragments(block):
    """The word fragments of the names resource: 16-bit offsets, each to a NUL-ended string."""
    count = struct.unpack_from("<H", block, 0)[0] // 2
    starts = struct.unpack_from("<%dH" % count, block, 0)
    return [block[s:block.index(0, s)] for s in starts]


class Bits:
    """A bit stream read from the most significant bit of each byte."""

    def __init__(self, data, pos, mask):
        self.data, self.pos, self.mask = data, pos, mask

    def read(self):
        bit = 1 if self.data[self.pos] & self.mask else 0
        self.mask >>= 1
        if not self.mask:
            self.mask, self.pos = 0x80, self.pos + 1
        return bit


def text_start(table, index):
    """Where text `index` of a string table starts, as the game finds it: the table opens with
    the offsets of its size bytes and of its bits, then each 32 texts' total size; a text's own
    size is a byte (times 8 when its top bit is set); sizes count 2-bit steps."""
    sizes, bits = struct.unpack_from("<HH", table, 0)
    total = sum(struct.unpack_from("<%dH" % (index >> 5), table, 4))
    for v in table[sizes + (index & ~31):sizes + index]:
        total += v if v < 0x80 else (v & 0x7F) << 3
    return Bits(table, bits + (total >> 2), 0x80 >> 2 * (total & 3))


def read_code(bits, codes):
    """The next character code: the shortest bit sequence (at most 18 bits) the table knows."""
    value = 0
    for n in range(1, 19):
        value |= bits.read() << (n - 1)
        if (n, value) in codes:
            return codes[(n, value)]
    raise ValueError("unknown bit sequence")


def lure_text(table, index, codes, names):
    """Text `index` as bytes in the game's font; word fragments filled in."""
    bits = text_start(table, index)
    while bits.read():
        bits.pos += 2  # why: the game skips two bytes for each leading 1 bit
    bits.read()  # whether the game puts articles before the names it fills in
    out = bytearray()
    code = read_code(bits, codes)
    while code:
        out += names[code - 0xA0] if code >= 0xA0 else bytes([code])
        code = read_code(bits, codes)
    return bytes(out)


def font_text(raw, lang):
    """A text in Unicode, or None when it has a code that is no letter of the language."""
    chars = LURE_CHARS.get(lang, {})
    if any(c not in chars and not 0x20 <= c < 0x7F for c in raw):
        return None
    return "".join(chars.get(c) or chr(c) for c in raw)


def find_file(folder, name):
    """The file `name` in `folder`, whatever its case (the packages have Disk1.vga and
    DISK1.VGA)."""
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        if os.path.basename(path).lower() == name:
            return path
    return None


def lure_tables(root, lang):
    """Each string table's texts in order (None for one that does not decode; [] for a
    missing table), or [] without the game."""
    dat_path = os.path.join(root, LURE, "lure.dat")
    disk = find_file(os.path.join(root, LURE, lang), "disk1.vga")
    if lang not in LURE_LANGUAGE or not os.path.exists(dat_path) or not disk:
        return []
    with open(dat_path, "rb") as f:
        dat = f.read()
    blocks = language_blocks(dat)
    if LURE_LANGUAGE[lang] not in blocks:
        return []
    codes = decoder(resources(dat, blocks[LURE_LANGUAGE[lang]])[LURE_DECODER])
    with open(disk, "rb") as f:
        found = resources(f.read())
    names = fragments(found[LURE_NAMES])
    return [table_texts(found[rid], codes, names, lang) if rid in found else []
            for rid in LURE_TABLES]


def table_texts(table, codes, names, lang):
    """All texts of one string table: as many as it has size bytes."""
    sizes, bits = struct.unpack_from("<HH", table, 0)
    texts = []
    for index in range(bits - sizes):
        try:
            texts.append(font_text(lure_text(table, index, codes, names), lang))
        except (IndexError, ValueError, struct.error):
            texts.append(None)
    return texts


def features(text):
    """What align compares: length, capitalised words inside the text (names) without accents,
    numbers, whether it has a placeholder, its last character."""
    if text is None or text in LURE_EMPTY:
        return text
    words = WORD.findall(text)
    names = {fold(w) for w in words[1:] if w[0].isupper() and len(w) > 2}
    return (len(text), names, sorted(NUMBER.findall(text)), "%" in text, text[-1:])


def fold(word):
    """A word without accents, in lower case: "Séléna" and "Selena" are one name."""
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().lower()


def similarity(en, tr):
    """How well two texts' features (features()) fit as a translation pair: high for lengths
    in the usual ratio, names both have, the same numbers, placeholders and final ! or ?."""
    if en is None or tr is None:
        return 0.0  # why: a text that does not decode still holds its place
    if isinstance(en, str) or isinstance(tr, str):
        return 2.0 if en == tr else -2.0  # why: "NULL" pairs with "NULL"
    score = 2.0 - 3.0 * abs(math.log((tr[0] + 8) / (en[0] + 8) / RATIO))
    score += len(en[1] & tr[1]) - (en[2] != tr[2]) - 1.5 * (en[3] != tr[3])
    if en[4] in ("!", "?") and tr[4] in ("!", "?", "."):
        score += 0.3 if en[4] == tr[4] else -0.3
    return score


def steps(en, tr, i, j):
    """The moves into cell (i, j) of align's table, with their scores: texts i-1 and j-1 paired,
    or one of them left unpaired."""
    if i and j:
        yield (i - 1, j - 1), similarity(en[i - 1], tr[j - 1])
    if i:
        yield (i - 1, j), GAP
    if j:
        yield (i, j - 1), GAP


def align(en_texts, tr_texts):
    """(i, j) index pairs: the best path of pairs and skips within BAND places of the diagonal,
    keeping a pair only when the pairs before and after it are its neighbours."""
    en, tr = [features(t) for t in en_texts], [features(t) for t in tr_texts]
    best, back = {(0, 0): 0.0}, {}
    for i in range(len(en) + 1):
        for j in range(max(0, i - BAND), min(len(tr), i + BAND) + 1):
            options = [(best[p] + score, p) for p, score in steps(en, tr, i, j) if p in best]
            if options:
                best[(i, j)], back[(i, j)] = max(options)
    path, cell = set(), (len(en), len(tr))
    while cell != (0, 0):
        prev = back[cell]
        if prev == (cell[0] - 1, cell[1] - 1):
            path.add(prev)
        cell = prev
    return sorted((i, j) for i, j in path if (i - 1, j - 1) in path and (i + 1, j + 1) in path)


def usable(en, tr):
    """Whether a segment pair is a clean translation: no placeholder, the same numbers, not
    the English left in."""
    return not (PLACEHOLDER.search(en) or PLACEHOLDER.search(tr)
                or not strategy.same_numbers(en, tr) or strategy.copied(en, tr))


def lure_pairs(root, lang):
    """(English, translation) segments of Lure's texts, table by table, in the game's order."""
    for en_texts, tr_texts in zip(lure_tables(root, "en"), lure_tables(root, lang)):
        for i, j in align(en_texts, tr_texts):
            en, tr = en_texts[i], tr_texts[j]
            if (None in (en, tr) or en in LURE_EMPTY or tr in LURE_EMPTY
                    or LURE_DEBUG.search(en + " " + tr)):
                continue
            for s, t in strategy.segment_pairs([en], [tr]):
                if usable(s, t):
                    yield s, t


def pingus_pairs(root, lang):
    """(English, translation) segments of Pingus' catalog, paragraph by paragraph."""
    path = os.path.join(root, PINGUS_PO % lang)
    if not os.path.exists(path):
        return
    for key, value in games.po_messages(path):
        en, tr = strategy.paragraphs(key), strategy.paragraphs(value)
        for s, t in strategy.segment_pairs(en, tr):
            if usable(s, t):
                yield s, t


def pairs(root, lang):
    """Lure's pairs, then Pingus', each pair once."""
    # why: Lure repeats lines ("I don't want it, sir.") in many texts
    return each_once(lure_pairs(root, lang), pingus_pairs(root, lang))
