"""models/pipeline/average.py on small hand-made files: the mean of each float tensor, stored
as the inputs store it; the tokenizer kept; mismatched files refused by name. Run from the
repository root: /usr/bin/python3 -m tests.average_test (numpy only)."""
import json
import os
import tempfile
import unittest

import numpy as np

from models.heed_file import HeedFile, write_heed_file
from models.pipeline.average import average


def checkpoint(path, step, w, config='{"d_model": 2}', tokenizer=b"spm"):
    meta = {"format": "heed", "heed.version": "1", "heed.config": config,
            "heed.training": json.dumps({"steps": step})}
    write_heed_file(path, meta, {
        "w": ("F16", np.asarray(w, dtype=np.float16)),
        "b": ("F32", np.asarray(w, dtype=np.float32)[0] * 2),
        "tokenizer.model": ("U8", np.frombuffer(tokenizer, dtype=np.uint8)),
    })
    return path


class Average(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = lambda name: os.path.join(self.dir.name, name)

    def tearDown(self):
        self.dir.cleanup()

    def test_mean_of_three(self):
        a = checkpoint(self.path("a"), 100, [[1.0, 2.0], [3.0, 4.0]])
        b = checkpoint(self.path("b"), 200, [[2.0, 2.0], [0.0, -4.0]])
        c = checkpoint(self.path("c"), 300, [[3.0, 2.5], [0.0, 0.5]])
        meta, tensors = average([a, b, c])
        write_heed_file(self.path("avg"), meta, tensors)
        f = HeedFile(self.path("avg"))
        self.assertEqual(f.header["w"]["dtype"], "F16")
        # why: the mean is taken in float64 and stored as F16, as the inputs were
        want = np.asarray([[2.0, 6.5 / 3], [1.0, 0.5 / 3]]).astype(np.float16)
        np.testing.assert_array_equal(f.tensor("w"), want.astype(np.float32))
        np.testing.assert_allclose(f.tensor("b"), [4.0, 6.5 / 3 * 2], rtol=1e-6)
        self.assertEqual(f.tensor("tokenizer.model"), b"spm")
        training = json.loads(f.meta["heed.training"])
        self.assertEqual(training["steps"], 300)
        self.assertEqual(training["averaged_steps"], [100, 200, 300])

    def test_refuses_other_config_shape_or_tokenizer(self):
        a = checkpoint(self.path("a"), 1, [[1.0, 2.0]])
        for name, other in [
            ("config", checkpoint(self.path("x"), 2, [[1.0, 2.0]], config='{"d_model": 4}')),
            ("shape", checkpoint(self.path("y"), 2, [[1.0, 2.0, 3.0]])),
            ("tokenizer", checkpoint(self.path("z"), 2, [[1.0, 2.0]], tokenizer=b"SPM")),
        ]:
            want = {"config": "another config", "shape": "tensor '.' is F.. \\[3\\]",
                    "tokenizer": "another tokenizer"}[name]
            with self.subTest(name), self.assertRaisesRegex(ValueError, want):
                average([a, other])


if __name__ == "__main__":
    unittest.main()
