"""The Ding German-English dictionary (trans-de-en, usr/share/trans/de-en; Frank Richter, TU
Chemnitz). One entry a line, "German :: English"; both sides are split by " | " into the same
number of aligned units (the headword, its inflected forms, then phrases and example sentences),
a unit's alternatives by "; ", and notes come in {} (gender, {pl}), [] (subject, region, style),
() and <>.

Three sources are read from it:
- Examples: the units after the headword that are phrases (two words or more) or sentences, the
  first alternative on each side, notes removed; units with placeholders (jdn., etw., sb., sth.),
  slashes or leftover brackets are dropped.
- Nouns: headwords "Wort {m|f|n} | Wörter {pl} :: word | words" of everyday subjects (the first
  alternative on each side carries no subject note, or cooking, zoology, botany, sport, textiles,
  music, farming, cars, transport, anatomy, society),
  one German and one English word each, put into short sentences by templates.py ("The squirrel
  is small." / "Das Eichhörnchen ist klein."). Nouns are taken in order of how often their English
  word occurs across the dictionary's English side (a frequency list the dictionary itself
  gives), at most MAX_NOUNS of them.
- english_plurals() gives the English plural of every such noun for freedict.Nouns (French).
"""
import collections
import os
import re

PACKAGES = {"all": ["trans-de-en"]}
PATH = "usr/share/trans/de-en"
NOTE = re.compile(r"\s*(\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|<[^>]*>)")
PLACEHOLDER = re.compile(r"\b(jd|jdn|jdm|jds|jmd|jmdn|jmdm|jmds|etw|sb|sth)\b\.?|\bsb's\b|\bso\.(?=\s)|/|…|"
                         r"\.\.\.|~|\+|=")
EVERYDAY_NOTES = {"", "[cook.]", "[zool.]", "[bot.]", "[sport]", "[textil.]", "[mus.]", "[agr.]",
                  "[auto]", "[transp.]", "[anat.]", "[soc.]", "[Br.]", "[Am.]"}
DE_NOUN = re.compile(r"^([A-ZÄÖÜ][a-zäöüß]{2,15}) \{([mfn])\}$")
DE_PLURAL = re.compile(r"^([A-ZÄÖÜ][a-zäöüß]{2,17}) \{pl\}$")
EN_WORD = re.compile(r"^[a-z]{3,15}$")
MAX_NOUNS = 5000
UMLAUT = str.maketrans("äöüÄÖÜ", "aouAOU")


def lines(root):
    path = os.path.join(root, PATH)
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#") or " :: " not in line:
                continue
            de, en = line.rstrip("\n").split(" :: ", 1)
            de_units, en_units = de.split(" | "), en.split(" | ")
            if len(de_units) == len(en_units):
                yield list(zip(de_units, en_units))


def first(unit):
    return unit.split("; ")[0].strip()


def plain(text):
    return re.sub(r"\s+", " ", NOTE.sub("", text)).strip()


def example_pairs(root, lang):
    if lang != "de":
        return
    for units in lines(root):
        for de, en in units[1:]:
            de, en = plain(first(de)), plain(first(en))
            if len(de.split()) < 2 or len(en.split()) < 2:
                continue
            if PLACEHOLDER.search(de) or PLACEHOLDER.search(en) or re.search(r"[()\[\]{}<>]",
                                                                             de + en):
                continue
            yield en, de


def notes(text):
    return {m.strip() for m in re.findall(r"\[[^\]]*\]", text)}


def noun_entries(root):
    """(English, English plural, German, German plural, gender, frequency key) per headword."""
    for units in lines(root):
        if len(units) < 2:
            continue
        (de0, en0), (de1, en1) = units[0], units[1]
        # why: only the words taken count; a later alternative's note ("Regenschirm {m}; Schirm
        # {m} [ugs.]") once dropped umbrella, cat, bicycle, child, door and ~1,100 more
        if not notes(first(de0) + " " + first(en0)) <= EVERYDAY_NOTES:
            continue
        de_sg = DE_NOUN.match(re.sub(r"\s*(\[[^\]]*\]|\([^)]*\))", "", first(de0)).strip())
        de_pl = DE_PLURAL.match(re.sub(r"\s*(\[[^\]]*\]|\([^)]*\))", "", first(de1)).strip())
        en_sg, en_pl = plain(first(en0)), plain(first(en1))
        if not (de_sg and de_pl and EN_WORD.match(en_sg) and EN_WORD.match(en_pl)):
            continue
        word, plural = de_sg.group(1), de_pl.group(1)
        if word.translate(UMLAUT)[:2] != plural.translate(UMLAUT)[:2] or \
                not en_pl.startswith(en_sg[:max(2, len(en_sg) - 3)][:3]):
            continue
        yield en_sg, en_pl, word, plural, de_sg.group(2)


def counts(root):
    """How often each word occurs on the English and on the German side of the dictionary."""
    en_counts, de_counts = collections.Counter(), collections.Counter()
    for units in lines(root):
        for de, en in units:
            en_counts.update(re.findall(r"[a-z]+", en.lower()))
            de_counts.update(re.findall(r"\w+", de))
    return en_counts, de_counts


def nouns(root):
    """The MAX_NOUNS most frequent nouns, each pair the mutual best: the German word is the most
    frequent translation of the English one (car: Auto, not Fahrkorb) and the English word the
    most frequent translation of the German one (Ende: end, not tail)."""
    from .templates import Noun, usable_de
    en_counts, de_counts = counts(root)
    best_de, best_en = {}, {}
    for en, en_pl, word, plural, gender in noun_entries(root):
        noun = Noun(en, en_pl, word, plural, gender)
        if not usable_de(noun):
            continue
        if en not in best_de or de_counts[word] > de_counts[best_de[en].word]:
            best_de[en] = noun
        if word not in best_en or en_counts[en] > en_counts[best_en[word].en]:
            best_en[word] = noun
    found = [n for n in best_de.values() if best_en[n.word] == n]
    found.sort(key=lambda n: (-min(en_counts[n.en], de_counts[n.word]), n.en))
    return found[:MAX_NOUNS]


GERMAN_HEAD = re.compile(r"^([A-ZÄÖÜ][a-zäöüß]{1,24}) \{([mfn])\}$")
GERMAN_PLURAL = re.compile(r"^([A-ZÄÖÜ][a-zäöüß]{1,26}) \{pl\}$")


def german_plurals(root):
    """{(German noun, gender): [(plural, the entry's English words)]} from every headword unit
    whose next unit gives the plurals in the same order ("Ei {n} [biol.] | Eier {pl}",
    "Zimmer {n} /Zi./ | Zimmer {pl}", "Telefonapparat {m}; Telefon {n} | Telefonapparate {pl};
    Telefone {pl}"), whatever the subject notes and abbreviations: for a noun another source
    names (GCompris' pictures), not a choice of everyday nouns as noun_entries makes. Entries in
    the dictionary's order ("Bank {f} [fin.] | Banken {pl} :: bank", then "Bank {f} | Bänke {pl}
    :: bench"): plural_for picks by the English word."""
    def bare(alternative):
        return re.sub(r"\s*(\[[^\]]*\]|\([^)]*\)|/[^/]*/|<[^>]*>)", "", alternative).strip()
    out = {}
    for units in lines(root):
        if len(units) < 2:
            continue
        singulars, plurals = units[0][0].split("; "), units[1][0].split("; ")
        english = {plain(e).lower() for e in units[0][1].split("; ")}
        for sg, pl in zip(map(bare, singulars), map(bare, plurals)):
            sg, pl = GERMAN_HEAD.match(sg), GERMAN_PLURAL.match(pl)
            if sg and pl and sg.group(1).translate(UMLAUT)[:2] == \
                    pl.group(1).translate(UMLAUT)[:2]:
                out.setdefault((sg.group(1), sg.group(2)), []).append((pl.group(1), english))
    return out


def plural_for(plurals, word, gender, english):
    """The plural of german_plurals' entries for (word, gender) whose English words hold
    `english`, else of its first entry; None when Ding has none."""
    entries = plurals.get((word, gender), [])
    return next((p for p, en in entries if english.lower() in en),
                entries[0][0] if entries else None)


def english_plurals(root):
    """{English singular: plural} from the dictionary's noun headwords."""
    out = {}
    for en, en_pl, _, _, _ in noun_entries(root):
        out.setdefault(en, en_pl)
    return out


def noun_pairs(root, lang):
    from .templates import sentences
    if lang == "de":
        yield from sentences(nouns(root), "de")


class Examples:
    """The phrases and example sentences, as a source of their own."""
    PACKAGES = PACKAGES
    pairs = staticmethod(example_pairs)


class Nouns:
    """The nouns in template sentences, as a source of their own."""
    PACKAGES = PACKAGES
    pairs = staticmethod(noun_pairs)
