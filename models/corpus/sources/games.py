"""Game and education catalogs: in-game text, dialogue and help of Widelands, Warzone 2100,
Hedgewars, SuperTuxKart, SuperTux and GCompris (Freeciv and Wesnoth have modules of their own:
gettext and wesnoth). Each message's English original is paired with its human translation:
- Widelands, Warzone 2100: gettext .mo (read as gettext_catalogs does);
- SuperTuxKart: the .po files it ships (data/po/<lang>.po);
- SuperTux: the .po files of its menus and of each world's levels, tips and scrolling texts
  (scroll_segments);
- Hedgewars: Data/Locale/<lang>.txt ("00:01=Granate", paired with en.txt by key) and
  <lang>.lua (["English"] = "Deutsch", the missions' dialogue);
- GCompris: Qt .qm catalogs, whose messages carry the English source text.
Fuzzy, plural and untranslated messages, and those with placeholders, are dropped as in
gettext_catalogs. 0 A.D. has a module of its own (zero_ad: its catalogs sit inside public.zip).
"""
import glob
import os
import re
import struct

from .gettext_catalogs import MNEMONIC, PLACEHOLDER, message_pairs

PACKAGES = {"all": ["widelands-data", "warzone2100-data", "hedgewars-data", "supertuxkart-data",
                    "gcompris-qt-data", "supertux-data"]}
# gettext domains under usr/share/locale that are this module's, not gettext_catalogs' (its
# claimed()).
DOMAINS = ["warzone2100"]
WIDELANDS = "usr/share/games/widelands/data/locale"
STK = "usr/share/games/supertuxkart/data/po"
HEDGEWARS = "usr/share/games/hedgewars/Data/Locale"
GCOMPRIS = "usr/share/gcompris-qt/translations"
SUPERTUX = "usr/share/games/supertux2"


def po_entries(lines):
    """The entries of a .po text, as dicts: each field's text as written (msgctxt, msgid,
    msgid_plural, msgstr, msgstr[N], escapes left in), "fuzzy" when so flagged and "refs", the
    source places its "#:" lines name (which a source may filter on)."""
    entries, cur, field = [], {}, None
    for line in list(lines) + [""]:
        line = line.strip()
        if not line:
            if cur:
                entries.append(cur)
            cur, field = {}, None
            continue
        if line.startswith("#,") and "fuzzy" in line:
            cur["fuzzy"] = True
        elif line.startswith("#:"):
            cur["refs"] = cur.get("refs", []) + line[2:].split()
        elif line.startswith("#"):
            continue
        m = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(.*)"$', line)
        if m:
            field = m.group(1)
            cur[field] = m.group(2)
        elif line.startswith('"') and field:
            cur[field] += line[1:-1]
    return entries


def po_translated(entries):
    """(msgid, msgstr) of po_entries' entries: no header, no fuzzy, no plural, no untranslated
    message."""
    for e in entries:
        if e.get("fuzzy") or "msgid_plural" in e or not e.get("msgid") or not e.get("msgstr"):
            continue
        unescape = lambda s: s.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        yield unescape(e["msgid"]), unescape(e["msgstr"])


def po_messages(path):
    """(msgid, msgstr) of a .po file: no header, no fuzzy, no plural, no context."""
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from po_translated(po_entries(f))


def clean_messages(found):
    for key, value in found:
        if PLACEHOLDER.search(key) or PLACEHOLDER.search(value):
            continue
        yield MNEMONIC.sub("", key), MNEMONIC.sub("", value)


def hedgewars_txt(path):
    out = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^(\d\d:\d\d)=(.*)$", line.rstrip("\n"))
                if m:
                    out[m.group(1)] = m.group(2).strip()
    return out


LUA = re.compile(r'^\s*\["((?:[^"\\]|\\.)*)"\]\s*=\s*"((?:[^"\\]|\\.)*)"\s*,')


def hedgewars_lua(path):
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = LUA.match(line)
                if m and not line.lstrip().startswith("--"):
                    yield m.group(1).replace('\\"', '"'), m.group(2).replace('\\"', '"')


def qm_messages(path):
    """(source text, translation) of a Qt .qm catalog: the Messages section (tag 0x69) holds
    records of tagged fields, 3 the translation (UTF-16BE), 6 the source text (UTF-8), 7 the
    context, 8 the comment, 5 an obsolete 4-byte field, 1 the record's end."""
    with open(path, "rb") as f:
        data = f.read()
    i, msgs = 16, b""
    while i + 5 <= len(data):
        tag, n = data[i], struct.unpack(">I", data[i + 1:i + 5])[0]
        if tag == 0x69:
            msgs = data[i + 5:i + 5 + n]
        i += 5 + n
    j, cur = 0, {}
    while j < len(msgs):
        t = msgs[j]
        j += 1
        if t == 1:
            if cur.get(3) and cur.get(6):
                yield cur[6], cur[3]
            cur = {}
        elif t in (2, 3, 4, 6, 7, 8):
            n = struct.unpack(">I", msgs[j:j + 4])[0]
            j += 4
            if n == 0xFFFFFFFF:
                n = 0
            raw = msgs[j:j + n]
            j += n
            cur[t] = raw.decode("utf-16-be", "replace") if t in (2, 3, 4) else raw.decode(
                "utf-8", "replace")
        elif t == 5:
            j += 4
        else:
            return  # why: an unknown field; the rest of the section cannot be read


def scroll_segments(text):
    """SuperTux's text as it is shown: lines opening with "-" (a heading) stand alone, "!" (an
    image) and "\\t" (a name in the credits, the escape as po_messages leaves it) are dropped,
    "#" and plain lines join into one paragraph until a blank line or a heading."""
    segments, cur = [], []
    for line in text.split("\n") + [""]:
        mark = line[:1]
        if mark == "-" or not line.strip():
            segments.append(" ".join(cur))
            cur = []
            if mark == "-":
                segments.append(line[1:])
        elif mark != "!" and not line.startswith("\\t"):
            cur.append(line[1:] if mark in ("#", "*") else line)
    return [x.strip() for x in segments if x.strip()]


def supertux_messages(found):
    """Each message's segments paired in order; a message whose two sides have a different
    number of segments (a translator's own line breaks in the credits) is dropped."""
    for key, value in found:
        keys, values = scroll_segments(key), scroll_segments(value)
        if len(keys) == len(values):
            yield from zip(keys, values)


def pairs(root, lang):
    yield from message_pairs(sorted(glob.glob(os.path.join(root, WIDELANDS, lang, "LC_MESSAGES",
                                                          "*.mo"))))
    yield from message_pairs(sorted(
        os.path.join(root, "usr/share/locale", lang, "LC_MESSAGES", d + ".mo") for d in DOMAINS
        if os.path.exists(os.path.join(root, "usr/share/locale", lang, "LC_MESSAGES", d + ".mo"))))
    po = os.path.join(root, STK, lang + ".po")
    if os.path.exists(po):
        yield from clean_messages(po_messages(po))
    en, tr = (hedgewars_txt(os.path.join(root, HEDGEWARS, n + ".txt")) for n in ("en", lang))
    yield from ((en[k], tr[k]) for k in sorted(en) if k in tr)
    yield from clean_messages(hedgewars_lua(os.path.join(root, HEDGEWARS, lang + ".lua")))
    for po in sorted(glob.glob(os.path.join(root, SUPERTUX, "**", lang + ".po"), recursive=True)):
        yield from clean_messages(supertux_messages(po_messages(po)))
    qm = os.path.join(root, GCOMPRIS, "gcompris_%s.qm" % lang)
    if os.path.exists(qm):
        yield from clean_messages(qm_messages(qm))
