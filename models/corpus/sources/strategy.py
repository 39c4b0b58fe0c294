"""Science-fiction strategy games' texts: UFO: Alien Invasion's (ufoai-misc: its research
reports, ufopedia articles, tips and menus, ~2,400 translated messages a language, ~230 of
them articles of several paragraphs: "Remember to check your research and production queues
often!") and FreeOrion's (freeorion-data: its encyclopedia, technologies, buildings, ship parts,
species and menus; German 2,222 of the 4,329 English entries, French 4,257), each English
original paired with its human translation, article by article, paragraph by paragraph, and
then sentence by sentence where both sides have as many sentences.

- UFO: Alien Invasion: the gettext catalog base/i18n/<lang>/LC_MESSAGES/ufoai.mo (its msgids
  are the English text; msgfmt leaves fuzzy and untranslated messages out; the few msgids that
  are keys, "production_finished", are dropped). Its own folder, so gettext_catalogs does not
  read it. ufoai-data itself holds only models, pictures and shaders: no text.
- FreeOrion: the string tables default/stringtables/<lang>.txt, "KEY" then a one-line or
  '''triple-quoted''' value, paired with en.txt by key. A key the translation lacks (or has
  only in a comment) is shown in English by the game: nothing to pair. The game expands
  "[[KEY]]" and "[[type KEY]]" (a link) to KEY's text; so does fo_expand, with the same table,
  and a value naming a key its table lacks is dropped (the game would put English into it).
  Tables carry no fuzzy mark, so a translation of an older English text stays in them: pairs
  whose numbers differ are dropped (same_numbers), and so are English lines left in a
  translation (copied).

Both sides are cut into blocks (UFO: AI: paragraphs; FreeOrion: lines, which its UI shows as
line breaks); a message whose two sides have a different number of blocks is dropped. Each pair
of blocks is cut into sentences (ddtp's rule) when both sides have as many, else kept whole up
to MAX_CHARS. Segments with placeholders, and UFO: AI's messages with tabs (a table's columns),
are dropped; tags and UFO: AI's bold mark (^B) are removed. Copies (translation == English)
are left to build_corpus's "identical sides" rule, which drops them.
"""
import os
import re

from .common import clean, each_once, strip_markup
from .ddtp import SENT_END
from .gettext_catalogs import PLACEHOLDER, catalog

PACKAGES = {"all": ["ufoai-misc", "freeorion-data"]}
UFOAI = "usr/share/games/ufoai/base/i18n/%s/LC_MESSAGES/ufoai.mo"
FREEORION = "usr/share/games/freeorion/default/stringtables/%s.txt"
MAX_CHARS = 400  # why: a block whose sentences do not pair up is kept whole only if this short
BOLD = "^B"  # UFO: AI's mark that switches bold text on
# why: FreeOrion's placeholders are %1%, %planet%, %rawtext:galaxy_age% (gettext's %-rule would
# also take "10% of"), its paths {HOME} and $XDG_CONFIG_HOME, and its command-line help's escapes
FO_PLACEHOLDER = re.compile(r"%\d+\$|%[^%\s]+%|\{\w*\}|\$\w|\\\w")
BULLET = re.compile(r"^\s*[*\-•]\s+")
# why: a key alone on its line, maybe with a comment after it ("EMPIRE  # translated"), then
# the value: one line, or '''...''' over several
FO_ENTRY = re.compile(r"(?:\s|#[^\n]*\n)*(\w+)[ \t]*(?:#[^\n]*)?\n"
                      r"(?:'''(.*?)'''[ \t]*(?:\n|$)|([^\n]*)(?:\n|$))", re.S)
FO_REFERENCE = re.compile(r"\[\[(?:\w+\s+)?(\w+)\]\]")
NUMBER = re.compile(r"\d+")
WORD = re.compile(r"[^\W\d_]{3,}")
COPIED = 0.8  # share of the translation's words found in the English: a copy, not a translation
IDENTIFIER = re.compile(r"\w*_\w*")  # why: some ufoai msgids are keys ("production_finished")


def sentences(block):
    """A block cut after ".", "!" or "?" before a capital (ddtp's rule)."""
    return [s.strip() for s in SENT_END.split(block) if s.strip()]


def segment_pairs(en_blocks, tr_blocks):
    """Blocks paired in order when both sides have as many; within a pair, sentences when both
    have as many, else the whole blocks if both are at most MAX_CHARS long."""
    if len(en_blocks) != len(tr_blocks):
        return
    for en, tr in zip(en_blocks, tr_blocks):
        en_s, tr_s = sentences(en), sentences(tr)
        if len(en_s) == len(tr_s):
            yield from zip(en_s, tr_s)
        elif len(en) <= MAX_CHARS and len(tr) <= MAX_CHARS:
            yield en, tr


def paragraphs(text):
    """UFO: AI's blocks: paragraphs split at blank lines, their lines joined (a line break
    inside a paragraph wraps a long line)."""
    paras = re.split(r"\n\s*\n", text.replace(BOLD, ""))
    return [clean(p) for p in paras if p.strip()]


def ufoai_pairs(path):
    """(English, translation) segments of ufoai.mo: no header, plurals or contexts."""
    if not os.path.exists(path):
        return
    for key, value in catalog(path).items():
        if (not isinstance(key, str) or not key or not value or "\x04" in key
                or IDENTIFIER.fullmatch(key) or "\t" in key + value):
            continue  # why: tabs lay out a table's columns ("Damage type:\tProtection:")
        for en, tr in segment_pairs(paragraphs(key), paragraphs(value)):
            if not (PLACEHOLDER.search(en) or PLACEHOLDER.search(tr)):
                yield en, tr


def fo_table(path):
    """{key: value} of a FreeOrion string table, as the game reads it: the first line names the
    language, "\\n" in a value is a line break, the first of two entries with a key wins."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        text = f.read() + "\n"
    table, pos = {}, text.find("\n") + 1
    while True:
        m = FO_ENTRY.match(text, pos)
        if not m:
            return table  # why: the rest is comments and #include lines (functional lists)
        pos = m.end()
        value = m.group(2) if m.group(2) is not None else m.group(3)
        table.setdefault(m.group(1), value.replace("\\n", "\n"))


def fo_expand(value, table, depth=0):
    """The value as the game shows it: "[[KEY]]" and "[[type KEY]]" replaced by KEY's text,
    expanded in turn; None when a key is missing or the references nest too deep (a cycle)."""
    if depth > 10:
        return None
    out, pos = [], 0
    for m in FO_REFERENCE.finditer(value):
        if m.group(1) not in table:
            return None
        inner = fo_expand(table[m.group(1)], table, depth + 1)
        if inner is None:
            return None
        out += [value[pos:m.start()], inner]
        pos = m.end()
    return "".join(out + [value[pos:]])


def lines(text):
    """FreeOrion's blocks: its non-empty lines, tags and bullets removed."""
    return [clean(BULLET.sub("", strip_markup(l))) for l in text.split("\n") if l.strip()]


def same_numbers(en, tr):
    """Whether both sides hold the same numbers: FreeOrion's stale translations ("by 1" / "um 2")
    differ there first."""
    return sorted(NUMBER.findall(en)) == sorted(NUMBER.findall(tr))


def copied(en, tr):
    """Whether the translation is mostly the English's own words (4 words or more, COPIED of
    them): FreeOrion's German keeps lines of older English texts, their references expanded to
    German ("Increases target Forschung on all planets..."), so they differ from the English."""
    words, theirs = {w.lower() for w in WORD.findall(en)}, WORD.findall(tr)
    return len(theirs) >= 4 and sum(w.lower() in words for w in theirs) >= COPIED * len(theirs)


def freeorion_pairs(en_path, tr_path):
    """(English, translation) segments of the entries both tables have, in en.txt's order."""
    en_table, tr_table = fo_table(en_path), fo_table(tr_path)
    for key, en_value in en_table.items():
        if key not in tr_table:
            continue
        en, tr = fo_expand(en_value, en_table), fo_expand(tr_table[key], tr_table)
        if en is None or tr is None:
            continue
        for s, t in segment_pairs(lines(en), lines(tr)):
            if not (FO_PLACEHOLDER.search(s) or FO_PLACEHOLDER.search(t)
                    or not same_numbers(s, t) or copied(s, t)):
                yield s, t


def pairs(root, lang):
    """UFO: AI's pairs, then FreeOrion's, each pair once."""
    en_table = os.path.join(root, FREEORION % "en")
    # why: FreeOrion repeats expanded text ([[KEY]]) in many entries
    return each_once(ufoai_pairs(os.path.join(root, UFOAI % lang)),
                     freeorion_pairs(en_table, os.path.join(root, FREEORION % lang)))
