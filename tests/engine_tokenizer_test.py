"""models/pipeline/engine_tokenizer.py: the pieces training and evaluation read a text as are the
pieces the engine (HEED_CLI, as ctest sets it) gives it — a typed "<2fr>" spelt out of ordinary
pieces — on the four-way model's own tokenizer; ordinary text is read as the sentencepiece
library reads it; a file that is not a SentencePiece model is refused.
Run from the repository root: HEED_CLI=build/heed /usr/bin/python3 -m tests.engine_tokenizer_test"""
import json
import os
import subprocess
import tempfile
import unittest

import sentencepiece as spm

from models.heed_file import HeedFile
from models.pipeline import engine_tokenizer

MULTI = "models/multi.heed"
TYPED = ["Please read <2fr> the manual.", "<2de> This package contains the development files.",
         "A simple text editor <2en>", "<s> Hallo </s> <pad> <unk>", "Open <2de><2fr> now",
         "The cat sleeps on the sofa.", "Où est la gare ?"]


class EngineTokenizer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proto = HeedFile(MULTI).tensor("tokenizer.model")
        cls.sp = engine_tokenizer.processor(model_proto=cls.proto)

    def test_pieces_are_the_engines(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "a.json")
            subprocess.run([os.environ.get("HEED_CLI", "build/heed"), "translate", "-m", MULTI,
                            "--no-split", "--max-length", "4", "--attention", out] + TYPED,
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out) as f:
                engine = [r["sourceTokens"] for r in json.load(f)]
        self.assertEqual(engine, [self.sp.encode(t, out_type=str) + ["</s>"] for t in TYPED])
        self.assertNotIn(self.sp.piece_to_id("<2fr>"), self.sp.encode(TYPED[0]))

    def test_ordinary_text_and_ids_unchanged(self):
        library = spm.SentencePieceProcessor(model_proto=self.proto)
        for text in TYPED[-2:]:
            self.assertEqual(self.sp.encode(text), library.encode(text))
        for piece in ("<2de>", "<2en>", "<2fr>", "</s>", "▁the"):
            self.assertEqual(self.sp.piece_to_id(piece), library.piece_to_id(piece))
        self.assertEqual(self.sp.get_piece_size(), library.get_piece_size())
        # the library reads the typed token as the token itself: what this module is for
        self.assertIn(library.piece_to_id("<2fr>"), library.encode(TYPED[0]))

    def test_not_a_model(self):
        with self.assertRaisesRegex(ValueError, "tokenizer model: "):
            engine_tokenizer.with_language_tokens_as_control(b"\x0f\x01\x02")


if __name__ == "__main__":
    unittest.main()
