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
"""
import hashlib
import random
import re

from . import ding
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
# (name, English, German). Slots: {s} the subject; English {pres}, {ing}, {past} the forms and
# {inf} the infinitive ("get up"); German {v} and {pv} the finite word of the present and of the
# past ("steht", "stand"), {V} the present's capitalised, {rest} and {prest} what follows it
# (" auf", or ""): an adverb or "nicht" goes between the two, the subject after {V} in a question.
PATTERNS = [
    ("present", "{s} {pres}.", "{s} {v}{rest}."),
    ("progressive", "{s} is {ing}.", "{s} {v}{rest}."),
    ("question", "Is {s} {ing}?", "{V} {s}{rest}?"),
    ("why", "Why is {s} {ing}?", "Warum {v} {s}{rest}?"),
    ("now", "{s} is {ing} now.", "{s} {v} jetzt{rest}."),
    ("today", "Today {s} is {ing}.", "Heute {v} {s}{rest}."),
    ("often", "{s} often {pres}.", "{s} {v} oft{rest}."),
    ("not", "{s} is not {ing}.", "{s} {v} nicht{rest}."),
    ("past", "{s} {past}.", "{s} {pv}{prest}."),
    ("yesterday", "{s} {past} yesterday.", "{s} {pv} gestern{prest}."),
    ("did not", "{s} did not {inf}.", "{s} {pv} nicht{prest}."),
]
PROGRESSIVE = {"progressive", "question", "why", "now", "today", "not"}
PAST = {"past", "yesterday", "did not"}
# why: "nicht" before a noun is wrong ("hält nicht eine Rede": keine Rede, or a contrast)
NEGATED = {"not", "did not"}
# why: English verbs of state are not used in the progressive ("The boy is existing.")
STATIVE = {"exist", "belong", "consist", "seem", "matter", "suffice", "depend", "resemble",
           "know", "own", "remain", "appear", "differ", "last", "cost", "weigh", "mean",
           "count", "prevail", "persist", "abound", "pertain"}

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


def sentence(pattern, subject, en_inf, forms):
    """(English, German) of one PATTERNS row for one SUBJECTS row and a verb's forms."""
    _, en, de = pattern
    (v, rest), en_pres = forms["present"]
    en_slots = {"s": subject[0], "pres": joined(en_pres), "ing": joined(forms["ing"][1]),
                "inf": en_inf}
    de_slots = {"s": subject[1], "v": v, "V": capital(v), "rest": " " + rest if rest else ""}
    if "past" in forms:
        (pv, prest), en_past = forms["past"]
        en_slots["past"] = joined(en_past)
        de_slots.update(pv=pv, prest=" " + prest if prest else "")
    return capital(en.format(**en_slots)), capital(de.format(**de_slots))


def patterns_for(en_inf, forms):
    out = []
    for row in PATTERNS:
        name = row[0]
        if name in PAST and "past" not in forms:
            continue
        if name in PROGRESSIVE and en_inf.split()[0] in STATIVE:
            continue
        if name in NEGATED and re.search(r"[A-ZÄÖÜ]", forms["present"][0][1]):
            continue
        out.append(row)
    return out


def draws(key, rows, subjects, seed="heed"):
    """[(pattern row, subject)] for one verb: PER_VERB of its rows, each once, each with a
    subject, chosen by a hash of key (the verb), so the result is stable."""
    rng = random.Random(hashlib.sha1(("%s\t%s" % (seed, key)).encode("utf-8")).digest())
    return [(row, rng.choice(subjects)) for row in rng.sample(rows, min(PER_VERB, len(rows)))]


def sentences(found, seed="heed"):
    """PER_VERB sentences per verb (draws)."""
    for de_inf, en_inf, forms in found:
        for row, subject in draws("%s\t%s" % (en_inf, de_inf), patterns_for(en_inf, forms),
                                  SUBJECTS, seed):
            yield sentence(row, subject, en_inf, forms)


def pairs(root, lang):
    if lang == "de":
        yield from sentences(verbs(root))
