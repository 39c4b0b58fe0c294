"""Everyday French verbs in their conjugated forms: short sentences with a third-person singular
subject, written for both languages at once ("The child is sleeping." / "L'enfant dort."), the
French counterpart of ding_verbs.py.

English: the intransitive verbs of the Ding dictionary and their forms (ding_verbs.verbs: the
present, the -ing form and, where Ding gives it, the simple past). French: the verb FreeDict's
eng-fra gives for the English infinitive (freedict.index), a single plain infinitive (-er, -ir,
-re, -oir) that Verbiste knows; one that fra-eng gives back as the English verb first, then the
better scored (freedict.listed_pairs: "run" takes courir, which fra-eng translates as run first,
before fonctionner). Each English and each French infinitive once, the most common English verbs
(ding_verbs' order) first.

Verbiste (verbiste): verbs-fr.xml names each verb's template ("dormir": "dor:mir", the radical
before the colon is the template verb's), conjugation-fr.xml gives per template the endings per
mood, tense and person; read here: the present's third person singular and plural and first
person plural ("dort", "dorment", "dormons") and the past participle ("dormi", "partie",
"partis", "parties"), the first alternative of each.

Sentences: SUBJECTS (ding_verbs' 16 people, written by hand in French with their gender) in
PATTERNS: present, progressive (French present), with "maintenant", "souvent" or "aujourd'hui",
negated ("ne ... pas", n' before a vowel), questions ("Est-ce que", qu' before a vowel), and the
passé composé for the English simple past (avoir, or être for ETRE, the participle agreeing with
the subject's gender: "Ma sœur est partie."). The patterns and each one's subject are chosen by a
hash of the verb, so the output is deterministic.

Left out: pronominal verbs ("se lever", "s'asseoir": their pronoun would need its own forms and
elision), and any French verb whose pronominal form FreeDict gives for the same English verb
("stop": arrêter, where the intransitive sense is s'arrêter); verbs starting with h (aspirate or
mute h decides the elision); multiword translations; defective verbs Verbiste gives no present or
participle for. FreeDict's phrasal verbs are loose, so an English verb of more than one word takes
only a French verb whose first fra-eng translation it is ("come back": revenir). FreeDict pairs
that are wrong in Ding's sense or need an object are refused by hand (WRONG, SKIP, read off the
output; about 110 of Ding's 500 verbs remain).

Then MORE_PER_VERB more per verb (ding_verbs.more_draws) with the subjects and places of
scenes.py: the third person plural and "nous" (Verbiste's present "dorment", "dormons"; the
passé composé with "ont", "avons", "sont", "sommes", the participle agreeing in gender and
number after être: "Les filles sont parties."), animals for the verbs an animal does, and
PLACE_PATTERNS ("L'enfant dort dans le jardin."). Other persons and tenses, and inversion
questions, are not written.
"""
import os
import re
import xml.etree.ElementTree as ET

from . import ding_verbs, freedict, scenes
from .templates import capital

PACKAGES = {"fr": ["trans-de-en", "dict-freedict-eng-fra", "dict-freedict-fra-eng", "verbiste"]}
VERBISTE = "usr/share/verbiste-0.1"

# The French of ding_verbs.SUBJECTS, in its order, as they stand mid-sentence, with the gender
# the past participle agrees with after être.
FRENCH_SUBJECTS = [
    ("il", "m"), ("elle", "f"), ("l'enfant", "m"), ("ma sœur", "f"), ("notre voisin", "m"),
    ("le vieil homme", "m"), ("ton frère", "m"), ("le bébé", "m"), ("ma grand-mère", "f"),
    ("le professeur", "m"), ("mon père", "m"), ("la jeune femme", "f"), ("sa mère", "f"),
    ("le garçon", "m"), ("la fille", "f"), ("mon oncle", "m"),
]
# (English, French, gender)
SUBJECTS = [(en, fr, gender) for (en, _), (fr, gender) in
            zip(ding_verbs.SUBJECTS, FRENCH_SUBJECTS)]
# Verbs whose passé composé takes être when they are used without an object.
ETRE = {"aller", "venir", "partir", "arriver", "tomber", "naître", "mourir", "rester", "monter",
        "descendre", "entrer", "sortir", "retourner", "devenir", "revenir", "rentrer", "repartir",
        "redescendre", "remonter", "ressortir", "retomber", "renaître", "parvenir", "survenir",
        "intervenir", "décéder", "advenir", "accourir", "apparaître", "réapparaître"}
# (name, English, French). Slots: {s} the subject; English as in ding_verbs.PATTERNS; French {v}
# the present ("dort"), {ne} "ne " or "n'" before it, {que} "que " or "qu'" before the subject,
# {aux} "a", "est" or their plural, {nea} {ne} before {aux}, {pp} the participle agreeing with
# the subject, {where} a place.
PATTERNS = [
    ("present", "{s} {pres}.", "{s} {v}."),
    ("progressive", "{s} {be} {ing}.", "{s} {v}."),
    ("question", "{Be} {s} {ing}?", "Est-ce {que}{s} {v} ?"),
    ("why", "Why {be} {s} {ing}?", "Pourquoi est-ce {que}{s} {v} ?"),
    ("now", "{s} {be} {ing} now.", "{s} {v} maintenant."),
    ("today", "Today {s} {be} {ing}.", "Aujourd'hui, {s} {v}."),
    ("often", "{s} often {pres}.", "{s} {v} souvent."),
    ("not", "{s} {be} not {ing}.", "{s} {ne}{v} pas."),
    ("past", "{s} {past}.", "{s} {aux} {pp}."),
    ("yesterday", "{s} {past} yesterday.", "{s} {aux} {pp} hier."),
    ("did not", "{s} did not {inf}.", "{s} {nea}{aux} pas {pp}."),
]
# The patterns with a place (scenes.PLACES), drawn only beyond ding_verbs.PER_VERB.
PLACE_PATTERNS = [
    ("where", "{s} {pres} {where}.", "{s} {v} {where}."),
    ("where progressive", "{s} {be} {ing} {where}.", "{s} {v} {where}."),
    ("where question", "{Be} {s} {ing} {where}?", "Est-ce {que}{s} {v} {where} ?"),
    ("where past", "{s} {past} {where}.", "{s} {aux} {pp} {where}."),
]
# Sentences per verb beyond ding_verbs.PER_VERB (ding_verbs.more_draws): twice German's, as
# FreeDict and Verbiste give about a fifth as many verbs as Ding.
MORE_PER_VERB = 8
# How a pronominal infinitive starts ("se reposer", "s'habiller"; everyday_verbs.py writes them).
PRONOMINAL = ("se ", "s'")
# The auxiliary of the passé composé per person.
AUX = {("a", "3s"): "a", ("a", "3p"): "ont", ("a", "1p"): "avons",
       ("est", "3s"): "est", ("est", "3p"): "sont", ("est", "1p"): "sommes"}
PAST = ding_verbs.PAST
PROGRESSIVE = ding_verbs.PROGRESSIVE
# A single plain infinitive; h is left out (aspirate or mute decides the elision).
INFINITIVE = re.compile(r"^[a-gi-zàâçéèêëîïôûùüÿœæ][a-zàâçéèêëîïôûùüÿœæ]*(?:er|ir|re|oir)$")
VOWEL = "aeiouyàâéèêëîïôûùüœæ"
# why: FreeDict pairs that both dictionaries list and still are wrong for a person doing the
# English verb without an object (Ding's sense; "grow": devenir, "live": demeurer), or whose
# French needs an object here ("climb": gravir); read off the output, the next candidate is
# tried instead ("grow": grandir, "live": vivre, "climb": grimper)
WRONG = {("grow", "devenir"), ("grow", "augmenter"), ("descend", "baisser"),
         ("suffer", "endurer"), ("last", "continuer"), ("live", "demeurer"),
         ("live", "habiter"), ("live", "loger"), ("climb", "gravir"), ("research", "examiner")}
# why: English verbs whose every FreeDict candidate is wrong in Ding's intransitive sense
# ("sit": couver, a hen's; "march off": décéder; "strike", streiken: frapper, forer; "tread":
# piétiner) or needs an object or "se" ("drown": noyer, "remember": retenir)
SKIP = {"stand", "sit", "sink", "bid", "pass", "swing", "damage", "strike", "agitate", "tap",
        "ache", "march off", "adjoin", "evade", "encounter", "congratulate", "fondle",
        "practise", "remember", "arise", "originate", "itch", "wear down", "take action",
        "gape", "trust", "mind", "tread", "hesitate", "crease", "drown", "hack", "shake",
        "smell"}


def verbiste_forms(root):
    """{infinitive: {form: word}} of every verb Verbiste lists whose template gives the present's
    third person singular ("3s": "dort") and the past participle's masculine and feminine
    singular ("ms": "dormi", "fs": "dormie"); where the template gives them, also the present's
    "1p" and "3p" ("dormons", "dorment") and the participle's plurals ("mp", "fp")."""
    folder = os.path.join(root, VERBISTE)
    if not os.path.exists(os.path.join(folder, "verbs-fr.xml")):
        return {}
    endings = {}
    for template in ET.parse(os.path.join(folder, "conjugation-fr.xml")).getroot():
        present = template.findall("indicative/present/p")
        participle = template.findall("participle/past-participle/p")
        if len(present) == 6 and len(participle) == 4:
            # why: a person may list alternatives ("ece", "èce"); the first is the usual one;
            # defective verbs leave a person empty
            firsts = {name: p.findtext("i") for name, p in zip(
                ("3s", "ms", "fs", "1p", "3p", "mp", "fp"),
                (present[2], participle[0], participle[2], present[3], present[5],
                 participle[1], participle[3]))}
            if all(firsts[k] for k in ("3s", "ms", "fs")):
                endings[template.get("name")] = firsts
    out = {}
    for verb in ET.parse(os.path.join(folder, "verbs-fr.xml")).getroot():
        infinitive, name = verb.findtext("i"), verb.findtext("t")
        if not infinitive or name not in endings:
            continue
        termination = name.partition(":")[2]
        if not infinitive.endswith(termination):
            continue
        radical = infinitive[:len(infinitive) - len(termination)]
        out[infinitive] = {k: radical + e for k, e in endings[name].items() if e}
    return out


def choose(found, eng_fra, fra_eng, known):
    """[(English infinitive, English forms, French infinitive)]: for each English verb of found
    (ding_verbs.verbs, in its order), eng-fra's plain French infinitive that Verbiste knows
    (known) and no earlier verb took, one that fra-eng gives back first, then the better
    score of freedict.listed_pairs, then eng-fra's order."""
    listed = freedict.listed_pairs(eng_fra, fra_eng)
    used, out = set(), []
    for _, en_inf, forms in found:
        translations = eng_fra.get(en_inf, [])
        candidates = []
        for i, fr in enumerate(translations):
            if not INFINITIVE.match(fr) or fr not in known or fr in used:
                continue
            # why: where FreeDict gives the pronominal verb for the same English verb, the plain
            # one is most likely transitive ("stop": arrêter / s'arrêter, "wake up": réveiller)
            pronominal = ("s'" + fr) if fr[0] in VOWEL else ("se " + fr)
            if pronominal in translations or en_inf in fra_eng.get(pronominal, []):
                continue
            score, both = listed[en_inf, fr]
            # why: FreeDict's phrasal verbs are loose ("go out": aboutir, "go on": maintenir);
            # one is taken only where fra-eng gives it first for the French verb
            if en_inf in SKIP or (en_inf, fr) in WRONG or " " in en_inf and score < 2:
                continue
            candidates.append((-both, -score, i, fr))
        if candidates:
            fr = min(candidates)[3]
            used.add(fr)
            out.append((en_inf, forms, fr))
    return out


def verbs(root):
    """[(English infinitive, English forms, French infinitive, French forms)]."""
    known = verbiste_forms(root)
    chosen = choose(ding_verbs.verbs(root), freedict.index(root, "eng-fra"),
                    freedict.index(root, "fra-eng"), known)
    return [(en_inf, forms, fr, known[fr]) for en_inf, forms, fr in chosen]


def elided(word, next_word):
    """ "ne " or "que " as they stand before next_word: "n'arrive", "qu'il"."""
    return word[:-1] + "'" if next_word[:1] in VOWEL else word + " "


def reflexive(person, word, fr_inf):
    """A pronominal verb's word with its pronoun: "se lève", "s'habille" (elided before a vowel,
    and before h where the infinitive is written "s'h..."), "s'est", "se sont", "nous levons"."""
    if person == "1p":
        return "nous " + word
    if word[0] in VOWEL or word[0] == "h" and fr_inf.startswith("s'"):
        return "s'" + word
    return "se " + word


def plural(fr_forms):
    """Verbiste gives the plural: the present's and the participle's."""
    return all(k in fr_forms for k in ("1p", "3p", "mp", "fp"))


def sentence(pattern, subject, en_inf, en_forms, fr_inf, fr_forms, place=None):
    """(English, French) of one PATTERNS or PLACE_PATTERNS row for one subject and a verb's
    forms. A subject is (English, French, gender) in the third person singular or (English,
    French, gender, person) with person "3s", "3p" or "1p"; place is (English, French) for the
    {where} of PLACE_PATTERNS. A pronominal fr_inf ("se reposer", "s'habiller", written so by
    everyday_verbs.py) takes its pronoun and être; fr_forms are then the plain verb's."""
    _, en, fr = pattern
    en_s, fr_s, gender, *person = subject
    person = person[0] if person else "3s"
    many = person != "3s"
    en_slots = {"s": en_s, "pres": en_inf if many else ding_verbs.joined(en_forms["present"][1]),
                "ing": ding_verbs.joined(en_forms["ing"][1]), "inf": en_inf,
                "be": "are" if many else "is", "Be": "Are" if many else "Is",
                "where": place[0] if place else ""}
    if "past" in en_forms:
        en_slots["past"] = ding_verbs.joined(en_forms["past"][1])
    present = fr_forms[person]
    pronominal = fr_inf.startswith(PRONOMINAL)
    aux = "est" if fr_inf in ETRE or pronominal else "a"
    pp = fr_forms[(gender if aux == "est" else "m") + ("p" if many and aux == "est" else "s")]
    aux = AUX[aux, person]
    if pronominal:
        present, aux = (reflexive(person, w, fr_inf) for w in (present, aux))
    fr_slots = {"s": fr_s, "v": present, "ne": elided("ne", present), "que": elided("que", fr_s),
                "aux": aux, "nea": elided("ne", aux), "pp": pp,
                "where": place[2] if place else ""}
    return capital(en.format(**en_slots)), capital(fr.format(**fr_slots))


def patterns_for(en_inf, en_forms, rows=PATTERNS):
    return [row for row in rows
            if not (row[0] in PAST and "past" not in en_forms)
            and not (row[0] in PROGRESSIVE and en_inf.split()[0] in ding_verbs.STATIVE)]


def more_subjects(en_inf, fr_forms):
    """The subjects of ding_verbs.more_draws: SUBJECTS, the plural ones where Verbiste gives the
    plural, the animals where the verb is one an animal does (scenes.py)."""
    out = list(SUBJECTS)
    if plural(fr_forms):
        out += [(en, fr, gender, person)
                for en, _, fr, gender, person in scenes.PLURAL_SUBJECTS]
    if en_inf in scenes.ANIMAL_VERBS:
        out += [(en, fr, gender) for en, _, fr, gender in scenes.ANIMALS]
    return out


def sentences(found, seed="heed", more=MORE_PER_VERB):
    """ding_verbs.PER_VERB sentences per verb (ding_verbs.draws), then up to `more` more
    (ding_verbs.more_draws), each sentence once."""
    seen = set()
    for en_inf, en_forms, fr_inf, fr_forms in found:
        key = "%s\t%s" % (en_inf, fr_inf)
        rows = patterns_for(en_inf, en_forms)
        made = [sentence(row, subject, en_inf, en_forms, fr_inf, fr_forms)
                for row, subject in ding_verbs.draws(key, rows, SUBJECTS, seed)]
        rows += patterns_for(en_inf, en_forms, PLACE_PATTERNS)
        made += [sentence(row, subject, en_inf, en_forms, fr_inf, fr_forms, place)
                 for row, subject, place in ding_verbs.more_draws(
                     key, rows, more_subjects(en_inf, fr_forms), scenes.PLACES, more, seed)]
        for pair in made:
            if pair not in seen:
                seen.add(pair)
                yield pair


def pairs(root, lang):
    if lang == "fr":
        yield from sentences(verbs(root))
