"""FreeDict dictionaries (dict-freedict-eng-deu, -deu-eng, -eng-fra, -fra-eng): headwords with
their first translation, and the example sentences the entries quote ("Where do these plates
belong?"  - Wohin gehören diese Teller?), which are everyday language.

dictd format: a .index of (headword, offset, length) in base64 and a gzip'd .dict.dz.
"""
import gzip
import hashlib
import os
import re

PACKAGES = {"de": ["dict-freedict-eng-deu", "dict-freedict-deu-eng"],
            "fr": ["dict-freedict-eng-fra", "dict-freedict-fra-eng"]}
DICTD = "usr/share/dictd"
CODE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
EXAMPLE = re.compile(r'^\s+"([^"]+)"\s+-\s+(.+)$')
NOTE = re.compile(r"\s*(<[^>]*>|\[[^\]]*\]|\([^)]*\)|/[^/]*/)")
UNCLEAR = re.compile(r"[/…{}ˈˌəɪʊʌæɒɔːɜθðŋʃʒ]")  # alternatives, elisions, phonetics
WORD_SHARE = 4
ALTERNATIVE = re.compile(r"(?<=[.!?…]), |(?<=[^.!?…]), | / ")


def number(s):
    n = 0
    for c in s:
        n = n * 64 + CODE.index(c)
    return n


def entries(root, name):
    index = os.path.join(root, DICTD, "freedict-%s.index" % name)
    if not os.path.exists(index):
        return
    data = gzip.open(os.path.join(root, DICTD, "freedict-%s.dict.dz" % name)).read()
    with open(index, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and not parts[0].startswith("00database"):
                yield data[number(parts[1]):number(parts[1]) + number(parts[2])].decode(
                    "utf-8", "replace")


def first(alternatives):
    return ALTERNATIVE.split(alternatives.strip())[0].strip()


def headword(entry):
    """(headword, its first translation), or None."""
    lines = entry.split("\n")
    if len(lines) > 1:
        head = NOTE.sub("", lines[0]).strip()
        sense = first(NOTE.sub("", lines[1]))
        if head and sense and not UNCLEAR.search(head + sense):
            return head, sense
    return None


def examples(entry):
    """Every unambiguous example sentence quoted in the entry, with its first translation."""
    for line in entry.split("\n")[2:]:
        m = EXAMPLE.match(line)
        if m:
            src, tgt = m.group(1).strip(), first(m.group(2))
            if not UNCLEAR.search(src + tgt):
                yield src, tgt


def both_ways(root, lang, extract):
    code = {"de": "deu", "fr": "fra"}[lang]
    for entry in entries(root, "eng-" + code):
        yield from extract(entry)
    for entry in entries(root, code + "-eng"):
        yield from ((en, tr) for tr, en in extract(entry))


def example_pairs(root, lang):
    yield from both_ways(root, lang, examples)


def word_pairs(root, lang):
    """Headwords, one in WORD_SHARE by a hash of the pair: enough for word coverage without
    letting a dictionary outweigh the running text of the other sources."""
    for pair in both_ways(root, lang, lambda e: [p for p in [headword(e)] if p]):
        h = int(hashlib.sha1("\t".join(pair).encode("utf-8")).hexdigest()[:8], 16)
        if h % WORD_SHARE == 0:
            yield pair


class Examples:
    """The example sentences, as a source of their own."""
    PACKAGES = PACKAGES
    pairs = staticmethod(example_pairs)


class Words:
    """The headwords, as a source of their own."""
    PACKAGES = PACKAGES
    pairs = staticmethod(word_pairs)
