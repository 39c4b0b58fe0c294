"""BLEU and chrF of models/pipeline/metrics.py against published sacreBLEU results and hand
computations. Run from the repository root: python3 -m tests.metrics_test (stdlib only)."""
import unittest

from models.pipeline.metrics import corpus_bleu, corpus_chrf, tokenize_13a


class Bleu(unittest.TestCase):
    def test_sacrebleu_readme_two_reference_streams(self):
        # sacreBLEU's README example: BLEU = 48.530827009929865
        refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
                ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
        hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
        self.assertAlmostEqual(corpus_bleu(hyps, refs)[0], 48.530827009929865, places=9)

    def test_exp_smoothing_by_hand(self):
        # 1..4-gram matches 5/6, 3/5, 1/4, 0/3 -> 0/3 smoothed to 1/(2*3); BP = 1
        bleu = corpus_bleu(["the cat sat on the mat"], ["the cat is on the mat"])[0]
        self.assertAlmostEqual(bleu, 100 * (5 / 6 * 3 / 5 * 1 / 4 * 1 / 6) ** 0.25, places=9)

    def test_identical_and_empty(self):
        self.assertAlmostEqual(corpus_bleu(["a b c d e"], ["a b c d e"])[0], 100.0)
        self.assertEqual(corpus_bleu([""], ["a b c"])[0], 0.0)

    def test_brevity_penalty(self):
        bleu, _, bp, h, r = corpus_bleu(["a b c d"], ["a b c d e f g h"])
        self.assertAlmostEqual(bp, 2.718281828459045 ** (1 - 8 / 4))

    def test_13a_tokenisation(self):
        self.assertEqual(tokenize_13a("Hello, world. 3.5-4"), ["Hello", ",", "world", ".", "3.5", "-", "4"])


class Chrf(unittest.TestCase):
    def test_published_single_sentence(self):
        # sacreBLEU CHRF() on this pair: 61.576379378113785 (HF datasets metric card)
        s = corpus_chrf(["The relationship between Obama and Netanyahu is not exactly friendly."],
                        ["The ties between Obama and Netanyahu are not particularly friendly."])
        self.assertAlmostEqual(s, 61.576379378113785, places=9)

    def test_published_corpus(self):
        # sacreBLEU CHRF() on this two-sentence corpus: 84.64214891738334
        s = corpus_chrf(["The relationship between cats and dogs is not exactly friendly.",
                         "a good bookshop is just a genteel black hole that knows how to read."],
                        ["The relationship between dogs and cats is not exactly friendly.",
                         "A good bookshop is just a genteel Black Hole that knows how to read."])
        self.assertAlmostEqual(s, 84.64214891738334, places=9)

    def test_by_hand(self):
        # "ab" vs "abc": 1-grams P=1 R=2/3, 2-grams P=1 R=1/2 -> F2 = 5PR/(4P+R) = 35/55
        self.assertAlmostEqual(corpus_chrf(["ab"], ["abc"]), 100 * 35 / 55, places=9)
        self.assertAlmostEqual(corpus_chrf(["same text"], ["same text"]), 100.0)


if __name__ == "__main__":
    unittest.main()
