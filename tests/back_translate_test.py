"""models/pipeline/back_translate.py on a small hand-made data folder: which English sentences it
translates (the everyday sources only, none the other pair has, none of a dev or test split) and
which machine translations it drops, each with its reason. The engine is not run here.
Run from the repository root: /usr/bin/python3 -m tests.back_translate_test (no torch needed)."""
import os
import tempfile
import unittest

from models.pipeline.back_translate import english_to_translate, everyday_sources, why_dropped


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))


class BackTranslate(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        write(os.path.join(d, "all", "en-fr.train.en"), ["The cat sleeps.", "Shared."])
        write(os.path.join(d, "rpgs", "en-de.train.en"),
              ["Shared.", "Where is the inn?", "The cat sleeps.", "Held in dev.", "",
               "Where is the inn?"])
        write(os.path.join(d, "ding_examples", "en-de.train.en"), ["I am tired.", "Held in test."])
        write(os.path.join(d, "ddtp", "en-de.train.en"), ["A package description."])
        write(os.path.join(d, "rpgs", "en-de.dev.en"), ["Held in dev."])
        write(os.path.join(d, "everyday", "en-fr.test.en"), ["Held in test."])

    def tearDown(self):
        self.dir.cleanup()

    def test_english_the_other_pair_lacks_from_the_named_sources(self):
        got = english_to_translate(self.dir.name, "de", ["rpgs", "ding_examples"])
        self.assertEqual(got, ["Where is the inn?", "I am tired."])
        self.assertEqual(english_to_translate(self.dir.name, "fr", ["rpgs"]), [])

    def test_everyday_sources_leave_the_synthetic_pairs_out(self):
        names = everyday_sources()
        self.assertIn("wesnoth", names)
        self.assertIn("ding_examples", names)
        self.assertNotIn("controls", names)
        self.assertNotIn("ddtp", names)

    def test_drops_each_with_its_reason(self):
        for english, machine, why in (
                ("Where is the inn?", "Où est l'auberge ?", None),
                ("Where is the inn?", " ", "empty"),
                ("Where is the inn?", None, "too long"),  # why: the engine refused the line
                ("Where is the inn?", "Where is the inn?", "unchanged"),
                ("Where is the inn tonight?", "Où ?", "length"),
                ("Yes.", "Oui, bien sûr, mon ami.", None),  # why: too short to judge by length
                ("Go on, go on, go on.", "Vas-y, vas-y, vas-y.", None),
                ("Where is the inn?", "Où est est est est l'auberge ?", "repeats"),
                ("Where is the inn?", "Où est l\ufffdauberge ?", "U+FFFD")):
            self.assertEqual(why_dropped(english, machine), why, (english, machine))


if __name__ == "__main__":
    unittest.main()
