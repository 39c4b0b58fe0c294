"""The engine reads Marian model bundles (src/marian/): a trained model written in Marian's binary
format (bench/bergamot/export_marian.py, whose files Bergamot itself runs) translates through
`heed translate --marian` exactly as the Heed file it came from, in float32 and from intgemm8
weights; `heed convert` writes a Heed file that does the same; every broken or unsupported
bundle is refused with a message naming what is wrong, and nothing is written. OPUS-MT's bundle
(tests/data/marian/opus/: vocab.yml with source.spm and target.spm) gives the reference's ids and
text (tests/data/marian/expected.json).

Run from the repository root: /usr/bin/python3 -m tests.marian_reader_test (numpy; HEED_CLI =
the native CLI, default build/heed).
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import unittest

from models import ROOT

CLI = os.environ.get("HEED_CLI", os.path.join(ROOT, "build", "heed"))
MODEL = os.path.join(ROOT, "models", "en-fr-marian.heed")
TEXTS = ["The package provides a library for reading files.", "Hello world!",
         "This tool converts audio files between different formats.",
         "Fonts for displaying mathematical formulas on the screen.",
         "It can be used to monitor network traffic in real time.",
         "A graphical front-end to manage software packages.",
         "Shared library for accessing the database from C programs, version 2.4.1."]


def heed(*args, stdin=None):
    return subprocess.run([CLI] + list(args), input=stdin, capture_output=True, text=True)


def with_yml(model_bin, change):
    """Marian's binary file with its "special:model.yml" text passed through `change`."""
    with open(model_bin, "rb") as f:
        b = bytearray(f.read())
    start = b.index(b"transformer-heads")
    start = b.rindex(b"\n", 0, start) + 1 if b"type: transformer" not in b[:start] else \
        b.index(b"type: transformer")
    end = b.index(b"\0", start)
    old = bytes(b[start:end]).decode()
    new = change(old).encode()
    assert len(new) <= len(old), "the changed config must not grow"
    b[start:end] = new + b"\0" * (len(old) - len(new))  # why: keeps every offset in place
    return bytes(b)


class MarianReader(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "marian")
        subprocess.run([sys.executable, "-m", "bench.bergamot.export_marian", "--model", MODEL,
                        "--out", cls.out], check=True, capture_output=True,
                       env=dict(os.environ, HEED_CLI=CLI))
        cls.bin = os.path.join(cls.out, "model.bin")
        cls.int8 = os.path.join(cls.out, "model.int8.bin")
        cls.vocab = os.path.join(cls.out, "vocab.spm")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name, data):
        p = os.path.join(self.tmp.name, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def translate(self, *model, compute="f32"):
        r = heed("translate", *model, "--compute", compute, "--ids", "--no-split", *TEXTS)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def assert_same_but_unk(self, marian, heed_file):
        """A Marian model's lines (text, ids) equal the Heed file's but where that one emits
        <unk> (id 1): Marian's search never takes <unk>, so the two agree up to that step and
        the Marian model's line holds no <unk>."""
        a, b = marian.splitlines(), heed_file.splitlines()
        self.assertEqual(len(a), len(b))
        for x, y in zip(a, b):
            ids_x, ids_y = x.split("\t")[1].split(), y.split("\t")[1].split()
            self.assertNotIn("1", ids_x, x)
            if "1" not in ids_y:
                self.assertEqual(x, y)
            else:
                k = ids_y.index("1")
                self.assertEqual(ids_x[:k], ids_y[:k], (x, y))
        return sum("1" in y.split("\t")[1].split() for y in b)

    def test_float32_bundle_translates_as_the_heed_file_it_came_from(self):
        self.assert_same_but_unk(self.translate("--marian", self.bin, "--vocab", self.vocab),
                                 self.translate("-m", MODEL))

    def test_intgemm8_bundle_equals_its_own_weights_in_float32(self):
        # the int8 matrices are kept int8 (one scale per matrix); widened, they must give what
        # the float32 path gives on the same dequantised values
        a = self.translate("--marian", self.int8, "--vocab", self.vocab, compute="f32")
        b = self.translate("--marian", self.int8, "--vocab", self.vocab, compute="int8")
        self.assertEqual(len(a.splitlines()), len(TEXTS))
        same = sum(x == y for x, y in zip(a.splitlines(), b.splitlines()))
        self.assertGreaterEqual(same, len(TEXTS) - 2, (a, b))

    def test_convert_writes_a_heed_file_that_translates_the_same(self):
        out = os.path.join(self.tmp.name, "converted.heed")
        r = heed("convert", "--marian", self.bin, "--vocab", self.vocab, "--to", "fr",
                 "--from", "en", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.translate("-m", out),
                         self.translate("--marian", self.bin, "--vocab", self.vocab))
        self.assert_same_but_unk(self.translate("-m", out), self.translate("-m", MODEL))
        info = heed("info", "-m", out)
        self.assertIn("en-fr", info.stdout)
        self.assertIn('"zero_start": true', info.stdout)
        self.assertIn('"positions": "marian"', info.stdout)
        self.assertIn('"search_rules": "marian"', info.stdout)

    def refused(self, args, *reasons, code=1):
        out = os.path.join(self.tmp.name, "refused-%d.heed" % len(os.listdir(self.tmp.name)))
        r = heed("convert", *args, "-o", out)
        self.assertEqual(r.returncode, code, r.stderr)
        for reason in reasons:
            self.assertIn(reason, r.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(out + ".part"))

    def test_pre_norm_is_refused_by_name(self):
        bad = self.path("prenorm.bin", with_yml(self.bin, lambda t: t.replace(
            'transformer-preprocess: ""', "transformer-preprocess: n ")))
        self.refused(["--marian", bad, "--vocab", self.vocab], "transformer-preprocess 'n'",
                     "pre-norm")

    def test_embedding_ops_other_than_dropout_and_a_norm_are_refused_by_name(self):
        bad = self.path("emb-h.bin", with_yml(self.bin, lambda t: t.replace(
            'transformer-postprocess-emb: ""', "transformer-postprocess-emb: h ")))
        self.refused(["--marian", bad, "--vocab", self.vocab],
                     "transformer-postprocess-emb 'h' is not supported")

    def test_an_embedding_norm_without_its_parameters_is_named(self):
        bad = self.path("emb-n.bin", with_yml(self.bin, lambda t: t.replace(
            'transformer-postprocess-emb: ""', "transformer-postprocess-emb: n ")))
        self.refused(["--marian", bad, "--vocab", self.vocab], "encoder_emb_ln_scale_pre")

    def test_another_decoder_cell_is_refused_by_name(self):
        bad = self.path("aan.bin", with_yml(self.bin, lambda t: t.replace(
            "transformer-decoder-autoreg: self-attention",
            "transformer-decoder-autoreg: average-atten")))
        self.refused(["--marian", bad, "--vocab", self.vocab], "average-atten")

    def test_a_vocabulary_of_another_size_is_refused(self):
        other = os.path.join(ROOT, "models", "tiny", "spm.model")  # 400 pieces, not 8000
        self.refused(["--marian", self.bin, "--vocab", other], "dim-vocabs")

    def test_a_bpe_vocabulary_is_refused_by_name(self):
        bpe = self.path("vocab.json", b'{"a": 0}')
        self.refused(["--marian", self.bin, "--vocab", bpe], "BPE")

    def test_a_truncated_model_is_refused(self):
        with open(self.bin, "rb") as f:
            cut = self.path("cut.bin", f.read()[: 3 * 1024 * 1024])
        self.refused(["--marian", cut, "--vocab", self.vocab], "Marian")

    def test_a_missing_parameter_is_named(self):
        with open(self.bin, "rb") as f:
            b = f.read()
        name = b"decoder_l1_ffn_W2\0"
        self.assertIn(name, b)
        bad = self.path("renamed.bin", b.replace(name, b"decoder_l1_ffn_X2\0", 1))
        self.refused(["--marian", bad, "--vocab", self.vocab], "decoder_l1_ffn_W2")

    def test_options_without_a_vocabulary_or_a_model_are_usage_errors(self):
        self.refused(["--marian", self.bin], "--vocab", code=2)
        self.refused(["--vocab", self.vocab], "--marian", code=2)

    def test_a_heed_file_is_not_taken_for_marian(self):
        with open(MODEL, "rb") as f:
            head = f.read(8)
        self.assertNotEqual(struct.unpack("<Q", head)[0], 1)
        self.refused(["--marian", MODEL, "--vocab", self.vocab], "Marian model")


SSRU = os.path.join(ROOT, "tests", "data", "marian", "ssru")
EMBNORM = os.path.join(ROOT, "tests", "data", "marian", "embnorm")
OPUS = os.path.join(ROOT, "tests", "data", "marian", "opus")
EXPECTED = os.path.join(ROOT, "tests", "data", "marian", "expected.json")


class MarianEmbeddingNorm(unittest.TestCase):
    """tests/data/marian/embnorm: transformer-postprocess-emb "dn" (a LayerNorm on embeddings
    plus positions) computed as the reference does, <unk> never chosen (the reference without
    Marian's suppression emits it), the shortlist padded to a multiple of 8 ids as Marian pads
    it; natively, through the CLI, each sentence capped at the reference's length."""

    @classmethod
    def setUpClass(cls):
        with open(EXPECTED, encoding="utf-8") as f:
            cls.fx = json.load(f)["fixtures"]["embnorm"]

    def ids(self, case, *extra):
        cap = math.ceil(2 * len(case["source_ids"]))
        r = heed("translate", "--marian", os.path.join(EMBNORM, "model.bin"), "--vocab",
                 os.path.join(SSRU, "vocab.spm"), *extra, "--compute", "f32", "--ids",
                 "--no-split", "--max-length", str(cap), case["text"])
        self.assertEqual(r.returncode, 0, r.stderr)
        return [int(i) for i in r.stdout.rstrip("\n").split("\t")[1].split()]

    def test_greedy_ids_equal_the_reference_and_never_hold_unk(self):
        unk = self.fx["unk_id"]
        self.assertGreaterEqual(sum(unk in c["unk_allowed"]["ids"] for c in self.fx["cases"]), 3)
        for case in self.fx["cases"]:
            self.assertEqual(self.ids(case), case["ids"], case["text"])

    def test_the_shortlisted_ids_equal_the_reference_with_marians_padding(self):
        for case in self.fx["cases"]:
            got = self.ids(case, "--shortlist", os.path.join(SSRU, "lex.s2t.bin"))
            self.assertEqual(got, case["shortlist"]["ids"], case["text"])


class MarianOpus(unittest.TestCase):
    """OPUS-MT's bundle (tests/data/marian/opus/): vocab.yml numbers the pieces, source.spm and
    target.spm segment and spell the text; the CLI reproduces expected.json's reference."""

    @classmethod
    def setUpClass(cls):
        with open(EXPECTED, encoding="utf-8") as f:
            cls.fx = json.load(f)["fixtures"]["opus"]
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def bundle(self, vocab_yml=None):
        yml = os.path.join(OPUS, "vocab.yml")
        if vocab_yml is not None:
            yml = os.path.join(self.tmp.name, "vocab-%d.yml" % len(os.listdir(self.tmp.name)))
            with open(yml, "w", encoding="utf-8") as f:
                f.write(vocab_yml)
        return ["--marian", os.path.join(OPUS, "model.npz"), "--vocab", yml,
                "--vocab", os.path.join(OPUS, "source.spm"),
                "--vocab", os.path.join(OPUS, "target.spm")]

    def ids_and_text(self, *args):
        r = heed("translate", *args, "--ids", "--no-split", *[c["text"] for c in self.fx["cases"]])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.split("\n")[:-1]
        self.assertEqual(len(lines), len(self.fx["cases"]), r.stdout)
        out = []
        for line in lines:
            text, ids = line.split("\t")
            out.append(([int(i) for i in ids.split()], text))
        return out

    def test_greedy_ids_and_text_equal_the_reference(self):
        # the reference stops at ceil(2 x source ids) tokens, Heed at 2 x source + 10: with that
        # cap Heed's ids and text are the reference's exactly
        for case in self.fx["cases"]:
            cap = math.ceil(2 * len(case["source_ids"]))
            r = heed("translate", *self.bundle(), "--ids", "--no-split", "--max-length", str(cap),
                     case["text"])
            self.assertEqual(r.returncode, 0, r.stderr)
            text, ids = r.stdout.rstrip("\n").split("\t")
            self.assertEqual([int(i) for i in ids.split()], case["ids"], case["text"])
            self.assertEqual(text, case["output"], case["text"])

    def test_without_a_cap_the_reference_is_a_prefix(self):
        for case, (ids, _) in zip(self.fx["cases"], self.ids_and_text(*self.bundle())):
            self.assertEqual(ids[:len(case["ids"])], case["ids"], case["text"])
            if case["ids"][-1] == self.fx["eos_id"]:
                self.assertEqual(ids, case["ids"], case["text"])

    def test_the_source_ids_are_vocab_yml_ids(self):
        # source.spm's pieces, each looked up in vocab.yml (an unknown one is <unk>), then </s>
        out = os.path.join(self.tmp.name, "attention.json")
        r = heed("translate", *self.bundle(), "--no-split", "--attention", out,
                 *[c["text"] for c in self.fx["cases"]])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            written = json.load(f)
        self.assertEqual([s["sourceIds"] for s in written],
                         [c["source_ids"] for c in self.fx["cases"]])

    def test_convert_keeps_the_id_map(self):
        out = os.path.join(self.tmp.name, "opus.heed")
        r = heed("convert", *self.bundle(), "--from", "en", "--to", "de", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.ids_and_text("-m", out), self.ids_and_text(*self.bundle()))
        with open(out, "rb") as f:
            head = f.read(8 + struct.unpack("<Q", f.read(8))[0])
        self.assertIn(b'"tokenizer.vocabulary"', head)

    def refused(self, vocab_yml, reason):
        out = os.path.join(self.tmp.name, "refused.heed")
        r = heed("convert", *self.bundle(vocab_yml), "-o", out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(reason, r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_a_malformed_vocab_yml_is_refused_by_name(self):
        with open(os.path.join(OPUS, "vocab.yml"), encoding="utf-8") as f:
            good = f.read()
        self.refused(good.replace("<unk>: 1\n", "<unk>: 0\n"), "the id 0 is already given")
        self.refused(good.replace("<unk>: 1\n", "<unk>: 999\n"), "dense id maps only")
        self.refused(good.replace("</s>: 0\n", '"<eos>": 0\n'), "no '</s>' entry")
        self.refused(good + "extra: 513\n", "has 514 pieces but the model's dim-vocabs says 513")

    def test_a_vocab_yml_alone_is_refused(self):
        r = heed("convert", "--marian", os.path.join(OPUS, "model.npz"), "--vocab",
                 os.path.join(OPUS, "vocab.yml"), "-o", os.path.join(self.tmp.name, "x.heed"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("does not segment the text", r.stderr)


if __name__ == "__main__":
    unittest.main()
