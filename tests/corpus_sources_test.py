"""Tests of the corpus sources that need no download: the noun templates' agreement (German
article, case and gender; French elision, gender and number; English a/an), the Ding line
parser, the Fluent and Qt catalog readers, and the synthetic copy pairs (deterministic, the
token copied on both sides). Run from the repository root: python3 -m tests.corpus_sources_test
(stdlib only)."""
import gzip
import os
import random
import struct
import sys
import tempfile

from models.corpus.sources import (copy_pairs, ding, ding_verbs, freedict, games,
                                   gettext_catalogs, licences, rpgs, scenes, templates, ui,
                                   verbs_fr)
from models.corpus.sources.templates import Noun

FAILED = []


def check(what, got, want):
    if got != want:
        FAILED.append(what)
        print("FAIL %s: got %r, want %r" % (what, got, want))


def write_mo(path, messages):
    """A GNU .mo catalog of (msgid, msgstr) in UTF-8, as msgfmt writes it (no hash table)."""
    keys = sorted(messages + [("", "Content-Type: text/plain; charset=UTF-8\n")])
    ids = b"".join(k.encode() + b"\0" for k, _ in keys)
    strs = b"".join(v.encode() + b"\0" for _, v in keys)
    n = len(keys)
    table, offset = [], 28 + 16 * n  # the strings follow the header and the two tables
    for k, _ in keys:
        table.append((len(k.encode()), offset))
        offset += len(k.encode()) + 1
    trans = []
    for _, v in keys:
        trans.append((len(v.encode()), offset))
        offset += len(v.encode()) + 1
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack("<7I", 0x950412DE, 0, n, 28, 28 + 8 * n, 0, 0))
        f.write(b"".join(struct.pack("<2I", *e) for e in table + trans) + ids + strs)


def fill(noun, lang, template):
    return templates.fill(template, noun, lang, random.Random(0))


def main():
    dog = Noun("dog", "dogs", "Hund", "Hunde", "m")
    cat = Noun("cat", "cats", "Katze", "Katzen", "f")
    house = Noun("house", "houses", "Haus", "Häuser", "n")
    apple = Noun("apple", "apples", "Apfel", "Äpfel", "m")
    see = ("I see the {n}.", "Ich sehe {def.acc}.", "Je vois {def}.")
    have = ("I have {a}.", "Ich habe {indef.acc}.", "J'ai {indef}.")
    under = ("It is under the {n}.", "Es ist unter {def.dat}.", "C'est sous {def}.")
    check("de acc m", fill(dog, "de", see), ("I see the dog.", "Ich sehe den Hund."))
    check("de acc f", fill(cat, "de", see)[1], "Ich sehe die Katze.")
    check("de acc n", fill(house, "de", see)[1], "Ich sehe das Haus.")
    check("de indef acc m", fill(dog, "de", have)[1], "Ich habe einen Hund.")
    check("de indef acc n", fill(house, "de", have)[1], "Ich habe ein Haus.")
    check("de dat f", fill(cat, "de", under)[1], "Es ist unter der Katze.")
    check("en an", fill(apple, "de", have)[0], "I have an apple.")
    check("de mixed adjective", templates.de_phrase(dog, "indef", "acc", "rot"), "einen roten Hund")
    check("de weak adjective", templates.de_phrase(house, "def", "nom", "rot"), "das rote Haus")
    check("de strong-ish n", templates.de_phrase(house, "indef", "nom", "rot"), "ein rotes Haus")
    check("de kein", templates.de_phrase(cat, "kein", "acc"), "keine Katze")
    check("weak masculine left out", templates.usable_de(Noun("boy", "boys", "Junge", "Jungen",
                                                               "m")), False)
    arbre = Noun("tree", "trees", "arbre", "arbres", "m")
    ecole = Noun("school", "schools", "école", "écoles", "f")
    maison = Noun("house", "houses", "maison", "maisons", "f")
    check("fr elision", templates.fr_phrase(arbre, "def"), "l'arbre")
    check("fr cet", templates.fr_phrase(arbre, "ce"), "cet arbre")
    check("fr mon before vowel", templates.fr_phrase(ecole, "mon"), "mon école")
    check("fr ma", templates.fr_phrase(maison, "mon"), "ma maison")
    check("fr colour agreement", templates.fr_phrase(maison, "indef", colour=templates.COLOURS[2]),
          "une maison blanche")
    check("fr nouvel", templates.fr_phrase(arbre, "indef", before=templates.BEFORE[1]),
          "un nouvel arbre")
    check("fr adjective plural f", templates.fr_adjective(templates.ADJECTIVES[0], "f", True),
          "petites")
    check("fr plural", [templates.fr_plural(w) for w in ("chat", "bateau", "journal", "nez")],
          ["chats", "bateaux", "journaux", "nez"])
    plural = ("The {ns} are {adj}.", "Die {PL} sind {adj}.", "Les {pl} sont {adj}.")
    en, fr = templates.fill(plural, maison, "fr", random.Random(0), plural=True)
    adj = [a for a in templates.ADJECTIVES if en.endswith(" %s." % a[0])][0]
    check("fr plural sentence", fr, "Les maisons sont %s." % adj[5])
    got = list(templates.sentences([dog, cat, house], "de"))
    check("templates deterministic", got, list(templates.sentences([dog, cat, house], "de")))
    check("templates end with punctuation", all(s[-1] in ".?" and t[-1] in ".?" for s, t in got),
          True)

    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, ding.PATH)
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write("# comment\nEichhörnchen {n} [zool.] | Eichhörnchen {pl} | Das Eichhörnchen "
                    "klettert auf den Baum. :: squirrel | squirrels | The squirrel climbs the "
                    "tree.\njdn. ärgern {vt} | Er ärgert jdn. :: to annoy sb. | He annoys sb.\n"
                    "Regenschirm {m}; Schirm {m} [ugs.] | Regenschirme {pl}; Schirme {pl} :: "
                    "umbrella; brolly [Br.] [coll.] | umbrellas; brollies\n"
                    "Ganove {m} [ugs.] | Ganoven {pl} :: crook | crooks\n")
        check("ding examples", list(ding.example_pairs(root, "de")),
              [("The squirrel climbs the tree.", "Das Eichhörnchen klettert auf den Baum.")])
        check("ding nouns", [n[:5] for n in ding.noun_entries(root)],
              [("squirrel", "squirrels", "Eichhörnchen", "Eichhörnchen", "n"),
               ("umbrella", "umbrellas", "Regenschirm", "Regenschirme", "m")])
        qm = os.path.join(root, "t.qm")
        src, tr = "Find the duck".encode("utf-8"), "Finde die Ente".encode("utf-16-be")
        record = (b"\x03" + struct.pack(">I", len(tr)) + tr + b"\x06" + struct.pack(">I", len(src))
                  + src + b"\x01")
        with open(qm, "wb") as f:
            f.write(b"\0" * 16 + b"\x69" + struct.pack(">I", len(record)) + record)
        check("qm", list(games.qm_messages(qm)), [("Find the duck", "Finde die Ente")])
    check("supertux: headings alone, paragraphs joined, images and credits dropped",
          games.scroll_segments("-Air Flower\n!images/air.png\n#The flower lets Tux\n#glide."
                                "\n\n\\tJason\n#Thanks!"),
          ["Air Flower", "The flower lets Tux glide.", "Thanks!"])
    check("supertux: messages of unequal segments dropped",
          list(games.supertux_messages([("-Sorry.\n-Come back.", "-Pardon.\n-Reviens."),
                                        ("-Hi!\n\n#Thanks\n\n#all", "-Salut ! Merci à tous")])),
          [("Sorry.", "Pardon."), ("Come back.", "Reviens.")])
    ftl = "a = One\nb = Two { $n }\nc =\n    .label = Open\nd =\n    multi\n    line\n"
    check("ftl", ui.ftl_messages(ftl), {"a": "One", "c.label": "Open"})

    train = [("Version 12 of Firefox is out.", "Version 12 von Firefox ist da."),
             ("Call Anna now.", "Ruf jetzt Anna an."), ("No token here.", "Kein Token hier.")]
    made = copy_pairs.make(train, "de", 2)
    check("copy deterministic", made, copy_pairs.make(train, "de", 2))
    check("copy count", len(made), 2)
    english = " ".join(s for s, _ in train).split()
    for s, t in made:
        new = [w.rstrip(".") for w in s.split() if w not in english]
        check("copy: the new token on both sides", len(new) == 1 and new[0] in t, True)
    test = [("Page %d of the Manual" % i, "Seite %d des Handbuchs" % i) for i in range(40)]
    held = copy_pairs.check(test, "de", 2)
    check("copy check: every kind in turn", sorted(k for _, _, k, _ in held),
          sorted(copy_pairs.KINDS * 2))
    check("copy check: the string on both sides", all(n in s and n in t for s, t, _, n in held),
          True)
    check("copy check: made from the given pairs", all(
        s.replace(n, "x").split()[:1] == ["Page"] for s, _, _, n in held), True)
    typed = copy_pairs.typed_controls(train, "de", 3)
    check("controls deterministic", typed, copy_pairs.typed_controls(train, "de", 3))
    check("controls: the string on both sides, once", all(
        s.count(c) == 1 and t.count(c) == 1 for s, t, _, c in typed), True)
    check("controls: the rest of the pair unchanged", all(
        (" ".join(s.replace(c, " ").split()), " ".join(t.replace(c, " ").split())) in train
        for s, t, _, c in typed), True)
    held = copy_pairs.control_check(test, "de", 3)
    check("control check: every control string in turn", sorted(c for _, _, _, c in held),
          sorted(copy_pairs.CONTROLS * 3))
    check("control check: each place", sorted({p for _, _, p, _ in held}),
          sorted(copy_pairs.PLACES))
    check("control check: placed where it says", all(
        s.startswith(c + " ") if p == "start" else s.endswith(" " + c) if p == "end"
        else s.split(c + " ")[1].split()[0] == t.split(c + " ")[1].split()[0]  # a shared token
        for s, t, p, c in held), True)
    # a source added to the corpus changes the checks only where its pairs come first
    pool = [("Page %d of the Manual by Anna" % i, "Seite %d des Handbuchs von Anna" % i)
            for i in range(400)]
    grown = pool + [("Chapter %d is new" % i, "Kapitel %d ist neu" % i) for i in range(40)]
    for name, make_check, per, kind in (("copy", copy_pairs.check, 10, lambda r: r[2]),
                                        ("control", copy_pairs.control_check, 9, lambda r: r[2:])):
        before, after = make_check(pool, "de", per), make_check(grown, "de", per)
        kept = len(set(before) & set(after))
        check("%s check: a tenth more pairs leaves most of it (%d of %d kept)" % (
            name, kept, len(before)), kept >= 0.75 * len(before), True)
        check("%s check: as many of each as before" % name, sorted(map(kind, after)),
              sorted(map(kind, before)))
    check("copy: emoji of 3 and 4 bytes", all(c in copy_pairs.EMOJI for c in "☕✅👍🚀🧀"), True)
    check("copy: a token also inside a longer word is not used",
          copy_pairs.candidates("the Debian system, Printing System (CUPS)",
                                "das Debian-System, Printing System (CUPS)"), ["Printing"])
    check("ding placeholders", [bool(ding.PLACEHOLDER.search(t)) for t in
                                ("I think so.", "auf jd. anderen", "to help sb.", "so gut wie")],
          [False, True, True, False])
    with tempfile.TemporaryDirectory() as root:
        folder = os.path.join(root, "usr/share/locale/de/LC_MESSAGES")
        write_mo(os.path.join(folder, "cataclysm-dda.mo"),
                 [("A cup of coffee.", "Eine Tasse Kaffee."), ("%s ate it.", "%s aß es."),
                  ("noun\x04Bicycle", "Fahrrad")])
        write_mo(os.path.join(folder, "freedroidrpg-dialogs.mo"),
                 [("Hello, friend.", "Hallo, Freund.")])
        write_mo(os.path.join(folder, "freedroidrpg.mo"), [("cheat_melee", "schummle_Nahkampf")])
        write_mo(os.path.join(folder, "gedit.mo"), [("_Save", "_Speichern")])
        dink, wastesedge, naev = rpgs.GAME_FOLDERS
        write_mo(os.path.join(root, dink % "de"), [("Tell the duck to go home",
                                                    "Der Ente sagen, sie soll heimgehen")])
        write_mo(os.path.join(root, dink % "fr"), [("Hello Dink.", "Bonjour Dink.")])
        write_mo(os.path.join(root, wastesedge % "fr"), [("The thief!", "Le voleur !")])
        write_mo(os.path.join(root, naev % "de"), [("Begone!", "Hinfort!")])
        check("rpgs: the games' catalogs, Dink's and Naev's in their own folders, placeholders and "
              "contexts dropped", sorted(rpgs.pairs(root, "de")),
              [("A cup of coffee.", "Eine Tasse Kaffee."), ("Begone!", "Hinfort!"),
               ("Hello, friend.", "Hallo, Freund."),
               ("Tell the duck to go home", "Der Ente sagen, sie soll heimgehen")])
        check("rpgs: French reads Dink's and Waste's Edge's folders",
              sorted(rpgs.pairs(root, "fr")), [("Hello Dink.", "Bonjour Dink."),
                                               ("The thief!", "Le voleur !")])
        check("gettext: leaves the games' domains to rpgs",
              sorted(gettext_catalogs.pairs(root, "de")), [("Save", "Speichern")])
        flare = os.path.join(root, rpgs.FLARE_PO.replace("*", "empyrean_campaign") % "de")
        os.makedirs(os.path.dirname(flare))
        with open(flare, "w") as f:
            f.write('msgid ""\nmsgstr "Language: de\\n"\n\nmsgid "Gravebloom ink"\n'
                    'msgstr "Grabblütentinte"\n\n#, fuzzy\nmsgid "Old sword"\n'
                    'msgstr "Altes Schwert"\n\nmsgid "Deals %d damage"\nmsgstr "%d Schaden"\n')
        check("rpgs: Flare's mods' .po files, fuzzy and placeholders dropped",
              [p for p in rpgs.pairs(root, "de") if "ink" in p[0] or "sword" in p[0]
               or "damage" in p[0]], [("Gravebloom ink", "Grabblütentinte")])
    with tempfile.TemporaryDirectory() as root:
        doc = os.path.join(root, "usr/share/doc/game-data")
        os.makedirs(doc)
        with open(os.path.join(doc, "copyright"), "w") as f:
            f.write("License:\n  This software is provided 'as-is'.\n  Permission is granted to "
                    "anyone to use this software for any purpose,\n  including commercial "
                    "applications, and to alter it and redistribute it\n\nPackaging: GPL-3\n\n"
                    "Creative Commons 3.0 Attribution\n")
        doc = os.path.join(root, "usr/share/doc/space-data")
        os.makedirs(doc)
        with open(os.path.join(doc, "copyright"), "w") as f:
            f.write("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
                    "\n\nFiles: *\nCopyright: A\nLicense: GPL-3+\n\nFiles: a.png\nCopyright: B\n"
                    "License: \n\nFiles: b.png\nCopyright: C\nLicense: CC-BY-3.0\n")
        check("licences: an empty License line is not read into the next stanza",
              licences.licences_of(root, "space-data")[0], ["GPL-3+ (main)", "CC-BY-3.0"])
        check("licences: a free-form file's zlib wording and long CC name",
              licences.licences_of(root, "game-data")[0], ["GPL-3", "zlib", "CC-BY-3.0"])
    french_nouns_from_two_dictionaries()
    ding_verbs_in_sentences()
    french_verbs_in_sentences()
    print("corpus_sources_test: %d failed" % len(FAILED))
    return 1 if FAILED else 0


def french_nouns_from_two_dictionaries():
    """FreeDict's fra-eng and eng-fra as they are: "gare" is a stage first, "soude" a sofa."""
    fra_eng = {"gare": ["stage", "station", "stop"], "soude": ["sofa", "settee"],
               "sac": ["bag"], "lieu": ["motive", "place"], "pêcher": ["fish"],
               "poisson": ["fish"]}
    eng_fra = {"stage": ["tenue", "phase", "gare", "station"], "station": ["gare", "station"],
               "sofa": ["canapé"], "motive": ["lieu"], "place": ["lieu", "endroit"],
               "fish": ["pêcher", "poisson"]}
    listed = freedict.listed_pairs(fra_eng, eng_fra)
    check("listed: gare / station scores 2 (eng-fra's first), both list it",
          listed["gare", "station"], (2, True))
    check("listed: gare / stage scores 1 (fra-eng's first)", listed["gare", "stage"], (1, True))
    check("listed: soude / sofa is fra-eng's alone", listed["soude", "sofa"], (1, False))
    check("listed: sac / bag though eng-fra has no bag", listed["sac", "bag"], (1, False))
    nouns = {Noun(en, en + "s", fr, fr + "s", "f"): listed[fr, en] for fr, en in listed}
    text = ([("Put the fish in the bag.", "Mettez le poisson dans le sac.")] * 3
            + [("Go fishing.", "Aller pêcher.")] * 2 + [("In place.", "En lieu.")] * 2
            + [("A reason.", "Un motif.")] * 2)
    seen = freedict.together(nouns, text)
    check("together: fish / poisson in 3 pairs, Dice 2 * 3 / (3 + 3)",
          seen["fish", "poisson"], (3, 1.0, 6))
    check("together: plurals count (fishing is not fish)", seen["fish", "pêcher"], (0, 0.0, 5))
    stairs = {Noun("stair", "stairs", "marche", "marches", "f"): (1, True),
              Noun("stairs", "stairs", "escalier", "escaliers", "m"): (1, True)}
    stairs_text = [("Up the stairs.", "En haut de l'escalier.")] * 2
    for order in (list(stairs), list(reversed(list(stairs)))):
        check("together: a form two nouns share counts for both, in either order (%s first)"
              % order[0].en, freedict.together({n: stairs[n] for n in order}, stairs_text),
              {("stair", "marche"): (0, 0.0, 2), ("stairs", "escalier"): (2, 1.0, 4)})
    chosen = {(n.en, n.word) for n in freedict.choose(nouns, seen)}
    check("choose: text vouches for sac / bag, poisson / fish, lieu / place",
          {("bag", "sac"), ("fish", "poisson"), ("place", "lieu")} <= chosen, True)
    check("choose: station takes gare before stage; no fish / pêcher, lieu / motive",
          sorted(p for p in chosen if p[1] in ("gare", "pêcher") or p[0] == "motive"),
          [("station", "gare")])
    check("choose: a pair one dictionary alone lists needs the text (sofa: soude, canapé)",
          sorted(p for p in chosen if p[0] == "sofa"), [])


DING_VERBS = (
    # a regular verb, pronouns given, its English note an argument
    "warten {vi} (auf; bis) | wartend | gewartet | er/sie wartet | ich/er/sie wartete | "
    "er/sie hat/hatte gewartet | Warte! :: to wait (for) | waiting | waited | he/she waits | "
    "I/he/she waited | he/she has/had waited | Wait!\n"
    # a strong verb, {vi} after all alternatives, "du" before the third person
    "schlafen; pennen [Norddt.] [ugs.] {vi} | schlafend; pennend | geschlafen; gepennt | "
    "du schläfst | er/sie schläft | ich/er/sie schlief | er/sie hat/hatte geschlafen :: "
    "to sleep {slept; slept}; to kip [Br.] [coll.] | sleeping; kipping | slept; kipped | "
    "you sleep | he/she sleeps | I/he/she slept | he/she has/had slept\n"
    # separable, forms without pronouns
    "aufstehen {vi} | aufstehend | aufgestanden | steht auf | stand auf :: to get up | "
    "getting up | got up | gets up | got up\n"
    # a present but no past; a noun in the rest (no "nicht")
    "in Ohnmacht fallen {vi} | in Ohnmacht fallend | in Ohnmacht gefallen | fällt in Ohnmacht "
    "| Sie fiel in Ohnmacht. :: to faint | fainting | fainted | faints | She fainted.\n"
    # skipped: transitive; a subject area; a note naming the subject; a form without its
    # particle; no third person
    "essen {vt} | essend | gegessen | er/sie isst | ich/er/sie aß :: to eat {ate; eaten} | "
    "eating | eaten | he/she eats | I/he/she ate\n"
    "investieren {vi} [fin.] | investierend | investiert | investiert | investierte :: "
    "to invest | investing | invested | invests | invested\n"
    "bellen {vi} (Hund) | bellend | gebellt | bellt | bellte :: to bark (of a dog) | barking | "
    "barked | barks | barked\n"
    "durchdringen {vi} | durchdringend | durchgedrungen | dringt | drang :: to come through | "
    "coming through | come through | comes through | came through\n"
    "lachen {vi} | lachend | gelacht :: to laugh | laughing | laughed\n"
    # Ding's typo: a short verb's -ing without its doubled consonant
    "gewinnen {vi} | gewinnend | gewonnen | er/sie gewinnt | ich/er/sie gewann :: to win | "
    "wining | won | he/she wins | I/he/she won\n")


def ding_verbs_in_sentences():
    """Ding's verbs (ding_verbs.py): which entries are read, their forms, and the sentences."""
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, ding.PATH)
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write(DING_VERBS)
        entries = [ding_verbs.verb_entry(u) for u in ding.lines(root)]
        found = ding_verbs.verbs(root)
        made = list(ding_verbs.pairs(root, "de"))
        check("ding verbs: nothing for French", list(ding_verbs.pairs(root, "fr")), [])
    check("ding verbs: vi entries with the third person on both sides, nothing else",
          [e[:2] if e else None for e in entries],
          [("warten", "wait"), ("schlafen", "sleep"), ("aufstehen", "get up"),
           ("in Ohnmacht fallen", "faint"), None, None, None, None, None, None])
    check("ding verbs: the forms of a strong verb", entries[1][2],
          {"ing": (None, ("sleeping", "")), "present": (("schläft", ""), ("sleeps", "")),
           "past": (("schlief", ""), ("slept", ""))})
    check("ding verbs: a separable verb's particle is its rest", entries[2][2],
          {"ing": (None, ("getting", "up")), "present": (("steht", "auf"), ("gets", "up")),
           "past": (("stand", "auf"), ("got", "up"))})
    check("ding verbs: no past where Ding gives none", "past" in entries[3][2], False)
    check("ding verbs: each verb once", sorted(e[0] for e in found),
          ["aufstehen", "in Ohnmacht fallen", "schlafen", "warten"])
    rows = {row[0]: row for row in ding_verbs.PATTERNS}
    child, he, she = ("the child", "das Kind"), ("he", "er"), ("she", "sie")
    _, _, sleep = entries[1]
    _, _, get_up = entries[2]
    _, _, faint = entries[3]
    for pattern, subject, en_inf, forms, want in [
            ("present", child, "sleep", sleep, ("The child sleeps.", "Das Kind schläft.")),
            ("progressive", he, "sleep", sleep, ("He is sleeping.", "Er schläft.")),
            ("question", he, "sleep", sleep, ("Is he sleeping?", "Schläft er?")),
            ("question", child, "get up", get_up,
             ("Is the child getting up?", "Steht das Kind auf?")),
            ("why", she, "get up", get_up, ("Why is she getting up?", "Warum steht sie auf?")),
            ("now", child, "get up", get_up,
             ("The child is getting up now.", "Das Kind steht jetzt auf.")),
            ("today", she, "sleep", sleep, ("Today she is sleeping.", "Heute schläft sie.")),
            ("often", he, "get up", get_up, ("He often gets up.", "Er steht oft auf.")),
            ("not", child, "get up", get_up,
             ("The child is not getting up.", "Das Kind steht nicht auf.")),
            ("past", she, "sleep", sleep, ("She slept.", "Sie schlief.")),
            ("yesterday", child, "get up", get_up,
             ("The child got up yesterday.", "Das Kind stand gestern auf.")),
            ("did not", he, "get up", get_up, ("He did not get up.", "Er stand nicht auf.")),
            ("question", child, "faint", faint,
             ("Is the child fainting?", "Fällt das Kind in Ohnmacht?")),
            ("now", he, "faint", faint, ("He is fainting now.", "Er fällt jetzt in Ohnmacht."))]:
        check("ding verbs: %s, %s, %s" % (pattern, subject[0], en_inf),
              ding_verbs.sentence(rows[pattern], subject, en_inf, forms), want)
    check("ding verbs: no past, no nicht before a noun",
          [r[0] for r in ding_verbs.patterns_for("faint", faint)],
          ["present", "progressive", "question", "why", "now", "today", "often"])
    _, _, wait = entries[0]
    check("ding verbs: the plural's present and past", [
        ding_verbs.plural_forms(*e[::2]) for e in entries[:4]],
        [("warten", "warteten"), ("schlafen", "schliefen"), ("stehen", "standen"),
         ("fallen", None)])
    rows.update({row[0]: row for row in ding_verbs.PLACE_PATTERNS})
    they, children, we = (s[:2] + s[4:] for s in scenes.PLURAL_SUBJECTS if s[0] in (
        "they", "the children", "we"))
    horse, garden = scenes.ANIMALS[0][:2], scenes.PLACES[0][:2]
    with_plural = {v: dict(f, plural=ding_verbs.plural_forms(d, f)) for d, v, f in found}
    for pattern, subject, en_inf, place, want in [
            ("present", they, "sleep", None, ("They sleep.", "Sie schlafen.")),
            ("question", children, "get up", None,
             ("Are the children getting up?", "Stehen die Kinder auf?")),
            ("why", we, "wait", None, ("Why are we waiting?", "Warum warten wir?")),
            ("past", we, "get up", None, ("We got up.", "Wir standen auf.")),
            ("yesterday", children, "sleep", None,
             ("The children slept yesterday.", "Die Kinder schliefen gestern.")),
            ("did not", they, "wait", None, ("They did not wait.", "Sie warteten nicht.")),
            ("often", children, "faint", None,
             ("The children often faint.", "Die Kinder fallen oft in Ohnmacht.")),
            ("present", horse, "sleep", None, ("The horse sleeps.", "Das Pferd schläft.")),
            ("where", child, "sleep", garden,
             ("The child sleeps in the garden.", "Das Kind schläft im Garten.")),
            ("where question", children, "get up", garden,
             ("Are the children getting up in the garden?", "Stehen die Kinder im Garten auf?")),
            ("where progressive", he, "faint", garden,
             ("He is fainting in the garden.", "Er fällt im Garten in Ohnmacht.")),
            ("where past", he, "get up", garden,
             ("He got up in the garden.", "Er stand im Garten auf."))]:
        check("ding verbs: %s, %s, %s" % (pattern, subject[0], en_inf), ding_verbs.sentence(
            rows[pattern], subject, en_inf, with_plural[en_inf], place), want)
    check("ding verbs: animals only for what an animal does; the plural where there is one",
          [len(ding_verbs.more_subjects(v, p)) for v, p in (
              ("sleep", True), ("faint", True), ("faint", None))],
          [len(ding_verbs.SUBJECTS) + len(scenes.PLURAL_SUBJECTS) + len(scenes.ANIMALS),
           len(ding_verbs.SUBJECTS) + len(scenes.PLURAL_SUBJECTS), len(ding_verbs.SUBJECTS)])
    base = sum(min(ding_verbs.PER_VERB, len(ding_verbs.patterns_for(e, f))) for _, e, f in found)
    check("ding verbs: PER_VERB sentences a verb, then at most MORE_PER_VERB more",
          base < len(made) <= base + ding_verbs.MORE_PER_VERB * len(found), True)
    check("ding verbs: the PER_VERB sentences come first, as before the others",
          made[:ding_verbs.PER_VERB], [ding_verbs.sentence(r, s, found[0][1], found[0][2])
                                       for r, s in ding_verbs.draws(
                                           "%s\t%s" % found[0][1::-1],
                                           ding_verbs.patterns_for(*found[0][1:]),
                                           ding_verbs.SUBJECTS)][:ding_verbs.PER_VERB])
    every = {ding_verbs.sentence(row, subject, e, with_plural[e], place)
             for _, e, f in found
             for row in ding_verbs.patterns_for(e, f) + ding_verbs.patterns_for(
                 e, f, ding_verbs.PLACE_PATTERNS)
             for subject in ding_verbs.more_subjects(e, with_plural[e]["plural"])
             for place in ([p[:2] for p in scenes.PLACES] if row[0].startswith("where")
                           else [None])}
    check("ding verbs: every sentence one of the patterns", set(made) <= every, True)
    check("ding verbs: deterministic", made, list(ding_verbs.sentences(found)))
    check("ding verbs: no sentence twice", len(set(made)), len(made))


FR_DING = (
    "tanzen {vi} | tanzend | getanzt | er/sie tanzt | ich/er/sie tanzte :: to dance | dancing | "
    "danced | he/she dances | I/he/she danced\n"
    "schlafen {vi} | schlafend | geschlafen | er/sie schläft | ich/er/sie schlief :: to sleep | "
    "sleeping | slept | he/she sleeps | I/he/she slept\n"
    "weggehen {vi} | weggehend | weggegangen | geht weg | ging weg :: to leave | leaving | left | "
    "leaves | left\n"
    "ankommen {vi} | ankommend | angekommen | kommt an | kam an :: to arrive | arriving | "
    "arrived | arrives | arrived\n"
    "aufstehen {vi} | aufstehend | aufgestanden | steht auf | stand auf :: to get up | "
    "getting up | got up | gets up | got up\n")
# eng-fra and fra-eng entries: sleep lists coucher first, which fra-eng does not give back as
# sleep; get up has only the pronominal se lever
FR_FREEDICT = {
    "eng-fra": ["dance /dɑːns/\ndanser\n", "sleep /sliːp/\n1. coucher, dormir\n2. sommeil\n",
                "leave /liːv/\n1. partir, s'en aller\n", "arrive /əraiv/\narriver\n",
                "get up /getʌp/\nse lever\n"],
    "fra-eng": ["danser\ndance\n", "coucher\nlay, put to bed\n", "dormir\nsleep\n",
                "partir\nleave\n", "arriver\narrive\n", "se lever\nget up\n"]}
FR_VERBS = ("<?xml version=\"1.0\"?>\n<verbs-fr>\n<v><i>arriver</i><t>aim:er</t></v>\n"
            "<v><i>coucher</i><t>aim:er</t></v>\n<v><i>danser</i><t>aim:er</t></v>\n"
            "<v><i>dormir</i><t>dor:mir</t></v>\n<v><i>lever</i><t>l:ever</t></v>\n"
            "<v><i>partir</i><t>men:tir</t></v>\n</verbs-fr>\n")


def fr_persons(forms):
    """Verbiste's <p> per person, alternatives split by "/"."""
    return "".join("<p>%s</p>" % "".join("<i>%s</i>" % f for f in form.split("/"))
                   for form in forms)


def fr_template(name, present, participle):
    """A Verbiste template with only the present and the past participle."""
    return ('<template name="%s"><indicative><present>%s</present></indicative><participle>'
            "<past-participle>%s</past-participle></participle></template>\n" % (
                name, fr_persons(present), fr_persons(participle)))


def write_dictd(folder, name, entries):
    """A FreeDict dictionary as freedict.entries reads it: a .index of base64 offsets, a gzip'd
    .dict.dz."""
    def code(n):
        return "".join(freedict.CODE[(n >> s) & 63] for s in (24, 18, 12, 6, 0)).lstrip("A") or "A"
    data, index, offset = b"", "", 0
    for entry in entries:
        raw = entry.encode("utf-8")
        index += "%s\t%s\t%s\n" % (entry.split("\n")[0], code(offset), code(len(raw)))
        data, offset = data + raw, offset + len(raw)
    with open(os.path.join(folder, "freedict-%s.index" % name), "w", encoding="utf-8") as f:
        f.write(index)
    with gzip.open(os.path.join(folder, "freedict-%s.dict.dz" % name), "wb") as f:
        f.write(data)


def french_verbs_in_sentences():
    """French verbs (verbs_fr.py): the French verb chosen, Verbiste's forms, the sentences."""
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, ding.PATH)
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write(FR_DING)
        folder = os.path.join(root, freedict.DICTD)
        os.makedirs(folder)
        for name, entries in FR_FREEDICT.items():
            write_dictd(folder, name, entries)
        folder = os.path.join(root, verbs_fr.VERBISTE)
        os.makedirs(folder)
        with open(os.path.join(folder, "verbs-fr.xml"), "w") as f:
            f.write(FR_VERBS)
        with open(os.path.join(folder, "conjugation-fr.xml"), "w") as f:
            f.write("<?xml version=\"1.0\"?>\n<conjugation-fr>\n" + fr_template(
                "aim:er", ["e", "es", "e", "ons", "ez", "ent"], ["é", "és", "ée", "ées"])
                + fr_template("dor:mir", ["s", "s", "t", "mons", "mez", "ment"],
                              ["mi", "mis", "mie", "mies"])
                + fr_template("men:tir", ["s", "s", "t", "tons", "tez", "tent"],
                              ["ti", "tis", "tie", "ties"])
                + fr_template("l:ever", ["ève/eve", "èves", "ève", "evons", "evez", "èvent"],
                              ["evé", "evés", "evée", "evées"])
                + "</conjugation-fr>\n")
        forms = verbs_fr.verbiste_forms(root)
        found = verbs_fr.verbs(root)
        made = list(verbs_fr.pairs(root, "fr"))
        check("verbs fr: nothing for German", list(verbs_fr.pairs(root, "de")), [])
    check("verbs fr: Verbiste's present 3sg and participles, the first alternative",
          [tuple(forms[v][k] for k in ("3s", "ms", "fs"))
           for v in ("danser", "dormir", "partir", "lever")],
          [("danse", "dansé", "dansée"), ("dort", "dormi", "dormie"),
           ("part", "parti", "partie"), ("lève", "levé", "levée")])
    check("verbs fr: Verbiste's plural, present 1p and 3p and participles, the first alternative",
          [tuple(forms[v][k] for k in ("1p", "3p", "mp", "fp")) for v in ("dormir", "lever")],
          [("dormons", "dorment", "dormis", "dormies"), ("levons", "lèvent", "levés", "levées")])
    check("verbs fr: the French verb fra-eng gives back; no pronominal one (get up: se lever)",
          [(e, fr) for e, _, fr, _ in found],
          [("dance", "danser"), ("sleep", "dormir"), ("leave", "partir"), ("arrive", "arriver")])
    verb = {e: (e, f, fr, frf) for e, f, fr, frf in found}
    rows = {row[0]: row for row in verbs_fr.PATTERNS}
    he, she, child, sister, father, boy = (verbs_fr.SUBJECTS[i] for i in (0, 1, 2, 3, 10, 13))
    for pattern, subject, en_inf, want in [
            ("present", child, "dance", ("The child dances.", "L'enfant danse.")),
            ("past", father, "dance", ("My father danced.", "Mon père a dansé.")),
            ("progressive", he, "sleep", ("He is sleeping.", "Il dort.")),
            ("question", he, "sleep", ("Is he sleeping?", "Est-ce qu'il dort ?")),
            ("question", boy, "sleep", ("Is the boy sleeping?", "Est-ce que le garçon dort ?")),
            ("why", she, "arrive", ("Why is she arriving?", "Pourquoi est-ce qu'elle arrive ?")),
            ("now", sister, "sleep", ("My sister is sleeping now.", "Ma sœur dort maintenant.")),
            ("today", child, "sleep", ("Today the child is sleeping.",
                                       "Aujourd'hui, l'enfant dort.")),
            ("often", father, "leave", ("My father often leaves.", "Mon père part souvent.")),
            ("not", child, "sleep", ("The child is not sleeping.", "L'enfant ne dort pas.")),
            ("not", child, "arrive", ("The child is not arriving.", "L'enfant n'arrive pas.")),
            ("past", sister, "sleep", ("My sister slept.", "Ma sœur a dormi.")),
            ("did not", he, "sleep", ("He did not sleep.", "Il n'a pas dormi.")),
            ("past", sister, "leave", ("My sister left.", "Ma sœur est partie.")),
            ("yesterday", boy, "leave", ("The boy left yesterday.", "Le garçon est parti hier.")),
            ("did not", she, "leave", ("She did not leave.", "Elle n'est pas partie.")),
            ("yesterday", she, "arrive", ("She arrived yesterday.", "Elle est arrivée hier."))]:
        check("verbs fr: %s, %s, %s" % (pattern, subject[0], en_inf),
              verbs_fr.sentence(rows[pattern], subject, *verb[en_inf]), want)
    check("verbs fr: the English subjects are ding_verbs'", [s[0] for s in verbs_fr.SUBJECTS],
          [s[0] for s in ding_verbs.SUBJECTS])
    rows.update({row[0]: row for row in verbs_fr.PLACE_PATTERNS})
    they, girls, we = (s[:1] + s[2:] for s in scenes.PLURAL_SUBJECTS if s[0] in (
        "they", "the girls", "we"))
    horse = scenes.ANIMALS[0][:1] + scenes.ANIMALS[0][2:]
    garden, bed, home = (p for p in scenes.PLACES if p[0] in ("in the garden", "in bed",
                                                               "at home"))
    for pattern, subject, en_inf, place, want in [
            ("present", they, "sleep", None, ("They sleep.", "Ils dorment.")),
            ("question", they, "arrive", None, ("Are they arriving?", "Est-ce qu'ils arrivent ?")),
            ("past", we, "dance", None, ("We danced.", "Nous avons dansé.")),
            ("past", girls, "leave", None, ("The girls left.", "Les filles sont parties.")),
            ("did not", we, "leave", None, ("We did not leave.", "Nous ne sommes pas partis.")),
            ("not", they, "arrive", None, ("They are not arriving.", "Ils n'arrivent pas.")),
            ("yesterday", horse, "arrive", None,
             ("The horse arrived yesterday.", "Le cheval est arrivé hier.")),
            ("where", child, "sleep", garden,
             ("The child sleeps in the garden.", "L'enfant dort dans le jardin.")),
            ("where question", he, "sleep", bed,
             ("Is he sleeping in bed?", "Est-ce qu'il dort au lit ?")),
            ("where progressive", girls, "dance", home,
             ("The girls are dancing at home.", "Les filles dansent à la maison.")),
            ("where past", sister, "sleep", home,
             ("My sister slept at home.", "Ma sœur a dormi à la maison."))]:
        check("verbs fr: %s, %s, %s" % (pattern, subject[0], en_inf),
              verbs_fr.sentence(rows[pattern], subject, *verb[en_inf], place), want)
    check("verbs fr: the plural only where Verbiste gives it; animals for what they do",
          [len(verbs_fr.more_subjects(v, f)) for v, f in (
              ("sleep", forms["dormir"]), ("dance", forms["danser"]),
              ("dance", {"3s": "danse", "ms": "dansé", "fs": "dansée"}))],
          [len(verbs_fr.SUBJECTS) + len(scenes.PLURAL_SUBJECTS) + len(scenes.ANIMALS),
           len(verbs_fr.SUBJECTS) + len(scenes.PLURAL_SUBJECTS), len(verbs_fr.SUBJECTS)])
    base = ding_verbs.PER_VERB * len(found)
    check("verbs fr: PER_VERB sentences a verb, then at most MORE_PER_VERB more",
          base < len(made) <= base + verbs_fr.MORE_PER_VERB * len(found), True)
    every = {verbs_fr.sentence(row, subject, *v, place) for v in found
             for row in verbs_fr.patterns_for(v[0], v[1]) + verbs_fr.patterns_for(
                 v[0], v[1], verbs_fr.PLACE_PATTERNS)
             for subject in verbs_fr.more_subjects(v[0], v[3])
             for place in (scenes.PLACES if row[0].startswith("where") else [None])}
    check("verbs fr: every sentence one of the patterns", set(made) <= every, True)
    check("verbs fr: deterministic", made, list(verbs_fr.sentences(found)))
    check("verbs fr: no sentence twice", len(set(made)), len(made))


if __name__ == "__main__":
    sys.exit(main())
