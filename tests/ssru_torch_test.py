"""models/pipeline/ssru_torch.py: the SSRU student's PyTorch forward pass is Marian's.

A student made from the tiny test model (Marian-computable, tests/marian_export_test.py) with new
SSRU cells (biases drawn so the cells matter) is written as a Heed file, converted to Marian's
format by bench/bergamot/export_marian.py's mapping, and decoded greedily by PyTorch (one step at
a time, the cells carried) and by tests/marian_reference.py (Marian's inference in numpy, float64):
the same ids, and each step's probabilities within 1e-5. The file reads back to the same model.

Run from the repository root: /usr/bin/python3 -m tests.ssru_torch_test (skipped without torch).
"""
import os
import tempfile
import unittest

import numpy as np

from bench.bergamot.export_marian import TYPE_FLOAT32, marian_binary, marian_items, model_yml
from models.heed_file import HeedFile
from tests.marian_export_test import TEXTS, marian_compatible_tiny
from tests.marian_reference import Marian, load_marian_bin

try:
    import torch
except ImportError:  # why: CI machines without the training packages skip this test
    torch = None


@unittest.skipIf(torch is None, "needs torch (scripts/setup.sh --training)")
class SsruTorch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import sentencepiece as spm
        from models.pipeline import ssru_torch
        from models.pipeline.heed_torch import read_heed
        torch.set_num_threads(1)
        torch.manual_seed(3)
        cls.tmp = tempfile.TemporaryDirectory()
        tiny = os.path.join(cls.tmp.name, "tiny-marian.heed")
        marian_compatible_tiny(tiny)
        base, tok, _ = read_heed(tiny)
        model = ssru_torch.SsruSeq2Seq(base, dropout=0.0)
        with torch.no_grad():
            for layer in model.layers:
                layer.f.bias.normal_(0.0, 1.0)
        cls.path = os.path.join(cls.tmp.name, "student.heed")
        ssru_torch.write(cls.path, model, tok, dtype="F32")
        cls.model = ssru_torch.read(cls.path)[0]
        cls.sp = spm.SentencePieceProcessor(model_proto=tok)
        f = HeedFile(cls.path)
        items = marian_items(f.config, f.tensor)
        blob = marian_binary([(n, TYPE_FLOAT32, list(a.shape), a.tobytes())
                              for n, a in items.items()], model_yml(f.config))
        cls.marian = Marian.from_items(load_marian_bin(blob), f.config["eos_id"])
        cls.written = model

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_greedy_ids_and_probabilities_equal_marians(self):
        eos = self.model.cfg["eos_id"]
        for text in TEXTS:
            src = self.sp.encode(text) + [eos]
            ids, probs = self.marian.greedy(src, 12)
            mine = self.model
            memory, mask = mine.encode(torch.tensor([src]))
            cells, got, got_probs = None, [], []
            ys = torch.tensor([[mine.cfg["decoder_start_id"]]])
            with torch.no_grad():
                for t in range(len(ids)):
                    logits, cells = mine.decode(ys, memory, mask, cells, offset=t)
                    p = torch.softmax(logits[0, -1].double(), -1)
                    got.append(int(p.argmax()))
                    got_probs.append(float(p.max()))
                    ys = torch.tensor([[got[-1]]])
            self.assertEqual(got, ids, text)
            np.testing.assert_allclose(got_probs, probs, atol=1e-5)

    def test_whole_sequence_equals_step_by_step(self):
        src = torch.tensor([self.sp.encode(TEXTS[1]) + [self.model.cfg["eos_id"]]])
        tgt = torch.tensor([[self.model.cfg["decoder_start_id"], 5, 9, 14, 7]])
        with torch.no_grad():
            whole = self.model(src, tgt)
            memory, mask = self.model.encode(src)
            cells, steps = None, []
            for t in range(tgt.shape[1]):
                logits, cells = self.model.decode(tgt[:, t:t + 1], memory, mask, cells, offset=t)
                steps.append(logits)
        torch.testing.assert_close(whole, torch.cat(steps, 1), atol=1e-5, rtol=1e-5)

    def test_the_file_reads_back_to_the_same_weights(self):
        a, b = self.written.state_dict(), self.model.state_dict()
        self.assertEqual(set(a), set(b))
        for k in a:
            torch.testing.assert_close(a[k], b[k], atol=0, rtol=0, msg=k)


if __name__ == "__main__":
    unittest.main()
