"""Synthetic copy pairs: teach the model that names, numbers, URLs, file names, version numbers
and text in other scripts (Greek, Cyrillic, CJK, emoji) pass through a translation unchanged.

Made from the TRAIN split only (build_corpus.py passes the train pairs it kept, before
repetition; a dev or test pair is never used), seeded per language so the output is stable: pick
a pair in which one token (a number, or a capitalised word that is not the sentence's first) occurs
identically on both sides, and replace it, on both sides, by a random string of another kind.
The pairs go to the train split only (OUT/copy/ has no dev or test files).

typed_controls() makes pairs with a control string typed into both sides (a target-language token
such as "<2fr>", "<s>", "</s>", "<pad>", "<unk>"): at the start, at the end, or before a token
both sides share. The engine reads such a string as text (src/translator/load_model.cpp makes the
language tokens control pieces; models/pipeline/engine_tokenizer.py reads training text the same
way), and a translation should carry it through as it carries a file name.

check() and control_check() make the held-out copy and control checks the same way from the
TEST splits (another seed, each kind or control string and place as often): each pair with the
kind (or place) and the string that must come through unchanged (OUT/copy_check/ and
OUT/control_check/, scored by evaluate.py as the share of translations that contain it). Their
pairs are taken in an order fixed by a hash of each pair, and each pair draws its string from a
generator seeded by itself, so a source added to the corpus changes a check only where its own
pairs come first: the rest of the check stays as it was, and so stay comparable the figures of
models measured before and after (a shuffle of the whole pool changed every pair).
"""
import hashlib
import random
import re
import unicodedata

TOKEN = re.compile(r"(?<![\w./:-])(\d+|[A-Z][a-z]{2,})(?![\w/:-]|\.\w)")
EDGES = r"(?<![\w./:-])%s(?![\w/:-]|\.\w)"  # the same token edges, for one given token
GREEK = "αβγδεζηθικλμνξοπρστυφχψω"
CYRILLIC = "абвгдежзийклмнопрстуфхцчшщыэюя"
HIRAGANA = [chr(c) for c in range(0x3042, 0x3094)]
CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 2000)]
HANGUL = [chr(c) for c in range(0xAC00, 0xAC00 + 400)]
# why: the blocks people type emoji from, 3-byte (U+2600-27BF: ☕ ✅ ❤) and 4-byte (U+1F300-1FAFF:
# faces, food, animals, transport, gestures), named code points only; the first copy pairs drew
# from three 4-byte ranges and the model dropped ☕ and 👍, which they never held
EMOJI = [chr(c) for c in list(range(0x2600, 0x27C0)) + list(range(0x1F300, 0x1F650))
         + list(range(0x1F680, 0x1F700)) + list(range(0x1F900, 0x1FB00))
         if unicodedata.name(chr(c), "")]
KINDS = ["greek", "cyrillic", "cjk", "emoji", "url", "file", "version", "code"]
LATIN = "abcdefghijklmnopqrstuvwxyz"
EXTENSIONS = ["txt", "pdf", "png", "jpg", "csv", "json", "py", "tar.gz", "odt", "html", "c", "sh"]
TLDS = ["org", "com", "net", "de", "fr", "io", "eu"]
CONTROLS = ["<2de>", "<2en>", "<2fr>", "<s>", "</s>", "<pad>", "<unk>"]
PLACES = ["start", "middle", "end"]


def word(rng, letters, lo=3, hi=9):
    return "".join(rng.choice(letters) for _ in range(rng.randint(lo, hi)))


def replacement(rng, kind=None):
    """A random string of the given kind (by default a random one) of those that must be copied."""
    kind = kind or rng.choice(KINDS)
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


def substituted(pairs, lang, count, seed):
    """Up to count (english, translation, kind, new) from pairs, deterministically, each kind
    drawn at random."""
    rng = random.Random("%s-%s" % (seed, lang))
    usable = [(s, t, c) for s, t in sorted(set(pairs)) for c in [candidates(s, t)] if c]
    rng.shuffle(usable)
    out, seen = [], set()
    for s, t, toks in usable:
        if len(out) >= count:
            break
        tok = rng.choice(toks)
        kind = rng.choice(KINDS)
        new = replacement(rng, kind)
        pair = (substitute(s, tok, new), substitute(t, tok, new))
        if pair[0] not in seen and new in pair[0] and new in pair[1]:
            seen.add(pair[0])
            out.append(pair + (kind, new))
    return sorted(out)


def make(train, lang, count, seed="heed-copy"):
    """count synthetic pairs from the (English, translation) train pairs, deterministically."""
    return [(s, t) for s, t, _, _ in substituted(train, lang, count, seed)]


def stable_order(pairs, seed):
    """The distinct pairs ordered by a hash of seed and the pair: a pair keeps its place among
    the others whatever pairs are added or removed."""
    return sorted(set(pairs), key=lambda p: hashlib.sha256(
        ("%s\t%s\t%s" % (seed, p[0], p[1])).encode("utf-8")).digest())


def first_usable(pairs, seed, want, used, make):
    """Up to `want` rows that make(english, translation) gives (None: the pair is not usable),
    from the pairs in their stable order for seed, skipping English sides in `used` and adding
    those it takes."""
    rows = []
    for s, t in stable_order(pairs, seed):
        if len(rows) == want:
            break
        row = None if s in used else make(s, t)
        if row:
            used.add(s)
            rows.append(row)
    return rows


def check(test, lang, per_kind, seed="heed-copy-check"):
    """The held-out copy check: per_kind (english, translation, kind, new) of every kind, from
    the test pairs; each kind takes the first usable pairs of its own stable order that no
    kind before it took."""
    def copied(kind):
        def make(s, t):
            toks = candidates(s, t)
            if not toks:
                return None
            rng = random.Random("%s-%s-%s" % (seed, lang, s))
            tok = rng.choice(toks)
            new = replacement(rng, kind)
            pair = (substitute(s, tok, new), substitute(t, tok, new))
            return pair + (kind, new) if new in pair[0] and new in pair[1] else None
        return make

    out, used = [], set()
    for kind in KINDS:
        out += first_usable(test, "%s-%s-%s" % (seed, lang, kind), per_kind, used, copied(kind))
    return sorted(out)


def typed_in(rng, src, tgt, control, place):
    """(src, tgt) with control typed into both at place, or None where there is no shared token
    to put it before."""
    if place == "start":
        return control + " " + src, control + " " + tgt
    if place == "end":
        return src + " " + control, tgt + " " + control
    toks = candidates(src, tgt)
    if not toks:
        return None
    tok = rng.choice(toks)
    return (substitute(src, tok, control + " " + tok), substitute(tgt, tok, control + " " + tok))


def typed_controls(pairs, lang, count, seed="heed-controls"):
    """Up to count (english, translation, place, control) from pairs, deterministically: each
    control string and place drawn at random."""
    rng = random.Random("%s-%s" % (seed, lang))
    usable = sorted(set(pairs))
    rng.shuffle(usable)
    out, seen = [], set()
    for s, t in usable:
        if len(out) >= count:
            break
        control, place = rng.choice(CONTROLS), rng.choice(PLACES)
        pair = typed_in(rng, s, t, control, place)
        if pair and pair[0] not in seen:
            seen.add(pair[0])
            out.append(pair + (place, control))
    return sorted(out)


def control_check(test, lang, per_control, seed="heed-control-check"):
    """The held-out control check: per_control (english, translation, place, control) of every
    control string, from the test pairs, its places in turn; each control string and place
    takes the first usable pairs of its own stable order that none before it took."""
    def typed(control, place):
        def make(s, t):
            pair = typed_in(random.Random("%s-%s-%s" % (seed, lang, s)), s, t, control, place)
            return pair + (place, control) if pair else None
        return make

    out, used = [], set()
    for control in CONTROLS:
        for place in PLACES:
            want = len(range(PLACES.index(place), per_control, len(PLACES)))
            out += first_usable(test, "%s-%s-%s-%s" % (seed, lang, control, place), want, used,
                                typed(control, place))
    return sorted(out)
