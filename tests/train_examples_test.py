"""models/pipeline/train.py's loading of training examples: each example's source and target ids
are what the tokenizer gives (held as compact arrays, the source ending in eos, a
back-translated source starting with bos), pairs over --max-len are left out, and the batches
pad() makes from them equal those made from plain lists.
Run from the repository root: /usr/bin/python3 -m tests.train_examples_test (skipped without
torch and sentencepiece)."""
import argparse
import os
import tempfile
import unittest

try:
    import sentencepiece
    import torch
except ImportError:
    torch = None

ENGLISH = ["The cat sleeps under the table.", "Where is the station?", "Thank you very much.",
           "My sister bought a red bicycle.", "The bakery is closed on Sunday."] * 3
GERMAN = ["Die Katze schläft unter dem Tisch.", "Wo ist der Bahnhof?", "Vielen Dank.",
          "Meine Schwester hat ein rotes Fahrrad gekauft.", "Die Bäckerei ist sonntags zu."] * 3


def write(path, lines):
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))


@unittest.skipIf(torch is None, "needs torch and sentencepiece (scripts/setup.sh --training)")
class TrainExamples(unittest.TestCase):
    def test_examples_are_the_tokenizer_ids(self):
        from models.pipeline import train
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "text"), ENGLISH + GERMAN)
            sentencepiece.SentencePieceTrainer.train(
                input=os.path.join(d, "text"), model_prefix=os.path.join(d, "spm"),
                vocab_size=60, model_type="unigram", bos_id=2, eos_id=3, unk_id=1, pad_id=0,
                minloglevel=2)
            sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(d, "spm.model"))
            write(os.path.join(d, "de-en.train.de"), GERMAN)
            write(os.path.join(d, "de-en.train.en"), ENGLISH)
            bt = os.path.join(d, "de-en.backtranslated.")
            write(bt + "de", GERMAN[:2])
            write(bt + "en", ENGLISH[:2])
            args = argparse.Namespace(run=d, max_len=26, directions="de-en", pair=None,
                                      dev_per_source=0)
            cfg = {"bos_id": 2, "eos_id": 3, "decoder_start_id": 2}
            corpus = [("de-en", "de", "en", os.path.join(d, "de-en.train."), [], [bt])]
            examples, dev = train.load_examples(args, sp, corpus, cfg)
            want = [([2] * tagged + sp.encode(g) + [3], sp.encode(e))
                    for tagged, g, e in [(0, g, e) for g, e in zip(GERMAN, ENGLISH)] +
                    [(1, g, e) for g, e in zip(GERMAN[:2], ENGLISH[:2])]
                    if len(sp.encode(g)) + tagged < 26 and len(sp.encode(e)) < 26]
            self.assertLess(len(want), len(GERMAN) + 2, "some pair is over --max-len")
            self.assertGreater(len(want), 2)
            self.assertEqual([(list(s), list(t)) for s, _, t in examples], want)
            start = sp.piece_to_id("<2en>")
            self.assertTrue(all(st == start for _, st, _ in examples))
            for padded in (train.pad([e[0] for e in examples], multiple=8),
                           train.pad([[e[1]] + list(e[2]) for e in examples])):
                self.assertEqual(padded.dtype, torch.long)
            self.assertTrue(torch.equal(train.pad([e[0] for e in examples], multiple=8),
                                        train.pad([list(e[0]) for e in examples], multiple=8)))


if __name__ == "__main__":
    unittest.main()
