"""models/pipeline/back_translate.py on a small hand-made data folder: which English sentences it
translates (the everyday sources only, none the other pair has, none of a dev or test split) and
which machine translations it drops, each with its reason; and its engine call, on the shipped
model through the native CLI (HEED_CLI, default build/heed): order kept over jobs, a line the
engine refuses as too long read as None and the rest translated.
Run from the repository root: /usr/bin/python3 -m tests.back_translate_test (no torch needed)."""
import os
import tempfile
import unittest

from models import ROOT
from models.pipeline.back_translate import (english_to_translate, everyday_sources, translate,
                                            why_dropped)

CLI = os.environ.get("HEED_CLI", os.path.join(ROOT, "build", "heed"))
MODEL = os.path.join(ROOT, "models", "multi.heed")


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


class EngineCall(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(CLI), "the native CLI is not built")
    def test_order_over_jobs_and_the_too_long_line(self):
        long = " ".join(["cat"] * 400)  # why: far over the model's 256 positions
        sentences = ["The cat sleeps.", long, "Where is the station?", "Thank you."]
        got = translate(CLI, MODEL, "fr", sentences, jobs=2)
        self.assertEqual(len(got), 4)
        self.assertIsNone(got[1])
        alone = [translate(CLI, MODEL, "fr", [s], jobs=1)[0] for s in sentences if s != long]
        self.assertEqual([got[0], got[2], got[3]], alone)
        for text in alone:
            self.assertTrue(text and "\t" not in text, text)


if __name__ == "__main__":
    unittest.main()
