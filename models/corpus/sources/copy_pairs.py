"""Synthetic copy pairs: teach the model that names, numbers, URLs, file names, version numbers
and text in other scripts (Greek, Cyrillic, CJK, emoji) pass through a translation unchanged.

Made from the TRAIN split only (build_corpus.py passes the train pairs it kept, before
repetition; a dev or test pair is never used), seeded per language so the output is stable: pick
a pair in which one token (a number, or a capitalised word that is not the sentence's first) occurs
identically on both sides, and replace it, on both sides, by a random string of another kind.
The pairs go to the train split only (OUT/copy/ has no dev or test files).
"""
import random
import re

TOKEN = re.compile(r"(?<![\w./:-])(\d+|[A-Z][a-z]{2,})(?![\w/:-]|\.\w)")
EDGES = r"(?<![\w./:-])%s(?![\w/:-]|\.\w)"  # the same token edges, for one given token
GREEK = "αβγδεζηθικλμνξοπρστυφχψω"
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщыэюя"
HIRAGANA = [chr(c) for c in range(0x3042, 0x3094)]
CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 2000)]
HANGUL = [chr(c) for c in range(0xAC00, 0xAC00 + 400)]
EMOJI = [chr(c) for c in list(range(0x1F600, 0x1F640)) + list(range(0x1F330, 0x1F37F))
         + list(range(0x1F400, 0x1F43F))]
LATIN = "abcdefghijklmnopqrstuvwxyz"
EXTENSIONS = ["txt", "pdf", "png", "jpg", "csv", "json", "py", "tar.gz", "odt", "html", "c", "sh"]
TLDS = ["org", "com", "net", "de", "fr", "io", "eu"]


def word(rng, letters, lo=3, hi=9):
    return "".join(rng.choice(letters) for _ in range(rng.randint(lo, hi)))


def replacement(rng):
    """A random string of one of the kinds that must be copied."""
    kind = rng.choice(["greek", "cyrillic", "cjk", "emoji", "url", "file", "version", "code"])
    if kind == "greek":
        return word(rng, GREEK)
    if kind == "cyrillic":
        w = word(rng, CYRILLIC)
        return w.capitalize() if rng.random() < 0.4 else w
    if kind == "cjk":
        return "".join(rng.choice(rng.choice([CJK, HIRAGANA, HANGUL]))
                       for _ in range(rng.randint(2, 4)))
    if kind == "emoji":
        return "".join(rng.choice(EMOJI) for _ in range(rng.randint(1, 2)))
    if kind == "url":
        path = "/".join(word(rng, LATIN, 2, 7) for _ in range(rng.randint(0, 2)))
        return "https://%s%s.%s/%s" % (rng.choice(["", "www."]), word(rng, LATIN, 3, 10),
                                       rng.choice(TLDS), path)
    if kind == "file":
        number = rng.choice(["", "_", "-"]) + str(rng.randint(1, 99)) if rng.random() < 0.4 else ""
        return "%s%s.%s" % (word(rng, LATIN, 3, 9), number, rng.choice(EXTENSIONS))
    if kind == "version":
        return ".".join(str(rng.randint(0, 20)) for _ in range(rng.randint(2, 3)))
    return rng.choice(["x", "n", "i", "buf", "size"]) + "_" + word(rng, LATIN, 2, 6) + "()"


def candidates(src, tgt):
    """Tokens that occur in both sides, once each (not even inside a longer word, as in
    Debian-System), and not as the first word."""
    out = []
    for m in TOKEN.finditer(src):
        tok = m.group(1)
        if m.start() == 0 or src.count(tok) != 1 or tgt.count(tok) != 1:
            continue
        hits = [t for t in TOKEN.finditer(tgt) if t.group(1) == tok]
        if len(hits) == 1 and hits[0].start() > 0:
            out.append(tok)
    return out


def substitute(text, tok, new):
    return re.sub(EDGES % re.escape(tok), lambda _: new, text, count=1)


def make(train, lang, count, seed="heed-copy"):
    """count synthetic pairs from the (English, translation) train pairs, deterministically."""
    rng = random.Random("%s-%s" % (seed, lang))
    usable = [(s, t, c) for s, t in sorted(set(train)) for c in [candidates(s, t)] if c]
    rng.shuffle(usable)
    out, seen = [], set()
    for s, t, toks in usable:
        if len(out) >= count:
            break
        tok = rng.choice(toks)
        new = replacement(rng)
        pair = (substitute(s, tok, new), substitute(t, tok, new))
        if pair[0] not in seen and new in pair[0] and new in pair[1]:
            seen.add(pair[0])
            out.append(pair)
    return sorted(out)
