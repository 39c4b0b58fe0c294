"""FreeDict dictionaries (dict-freedict-eng-deu, -deu-eng, -eng-fra, -fra-eng): headwords with
their first translation, and the example sentences the entries quote ("Where do these plates
belong?"  - Wohin gehören diese Teller?), which are everyday language.

Nouns (French only): the single-sense nouns of fra-eng and eng-fra, with gender and plural from
the French hunspell dictionary (hunspell-fr-classical) and the English plural from the Ding
dictionary (ding.py), put into the short sentences of templates.py ("Le chat est petit.").

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


FR_WORD = re.compile(r"^[a-zàâçéèêëîïôûùüÿœæ]{3,15}$")
EN_NOUN = re.compile(r"^[a-z]{3,15}$")
HUNSPELL_FR = "usr/share/hunspell/fr.dic"
HUNSPELL_NOUN = re.compile(r"^([^/\s]+)/(S|X)\.\S* .*\bpo:nom\b.*\bis:(mas|fem)\b")


def french_genders(root):
    """{noun: (gender, plural)} from the French hunspell dictionary (hunspell-fr-classical,
    Grammalecte/Dicollecte): nouns marked po:nom is:mas/is:fem whose plural flag is S. (+s) or
    X. (+x); FreeDict's own <n, masc>/<n, fem> notes are not trusted (some are wrong)."""
    out = {}
    path = os.path.join(root, HUNSPELL_FR)
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = HUNSPELL_NOUN.match(line)
                if m and m.group(1) not in out:
                    out[m.group(1)] = (m.group(3)[0], m.group(1) + m.group(2).lower())
    return out


def single_sense(entry):
    """(headword, its first translation) when the entry has one sense, else None."""
    lines = entry.split("\n")
    if len(lines) < 2 or re.match(r"\s*1\.", lines[1]):
        return None
    head = NOTE.sub("", lines[0]).strip()
    return head, first(NOTE.sub("", lines[1])).split(", ")[0].strip()


def french_nouns(root):
    """Single-sense nouns of fra-eng and eng-fra: one English word, one French word. The gender
    and plural come from hunspell (french_genders), the English plural from the Ding dictionary
    (ding.english_plurals): a noun either lacks is dropped."""
    from . import ding
    from .templates import Noun, usable_fr
    plurals, genders = ding.english_plurals(root), french_genders(root)
    seen, found = set(), []
    for name, swap in (("fra-eng", False), ("eng-fra", True)):
        for entry in entries(root, name):
            pair = single_sense(entry)
            if not pair:
                continue
            word, en = pair[::-1] if swap else pair
            if not (EN_NOUN.match(en) and FR_WORD.match(word) and word in genders
                    and en in plurals) or en in seen or word in seen:
                continue
            seen.update((en, word))
            gender, plural = genders[word]
            noun = Noun(en, plurals[en], word, plural, gender)
            if usable_fr(noun):
                found.append(noun)
    return sorted(found, key=lambda n: n.en)


def noun_pairs(root, lang):
    """French nouns in the template sentences of templates.py, as ding.Nouns does for German."""
    from .templates import sentences
    if lang == "fr":
        yield from sentences(french_nouns(root), "fr", per_noun=4, plural_share=2)


class Nouns:
    """French nouns with gender in template sentences (the Ding dictionary gives the English
    plurals, so trans-de-en is read too)."""
    PACKAGES = {"fr": ["dict-freedict-fra-eng", "dict-freedict-eng-fra", "trans-de-en",
                       "hunspell-fr-classical"]}
    pairs = staticmethod(noun_pairs)
