"""Two pastimes' texts: OpenClonk (openclonk-data: a settlement-building game of German origin;
its tutorials' and missions' dialogue and hints, its scenarios' stories and its objects'
descriptions: "Well done, you blasted the rock and found your friend!", ~3,400 keyed texts,
German only) and AisleRiot (aisleriot: the rules of its 90 solitaire card games and its hints,
German and French: "Four piles top right.", "Place the jack of diamonds next to the ten of
diamonds."), each English text paired with its human translation (OpenClonk's German is often
the original), then sentence by sentence where both sides have as many sentences.

- OpenClonk: the game's data are C4Group files (*.ocd, *.ocf, *.ocg): gzip with its first two
  bytes altered (GROUP_MAGIC), holding a header scrambled as the engine scrambles it
  (unscramble), then 316-byte entries, then the files; an entry may be a group itself, stored
  in place. A folder's StringTblUS.txt and StringTblDE.txt are "Key=Value" tables, paired by
  key; DescUS.txt and DescDE.txt (a scenario's story and goal) line by line, or paragraph by
  paragraph where one side breaks its lines elsewhere; Title.txt holds "DE:" and "US:" lines.
  The engine's own menus and errors (System.ocg's LanguageUS.txt, ~860 pairs) are left out.
  In a value "|" and "\\n" break the line; "&" marks a menu's key, <c ff0000>...</c> a colour,
  "{{Pump}}" an object's picture in place of a word (dropped, as placeholders). Some German
  texts spell the umlauts out ("koennen", "Zerstoert"): a segment is dropped when it has a
  word that, with its umlauts spelled out, is how another German text of the game writes a
  word with them.
- AisleRiot: its DocBook help, usr/share/help/<lang>/aisleriot/*.xml, made from the English
  pages by itstool, so the blocks (titles, paragraphs, table cells, terms) come in the same
  order: paired by position where both pages have as many (untranslated blocks are English
  and dropped as copies); and its catalog (aisleriot.mo, read here and claimed from
  gettext_catalogs): game names, menus and hints, without Scheme's "~a" placeholders.

Segments with placeholders, whose numbers differ, or that are mostly the English left in
(strategy.copied) are dropped.

Licences: openclonk-data's copyright file gives the engine under ISC, and parts of the game
content under CC-BY-3.0 or CC0 (main); aisleriot is GPL-3+, its help GFDL-NIV-1.3 or GPL-3+
(main).
Evaluated and not used: Simutrans (simutrans-data, simutrans-pak64: the tables are mostly
labels, and the German and English descriptions of buildings and help pages were written
apart, not translated: "Tennis court: the neighbours long for winter, when they can sit outside
again without hearing the constant pangs" / "...um endlich draußen zu sitzen"), LinCity-NG
(lincity-ng-data: ~460 messages a language, mostly labels; its help pages' translations are
stale or shortened), Stellarium (stellarium-data: sky cultures' descriptions, scholarly, with
English references and paragraphs left in the translations) and KTuberling (ktuberling-data:
39 interface messages).
"""
import glob
import gzip
import os
import re
import struct

from . import gnome_help, strategy
from .common import each_once
from .gettext_catalogs import MNEMONIC, PLACEHOLDER, message_pairs

PACKAGES = {"all": ["openclonk-data", "aisleriot"]}
DOMAINS = ["aisleriot"]  # read here, so gettext_catalogs leaves it (claimed())
CLONK = "usr/share/games/openclonk"
GROUP_MAGIC = b"\x1e\x8c"  # a C4Group file: gzip, whose magic is 1f 8b
GROUP_ID = b"RedWolf Design"
HEADER = 204  # a group's header: id, two versions, the number of entries, reserved bytes
ENTRY = 316  # an entry: its name (260 bytes), then packed, child group, size, -, offset, ...
# why: not the engine's LanguageUS.txt and LanguageDE.txt: its menus and errors, like the
# interface texts other sources give by the thousand
TEXTS = {"StringTblUS.txt", "StringTblDE.txt", "DescUS.txt", "DescDE.txt", "Title.txt"}
LINE_BREAK = re.compile(r"\||\\n")  # why: the game breaks a message's line at "|" and "\n"
UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})
WORD = re.compile(r"[^\W\d_]+")
HELP = "usr/share/help/%s/aisleriot"
HELP_BLOCKS = {"title", "para", "entry", "term", "phrase"}
HELP_SKIP = {"legalnotice", "sect1info"}
AISLERIOT_MO = "usr/share/locale/%s/LC_MESSAGES/aisleriot.mo"
SCHEME_FORMAT = re.compile(r"~[as]")  # why: the hints' Scheme placeholders ("Move ~a onto ...")


def unscramble(data):
    """A group's header as the engine reads it: each byte XOR 237, then the first and third
    byte of every three swapped."""
    out = bytearray(b ^ 237 for b in data)
    for k in range(0, len(out) - 2, 3):
        out[k], out[k + 2] = out[k + 2], out[k]
    return bytes(out)


def read_group(raw, start=0):
    """{name: bytes, or a dict for a group inside} of the group at `start` in the unpacked
    data; only the text files TEXTS names are kept."""
    header = unscramble(raw[start:start + HEADER])
    if not header.startswith(GROUP_ID):
        raise ValueError("not a C4Group")
    count = struct.unpack_from("<i", header, 36)[0]
    files, data = {}, start + HEADER + count * ENTRY
    for k in range(count):
        entry = start + HEADER + k * ENTRY
        name = raw[entry:entry + 260].split(b"\0")[0].decode("latin-1")
        _, child, size, _, offset = struct.unpack_from("<5i", raw, entry + 260)
        if child:
            files[name] = read_group(raw, data + offset)
        elif name in TEXTS:
            files[name] = raw[data + offset:data + offset + size]
    return files


def tree(path):
    """A group file, or a folder of them, as read_group's dict; None for another file."""
    if os.path.isdir(path):
        found = {n: tree(os.path.join(path, n)) for n in sorted(os.listdir(path))}
        return {n: t for n, t in found.items() if t is not None}
    with open(path, "rb") as f:
        if f.read(2) == GROUP_MAGIC:
            return read_group(gzip.decompress(b"\x1f\x8b" + f.read()))
        f.seek(0)
        return f.read() if os.path.basename(path) in TEXTS else None


def folders(node, name=""):
    """(name, {file: text}) of every folder of the tree that holds texts."""
    texts = {n: decode(v) for n, v in node.items() if isinstance(v, bytes)}
    if texts:
        yield name, texts
    for n, v in node.items():
        if isinstance(v, dict):
            yield from folders(v, name + "/" + n)


def decode(data):
    """A text file's text: UTF-8 (without its BOM), else Windows-1252 (one older file)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def table(text):
    """{key: value} of a "Key=Value" table; "#" starts a comment line; the first entry with
    a key wins."""
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.startswith("#") and key.strip():
            found.setdefault(key.strip(), value)
    return found


def titles(text):
    """{language: title} of a Title.txt ("DE:Dunkle Mine")."""
    return dict(line.strip().split(":", 1) for line in text.splitlines() if ":" in line)


def shown(value):
    """A table value as the game shows it: its line breaks as "\\n", menu keys removed."""
    return LINE_BREAK.sub("\n", MNEMONIC.sub("", value))


def folder_pairs(texts):
    """(English, German) texts of one folder: its table's values by key, its story and its
    title."""
    if "StringTblUS.txt" in texts and "StringTblDE.txt" in texts:
        en_table, de_table = table(texts["StringTblUS.txt"]), table(texts["StringTblDE.txt"])
        for key, value in en_table.items():
            if key in de_table:
                yield shown(value), shown(de_table[key])
    if "DescUS.txt" in texts and "DescDE.txt" in texts:
        yield texts["DescUS.txt"], texts["DescDE.txt"]
    names = titles(texts.get("Title.txt", ""))
    if "US" in names and "DE" in names:
        yield names["US"], names["DE"]


def paragraphs(text):
    """A text's paragraphs (split at blank lines), each its lines joined, tags and bullets
    removed."""
    return [" ".join(strategy.lines(p)) for p in re.split(r"\n\s*\n", text) if p.strip()]


def segments(en, de):
    """Segment pairs of two texts: line by line (strategy.lines), or, where one side breaks
    its lines elsewhere, paragraph by paragraph; then sentence by sentence."""
    en_lines, de_lines = strategy.lines(en), strategy.lines(de)
    if len(en_lines) != len(de_lines):
        en_lines, de_lines = paragraphs(en), paragraphs(de)
    return strategy.segment_pairs(en_lines, de_lines)


def spelled_out(texts):
    """The words of German texts with umlauts, spelled out ("koennen" for "können"): how a
    text that cannot type umlauts writes them."""
    words = {w.lower() for t in texts for w in WORD.findall(t) if re.search("[äöü]", w)}
    return {w.translate(UMLAUTS) for w in words}


def usable(en, tr, spelled=frozenset()):
    """Whether a segment pair is a clean translation: no placeholder or picture, the same
    numbers, not the English left in, no umlaut spelled out."""
    return not (PLACEHOLDER.search(en) or PLACEHOLDER.search(tr)
                or SCHEME_FORMAT.search(en) or SCHEME_FORMAT.search(tr)
                or not strategy.same_numbers(en, tr) or strategy.copied(en, tr)
                or any(w.lower() in spelled for w in WORD.findall(tr)))


def clonk_pairs(root, lang):
    """(English, German) segments of OpenClonk's groups, folder by folder."""
    path = os.path.join(root, CLONK)
    if lang != "de" or not os.path.isdir(path):
        return
    found = [p for _, texts in folders(tree(path)) for p in folder_pairs(texts)]
    spelled = spelled_out(de for _, de in found)
    for en, de in found:
        for s, t in segments(en, de):
            if usable(s, t, spelled):
                yield s, t


def help_blocks(path):
    """The text blocks of an AisleRiot help page in order (innermost blocks only; the
    licence notice left out), or None when it does not parse."""
    return gnome_help.blocks(path, HELP_BLOCKS, HELP_SKIP)


def help_pairs(root, lang):
    """(English, translation) segments of AisleRiot's help pages, page by page."""
    for en_path in sorted(glob.glob(os.path.join(root, HELP % "C", "*.xml"))):
        en = help_blocks(en_path)
        tr = help_blocks(os.path.join(root, HELP % lang, os.path.basename(en_path)))
        if en and tr:
            for s, t in strategy.segment_pairs(en, tr):
                if usable(s, t):
                    yield s, t


def catalog_pairs(root, lang):
    """(English, translation) messages of aisleriot.mo: no plurals, contexts, placeholders."""
    path = os.path.join(root, AISLERIOT_MO % lang)
    if os.path.exists(path):
        for s, t in message_pairs([path]):
            if usable(s, t):
                yield s, t


def pairs(root, lang):
    """OpenClonk's pairs, then AisleRiot's help and catalog, each pair once."""
    # why: AisleRiot's pages repeat their rows ("Four piles.")
    return each_once(clonk_pairs(root, lang), help_pairs(root, lang), catalog_pairs(root, lang))
