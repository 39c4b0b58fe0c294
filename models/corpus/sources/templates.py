"""Short sentences around a dictionary noun, in English, German and French, with the noun's
article, case and number made to agree: "The squirrel is small." / "Das Eichhörnchen ist klein." /
"L'écureuil est petit."

A noun is a Noun(en, en_plural, word, plural, gender) with gender "m", "f" or "n" (German) or "m",
"f" (French). Every template is written by hand for all three languages at once; a slot names a
determiner and a case, e.g. {def.acc} is "den Hund" / "die Katze" / "das Haus" in German and "le
chien" / "la chatte" / "l'arbre" in French, {indef.nom+color} is "ein roter Hund" / "un chien
rouge". The rules used, and only those:
- German: der/die/das, ein/eine, kein, mein, dein, dieser declined for nominative, accusative and
  dative singular and the plural; an adjective after an article takes the weak (der rote) or mixed
  (ein roter) ending. Nouns whose singular changes with case (weak masculines such as der Junge /
  den Jungen, Herz) are not given to the templates (see usable_de).
- French: le/la/l', un/une, ce/cet/cette, mon/ma (mon before a vowel), de/d'; elision looks at the
  next word, whether adjective or noun; colour adjectives follow the noun, petit and nouveau
  (nouvel) precede it; predicative adjectives agree in gender and number. Nouns starting with h
  (aspirated or not, a dictionary does not say) are left out.
- English: a/an by the next word's first sound (rough: vowel letters, with "uni", "use", "eu",
  "one" taking "a" and "hour", "honest", "honour", "heir" taking "an").
Each noun gets a few templates chosen by a hash of the noun, so the set stays varied but the
output is deterministic.
"""
import collections
import hashlib
import random
import re

Noun = collections.namedtuple("Noun", "en en_plural word plural gender")

# Predicative adjectives: English, German (uninflected after sein), French m, f, m pl, f pl.
ADJECTIVES = [
    ("small", "klein", "petit", "petite", "petits", "petites"),
    ("big", "groß", "grand", "grande", "grands", "grandes"),
    ("old", "alt", "vieux", "vieille", "vieux", "vieilles"),
    ("clean", "sauber", "propre", "propre", "propres", "propres"),
    ("expensive", "teuer", "cher", "chère", "chers", "chères"),
    ("beautiful", "schön", "beau", "belle", "beaux", "belles"),
    ("heavy", "schwer", "lourd", "lourde", "lourds", "lourdes"),
    ("broken", "kaputt", "cassé", "cassée", "cassés", "cassées"),
    ("ready", "fertig", "prêt", "prête", "prêts", "prêtes"),
    ("empty", "leer", "vide", "vide", "vides", "vides"),
    ("dirty", "schmutzig", "sale", "sale", "sales", "sales"),
    ("important", "wichtig", "important", "importante", "importants", "importantes"),
    ("wet", "nass", "mouillé", "mouillée", "mouillés", "mouillées"),
    ("long", "lang", "long", "longue", "longs", "longues"),
    ("short", "kurz", "court", "courte", "courts", "courtes"),
    ("new", "neu", "neuf", "neuve", "neufs", "neuves"),
    ("light", "leicht", "léger", "légère", "légers", "légères"),
    ("far away", "weit weg", "loin", "loin", "loin", "loin"),
]
# Attributive colours: English, German stem (takes an ending), French m, f, m pl, f pl (after the
# noun).
COLOURS = [
    ("red", "rot", "rouge", "rouge", "rouges", "rouges"),
    ("black", "schwarz", "noir", "noire", "noirs", "noires"),
    ("white", "weiß", "blanc", "blanche", "blancs", "blanches"),
    ("green", "grün", "vert", "verte", "verts", "vertes"),
    ("blue", "blau", "bleu", "bleue", "bleus", "bleues"),
    ("yellow", "gelb", "jaune", "jaune", "jaunes", "jaunes"),
]
# Attributive adjectives before the French noun: English, German stem, French m, m before a
# vowel, f.
BEFORE = [("small", "klein", "petit", "petit", "petite"),
          ("new", "neu", "nouveau", "nouvel", "nouvelle"),
          ("big", "groß", "grand", "grand", "grande")]
NUMBERS = [("two", "zwei", "deux"), ("three", "drei", "trois"), ("four", "vier", "quatre"),
           ("five", "fünf", "cinq"), ("six", "sechs", "six"), ("seven", "sieben", "sept"),
           ("eight", "acht", "huit"), ("nine", "neun", "neuf"), ("ten", "zehn", "dix"),
           ("twelve", "zwölf", "douze")]

# Singular templates: (English, German, French). Slots: {n} the English noun, {a} "a"/"an" + the
# English noun, {adj} a predicative adjective, {colour} an English colour; German and French
# {det.case} or {det.case+colour} / {det.case+before}; French {det} (no case).
SINGULAR = [
    ("The {n} is {adj}.", "{def.nom} ist {adj}.", "{def} est {adj}."),
    ("This is {a}.", "Das ist {indef.nom}.", "C'est {indef}."),
    ("Where is the {n}?", "Wo ist {def.nom}?", "Où est {def} ?"),
    ("I see the {n}.", "Ich sehe {def.acc}.", "Je vois {def}."),
    ("I have {a}.", "Ich habe {indef.acc}.", "J'ai {indef}."),
    ("I do not have {a}.", "Ich habe {kein.acc}.", "Je n'ai pas {de}."),
    ("I need {a}.", "Ich brauche {indef.acc}.", "J'ai besoin {d_indef}."),
    ("Do you have {a}?", "Hast du {indef.acc}?", "As-tu {indef} ?"),
    ("Where is my {n}?", "Wo ist {mein.nom}?", "Où est {mon} ?"),
    ("I am looking for the {n}.", "Ich suche {def.acc}.", "Je cherche {def}."),
    ("The {n} is here.", "{def.nom} ist hier.", "{def} est ici."),
    ("The {n} is not here.", "{def.nom} ist nicht hier.", "{def} n'est pas ici."),
    ("Is the {n} {adj}?", "Ist {def.nom} {adj}?", "Est-ce que {def} est {adj} ?"),
    ("This {n} is {adj}.", "{dies.nom} ist {adj}.", "{ce} est {adj}."),
    ("I bought {a}.", "Ich habe {indef.acc} gekauft.", "J'ai acheté {indef}."),
    ("My {n} is {adj}.", "{mein.nom} ist {adj}.", "{mon} est {adj}."),
    ("Your {n} is here.", "{dein.nom} ist hier.", "{ton} est ici."),
    ("Can you see the {n}?", "Kannst du {def.acc} sehen?", "Peux-tu voir {def} ?"),
    ("I like this {n}.", "Ich mag {dies.acc}.", "J'aime {ce}."),
    ("The {n} was {adj}.", "{def.nom} war {adj}.", "{def} était {adj}."),
    ("There is {a} here.", "Hier ist {indef.nom}.", "Il y a {indef} ici."),
    ("I have {a_colour}.", "Ich habe {indef.acc+colour}.", "J'ai {indef+colour}."),
    ("The {colour} {n} is mine.", "{def.nom+colour} gehört mir.", "{def+colour} est à moi."),
    ("She is buying {a_before}.", "Sie kauft {indef.acc+before}.", "Elle achète {indef+before}."),
    ("We are waiting for the {n}.", "Wir warten auf {def.acc}.", "Nous attendons {def}."),
    ("He forgot the {n}.", "Er hat {def.acc} vergessen.", "Il a oublié {def}."),
    ("Where can I find {a}?", "Wo finde ich {indef.acc}?", "Où puis-je trouver {indef} ?"),
    ("It is under the {n}.", "Es ist unter {def.dat}.", "C'est sous {def}."),
    ("It is behind the {n}.", "Es ist hinter {def.dat}.", "C'est derrière {def}."),
    ("Give me the {n}, please.", "Gib mir bitte {def.acc}.", "Donne-moi {def}, s'il te plaît."),
    ("How much does the {n} cost?", "Wie viel kostet {def.nom}?", "Combien coûte {def} ?"),
    ("I lost my {n}.", "Ich habe {mein.acc} verloren.", "J'ai perdu {mon}."),
    ("I would like {a}, please.", "Ich hätte gern {indef.acc}, bitte.",
     "Je voudrais {indef}, s'il vous plaît."),
    ("The {n} is in the kitchen.", "{def.nom} ist in der Küche.", "{def} est dans la cuisine."),
    ("I cannot find the {n}.", "Ich finde {def.acc} nicht.", "Je ne trouve pas {def}."),
    ("Is this your {n}?", "Ist das {dein.nom}?", "Est-ce que c'est {ton} ?"),
    ("The {colour} {n} is {adj}.", "{def.nom+colour} ist {adj}.", "{def+colour} est {adj}."),
]
PLURAL = [
    ("The {ns} are {adj}.", "Die {PL} sind {adj}.", "Les {pl} sont {adj}."),
    ("Where are the {ns}?", "Wo sind die {PL}?", "Où sont les {pl} ?"),
    ("I see {num} {ns}.", "Ich sehe {num} {PL}.", "Je vois {num} {pl}."),
    ("We have {num} {ns}.", "Wir haben {num} {PL}.", "Nous avons {num} {pl}."),
    ("These {ns} are {adj}.", "Diese {PL} sind {adj}.", "Ces {pl} sont {adj}."),
    ("My {ns} are here.", "Meine {PL} sind hier.", "Mes {pl} sont ici."),
    ("I bought {num} {ns}.", "Ich habe {num} {PL} gekauft.", "J'ai acheté {num} {pl}."),
    ("Where did you put the {ns}?", "Wo hast du die {PL} hingelegt?", "Où as-tu mis les {pl} ?"),
    ("There are many {ns} here.", "Hier gibt es viele {PL}.", "Il y a beaucoup {de_pl} ici."),
    ("The {colour} {ns} are here.", "Die {colour_pl} {PL} sind hier.", "Les {pl} {colour} sont ici."),
]

# German determiners: {case: (m, f, n)}, and the plural.
DE_DET = {
    "def": ({"nom": ("der", "die", "das"), "acc": ("den", "die", "das"),
             "dat": ("dem", "der", "dem")}, "die"),
    "indef": ({"nom": ("ein", "eine", "ein"), "acc": ("einen", "eine", "ein"),
               "dat": ("einem", "einer", "einem")}, None),
    "dies": ({"nom": ("dieser", "diese", "dieses"), "acc": ("diesen", "diese", "dieses"),
              "dat": ("diesem", "dieser", "diesem")}, "diese"),
}
for _p in ("kein", "mein", "dein"):
    DE_DET[_p] = ({c: tuple(_p + e[len("ein"):] for e in v) for c, v in DE_DET["indef"][0].items()},
                  _p + "e")
WEAK = {"def", "dies"}  # adjective endings after these: weak; after ein/kein/mein: mixed
GENDER_INDEX = {"m": 0, "f": 1, "n": 2}


def de_ending(det, case, gender):
    if det in WEAK:
        return "e" if case == "nom" or (case == "acc" and gender != "m") else "en"
    if case == "dat" or (case == "acc" and gender == "m"):
        return "en"
    return {"m": "er", "f": "e", "n": "es"}[gender]


def de_phrase(noun, det, case, adj=None):
    article = DE_DET[det][0][case][GENDER_INDEX[noun.gender]]
    if adj:
        return "%s %s%s %s" % (article, adj, de_ending(det, case, noun.gender), noun.word)
    return "%s %s" % (article, noun.word)


VOWEL = "aeiouyàâäéèêëîïôöûùüœæ"


def fr_vowel(word):
    return word[:1].lower() in VOWEL


def fr_phrase(noun, det, colour=None, before=None):
    """det: def, indef, ce, mon, ton, de (pas de), d_indef (besoin d'un)."""
    f = noun.gender == "f"
    head = noun.word
    if before:
        head = "%s %s" % (before[4] if f else before[3] if fr_vowel(noun.word) else before[2],
                          noun.word)
    if colour:
        head = "%s %s" % (noun.word, colour[3] if f else colour[2])
    vowel = fr_vowel(head)
    if det == "def":
        return ("l'" if vowel else "la " if f else "le ") + head
    if det == "indef":
        return ("une " if f else "un ") + head
    if det == "d_indef":
        return ("d'une " if f else "d'un ") + head
    if det == "de":
        return ("d'" if vowel else "de ") + head
    if det == "ce":
        return ("cette " if f else "cet " if vowel else "ce ") + head
    if det in ("mon", "ton"):
        return (det[0] + ("a " if f and not vowel else "on ")) + head
    raise ValueError(det)


def fr_adjective(adj, gender, plural):
    return adj[2 + (1 if gender == "f" else 0) + (2 if plural else 0)]


def a_an(phrase):
    w = phrase.lower()
    if w.startswith(("hour", "honest", "honour", "heir")):
        return "an " + phrase
    if w.startswith(("uni", "use", "usu", "eu", "one", "once", "ewe")):
        return "a " + phrase
    return ("an " if w[:1] in "aeio" or w.startswith("u") else "a ") + phrase


def capital(s):
    return s[:1].upper() + s[1:]


def substitute(template, slots):
    return re.sub(r"\{([^}]+)\}", lambda m: slots[m.group(1)], template)


def fill(template, noun, lang, rng, plural=False):
    """(English, translation) for one template (SINGULAR or PLURAL row) and one noun."""
    en, de, fr = template
    adj = rng.choice(ADJECTIVES)
    colour = rng.choice(COLOURS)
    before = rng.choice(BEFORE)
    num = rng.choice(NUMBERS)
    values = {"n": noun.en, "ns": noun.en_plural, "a": a_an(noun.en), "adj": adj[0],
              "colour": colour[0], "a_colour": a_an(colour[0] + " " + noun.en),
              "a_before": a_an(before[0] + " " + noun.en), "num": num[0]}
    src = substitute(en, values)
    if lang == "de":
        slots = {"adj": adj[1], "PL": noun.plural, "num": num[1], "colour_pl": colour[1] + "en"}
        for det in DE_DET:
            for case in ("nom", "acc", "dat"):
                slots["%s.%s" % (det, case)] = de_phrase(noun, det, case)
                slots["%s.%s+colour" % (det, case)] = de_phrase(noun, det, case, colour[1])
                slots["%s.%s+before" % (det, case)] = de_phrase(noun, det, case, before[1])
        tgt = substitute(de, slots)
    else:
        slots = {"adj": fr_adjective(adj, noun.gender, plural), "pl": noun.plural,
                 "num": num[2], "colour": colour[4 + (1 if noun.gender == "f" else 0)],
                 "de_pl": ("d'" if fr_vowel(noun.plural) else "de ") + noun.plural}
        for det in ("def", "indef", "ce", "mon", "ton", "de", "d_indef"):
            slots[det] = fr_phrase(noun, det)
            slots[det + "+colour"] = fr_phrase(noun, det, colour=colour)
            slots[det + "+before"] = fr_phrase(noun, det, before=before)
        tgt = substitute(fr, slots)
    return capital(src), capital(tgt)


def sentences(nouns, lang, per_noun=3, plural_share=3, seed="heed"):
    """Up to per_noun singular sentences per noun, and one plural sentence for one noun in
    plural_share; the choice is a hash of the noun, so the result is stable."""
    for noun in nouns:
        h = hashlib.sha1(("%s\t%s\t%s" % (seed, noun.en, noun.word)).encode("utf-8")).digest()
        rng = random.Random(h)
        for t in rng.sample(SINGULAR, per_noun):
            yield fill(t, noun, lang, rng)
        if noun.plural and noun.en_plural and h[0] % plural_share == 0:
            yield fill(rng.choice(PLURAL), noun, lang, rng, plural=True)


def usable_de(noun):
    """False for nouns the templates would decline wrongly: weak masculines (their plural is the
    singular + (e)n: der Junge, den Jungen; der Mensch, den Menschen), adjectival nouns (der
    Beamte, ein Beamter), Herz (dem Herzen)."""
    w, p = noun.word, noun.plural
    if noun.gender == "m" and p in (w + "n", w + "en"):
        return False
    if p == w[:-1] or w in ("Herz", "Name", "Buchstabe", "Gedanke", "Friede", "Glaube"):
        return False
    return True


def usable_fr(noun):
    return not noun.word.lower().startswith("h")


def fr_plural(word):
    """The regular French plural, or None where it is irregular or unsure."""
    if word.endswith(("s", "x", "z")):
        return word
    if word.endswith(("eau", "au", "eu")) and word not in ("pneu", "bleu"):
        return word + "x"
    if word.endswith("al"):
        return None if word in ("bal", "carnaval", "festival", "chacal", "récital", "régal") \
            else word[:-2] + "aux"
    if word.endswith("ail") or word in ("bijou", "caillou", "chou", "genou", "hibou", "joujou",
                                         "pou", "œil", "ciel"):
        return None
    return word + "s"
