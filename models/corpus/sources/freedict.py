"""FreeDict dictionaries (dict-freedict-eng-deu, -deu-eng, -eng-fra, -fra-eng): headwords with
their first translation, and the example sentences the entries quote ("Where do these plates
belong?"  - Wohin gehören diese Teller?), which are everyday language.

Nouns (French only): the nouns of fra-eng and eng-fra that the other sources' text or both
dictionaries vouch for (french_nouns), with gender and plural from the French hunspell
dictionary (hunspell-fr-classical) and the English plural from the Ding dictionary (ding.py),
put into the short sentences of templates.py ("Le chat est petit.").

dictd format: a .index of (headword, offset, length) in base64 and a gzip'd .dict.dz.
"""
import collections
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


def translations(entry):
    """Every translation an entry lists, in its order (sense 1 first), notes and examples left
    out: "stage /steidʒ/ 1. tenue 2. phase 3. gare, station" gives [tenue, phase, gare,
    station]."""
    out = []
    for line in entry.split("\n")[1:]:
        if EXAMPLE.match(line):
            continue
        text = re.sub(r"^\s*\d+\.\s*", "", NOTE.sub("", line))
        for word in re.split(r",\s*|;\s*| / ", text):
            if word.strip() and word.strip() not in out:
                out.append(word.strip())
    return out


def index(root, name):
    """{headword: its translations in order} of one dictionary (fra-eng, eng-fra...)."""
    out = {}
    for entry in entries(root, name):
        head = NOTE.sub("", entry.split("\n")[0]).strip()
        known = out.setdefault(head, [])
        known.extend(t for t in translations(entry) if t not in known)
    return out


def listed_pairs(forward, backward):
    """{(word, translation): (score, both)} for every pair either dictionary lists (forward:
    word to translations, backward: translation to words): both when each lists the other;
    score 2 when the word is the translation's first translation back, plus 1 when the
    translation is the word's own first one. Neither FreeDict dictionary alone is to be trusted:
    fra-eng gives "soude: sofa, settee" (eng-fra: sofa, canapé) and "gare: stage, station, stop"
    (eng-fra: station, gare first; stage, tenue first)."""
    pairs = {(w, t) for w, ts in forward.items() for t in ts}
    pairs |= {(w, t) for t, ws in backward.items() for w in ws}
    out = {}
    for w, t in pairs:
        ts, ws = forward.get(w, []), backward.get(t, [])
        out[w, t] = (2 * (ws[:1] == [w]) + (ts[:1] == [t]), t in ts and w in ws)
    return out


LETTERS = re.compile(r"[a-zàâçéèêëîïôûùüÿœæ]+")
MIN_TOGETHER = 2  # pairs of running text with both words (or their plurals) for the text to vouch
MIN_DICE = 0.02  # 2 * together / (pairs with the English word + pairs with the French one)
RARE = 100  # pairs with either word, under which the text has no say on a pair it does not vouch


def together(candidates, text):
    """{(English, French): (pairs of text holding both, Dice, pairs holding either)} for every
    candidate noun, counted on the words and their plurals, lower case. A written form counts for
    every noun it is a form of ("stairs": the noun stairs and the plural of stair), so the counts
    do not hang on the candidates' order."""
    forms_en, forms_fr = collections.defaultdict(set), collections.defaultdict(set)
    for n in candidates:
        forms_en[n.en].add(n.en)
        forms_en[n.en_plural].add(n.en)
        forms_fr[n.word].add(n.word)
        forms_fr[n.plural].add(n.word)
    count_en, count_fr, both = collections.Counter(), collections.Counter(), collections.Counter()
    for en, fr in text:
        es = set().union(*(forms_en[w] for w in LETTERS.findall(en.lower()) if w in forms_en))
        fs = set().union(*(forms_fr[w] for w in LETTERS.findall(fr.lower()) if w in forms_fr))
        count_en.update(es)
        count_fr.update(fs)
        both.update((e, f) for e in es for f in fs)
    out = {}
    for n in candidates:
        either = count_en[n.en] + count_fr[n.word]
        out[n.en, n.word] = (both[n.en, n.word], 2 * both[n.en, n.word] / max(1, either), either)
    return out


def french_nouns(root, text=()):
    """Nouns from the two FreeDict dictionaries (listed_pairs), each English and French word used
    once: first the pairs the running text vouches for (text: (English, French) pairs, the
    earlier sources' train split; MIN_TOGETHER and MIN_DICE, the highest Dice first: "key" /
    clé, "noise" / bruit, which eng-fra lacks, while "fish" / pêcher and "motive" / lieu are not
    vouched for), then the pairs both dictionaries list whose words the text rarely holds (RARE),
    the higher score first ("station" takes gare before "stage" can; "sofa" / soude, listed by
    fra-eng alone, never enters). The gender and plural come from hunspell (french_genders), the
    English plural from the Ding dictionary (ding.english_plurals): a noun either lacks is
    dropped."""
    from . import ding
    from .templates import Noun, usable_fr
    plurals, genders = ding.english_plurals(root), french_genders(root)
    candidates = {}
    for (word, en), (score, both) in listed_pairs(index(root, "fra-eng"),
                                                  index(root, "eng-fra")).items():
        if EN_NOUN.match(en) and FR_WORD.match(word) and word in genders and en in plurals:
            gender, plural = genders[word]
            noun = Noun(en, plurals[en], word, plural, gender)
            if usable_fr(noun):
                candidates[noun] = (score, both)
    return choose(candidates, together(candidates, text))


def choose(candidates, seen):
    """The nouns french_nouns keeps: candidates {Noun: (score, both)}, seen {(en, fr): (together,
    Dice, either)} as together() counts them."""
    vouched = [n for n in candidates
               if seen[n.en, n.word][0] >= MIN_TOGETHER and seen[n.en, n.word][1] >= MIN_DICE]
    vouched.sort(key=lambda n: (-seen[n.en, n.word][1], n.en, n.word))
    rare = [n for n in candidates if candidates[n][1] and candidates[n][0] >= 1
            and seen[n.en, n.word][2] < RARE and seen[n.en, n.word][0] < MIN_TOGETHER]
    rare.sort(key=lambda n: (-candidates[n][0], n.en, n.word))
    used, found = set(), []
    for noun in vouched + rare:
        if noun.en not in used and noun.word not in used:
            used.update((noun.en, noun.word))
            found.append(noun)
    return sorted(found, key=lambda n: n.en)


def noun_pairs(root, lang, text=()):
    """French nouns in the template sentences of templates.py, as ding.Nouns does for German."""
    from .templates import sentences
    if lang == "fr":
        yield from sentences(french_nouns(root, text), "fr", per_noun=4, plural_share=2)


class Nouns:
    """French nouns with gender in template sentences (the Ding dictionary gives the English
    plurals, so trans-de-en is read too)."""
    PACKAGES = {"fr": ["dict-freedict-fra-eng", "dict-freedict-eng-fra", "trans-de-en",
                       "hunspell-fr-classical"]}
    READS_TEXT = True  # build_corpus passes the earlier sources' train pairs (french_nouns)
    pairs = staticmethod(noun_pairs)
