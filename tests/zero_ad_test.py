"""models/corpus/sources/zero_ad.py on hand-made files: a public.zip holding 0 A.D.'s gettext
catalogs as the game stores them (l10n/<lang>.public-<domain>.po, escapes and markup as the
game writes them). Checks the pairing by line and sentence, the game's markup, escaped brackets
and line breaks, the manual's hotkey prefixes, and what is dropped: AI leaders' names, 0 A.D.'s
placeholders, fuzzy, plural and untranslated messages, differing numbers and English left in;
"+10% health" is kept. Also checks games.po_entries' fields and references. Run from the
repository root: python3 -m tests.zero_ad_test (stdlib only)."""
import os
import tempfile
import unittest
import zipfile

from models.corpus.sources import games, zero_ad

HEADER = r'''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Language: de\n"

'''
CIVILIZATIONS = HEADER + r'''#: simulation/data/civs/athen.jsonAINames[0]
msgid "Themistocles"
msgstr "Themistokles"

#: simulation/data/civs/athen.jsonAINames[1]
#: simulation/templates/units/athen/hero_pericles.xml:12
msgid "Pericles"
msgstr "Perikles"

#: simulation/data/civs/athen.jsonCivBonuses[0].History
msgid ""
"The mines at Laureion provided Athens with silver. The Athenian Owl was "
"prized."
msgstr ""
"Die Minen von Laureion gaben Athen Silber. Die Athenische Eule war "
"begehrt."

#: simulation/data/civs/athen.jsonCivBonuses[0].Description
msgid "Workers +10% metal gather rate per phase advance."
msgstr "Arbeiter +10 % Metallsammelrate pro Phasenaufstieg."

#: simulation/data/civs/athen.jsonCivBonuses[1].Description
msgid "Houses +5 population."
msgstr "Häuser +10 Bevölkerung."
'''
GAMESETUP = HEADER + r'''#: gui/text/quotes.txt:105
msgid ""
"“She \\[Helen] brought her dowry, destruction.” \\n— Aeschylus (“Agamemnon”,"
" 406)"
msgstr ""
"„Sie \\[Helena] brachte ihre Mitgift, Zerstörung.“ \\n— Aischylos "
"(„Agamemnon“, 406)"

#: gui/gamesetup/Pages/GameSetupPage.js:10
msgid "%(username)s has left"
msgstr "%(username)s verließ das Spiel"

#: gui/gamesetup/Pages/GameSetupPage.js:15
msgid "%(player)s has won!"
msgstr "Gewonnen!"

#: gui/gamesetup/Pages/GameSetupPage.js:11
msgid "Loading 100%%"
msgstr "Lade 100%%"

#, fuzzy
#: gui/gamesetup/Pages/GameSetupPage.js:12
msgid "Game Speed"
msgstr "Spielgeschwindigkeit"

#: gui/gamesetup/Pages/GameSetupPage.js:13
msgid "Map Type"
msgstr ""

#: gui/gamesetup/Pages/GameSetupPage.js:14
msgid "%(count)s player"
msgid_plural "%(count)s players"
msgstr[0] "%(count)s Spieler"
msgstr[1] "%(count)s Spieler"
'''
MANUAL = HEADER + r'''#: gui/manual/intro.txt:1
msgid "[font=\"sans-bold-18\"]Playing the game[font=\"sans-14\"]"
msgstr "[font=\"sans-bold-18\"]Das Spiel spielen[font=\"sans-14\"]"

#: gui/manual/intro.txt:2
msgid "• Left-click to select units\n• Right-click to order units to the target"
msgstr ""
"• Linksklick, um Einheiten auszuwählen\n"
"• Rechtsklick, um die Einheiten zum Ziel zu bewegen"

#: gui/manual/intro.txt:3
msgid "hotkey.camera.follow – Follow the selected unit"
msgstr "hotkey.camera.follow – Gewählter Einheit folgen"

#: gui/manual/intro.txt:4
msgid "hotkey.selection.add + Left Click – Add to the selection"
msgstr "hotkey.selection.add + Linksklick – Zur Auswahl hinzufügen"

#: gui/manual/intro.txt:5
msgid "Click here to see the units of the Persian army"
msgstr "Click here to see the units of the Persian Armee"
'''
UNITS = HEADER + r'''#: simulation/templates/template_unit_cavalry.xml:32
msgid "Cavalry"
msgstr "Kavallerie"

#: simulation/templates/units/athen/hero_pericles.xml:12
msgid "Pericles"
msgstr "Perikles"

#: simulation/templates/units/athen/cavalry.xml:9
msgid "Cavalry"
msgstr "Kavallerie"
'''
CATALOGS = {"civilizations": CIVILIZATIONS, "gui-gamesetup": GAMESETUP, "gui-manual": MANUAL,
            "templates-units": UNITS}


def write_public_zip(root, lang, catalogs):
    """public.zip where the package puts it, with one catalog per domain and a stand-in for the
    game's other files."""
    path = os.path.join(root, zero_ad.PUBLIC)
    os.makedirs(os.path.dirname(path))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("simulation/data/civs/athen.json", '{"Code": "athen"}')
        for domain, text in catalogs.items():
            archive.writestr(zero_ad.CATALOG % (lang, domain), text.encode("utf-8"))


class ZeroAD(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        write_public_zip(self.root, "de", CATALOGS)

    def tearDown(self):
        self.dir.cleanup()

    def domain(self, name):
        with zipfile.ZipFile(os.path.join(self.root, zero_ad.PUBLIC)) as archive:
            return list(zero_ad.domain_pairs(archive, "de", name))

    def test_po_entries_fields_and_references(self):
        entries = games.po_entries(CIVILIZATIONS.splitlines(True))
        self.assertEqual(len(entries), 6)
        self.assertEqual(entries[2]["refs"], [
            "simulation/data/civs/athen.jsonAINames[1]",
            "simulation/templates/units/athen/hero_pericles.xml:12"])
        self.assertEqual(entries[3]["msgid"], "The mines at Laureion provided Athens with "
                         "silver. The Athenian Owl was prized.")
        self.assertNotIn("refs", entries[0])  # the header

    def test_histories_by_sentence_names_and_numbers(self):
        self.assertEqual(self.domain("civilizations"), [
            ("Pericles", "Perikles"),  # also a hero's name: not only an AI leader's
            ("The mines at Laureion provided Athens with silver.",
             "Die Minen von Laureion gaben Athen Silber."),
            ("The Athenian Owl was prized.", "Die Athenische Eule war begehrt."),
            ("Workers +10% metal gather rate per phase advance.",
             "Arbeiter +10 % Metallsammelrate pro Phasenaufstieg.")])

    def test_quotes_escapes_and_what_is_dropped(self):
        self.assertEqual(self.domain("gui-gamesetup"), [
            ("“She [Helen] brought her dowry, destruction.”",
             "„Sie [Helena] brachte ihre Mitgift, Zerstörung.“"),
            ("— Aeschylus (“Agamemnon”, 406)", "— Aischylos („Agamemnon“, 406)")])

    def test_manual_markup_bullets_and_hotkeys(self):
        self.assertEqual(self.domain("gui-manual"), [
            ("Playing the game", "Das Spiel spielen"),
            ("Left-click to select units", "Linksklick, um Einheiten auszuwählen"),
            ("Right-click to order units to the target",
             "Rechtsklick, um die Einheiten zum Ziel zu bewegen"),
            ("Follow the selected unit", "Gewählter Einheit folgen")])

    def test_pairs_in_domain_order_each_once(self):
        got = list(zero_ad.pairs(self.root, "de"))
        self.assertEqual(got[0], ("Pericles", "Perikles"))
        self.assertEqual(got[-1], ("Cavalry", "Kavallerie"))
        self.assertEqual(len(got), len(set(got)))
        self.assertEqual(len(got), 4 + 2 + 4 + 1)  # the units' Pericles came with the civs'

    def test_without_the_package_or_a_catalog_nothing(self):
        self.assertEqual(list(zero_ad.pairs(self.root, "fr")), [])
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(list(zero_ad.pairs(empty, "de")), [])


if __name__ == "__main__":
    unittest.main()
