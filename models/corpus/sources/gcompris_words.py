"""GCompris' vocabulary ("Lang" activity): about a thousand everyday words, each the caption of a
picture, translated into every language GCompris speaks, with the article that gives the gender
("acorn": "die Eichel", "un gland"). Read from the activity's Qt resource file
(rcc/lang.rcc, content-<lang>.json: {picture: word}), paired by picture.

Words alone teach little, so only nouns go in, put into the short sentences of templates.py
("The acorn is small." / "Die Eichel ist klein." / "Le gland est petit."):
- French: the word must come with un/une (a countable noun, and its gender) and have a regular
  plural (templates.fr_plural; of the head noun in "femme de ménage"; no hyphenated words).
- German: the noun must be a headword of the Ding dictionary (trans-de-en) with the gender the
  article gives, whatever Ding's subject notes (ding.german_plurals: "Ei {n} [biol.]"): that
  drops plurals given as captions ("die Handschuhe") and gives the plural; a neuter noun
  ("das" is never a plural) that Ding has no plural for ("das Eichhörnchen") goes in without
  plural sentences (a neuter declines regularly in the singular); weak masculines are left out
  (templates.usable_de).
- English: one or two lower-case words, not a verb ("to squat"); the plural from Ding's English
  headwords, none where Ding has none (then no plural sentence).
"""
import json
import os
import re

from . import ding
from .qt_resources import read_rcc
from .templates import Noun, fr_plural, sentences, usable_de, usable_fr

PACKAGES = {"all": ["gcompris-qt-data", "trans-de-en"]}
RCC = "usr/share/gcompris-qt/rcc/lang.rcc"
CONTENT = "/gcompris/src/activities/lang/resource/content-%s.json"
EN = re.compile(r"^[a-z]+( [a-z]+)?$")
DE = re.compile(r"^(der|die|das) ([A-ZÄÖÜ][a-zäöüß-]+)$")
FR = re.compile(r"^(un|une) ([a-zàâçéèêëîïôûùüÿœ-]+( [a-zàâçéèêëîïôûùüÿœ'-]+)*)$")
GENDER = {"der": "m", "die": "f", "das": "n", "un": "m", "une": "f"}


def captions(root, langs):
    """[{picture: caption}] per language of langs, all {} when the package is not there."""
    path = os.path.join(root, RCC)
    if not os.path.exists(path):
        return [{} for _ in langs]
    files = read_rcc(path)
    return [json.loads(files[CONTENT % lang].decode("utf-8")) for lang in langs]


def french_plural(word):
    """The regular plural of a one-word noun or of the head of "N de N" ("femmes de ménage");
    None where unsure (hyphenated words: "chauves-souris", "porte-monnaie")."""
    head, _, rest = word.partition(" ")
    if "-" in word or (rest and not re.match(r"(de|à|aux|d') ?", rest)):
        return None
    plural = fr_plural(head)
    return plural and (plural + " " + rest).strip()


def nouns(root, lang):
    en, other = captions(root, ("en", lang))
    en_plurals = ding.english_plurals(root)
    german = ding.german_plurals(root)
    found = {}
    for picture, english in sorted(en.items()):
        english, caption = english.strip(), other.get(picture, "").strip()
        if not EN.match(english) or english.startswith("to "):
            continue
        m = (DE if lang == "de" else FR).match(caption)
        if not m:
            continue
        gender, word = GENDER[m.group(1)], m.group(2)
        if lang == "de":
            plural = ding.plural_for(german, word, gender, english)
            if plural is None and gender != "n":
                continue
            noun = Noun(english, en_plurals.get(english), word, plural, gender)
            ok = usable_de(noun)
        else:
            plural = french_plural(word)
            noun = Noun(english, en_plurals.get(english), word, plural, gender)
            ok = plural is not None and usable_fr(noun)
        if ok:
            found.setdefault(english, noun)
    return [found[k] for k in sorted(found)]


def pairs(root, lang):
    yield from sentences(nouns(root, lang), lang, per_noun=4, plural_share=2, seed="gcompris")
