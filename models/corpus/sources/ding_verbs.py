"""Everyday German verbs in their conjugated forms, from the Ding German-English dictionary
(trans-de-en, read by ding.py): short sentences with a third-person singular subject, written for
both languages at once ("The child is getting up." / "Das Kind steht auf.").

Ding gives a verb's forms as aligned units after the headword, on both sides: the participles,
then the third person's present and simple past, with pronouns ("er/sie läuft" :: "he/she
runs", "ich/er/sie lief" :: "I/he/she ran") or without ("fährt ab" :: "leaves", "fuhr ab" ::
"left"); entries leave forms out or add others ("du schläfst"), so the forms are found by their
shape, not their position: the -ing unit (German -nd), the present (German -t, English the
infinitive + s/es/ies), and the past as the unit right after the present. A form is a finite word
and a rest ("steht auf", "geht auf Zehenspitzen", "gets up"); the rest must fit the infinitive
(German: the words before the verb and a separable particle the verb starts with; English: the
words after the verb) and the finite word must look like its verb (first letter, about its
length), so that an example, a misaligned unit or a form without its particle is not read.

Taken: intransitive verbs ({vi}) whose headword (the first alternative on each side) carries no
subject note outside ding.EVERYDAY_NOTES, no note naming its subject ("(Zug)", "(of a person)",
"(z. B. Fluss)"), no placeholder, and whose present and -ing form are given on both sides; the
simple past when both sides give it. Forms are the first alternative of their unit; one with a
note, a bracket, a slash, "sich", "es" or a placeholder is not used. English "to be ..." verbs
are left out. The MAX_VERBS most common verbs are kept, each German and English infinitive once;
Ding gives the third person for about 500 such verbs, so each verb gets PER_VERB sentences.

Sentences: SUBJECTS (general people, written by hand in both languages) in PATTERNS: present,
progressive (German present), past, with an adverb or "nicht" (German: after the finite word,
before the rest: "Das Kind steht jetzt auf."), and questions ("Is the child getting up?" /
"Steht das Kind auf?", "Warum steht er auf?": the finite word before the subject, the rest at the
end, a pronoun subject in lower case). The patterns and each one's subject are chosen by a hash of
the verb, so the output is deterministic.

Then MORE_PER_VERB more per verb, by another hash, with the subjects and places of scenes.py:
the plural and "we" ("Die Kinder stehen auf.": the German plural is the infinitive without the
rest, its past the singular's with -en or -n: "standen", "warteten"), animals for the verbs an
animal does, and PLACE_PATTERNS, a place between the finite word and the rest ("Das Kind steht
im Garten auf."). The PER_VERB sentences stay what they were without these.
"""
import hashlib
import random
import re

from . import ding, scenes
from .templates import capital

PACKAGES = ding.PACKAGES
MAX_VERBS = 1500
PER_VERB = 8

# Third person singular subjects: (English, German nominative), as they stand mid-sentence.
SUBJECTS = [
    ("he", "er"), ("she", "sie"), ("the child", "das Kind"), ("my sister", "meine Schwester"),
    ("our neighbour", "unser Nachbar"), ("the old man", "der alte Mann"),
    ("your brother", "dein Bruder"), ("the baby", "das Baby"),
    ("my grandmother", "meine Großmutter"), ("the teacher", "der Lehrer"),
    ("my father", "mein Vater"), ("the young woman", "die junge Frau"),
    ("his mother", "seine Mutter"), ("the boy", "der Junge"), ("the girl", "das Mädchen"),
    ("my uncle", "mein Onkel"),
]
# (name, English, German). Slots: {s} the subject; English {pres}, {ing}, {past} the forms,
# {inf} the infinitive ("get up"), {be} and {Be} "is" or "are", {where} a place; German {v} and
# {pv} the finite word of the present and of the past ("steht", "stand"), {V} the present's
# capitalised, {rest} and {prest} what follows it (" auf", or ""): an adverb, "nicht" or a place
# goes between the two, the subject after {V} in a question; {r} a reflexive verb's pronoun
# (" sich", " uns"; "" for the others) after the finite word, or after the subject where that
# follows the finite word ("Ruht er sich aus?").
PATTERNS = [
    ("present", "{s} {pres}.", "{s} {v}{r}{rest}."),
    ("progressive", "{s} {be} {ing}.", "{s} {v}{r}{rest}."),
    ("question", "{Be} {s} {ing}?", "{V} {s}{r}{rest}?"),
    ("why", "Why {be} {s} {ing}?", "Warum {v} {s}{r}{rest}?"),
    ("now", "{s} {be} {ing} now.", "{s} {v}{r} jetzt{rest}."),
    ("today", "Today {s} {be} {ing}.", "Heute {v} {s}{r}{rest}."),
    ("often", "{s} often {pres}.", "{s} {v}{r} oft{rest}."),
    ("not", "{s} {be} not {ing}.", "{s} {v}{r} nicht{rest}."),
    ("past", "{s} {past}.", "{s} {pv}{r}{prest}."),
    ("yesterday", "{s} {past} yesterday.", "{s} {pv}{r} gestern{prest}."),
    ("did not", "{s} did not {inf}.", "{s} {pv}{r} nicht{prest}."),
]
# The patterns with a place (scenes.PLACES), drawn only beyond PER_VERB (more_draws).
PLACE_PATTERNS = [
    ("where", "{s} {pres} {where}.", "{s} {v}{r} {where}{rest}."),
    ("where progressive", "{s} {be} {ing} {where}.", "{s} {v}{r} {where}{rest}."),
    ("where question", "{Be} {s} {ing} {where}?", "{V} {s}{r} {where}{rest}?"),
    ("where past", "{s} {past} {where}.", "{s} {pv}{r} {where}{prest}."),
]
# Sentences per verb beyond PER_VERB: other subjects (plural, animals) and places.
MORE_PER_VERB = 4
PROGRESSIVE = {"progressive", "question", "why", "now", "today", "not", "where progressive",
               "where question"}
PAST = {"past", "yesterday", "did not", "where past"}
# why: "nicht" before a noun is wrong ("hält nicht eine Rede": keine Rede, or a contrast)
NEGATED = {"not", "did not"}
# why: English verbs of state are not used in the progressive ("The boy is existing.")
STATIVE = {"exist", "belong", "consist", "seem", "matter", "suffice", "depend", "resemble",
           "know", "own", "remain", "appear", "differ", "last", "cost", "weigh", "mean",
           "count", "prevail", "persist", "abound", "pertain", "understand"}

HEAD_DE = re.compile(r"^([a-zäöüß]+(?: [A-Za-zäöüßÄÖÜ]+)*) \{vi\}$")
HEAD_EN = re.compile(r"^to ([a-z]+(?:[ -][a-z]+)*)$")
WORDS_DE = re.compile(r"^[A-Za-zäöüßÄÖÜ]+(?: [A-Za-zäöüßÄÖÜ]+)*$")
WORDS_EN = re.compile(r"^[a-z]+(?:[ -][a-z]+)*$")
# why: a headword's () note often names the subject ("(Zug)", "(z. B. Fluss)", "(of a dog)"),
# which a person cannot be: German notes starting with a noun or "z. B." are refused, English
# ones kept only where they name an argument ("(at sb.)", "(for)").
SUBJECT_NOTE_DE = re.compile(r"^\((?:[A-ZÄÖÜ]|z\. ?B\.)")
PREPOSITION = r"(?:to|at|in|on|with|for|from|about|of|into|over|against|after|towards?|upon)"
ARGUMENT_NOTE_EN = re.compile(r"\b(?:sb|sth)\b|^\(%s(?:[;,/] ?%s)*\)$" % (PREPOSITION, PREPOSITION))
FORBIDDEN = re.compile(r"\bsich\b|\bes\b|\bit\b|\bthere\b")
SHORT_VERB = re.compile(r"^[^aeiou]*[aeiou][^aeiouwxy]$")
UMLAUT = str.maketrans("äöüÄÖÜ", "aouAOU")


def first(unit):
    """The unit's first alternative; unlike ding.first, a "; " inside brackets ("to run {ran;
    run}", "warten {vi} (auf; bis)") does not end it."""
    depth = 0
    for i, ch in enumerate(unit):
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0 and unit.startswith("; ", i):
            return unit[:i].strip()
    return unit.strip()


def bare_head(text):
    """The headword alternative without its notes, or None where a note names the subject or
    is a subject area outside ding.EVERYDAY_NOTES."""
    if not ding.notes(text) <= ding.EVERYDAY_NOTES:
        return None
    return re.sub(r"\s+", " ", re.sub(r"\s*(\[[^\]]*\]|<[^>]*>)", "", text)).strip()


def parens_ok(text, english):
    for note in re.findall(r"\([^)]*\)", text):
        if english and not ARGUMENT_NOTE_EN.search(note):
            return False
        if not english and SUBJECT_NOTE_DE.match(note):
            return False
    return True


def split_form(form, pronouns):
    """(finite word, rest) of a form, its pronouns ("er/sie", "he/she/it") dropped; None where
    it is not a plain form."""
    for p in pronouns:
        if form.startswith(p + " "):
            form = form[len(p) + 1:]
            break
    if not (WORDS_DE.match(form) or WORDS_EN.match(form)) or FORBIDDEN.search(form):
        return None
    word, _, rest = form.partition(" ")
    return word, rest


def german_rest_ok(rest, infinitive):
    """The rest of a German form fits the infinitive: "auf" for aufstehen, "schlafen" for
    schlafen gehen, "" for gehen."""
    words = infinitive.split()
    head, verb = words[:-1], words[-1]
    if rest.split() == head:
        return True
    particle = rest.split()[-1:] if rest else []
    return rest.split() == head + particle and particle and verb.startswith(particle[0]) and \
        len(verb) > len(particle[0]) + 2


def same_start(word, infinitive, rest):
    """The finite word looks like its verb: the same first letter (or both a vowel) and about
    its length (läuft: laufen, steht auf: stehen, isst: essen; not dringt: durchdringen, which
    lacks its particle), so that a misaligned or incomplete unit is not read."""
    verb = infinitive.split()[-1]
    extra = rest.split()[len(infinitive.split()) - 1:]
    stem = verb[len(extra[0]):] if extra else verb
    a, b = word[:1].translate(UMLAUT), stem[:1].translate(UMLAUT)
    return (a == b or a in "aeiou" and b in "aeiou") and abs(len(word) - len(stem)) <= 3


def english_present(verb):
    if verb.endswith(("s", "x", "z", "ch", "sh", "o")):
        return {verb + "es"}
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return {verb[:-1] + "ies"}
    return {verb + "s"}


def english_ing(verb):
    """The -ing forms a verb may have: work: working, make: making, run: running, lie: lying."""
    out = {verb + "ing", verb + verb[-1] + "ing"}
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        out.add(verb[:-1] + "ing")
    if verb.endswith("ie"):
        out.add(verb[:-2] + "ying")
    return out


def verb_entry(units):
    """(German infinitive, English infinitive, {form: (German, English)}) of one Ding entry, or
    None where it is not a plain intransitive verb with its present given on both sides."""
    de_head = first(units[0][0])
    # why: "schlafen; pennen [Norddt.] [ugs.] {vi}": one {vi} after all alternatives
    if "{v" not in de_head and units[0][0].endswith(" {vi}"):
        de_head += " {vi}"
    de_head = bare_head(de_head)
    # why: English {} hold the irregular forms, with notes of their own ("{wrought [archaic]}")
    en_head = bare_head(re.sub(r"\s*\{[^}]*\}", "", first(units[0][1])))
    if not de_head or not en_head:
        return None
    if not (parens_ok(de_head, False) and parens_ok(en_head, True)):
        return None
    de_head = re.sub(r"\s*\([^)]*\)", "", de_head).strip()
    en_head = re.sub(r"\s*\([^)]*\)", "", en_head).strip()
    de_inf, en_inf = HEAD_DE.match(de_head), HEAD_EN.match(en_head)
    if not de_inf or not en_inf or FORBIDDEN.search(de_head) or FORBIDDEN.search(en_head):
        return None
    de_inf, en_inf = de_inf.group(1), en_inf.group(1)
    en_verb, en_rest = en_inf.partition(" ")[::2]
    if en_verb == "be" or ding.PLACEHOLDER.search(de_inf) or ding.PLACEHOLDER.search(en_inf):
        return None
    forms, after_present = {}, None
    for i, (de_unit, en_unit) in enumerate(units[1:], 1):
        de, en = first(de_unit), first(en_unit)
        de_form = split_form(de, ("ich/er/sie", "er/sie/es", "er/sie"))
        en_form = split_form(en, ("I/he/she", "he/she/it", "he/she"))
        if i == after_present:
            # why: the past follows the present directly; later units are examples
            if de_form and en_form and de_form[1] == forms["present"][0][1] and \
                    en_form[1] == en_rest and de_form[0] != forms["present"][0][0] and \
                    same_start(de_form[0], de_inf, de_form[1]) and \
                    not en_form[0].endswith("s"):
                forms["past"] = (de_form, en_form)
            break
        if not de_form or not en_form or en_form[1] != en_rest or not de_form[0].islower():
            continue
        if "ing" not in forms and de.endswith("nd") and en_form[0] in english_ing(en_verb):
            forms["ing"] = (None, en_form)
        elif "present" not in forms and de_form[0].endswith("t") and \
                en_form[0] in english_present(en_verb) and \
                german_rest_ok(de_form[1], de_inf) and same_start(de_form[0], de_inf, de_form[1]):
            forms["present"] = (de_form, en_form)
            after_present = i + 1
    if "present" not in forms or "ing" not in forms:
        return None
    # why: Ding has typos ("stoping" beside "stopped"); a doubled past wants a doubled -ing
    if "past" in forms and forms["past"][1][0] == en_verb + en_verb[-1] + "ed" and \
            forms["ing"][1][0] != en_verb + en_verb[-1] + "ing":
        return None
    # why: and "wining", "tiping": a one-syllable verb ending in one vowel and one consonant
    # doubles it before -ing (win: winning)
    if SHORT_VERB.match(en_verb) and forms["ing"][1][0] == en_verb + "ing":
        return None
    return de_inf, en_inf, forms


def verbs(root):
    """The MAX_VERBS most common verbs, each German and each English infinitive once:
    [(German infinitive, English infinitive, forms)]. Common: the smallest count (ding.counts)
    of the infinitives' words on their side of the dictionary."""
    en_counts, de_counts = ding.counts(root)
    found = []
    for units in ding.lines(root):
        entry = verb_entry(units)
        if entry:
            de_inf, en_inf, _ = entry
            # why: how often the infinitive recurs in the dictionary's phrases and examples
            # tracks how common the verb is; the smaller side keeps a rare translation
            # (laufen: to function) from riding on its partner's count
            score = min([de_counts[w] for w in de_inf.split()] +
                        [en_counts[w] for w in re.findall(r"[a-z]+", en_inf)])
            found.append((-score, len(found), entry))
    found.sort()
    taken, de_seen, en_seen = [], set(), set()
    for _, _, (de_inf, en_inf, forms) in found:
        if de_inf in de_seen or en_inf in en_seen:
            continue
        de_seen.add(de_inf)
        en_seen.add(en_inf)
        taken.append((de_inf, en_inf, forms))
    return taken[:MAX_VERBS]


def joined(form):
    return " ".join(w for w in form if w)


def plural_forms(de_inf, forms):
    """The German plural's finite words (present, past or None): the infinitive without the
    present's rest ("stehen" for aufstehen, "gehen" for auf Zehenspitzen gehen) and the singular
    past with -en or -n ("standen", "machten"); None where the infinitive's verb does not end
    in -n."""
    (_, rest), _ = forms["present"]
    words = de_inf.split()
    particle = rest.split()[len(words) - 1:]
    verb = words[-1][len(particle[0]):] if particle else words[-1]
    if not verb.endswith("n"):
        return None
    past = None
    if "past" in forms:
        pv = forms["past"][0][0]
        past = pv + ("n" if pv.endswith("e") else "en")
    return verb, past


def sentence(pattern, subject, en_inf, forms, place=None):
    """(English, German) of one PATTERNS or PLACE_PATTERNS row for one subject and a verb's
    forms. A subject is (English, German) in the third person singular, or (English, German,
    person) with person "3s", "3p" or "1p"; forms["plural"] is plural_forms' for the plural,
    forms["reflexive"] true for a verb with "sich" (everyday_verbs.py); place is (English,
    German) for the {where} of PLACE_PATTERNS."""
    _, en, de = pattern
    en_s, de_s, *person = subject
    person = person[0] if person else "3s"
    plural = person != "3s"
    (v, rest), en_pres = forms["present"]
    en_slots = {"s": en_s, "pres": en_inf if plural else joined(en_pres),
                "ing": joined(forms["ing"][1]), "inf": en_inf, "be": "are" if plural else "is",
                "Be": "Are" if plural else "Is", "where": place[0] if place else ""}
    if plural:
        v = forms["plural"][0]
    reflexive = (" uns" if person == "1p" else " sich") if forms.get("reflexive") else ""
    de_slots = {"s": de_s, "v": v, "V": capital(v), "rest": " " + rest if rest else "",
                "where": place[1] if place else "", "r": reflexive}
    if "past" in forms:
        (pv, prest), en_past = forms["past"]
        en_slots["past"] = joined(en_past)
        de_slots.update(pv=forms["plural"][1] if plural else pv,
                        prest=" " + prest if prest else "")
    return capital(en.format(**en_slots)), capital(de.format(**de_slots))


def patterns_for(en_inf, forms, rows=PATTERNS):
    out = []
    for row in rows:
        name = row[0]
        if name in PAST and "past" not in forms:
            continue
        if name in PROGRESSIVE and en_inf.split()[0] in STATIVE:
            continue
        if name in NEGATED and re.search(r"[A-ZÄÖÜ]", forms["present"][0][1]):
            continue
        out.append(row)
    return out


def rng_for(key, seed):
    return random.Random(hashlib.sha1(("%s\t%s" % (seed, key)).encode("utf-8")).digest())


def draws(key, rows, subjects, seed="heed"):
    """[(pattern row, subject)] for one verb: PER_VERB of its rows, each once, each with a
    subject, chosen by a hash of key (the verb), so the result is stable."""
    rng = rng_for(key, seed)
    return [(row, rng.choice(subjects)) for row in rng.sample(rows, min(PER_VERB, len(rows)))]


def more_draws(key, rows, subjects, places, count, seed="heed"):
    """[(pattern row, subject, place or None)]: count more for one verb, by a hash of key apart
    from draws', each row and subject by chance (a place for a PLACE_PATTERNS row); the caller
    drops what repeats."""
    rng = rng_for(key + "\tmore", seed)
    out = []
    for _ in range(count):
        row, subject = rng.choice(rows), rng.choice(subjects)
        out.append((row, subject, rng.choice(places) if row[0].startswith("where") else None))
    return out


def more_subjects(en_inf, plural):
    """The subjects of more_draws: SUBJECTS, the plural ones where the verb has a plural, the
    animals where the verb is one an animal does (scenes.py)."""
    out = list(SUBJECTS)
    if plural:
        out += [(en, de, person) for en, de, _, _, person in scenes.PLURAL_SUBJECTS]
    if en_inf in scenes.ANIMAL_VERBS:
        out += [(en, de) for en, de, _, _ in scenes.ANIMALS]
    return out


def sentences(found, seed="heed", more=MORE_PER_VERB):
    """PER_VERB sentences per verb (draws), then up to `more` more (more_draws), each sentence
    once."""
    seen = set()
    for de_inf, en_inf, forms in found:
        key = "%s\t%s" % (en_inf, de_inf)
        rows = patterns_for(en_inf, forms)
        made = [sentence(row, subject, en_inf, forms)
                for row, subject in draws(key, rows, SUBJECTS, seed)]
        plural = plural_forms(de_inf, forms)
        forms = dict(forms, plural=plural)
        rows += patterns_for(en_inf, forms, PLACE_PATTERNS)
        made += [sentence(row, subject, en_inf, forms, place and place[:2])
                 for row, subject, place in more_draws(
                     key, rows, more_subjects(en_inf, plural), scenes.PLACES, more, seed)]
        for pair in made:
            if pair not in seen:
                seen.add(pair)
                yield pair


def pairs(root, lang):
    if lang == "de":
        yield from sentences(verbs(root))
