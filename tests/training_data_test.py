"""models/pipeline/training_data.py on a small hand-made data folder: the files a run reads per
direction, --mix repeating a source's training pairs, and bad --mix values refused by name.
Run from the repository root: /usr/bin/python3 -m tests.training_data_test (no torch needed)."""
import argparse
import os
import tempfile
import unittest

from models.pipeline.training_data import corpus_of, parse_mix


def args(data, mix=None, directions="en-de,fr-en"):
    return argparse.Namespace(data=data, pair=None, directions=directions, mix=mix)


class TrainingData(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.data = self.dir.name
        for source, pairs in (("all", ("en-de", "en-fr")), ("ddtp", ("en-de", "en-fr")),
                              ("ding_examples", ("en-de",))):
            os.makedirs(os.path.join(self.data, source))
            for pair in pairs:
                for split in ("train", "dev") if source != "all" else ("train",):
                    for lang in pair.split("-"):
                        with open(os.path.join(self.data, source, "%s.%s.%s" % (pair, split, lang)),
                                  "w") as f:
                            f.write("x\n")
        for source in ("copy_check", "control_check", "everyday"):  # why: held out, test only
            os.makedirs(os.path.join(self.data, source))
            for lang in ("en", "de"):
                with open(os.path.join(self.data, source, "en-de.test." + lang), "w") as f:
                    f.write("x\n")
        for lang in ("en", "fr"):  # why: build_corpus writes empty files for a missing pair
            open(os.path.join(self.data, "ding_examples", "en-fr.train." + lang), "w").close()

    def tearDown(self):
        self.dir.cleanup()

    def test_without_mix_each_direction_reads_all_and_every_dev_split(self):
        (de, fr) = corpus_of(args(self.data))
        self.assertEqual(de[:3], ("en-de", "en", "de"))
        self.assertEqual(de[3], os.path.join(self.data, "all", "en-de.train."))
        self.assertEqual(de[4], [os.path.join(self.data, s, "en-de.dev.")
                                 for s in ("ddtp", "ding_examples")])
        self.assertEqual(de[5], [])
        self.assertEqual(fr[:3], ("fr-en", "fr", "en"))
        self.assertEqual(fr[4], [os.path.join(self.data, "ddtp", "en-fr.dev.")])

    def test_mix_repeats_a_source_where_its_pair_exists(self):
        (de, fr) = corpus_of(args(self.data, "ding_examples=3, ddtp=1"))
        self.assertEqual(de[5], [os.path.join(self.data, "ding_examples", "en-de.train.")] * 2)
        self.assertEqual(fr[5], [])  # Ding has no French: nothing extra, no error

    def test_a_directions_own_files_are_read_by_it_alone(self):
        os.makedirs(os.path.join(self.data, "backtranslated"))
        for name in ("fr-en.backtranslated.fr", "fr-en.backtranslated.en",
                     "en-de.backtranslated.en", "en-de.backtranslated.de"):
            with open(os.path.join(self.data, "backtranslated", name), "w") as f:
                f.write("x\n")
        (de, fr) = corpus_of(args(self.data, "backtranslated=2"))
        self.assertEqual(de[5], [os.path.join(self.data, "backtranslated",
                                              "en-de.backtranslated.")] * 2)
        self.assertEqual(fr[5], [os.path.join(self.data, "backtranslated",
                                              "fr-en.backtranslated.")] * 2)
        (en_fr, de_en) = corpus_of(args(self.data, "backtranslated=1", directions="en-fr,de-en"))
        self.assertEqual((en_fr[5], de_en[5]), ([], []))  # the reverse directions never read them

    def test_bad_mix_refused_by_name(self):
        for bad, word in (("ding_examples", "SOURCE=TIMES"), ("games=0", "SOURCE=TIMES"),
                          ("games=x", "SOURCE=TIMES"), ("=2", "SOURCE=TIMES"),
                          ("all=2", "'all'"), ("ddtp=2,ddtp=3", "'ddtp'")):
            with self.assertRaises(ValueError) as e:
                parse_mix(bad)
            self.assertIn(word, str(e.exception))
        for name in ("wesnoth", "copy_check", "control_check", "everyday"):
            with self.assertRaises(ValueError) as e:
                corpus_of(args(self.data, name + "=2"))
            self.assertIn("no source %r with training pairs" % name, str(e.exception))

    def test_pair_mode_reads_ddtp_alone(self):
        a = argparse.Namespace(data=self.data, pair="en-fr", directions=None, mix=None)
        self.assertEqual(corpus_of(a), [("en-fr", "en", "fr",
                                         os.path.join(self.data, "ddtp", "en-fr.train."),
                                         [os.path.join(self.data, "ddtp", "en-fr.dev.")], [])])


if __name__ == "__main__":
    unittest.main()
