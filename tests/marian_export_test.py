"""bench/bergamot/export_marian.py: a Marian-computable Heed model converts to Marian's binary
format with the same function.

The engine's own translations (the native CLI, f32) are compared with a numpy transcription of
the Marian computation the export targets (marian-dev, browsermt fork: src/models/transformer.h,
post-norm path; src/graph/node_initializers.cpp, sinusoids; src/models/decoder.h, the zero start),
run on the written model.bin as Marian's loader reads it (src/common/binary.cpp). Bergamot itself
is run on the real model by bench/bergamot/bench.mjs, which prints how many translations agree.

Run from the repository root: /usr/bin/python3 -m tests.marian_export_test (numpy; HEED_CLI =
the native CLI, default build/heed). The transcription itself (load_marian_bin, Marian) lives in
tests/marian_reference.py, shared with tests/marian_fixtures_test.py.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from models import ROOT
from models.heed_file import HeedFile, write_heed_file
from models.pipeline import marian_compat
from tests.marian_reference import Marian, load_marian_bin

CLI = os.environ.get("HEED_CLI", os.path.join(ROOT, "build", "heed"))
TINY = os.path.join(ROOT, "models", "tiny", "tiny.heed")
EXPORT = [sys.executable, "-m", "bench.bergamot.export_marian"]  # run from ROOT
TEXTS = ["hello world", "The package provides a library.", "Fonts for the screen, and more!"]
BEAM_TEXTS = ["This package contains the documentation.", "A simple text editor",
              "Development files for the library", "Please read the manual before you start."]


def read(path):
    """(metadata, {name: (dtype, a writable copy of the stored array)})."""
    f = HeedFile(path)
    return dict(f.meta), {k: (d, a.copy()) for k, (d, a) in f.stored_tensors().items()}


def marian_compatible_tiny(path):
    """The tiny test model made Marian-computable: post-norm (no final norms), Marian's
    positions, a zero start row, eps 1e-6. Its random weights are kept."""
    meta, t = read(TINY)
    cfg = json.loads(meta["heed.config"])
    for k in ("encoder.ln.weight", "encoder.ln.bias", "decoder.ln.weight", "decoder.ln.bias"):
        t.pop(k)
    pe = marian_compat.positions(cfg["max_positions"], cfg["d_model"])
    t["encoder.pos.weight"] = ("F32", pe)
    t["decoder.pos.weight"] = ("F32", pe.copy())
    dtype, emb = t["embed.weight"]
    emb[cfg["decoder_start_id"]] = 0
    if dtype == "I8":
        t["embed.weight.scale"][1][cfg["decoder_start_id"]] = 1.0
    cfg.update(pre_norm=False, positions="learned", layer_norm_eps=1e-6)
    meta["heed.config"] = json.dumps(cfg)
    write_heed_file(path, meta, t)
    return cfg


class Exported(unittest.TestCase):
    """A tiny model written by `make` (path -> config) into a temporary folder and exported to
    Marian's format there (`out`); `engine()` is the engine's greedy trace of TEXTS on it."""
    make, name = None, None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, cls.name)
        cls.cfg = cls.make(cls.model)
        cls.out = os.path.join(cls.tmp.name, "marian")
        subprocess.run(EXPORT + ["--model", cls.model, "--out", cls.out], check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def engine(self):
        trace = os.path.join(self.tmp.name, "trace.json")
        subprocess.run([CLI, "translate", "-m", self.model, "--compute", "f32", "--no-split",
                        "--attention", trace] + TEXTS, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(trace) as f:
            return json.load(f)


class MarianExport(Exported):
    make, name = staticmethod(marian_compatible_tiny), "tiny-marian.heed"

    def test_greedy_translations_equal_the_engines(self):
        engine = self.engine()
        marian = Marian(load_marian_bin(os.path.join(self.out, "model.bin")), self.cfg)
        self.assertEqual(len(engine), len(TEXTS))
        for sentence in engine:
            ids, probs = marian.greedy(sentence["sourceIds"], len(sentence["targetIds"]))
            self.assertEqual(ids, sentence["targetIds"], sentence["source"])
            np.testing.assert_allclose(probs, sentence["tokenProbs"], atol=1e-6)

    def test_beam_search_through_the_marian_reader_is_marians(self):
        """The export read back through the Marian reader (search_rules marian) searches as
        Marian's beam search does: the reference's (its beam narrowing as hypotheses end, <unk>
        never chosen, at most 2 x the source's pieces, score / length) gives the same ids and
        score, its margins all wider than float32 rounding."""
        trace = os.path.join(self.tmp.name, "beam.json")
        texts = TEXTS + BEAM_TEXTS
        subprocess.run([CLI, "translate", "--marian", os.path.join(self.out, "model.bin"),
                        "--vocab", os.path.join(self.out, "vocab.spm"), "--beam", "4",
                        "--no-split", "--attention", trace] + texts, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(trace) as f:
            engine = json.load(f)
        marian = Marian.from_items(load_marian_bin(os.path.join(self.out, "model.bin")),
                                   self.cfg["eos_id"], self.cfg["unk_id"])
        self.assertEqual(len(engine), len(texts))
        ended_early = 0
        for sentence in engine:
            r = marian.beam(sentence["sourceIds"], 4)
            others = [s for ids, s in r["ended"] if ids != r["ids"]]
            margins = r["prune_margins"] + [r["score"] - max(others)] if others else []
            self.assertGreater(min(margins), 1e-4, sentence["source"])
            self.assertEqual(r["ids"], sentence["targetIds"], sentence["source"])
            self.assertAlmostEqual(r["score"], sentence["score"], delta=1e-5)
            ended_early += len(r["ids"]) < 2 * len(sentence["sourceIds"])
        self.assertGreater(ended_early, 0, "every search ran to the length limit")

    def test_int8_file_holds_each_matrix_within_half_a_step(self):
        f32 = load_marian_bin(os.path.join(self.out, "model.bin"))
        i8 = load_marian_bin(os.path.join(self.out, "model.int8.bin"))
        self.assertEqual(set(f32), set(i8))
        quantised = [k for k, v in i8.items() if isinstance(v, tuple)]
        self.assertIn("Wemb", quantised)
        self.assertIn("encoder_l1_self_Wq", quantised)
        self.assertIn("decoder_l2_ffn_W2", quantised)
        self.assertNotIn("encoder_l1_self_bq", quantised)
        self.assertNotIn("decoder_l1_context_Wo_ln_scale", quantised)
        for k in quantised:
            w, qm = i8[k]
            self.assertAlmostEqual(qm, 127 / np.abs(f32[k]).max(), delta=1e-3 * qm)
            self.assertLessEqual(np.abs(w - f32[k]).max(), 0.5 / qm * 1.0001, k)

    def test_model_yml_names_the_architecture(self):
        yml = load_marian_bin(os.path.join(self.out, "model.bin"))["special:model.yml"]
        self.assertEqual(yml[-1:], b"\0")
        text = yml[:-1].decode()
        for line in ("type: transformer", "dim-emb: 32", "enc-depth: 2", "dec-depth: 2",
                     "transformer-heads: 4", "transformer-dim-ffn: 64",
                     "transformer-postprocess: dan", "tied-embeddings-all: true"):
            self.assertIn(line + "\n", text)

    def test_vocab_is_the_models_tokenizer(self):
        _, t = read(self.model)
        with open(os.path.join(self.out, "vocab.spm"), "rb") as f:
            self.assertEqual(f.read(), t["tokenizer.model"][1].tobytes())

    def test_models_marian_cannot_compute_are_refused_with_the_reasons(self):
        r = subprocess.run(EXPORT + ["--model", TINY, "--out",
                                     os.path.join(self.tmp.name, "refused")],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertNotEqual(r.returncode, 0)
        for reason in ("pre-norm", "layer_norm_eps", "sinusoidal positions", "decoder_start_id"):
            self.assertIn(reason, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "refused", "model.bin")))

    def refused(self, model, *reasons):
        """Exports `model`: refused with each of `reasons` in the message, nothing written."""
        out = os.path.join(self.tmp.name, "refused-out")
        r = subprocess.run(EXPORT + ["--model", model, "--out", out], capture_output=True,
                           text=True, env=dict(os.environ, HEED_CLI=CLI), cwd=ROOT)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        for reason in reasons:
            self.assertIn(reason, r.stderr)
        self.assertFalse(os.path.exists(out), "nothing is written for a refused model")
        return r.stderr

    def crafted(self, name, change):
        """The Marian-computable tiny model with `change(cfg, tensors)` applied."""
        path = os.path.join(self.tmp.name, name)
        meta, t = read(self.model)
        cfg = json.loads(meta["heed.config"])
        change(cfg, t)
        meta["heed.config"] = json.dumps(cfg)
        write_heed_file(path, meta, t)
        return path

    def test_a_nan_weight_is_refused_by_the_engines_check(self):
        def nan(cfg, t):
            t["encoder.0.ffn.fc1.bias"][1][3] = np.nan
        self.refused(self.crafted("nan.heed", nan), "the engine refuses",
                     "tensor 'encoder.0.ffn.fc1.bias' has a non-finite value")

    def test_a_string_in_the_config_never_reaches_the_yaml(self):
        def inject(cfg, t):
            cfg["d_model"] = "32\ntype: s2s"
        self.refused(self.crafted("yaml.heed", inject), "the engine refuses", "d_model")

    def test_an_absurd_vocabulary_is_refused_before_anything_is_written(self):
        def huge(cfg, t):
            cfg["vocab_size"] = 10 ** 8
        self.refused(self.crafted("vocab.heed", huge), "the engine refuses", "vocab_size")

    def test_a_device_is_refused_not_read(self):
        self.refused("/dev/zero", "not a regular file")

    def test_marian_positions_by_hand(self):
        # p = 3, frequency i = 5 of D/2 = 16: 3 * exp(-5 * ln(10000) / 15)
        pe = marian_compat.marian_sinusoids(4, 32)
        v = 3 * math.exp(-5 * math.log(10000.0) / 15)
        self.assertAlmostEqual(float(pe[3, 5]), math.sin(v), places=6)
        self.assertAlmostEqual(float(pe[3, 16 + 5]), math.cos(v), places=6)
        heed = marian_compat.positions(4, 32)  # interleaved: sin at 2i, cos at 2i + 1
        self.assertEqual(float(heed[3, 10]), float(pe[3, 5]))
        self.assertEqual(float(heed[3, 11]), float(pe[3, 21]))


def ssru_tiny(path, seed=7):
    """The Marian-computable tiny model with each decoder layer's self-attention replaced by an
    SSRU cell (Kim et al. 2019) of random weights: W, W_f, b_f (W's bias zero, as Marian's
    cell has none); the rest of its weights kept."""
    cfg = marian_compatible_tiny(path)
    meta, t = read(path)
    rng = np.random.RandomState(seed)
    d = cfg["d_model"]
    for i in range(cfg["decoder_layers"]):
        p = "decoder.%d." % i
        for k in [k for k in t if k.startswith(p + "self_attn.")]:
            del t[k]
        t[p + "ssru.w.weight"] = ("F32", rng.uniform(-0.4, 0.4, (d, d)).astype(np.float32))
        t[p + "ssru.w.bias"] = ("F32", np.zeros(d, np.float32))
        t[p + "ssru.f.weight"] = ("F32", rng.uniform(-0.4, 0.4, (d, d)).astype(np.float32))
        t[p + "ssru.f.bias"] = ("F32", rng.normal(0, 1, d).astype(np.float32))
    cfg["decoder_self"] = "ssru"
    meta["heed.config"] = json.dumps(cfg)
    write_heed_file(path, meta, t)
    return cfg


class MarianExportSsru(Exported):
    """An SSRU decoder (Firefox Translations' students) converts too: the cell's matrices read and
    write the residual stream, so both their rows and columns follow Marian's order."""
    make, name = staticmethod(ssru_tiny), "tiny-ssru.heed"

    def test_greedy_translations_equal_the_engines(self):
        engine = self.engine()
        items = load_marian_bin(os.path.join(self.out, "model.bin"))
        marian = Marian.from_items(items, self.cfg["eos_id"])
        for sentence in engine:
            ids, probs = marian.greedy(sentence["sourceIds"], len(sentence["targetIds"]))
            self.assertEqual(ids, sentence["targetIds"], sentence["source"])
            np.testing.assert_allclose(probs, sentence["tokenProbs"], atol=1e-6)

    def test_model_yml_and_names_are_marians_ssru(self):
        items = load_marian_bin(os.path.join(self.out, "model.bin"))
        text = items["special:model.yml"][:-1].decode()
        for line in ("transformer-decoder-autoreg: rnn", "dec-cell: ssru"):
            self.assertIn(line + "\n", text)
        for i in (1, 2):
            for name in ("_rnn_W", "_rnn_Wf", "_rnn_bf", "_rnn_ffn_ln_scale", "_rnn_ffn_ln_bias"):
                self.assertIn("decoder_l%d%s" % (i, name), items)
            self.assertNotIn("decoder_l%d_self_Wq" % i, items)
            self.assertNotIn("decoder_l%d_rnn_b" % i, items)

    def test_a_bias_on_the_cells_w_is_refused(self):
        meta, t = read(self.model)
        t["decoder.0.ssru.w.bias"][1][0] = 0.5
        path = os.path.join(self.tmp.name, "biased.heed")
        write_heed_file(path, meta, t)
        r = subprocess.run(EXPORT + ["--model", path, "--out", os.path.join(self.tmp.name, "no")],
                           capture_output=True, text=True, cwd=ROOT)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("SSRU W", r.stderr)


if __name__ == "__main__":
    unittest.main()
