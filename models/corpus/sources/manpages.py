"""Translated manual pages (manpages-de, manpages-fr) against their English originals from the
Linux man-pages project (manpages, manpages-dev; the translations say which version they follow,
6.03 in bookworm, the same as the English packages).

The translations are made with po4a, which keeps the roff structure: each page is cut into
blocks at the structural macros (.SH, .SS, .PP, .TP, .IP, …); text in no-fill regions (.nf,
.EX, tables) is skipped, font escapes and macros are removed. A page is used only when both
sides give the same sequence of block kinds (the same macro starting each block; whole sections
at the end may differ, the translation adds its translators' section), and then aligned block by
block; a page whose structure differs, or whose original is not in the root (most of section 1
and 8 of manpages-de/-fr), is dropped, not guessed. The root is every source's: a page another
source's package installs in English and in the language is read too (Inkscape's, since the
gettext source; lure's launcher options, 8 pairs in train, since the adventures source).
"""
import glob
import gzip
import os
import re

PACKAGES = {"en": ["manpages", "manpages-dev"], "de": ["manpages-de"], "fr": ["manpages-fr"]}
MAN = "usr/share/man"
BREAK = {"SH", "SS", "PP", "P", "LP", "TP", "IP", "HP", "TQ", "RS", "RE", "sp", "br", "in",
         "SY", "YS", "OP", "UR", "UE", "MT", "ME"}
NOFILL_START, NOFILL_END = {"nf", "EX", "TS", "EQ", "(in"}, {"fi", "EE", "TE", "EN"}
FONT = {"B", "I", "R", "SM", "SB"}
ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
SPECIAL = {"em": "—", "en": "–", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘",
           "cq": "’", "bu": "•", "co": "©", "rg": "®", "mu": "×", "Fo": "«", "Fc": "»",
           "ha": "^", "ti": "~", "rs": "\\", "at": "@", "sh": "#", "pc": "·", "de": "°",
           ">=": "≥", "<=": "≤", "->": "→", "<-": "←"}


def args(text):
    return [a[1:-1] if a.startswith('"') and a.endswith('"') else a
            for a in re.findall(r'"[^"]*"|\S+', text)]


def unescape(s):
    s = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", s)
    s = re.sub(r"\\\((..)", lambda m: SPECIAL.get(m.group(1), ""), s)
    s = re.sub(r"\\\[(\w+)\]", lambda m: SPECIAL.get(m.group(1), ""), s)
    s = re.sub(r"\\\*\((..)|\\\*\[(\w+)\]|\\\*(.)",
               lambda m: {"lq": "“", "rq": "”", "Lq": "“", "Rq": "”"}.get(m.group(1) or "", ""), s)
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ").replace("\\~", " ")
    s = re.sub(r"\\[&%:c|^/,)]", "", s)
    s = re.sub(r"\\s[-+]?\d", "", s)
    return re.sub(r"\\.", "", s)


def blocks(path):
    """[(kind, text)] of a page, or None when it cannot be read."""
    try:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    out, kind, text, nofill = [], "start", [], False

    def close():
        if text:
            out.append((kind, re.sub(r"\s+", " ", unescape(" ".join(text))).strip()))
    for line in lines:
        if line.startswith((".\\\"", "'\\\"", "\\\"")) or line.startswith(".TH"):
            continue
        m = re.match(r"^[.'](\S+)\s*(.*)$", line)
        if m:
            macro, rest = m.group(1), m.group(2)
            if macro in NOFILL_START:
                close()
                kind, text, nofill = macro, [], True
            elif macro in NOFILL_END:
                nofill = False
                kind, text = macro, []
            elif macro in BREAK:
                close()
                kind, text = macro, []
                if macro in ("SH", "SS") and rest:
                    out.append((macro + "-title", unescape(" ".join(args(rest))).strip()))
            elif not nofill and macro in FONT:
                text.append(" ".join(args(rest)))
            elif not nofill and macro in ALTERNATING:
                text.append("".join(args(rest)))
            # other requests (.ad, .hy, .ne, .ft, …) carry no text
        elif not nofill:
            text.append(line)
    close()
    return out


def pairs(root, lang):
    base = os.path.join(root, MAN)
    for tr_path in sorted(glob.glob(os.path.join(base, lang, "man*", "*.gz"))):
        rel = os.path.relpath(tr_path, os.path.join(base, lang))
        en_path = os.path.join(base, rel)
        if not os.path.exists(en_path):
            continue
        en, tr = blocks(en_path), blocks(tr_path)
        if not en or not tr:
            continue
        n = min(len(en), len(tr))
        rest = en[n:] + tr[n:]
        if [k for k, _ in en[:n]] != [k for k, _ in tr[:n]] or (rest and rest[0][0] != "SH-title"):
            continue  # why: only whole trailing sections (the translators' credits) may differ
        for (_, a), (_, b) in zip(en[:n], tr[:n]):
            if a and b:
                yield a, b
