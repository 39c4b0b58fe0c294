"""models/corpus/sources/strategy.py on hand-made files: a UFO: Alien Invasion catalog (.mo,
written as msgfmt writes it) and FreeOrion string tables in the game's format. Checks the pairing
of articles by paragraph (or line) and sentence, and what is dropped: placeholders, keys, tables,
references the translation lacks, stale numbers and English lines left in a translation. Run
from the repository root: python3 -m tests.strategy_test (stdlib only)."""
import os
import tempfile
import unittest

from models.corpus.sources import strategy
from tests.corpus_sources_test import write_mo

UFOAI = [
    ("Laser Rifle", "Lasergewehr"),
    ("The rifle is light. It fires fast.\n\nIt needs power cells.",
     "Das Gewehr ist leicht. Es feuert schnell.\n\nEs braucht Energiezellen."),
    ("Aim well. Then fire.", "Gut zielen, dann feuern."),
    ("One.\n\nTwo.", "Eins. Zwei."),
    ("^BAliens\n", "^BAußerirdische\n"),
    ("%s was killed.\n\nThe squad mourns.", "%s wurde getötet.\n\nDer Trupp trauert."),
    ("production_finished", "Produktion abgeschlossen"),
    ("^BDamage type:\tProtection:\n", "^BSchaden:\tSchutz:\n"),
    ("noun\x04Bicycle", "Fahrrad"),
    ("Hello.", "Hallo."),
]
EN_TABLE = """\ufeffEnglish

# The English table; a comment
OK
OK

TECH_LASER
Laser

TECH_LASER_DESC
'''Unlocks the [[tech TECH_LASER]] weapon.

<i>Lasers</i> burn through armour.
*  Range: 30'''

FLEET_NAME
Fleet %1%

SPEED_DESC
Increases speed by 20.

GREETING
Hello.\\nGoodbye.

LINKED
See [[PLASMA]] now.

PLASMA
Plasma

INDUSTRY
Industry

OLD_LINE
Increases Target Industry on all planets by 2.

AGE
Age: %rawtext:galaxy_age%

STRENGTH
Strength: %15$.f (%16$.2f per PP)

#include "../content_specific_parameters.txt"
"""
DE_TABLE = """Deutsch

#OK
#OK

TECH_LASER  # a comment after the key
Laserkanone

TECH_LASER
Zweiter Laser

TECH_LASER_DESC
'''Schaltet die Waffe [[tech TECH_LASER]] frei.

<i>Laser</i> brennen sich durch Panzerung.
*  Reichweite: 30'''

FLEET_NAME
Flotte %1%

SPEED_DESC
Erhöht die Geschwindigkeit um 25.

GREETING
Hallo.\\nAuf Wiedersehen.

LINKED
Siehe [[PLASMA]] jetzt.

INDUSTRY
Industrie

OLD_LINE
Increases target [[INDUSTRY]] on all planets by 2.

AGE
Alter: %rawtext:galaxy_age%

STRENGTH
Stärke: %15$.f (%16$.2f pro PP)
"""


class Strategy(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        write_mo(os.path.join(self.root, strategy.UFOAI % "de"), UFOAI)
        for lang, text in (("en", EN_TABLE), ("de", DE_TABLE)):
            path = os.path.join(self.root, strategy.FREEORION % lang)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def tearDown(self):
        self.dir.cleanup()

    def test_ufoai_paragraphs_then_sentences(self):
        # "Aim well. Then fire.": one German sentence, so the block whole; "One.\n\nTwo.": two
        # paragraphs against one, dropped; the placeholder's paragraph dropped, not its article;
        # a key, a table (tabs) and a message with a context dropped
        got = sorted(strategy.ufoai_pairs(os.path.join(self.root, strategy.UFOAI % "de")))
        self.assertEqual(got, [
            ("Aim well. Then fire.", "Gut zielen, dann feuern."), ("Aliens", "Außerirdische"),
            ("Hello.", "Hallo."), ("It fires fast.", "Es feuert schnell."),
            ("It needs power cells.", "Es braucht Energiezellen."),
            ("Laser Rifle", "Lasergewehr"), ("The rifle is light.", "Das Gewehr ist leicht."),
            ("The squad mourns.", "Der Trupp trauert.")])

    def test_freeorion_table_as_the_game_reads_it(self):
        table = strategy.fo_table(os.path.join(self.root, strategy.FREEORION % "de"))
        self.assertEqual(sorted(table), ["AGE", "FLEET_NAME", "GREETING", "INDUSTRY", "LINKED",
                                         "OLD_LINE", "SPEED_DESC", "STRENGTH", "TECH_LASER",
                                         "TECH_LASER_DESC"])
        self.assertEqual(table["TECH_LASER"], "Laserkanone")  # the first of two entries
        self.assertEqual(table["GREETING"], "Hallo.\nAuf Wiedersehen.")
        en = strategy.fo_table(os.path.join(self.root, strategy.FREEORION % "en"))
        self.assertEqual(en["OK"], "OK")
        self.assertEqual(strategy.fo_expand("A [[B]] [[x C]]", {"B": "[[C]]!", "C": "c"}),
                         "A c! c")
        self.assertIsNone(strategy.fo_expand("[[A]]", {"A": "[[A]]"}))  # a cycle

    def test_freeorion_pairs(self):
        # OK: only in a comment; FLEET_NAME: a placeholder; SPEED_DESC: 20 against 25 (stale);
        # LINKED: the German table lacks PLASMA, so the game would show English inside it;
        # OLD_LINE: an English line left in the German table; AGE, STRENGTH: placeholders
        got = list(strategy.freeorion_pairs(os.path.join(self.root, strategy.FREEORION % "en"),
                                            os.path.join(self.root, strategy.FREEORION % "de")))
        self.assertEqual(got, [
            ("Laser", "Laserkanone"),
            ("Unlocks the Laser weapon.", "Schaltet die Waffe Laserkanone frei."),
            ("Lasers burn through armour.", "Laser brennen sich durch Panzerung."),
            ("Range: 30", "Reichweite: 30"),
            ("Hello.", "Hallo."), ("Goodbye.", "Auf Wiedersehen."), ("Industry", "Industrie")])

    def test_copied_lines(self):
        self.assertTrue(strategy.copied("Increases Target Industry on all planets by 2.",
                                        "Increases target Industrie on all planets by 2."))
        self.assertFalse(strategy.copied("Mahouf Serra, United Nations, New York City",
                                         "Mahouf Serra, Vereinte Nationen, New York City"))
        self.assertFalse(strategy.copied("Open it.", "Open it!"))  # under 4 words: not judged

    def test_pairs_both_games_each_pair_once(self):
        got = list(strategy.pairs(self.root, "de"))
        self.assertEqual(len(got), len(set(got)))
        self.assertEqual(got.count(("Hello.", "Hallo.")), 1)
        self.assertIn(("Lasers burn through armour.", "Laser brennen sich durch Panzerung."), got)
        self.assertIn(("Laser Rifle", "Lasergewehr"), got)
        self.assertEqual(len(got), 8 + 7 - 1)

    def test_without_the_packages_nothing(self):
        self.assertEqual(list(strategy.pairs(self.root, "fr")), [])
        self.assertEqual(list(strategy.pairs(os.path.join(self.root, "none"), "de")), [])


if __name__ == "__main__":
    unittest.main()
