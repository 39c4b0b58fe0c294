"""models/pipeline/grow.py: a widened feed-forward layer keeps the narrow one's weights and adds
units whose output is exactly zero (numpy, every layer of tests/data/tiny_format.heed), and the
engine (HEED_CLI, as ctest sets it) translates and attends with the grown models/tiny/tiny.heed
exactly as with the original. Narrowing and a mismatched file are refused by name.
Run from the repository root: HEED_CLI=build/heed /usr/bin/python3 -m tests.grow_test"""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

from models.heed_file import HeedFile, write_heed_file
from models.pipeline.grow import grow

TINY = "tests/data/tiny_format.heed"
TRANSLATES = "models/tiny/tiny.heed"  # a real tokenizer


class Grow(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.grown = os.path.join(self.dir.name, "grown.heed")

    def tearDown(self):
        self.dir.cleanup()

    def test_every_ffn_computes_the_same(self):
        meta, tensors = grow(TINY, 40, seed=3)
        old = HeedFile(TINY).stored_tensors()
        self.assertEqual(json.loads(meta["heed.config"])["ffn_dim"], 40)
        x = np.random.default_rng(0).normal(size=(5, 8))
        for prefix in ("encoder.0.ffn.", "decoder.0.ffn."):
            self.assertEqual(tensors[prefix + "fc1.weight"][1].shape, (40, 8))
            self.assertEqual(tensors[prefix + "fc2.weight"][1].shape, (8, 40))
            self.assertEqual(tensors[prefix + "fc1.weight"][0], "F16")
            # why: the old units as they were (so their sum is the old output) ...
            for part, cut in (("fc1.weight", np.s_[:16]), ("fc1.bias", np.s_[:16]),
                              ("fc2.weight", np.s_[:, :16])):
                np.testing.assert_array_equal(tensors[prefix + part][1][cut],
                                              old[prefix + part][1])
            # ... the new ones firing (else fc2's new columns would never learn) ...
            hidden = np.maximum(x @ tensors[prefix + "fc1.weight"][1][16:].astype(np.float64).T
                                + tensors[prefix + "fc1.bias"][1][16:], 0.0)
            self.assertGreater(np.count_nonzero(hidden), 0)
            # ... and adding exact zeros to the output
            self.assertFalse(np.any(tensors[prefix + "fc2.weight"][1][:, 16:]))
        for name, (dtype, a) in old.items():
            if ".ffn.fc" not in name or name.endswith("fc2.bias"):
                np.testing.assert_array_equal(tensors[name][1], a, err_msg=name)
        self.assertEqual(json.loads(meta["heed.training"])["grown"],
                         [{"ffn_dim": [16, 40], "at_step": None}])

    @unittest.skipIf(not os.environ.get("HEED_CLI"), "HEED_CLI (the built CLI) not given")
    def test_engine_translates_the_same(self):
        write_heed_file(self.grown, *grow(TRANSLATES, 96))

        def run(model):
            out = os.path.join(self.dir.name, os.path.basename(model) + ".json")
            text = subprocess.run(
                [os.environ["HEED_CLI"], "translate", "-m", model, "--compute", "f32",
                 "--attention", out, "This package contains the development files.",
                 "Das Paket enthält die Dateien."],
                check=True, capture_output=True, text=True).stdout
            with open(out) as f:
                return text, json.load(f)

        (text, attention), (grown_text, grown_attention) = run(TRANSLATES), run(self.grown)
        self.assertTrue(text.strip())
        self.assertEqual(grown_text, text)
        self.assertEqual(grown_attention, attention)

    def test_refuses_narrower_and_mismatched(self):
        with self.assertRaisesRegex(ValueError, "ffn_dim 16; --ffn must be larger, not 16"):
            grow(TINY, 16)
        f = HeedFile(TINY)
        tensors = dict(f.stored_tensors())
        dtype, w = tensors["decoder.0.ffn.fc2.weight"]
        tensors["decoder.0.ffn.fc2.weight"] = (dtype, w[:, :12])
        bad = os.path.join(self.dir.name, "bad.heed")
        write_heed_file(bad, f.meta, tensors)
        with self.assertRaisesRegex(ValueError, "'decoder.0.ffn.' is \\[16, 8\\] / \\[8, 12\\]"):
            grow(bad, 32)


if __name__ == "__main__":
    unittest.main()
