"""Unicode CLDR (unicode-cldr-core, usr/share/unicode/cldr/common): the names CLDR keeps in every
language.

- annotations/<lang>.xml: the text-to-speech name of every emoji and symbol, which names
  everyday objects, animals, food and gestures ("squirrel" / "Eichhörnchen" / "écureuil"),
  paired with the English one by code point; as short phrases.
- main/<lang>.xml: the names of countries and regions and of languages (no alt= variants), as
  phrases; the weekday and month names (Gregorian calendar, format context, wide) put into a few
  short sentences written here for the three languages ("The library is closed on Monday." /
  "Die Bibliothek ist am Montag geschlossen." / "La bibliothèque est fermée le lundi.").
"""
import os
import re

from .common import strip_markup

PACKAGES = {"all": ["unicode-cldr-core"]}
CLDR = "usr/share/unicode/cldr/common"
TTS = re.compile(r'<annotation cp="([^"]+)" type="tts">([^<]+)</annotation>')
# Places: English, German with its nominative article, French with its article, French gender.
PLACES = [("shop", "Der Laden", "Le magasin", "m"),
          ("library", "Die Bibliothek", "La bibliothèque", "f"),
          ("museum", "Das Museum", "Le musée", "m"),
          ("post office", "Die Post", "La poste", "f"),
          ("swimming pool", "Das Schwimmbad", "La piscine", "f"),
          ("bank", "Die Bank", "La banque", "f"),
          ("school", "Die Schule", "L'école", "f"),
          ("restaurant", "Das Restaurant", "Le restaurant", "m"),
          ("pharmacy", "Die Apotheke", "La pharmacie", "f"),
          ("town hall", "Das Rathaus", "La mairie", "f")]
DAY_SENTENCES = [
    ("The {place} is closed on {day}.", "{Ort} ist am {Tag} geschlossen.",
     "{lieu} est {fermé} le {jour}."),
    ("The {place} is open on {day}.", "{Ort} ist am {Tag} geöffnet.",
     "{lieu} est {ouvert} le {jour}."),
    ("See you on {day}.", "Wir sehen uns am {Tag}.", "À {jour}."),
    ("Today is {day}.", "Heute ist {Tag}.", "Aujourd'hui, c'est {jour}."),
    ("I work on {day}.", "Ich arbeite am {Tag}.", "Je travaille le {jour}."),
    ("We are leaving on {day}.", "Wir fahren am {Tag}.", "Nous partons {jour}."),
]
MONTH_SENTENCES = [
    ("My birthday is in {month}.", "Mein Geburtstag ist im {Monat}.",
     "Mon anniversaire est en {mois}."),
    ("It is often cold in {month}.", "Im {Monat} ist es oft kalt.", "Il fait souvent froid en {mois}."),
    ("We are going on holiday in {month}.", "Wir fahren im {Monat} in den Urlaub.",
     "Nous partons en vacances en {mois}."),
]


def read(root, path):
    full = os.path.join(root, CLDR, path)
    if not os.path.exists(full):
        return ""
    with open(full, encoding="utf-8") as f:
        return f.read()


def annotations(root, lang):
    return {cp: strip_markup(name) for cp, name in TTS.findall(read(root, "annotations/%s.xml"
                                                                      % lang))}


def names(text, kind):
    return {t: strip_markup(n) for t, n in re.findall(r'<%s type="([^"]+)">([^<]+)</%s>'
                                                      % (kind, kind), text)}


def calendar_names(text, width_tag, item):
    """The wide, format-context names of the Gregorian calendar: [sun, mon, …] or months."""
    start = text.find('<calendar type="gregorian">')
    if start < 0:
        return []
    block = text[start:]
    m = re.search(r'<%s type="wide">(.*?)</%s>' % (width_tag, width_tag), block, re.S)
    if not m:
        return []
    return [strip_markup(n) for _, n in re.findall(r'<%s type="([^"]+)">([^<]+)</%s>'
                                                   % (item, item), m.group(1))]


def calendar_sentences(en_text, tr_text, lang):
    en_days, tr_days = (calendar_names(t, "dayWidth", "day") for t in (en_text, tr_text))
    en_months, tr_months = (calendar_names(t, "monthWidth", "month") for t in (en_text, tr_text))
    col = 1 if lang == "de" else 2
    for day, (en_day, tr_day) in enumerate(zip(en_days, tr_days)):
        for i, row in enumerate(DAY_SENTENCES):
            place = PLACES[(day + i * 3) % len(PLACES)]
            fem = place[3] == "f"
            slots = {"place": place[0], "day": en_day, "Ort": place[1], "lieu": place[2],
                     "Tag": tr_day, "jour": tr_day, "fermé": "fermée" if fem else "fermé",
                     "ouvert": "ouverte" if fem else "ouvert"}
            yield tuple(re.sub(r"\{([^}]+)\}", lambda m: slots[m.group(1)], row[c])
                        for c in (0, col))
    for en_month, tr_month in zip(en_months, tr_months):
        for row in MONTH_SENTENCES:
            slots = {"month": en_month, "Monat": tr_month, "mois": tr_month}
            yield tuple(re.sub(r"\{([^}]+)\}", lambda m: slots[m.group(1)], row[c])
                        for c in (0, col))


def pairs(root, lang):
    en, tr = annotations(root, "en"), annotations(root, lang)
    for cp in sorted(en):
        if cp in tr and re.search(r"[A-Za-z]{2}", en[cp]):
            yield en[cp], tr[cp]
    en_main, tr_main = read(root, "main/en.xml"), read(root, "main/%s.xml" % lang)
    for kind in ("territory", "language"):
        a, b = names(en_main, kind), names(tr_main, kind)
        for t in sorted(a):
            if t in b:
                yield a[t], b[t]
    yield from calendar_sentences(en_main, tr_main, lang)
