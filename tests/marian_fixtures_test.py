"""tests/data/marian/: the Marian bundles (Firefox-shaped SSRU model, separate vocabularies, an
OPUS-MT npz with vocab.yml, an SSRU model with a LayerNorm on its embeddings whose <unk> only
Marian's suppression keeps out) load as Marian reads them, the numpy reference
(tests/marian_reference.py) reproduces expected.json, and Bergamot (Marian itself, compiled to
WASM) still translates them as expected.json recorded.

Regenerates nothing: models/goldens/make_marian_fixtures.py writes the fixtures. The Bergamot
check runs bench/bergamot/fixture_oracle.mjs and is skipped, with the reason printed, when
bench/bergamot/node_modules is absent (cd bench/bergamot && npm ci --no-audit --no-fund).

Run from the repository root: /usr/bin/python3 -m tests.marian_fixtures_test
"""
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest
import zipfile

import numpy as np
import sentencepiece as spm

from models import ROOT
from tests import marian_reference as ref

DATA = os.path.join(ROOT, "tests", "data", "marian")
ORACLE = os.path.join(ROOT, "bench", "bergamot", "fixture_oracle.mjs")
NODE_MODULES = os.path.join(ROOT, "bench", "bergamot", "node_modules")
MATRIX_SUFFIXES = ("_Wq", "_Wk", "_Wv", "_Wo", "_W1", "_W2", "_rnn_W", "_rnn_Wf")


def path(*parts):
    return os.path.join(DATA, *parts)


def sp(*parts):
    return spm.SentencePieceProcessor(model_file=path(*parts))


class MarianFixtures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(path("expected.json"), encoding="utf-8") as f:
            cls.expected = json.load(f)
        cls.fx = cls.expected["fixtures"]

    # ---- the files, as Marian reads them ----

    def test_the_folder_stays_small(self):
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(DATA) for f in fs)
        self.assertLess(total, 2_200_000)

    def test_ssru_model_bin_holds_the_firefox_parameters(self):
        items = ref.load_marian_bin(path("ssru", "model.bin"))
        yml = ref.model_yml(items)
        for key, value in {"transformer-decoder-autoreg": "rnn", "dec-cell": "ssru",
                           "dec-depth": 2, "enc-depth": 2, "dim-emb": 32, "transformer-heads": 4,
                           "transformer-dim-ffn": 64, "transformer-postprocess": "dan",
                           "transformer-preprocess": "", "transformer-postprocess-emb": "d",
                           "tied-embeddings-all": True, "dim-vocabs": [400, 400],
                           "transformer-ffn-activation": "relu"}.items():
            self.assertEqual(yml[key], value, key)
        for name, shape in {"Wemb": (400, 32), "decoder_l1_rnn_W": (32, 32),
                            "decoder_l2_rnn_Wf": (32, 32), "decoder_l1_rnn_bf": (1, 32),
                            "decoder_l2_rnn_ffn_ln_scale": (1, 32),
                            "decoder_l1_context_Wq": (32, 32), "encoder_l2_ffn_W1": (32, 64),
                            "decoder_ff_logit_out_b": (1, 400)}.items():
            self.assertEqual(items[name].shape, shape, name)
        self.assertNotIn("decoder_l1_self_Wq", items)
        self.assertFalse(any(k.startswith(("encoder_Wemb", "decoder_Wemb")) for k in items))

    def test_npz_holds_the_same_items_as_the_bin(self):
        binary = ref.load_marian_bin(path("ssru", "model.bin"))
        npz = ref.load_marian_npz(path("ssru", "model.npz"))
        self.assertEqual(set(binary), set(npz))
        for k, v in binary.items():
            if isinstance(v, np.ndarray):
                np.testing.assert_array_equal(v, npz[k], k)
        self.assertEqual(binary["special:model.yml"], npz["special:model.yml"])
        with zipfile.ZipFile(path("ssru", "model.npz")) as z:  # Marian's cnpy reads stored zips
            self.assertTrue(all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()))
        with np.load(path("ssru", "model.npz")) as z:
            self.assertEqual(z["special:model.yml"].dtype, np.int8)
            self.assertEqual(z["special:model.yml"][-1], 0)

    def test_intgemm8_matrices_are_within_half_a_step(self):
        f32 = ref.load_marian_bin(path("ssru", "model.bin"))
        for name in ("model.intgemm8.bin", "model.alphas.bin"):
            i8 = ref.load_marian_bin(path("ssru", name))
            quantised = sorted(k for k, v in i8.items() if isinstance(v, tuple))
            self.assertIn("Wemb", quantised)
            self.assertIn("decoder_l1_rnn_W", quantised)
            self.assertIn("decoder_l2_rnn_Wf", quantised)
            self.assertNotIn("decoder_l1_rnn_bf", quantised)
            for k in quantised:
                if k.endswith("_QuantMultA"):
                    continue
                w, qm = i8[k]
                self.assertAlmostEqual(qm, 127 / np.abs(f32[k]).max(), delta=1e-3 * qm)
                self.assertLessEqual(np.abs(w - f32[k]).max(), 0.5 / qm * 1.0001, k)
            for k, v in f32.items():
                if k not in quantised and isinstance(v, np.ndarray):
                    np.testing.assert_array_equal(i8[k], v, k)

    def test_alphas_name_every_matrix_input(self):
        items = ref.load_marian_bin(path("ssru", "model.alphas.bin"))
        alphas = {k for k in items if k.endswith("_QuantMultA")}
        matrices = {k for k in items if k == "Wemb" or k.endswith(MATRIX_SUFFIXES)}
        self.assertEqual(alphas, {k + "_QuantMultA" for k in matrices} | {"none_QuantMultA"})
        recorded = self.fx["ssru"]["alphas"]
        for k in alphas:
            v = items[k][0] if isinstance(items[k], tuple) else items[k]
            self.assertEqual(v.shape, (1, 1), k)
            self.assertAlmostEqual(float(v[0, 0]), recorded[k], delta=1e-5 * recorded[k], msg=k)
        # marian-conv quantises every item whose name holds "Wemb", the alpha of Wemb included
        self.assertIsInstance(items["Wemb_QuantMultA"], tuple)
        self.assertIsInstance(items["none_QuantMultA"], np.ndarray)

    def test_separate_model_has_two_embeddings_and_ties_the_decoders(self):
        items = ref.load_marian_bin(path("separate", "model.bin"))
        yml = ref.model_yml(items)
        v_src, v_trg = sp("separate", "source.spm").get_piece_size(), \
            sp("separate", "target.spm").get_piece_size()
        self.assertNotEqual(v_src, v_trg)
        self.assertEqual(yml["dim-vocabs"], [v_src, v_trg])
        self.assertIs(yml["tied-embeddings"], True)
        self.assertIs(yml["tied-embeddings-all"], False)
        self.assertEqual(items["encoder_Wemb"].shape, (v_src, 32))
        self.assertEqual(items["decoder_Wemb"].shape, (v_trg, 32))
        self.assertEqual(items["decoder_ff_logit_out_b"].shape, (1, v_trg))
        self.assertNotIn("Wemb", items)
        self.assertNotIn("decoder_ff_logit_out_Wt", items)

    def test_shortlist_passes_marians_checks(self):
        with open(path("ssru", "lex.s2t.bin"), "rb") as f:
            blob = f.read()
        first, best, lists = ref.read_shortlist(blob)  # magic, size, checksum, offsets
        meta = self.fx["ssru"]["shortlist"]
        self.assertEqual((first, best), (meta["firstNum"], meta["bestNum"]))
        self.assertEqual(len(lists), 400)
        self.assertTrue(all(l == sorted(set(l)) and len(l) <= best for l in lists))
        self.assertTrue(all(0 <= t < 400 for l in lists for t in l))
        self.assertIn([], lists)
        self.assertEqual(sum(len(l) for l in lists), meta["ids"])
        self.assertEqual(meta["ids"] % 2, 1)  # the last id lies outside the checksummed words
        corrupted = bytearray(blob)
        corrupted[-5] ^= 1
        with self.assertRaises(AssertionError):
            ref.read_shortlist(bytes(corrupted))

    def test_opus_vocab_yml_is_a_joint_vocabulary_in_its_own_order(self):
        with open(path("opus", "vocab.yml"), encoding="utf-8") as f:
            text = f.read()
        vocab = ref.parse_yaml(text)
        self.assertEqual(vocab["</s>"], 0)
        self.assertEqual(vocab["<unk>"], 1)
        self.assertEqual(sorted(vocab.values()), list(range(len(vocab))))
        self.assertIn('\n"', text)  # some keys need quotes
        self.assertRegex(text, r'\\["\\]')  # and escapes
        src, trg = sp("opus", "source.spm"), sp("opus", "target.spm")
        for model in (src, trg):
            pieces = [model.id_to_piece(i) for i in range(model.get_piece_size())
                      if not (model.is_control(i) or model.is_unknown(i))]
            self.assertTrue(all(p in vocab for p in pieces))
            self.assertNotEqual([vocab[p] for p in pieces], sorted(vocab[p] for p in pieces))
        npz = ref.load_marian_npz(path("opus", "model.npz"))
        self.assertEqual(npz["Wemb"].shape[0], len(vocab))
        self.assertEqual(ref.model_yml(npz)["transformer-decoder-autoreg"], "self-attention")
        self.assertIn("decoder_l1_self_Wq", npz)

    # ---- the reference reproduces expected.json ----

    def check_case(self, model, case, src_ids, decode, shortlist=None, shared=False, rnn=False,
                   traced=False, label=""):
        self.assertEqual(src_ids, case["source_ids"], label)
        factor = self.expected["decoding"]["max_length_factor"]
        r = model.translate(src_ids, max_length_factor=factor)
        self.assertEqual(r["ids"], case["ids"], label)
        self.assertAlmostEqual(min(r["margins"]), case["min_margin"], delta=2e-6)
        self.assertEqual(decode(r["ids"]), case["output"], label)
        if traced:
            att = np.array(r["cross_attention"]).transpose(1, 2, 0, 3)
            np.testing.assert_allclose(att, case["cross_attention"], atol=2e-6, err_msg=label)
            if rnn:
                gates = np.array(r["forget_gates"]).transpose(1, 0, 2)
                np.testing.assert_allclose(gates, case["forget_gates"], atol=2e-6, err_msg=label)
        if shortlist is not None:
            s = model.translate(src_ids, max_length_factor=factor, shortlist=shortlist,
                                shared_vocab=shared)
            self.assertEqual(s["ids"], case["shortlist"]["ids"], label + " (shortlist)")
            self.assertEqual(decode(s["ids"]), case["shortlist"]["output"], label)

    def test_reference_reproduces_ssru(self):
        fx = self.fx["ssru"]
        vocab = sp("ssru", "vocab.spm")
        eos = fx["eos_id"]
        self.assertEqual((eos, fx["unk_id"]), (vocab.eos_id(), vocab.unk_id()))
        with open(path("ssru", "lex.s2t.bin"), "rb") as f:
            shortlist = ref.read_shortlist(f.read())
        for name in ("model.bin", "model.npz"):
            items = (ref.load_marian_npz if name.endswith(".npz") else ref.load_marian_bin)(
                path("ssru", name))
            model = ref.Marian.from_items(items, eos, fx["unk_id"])
            for k, case in enumerate(fx["cases"]):
                self.check_case(model, case, vocab.encode(case["text"]) + [eos],
                                lambda ids: vocab.decode([i for i in ids if i != eos]),
                                shortlist, True, rnn=True, traced="cross_attention" in case,
                                label="%s %r" % (name, case["text"]))

    def test_reference_reproduces_ssru_int8_as_bergamot_computes_it(self):
        fx = self.fx["ssru"]
        vocab = sp("ssru", "vocab.spm")
        eos = fx["eos_id"]
        with open(path("ssru", "lex.s2t.bin"), "rb") as f:
            shortlist = ref.read_shortlist(f.read())
        runs = {run: (r["model"], r["gemm"], r["shortlist"]) for run, r in fx["bergamot"].items()} \
            if "bergamot" in fx else {}
        names = set(fx["cases"][0]["int8"])
        self.assertEqual(names, {"intgemm8 int8shiftAll", "alphas int8shiftAlphaAll",
                                 "alphas int8shiftAlphaAll shortlist"})
        for run in sorted(names):
            model_file, gemm, short = runs.get(run) or {
                "intgemm8 int8shiftAll": ("model.intgemm8.bin", "int8shiftAll", False),
                "alphas int8shiftAlphaAll": ("model.alphas.bin", "int8shiftAlphaAll", False),
                "alphas int8shiftAlphaAll shortlist": ("model.alphas.bin", "int8shiftAlphaAll",
                                                       True)}[run]
            model = ref.Marian.from_items(ref.load_marian_bin(path("ssru", model_file)), eos,
                                          fx["unk_id"], gemm)
            for case in fx["cases"]:
                r = model.translate(case["source_ids"],
                                    self.expected["decoding"]["max_length_factor"],
                                    shortlist if short else None, True)
                self.assertEqual(r["ids"], case["int8"][run]["ids"], "%s %r" % (run, case["text"]))
                self.assertEqual(vocab.decode([i for i in r["ids"] if i != eos]),
                                 case["int8"][run]["output"])

    def test_reference_reproduces_embnorm(self):
        fx = self.fx["embnorm"]
        vocab = sp("ssru", "vocab.spm")
        eos, unk = fx["eos_id"], fx["unk_id"]
        items = ref.load_marian_bin(path("embnorm", "model.bin"))
        self.assertEqual(ref.model_yml(items)["transformer-postprocess-emb"], "dn")
        self.assertEqual(items["encoder_emb_ln_scale_pre"].shape, (1, 32))
        self.assertEqual(items["decoder_emb_ln_bias_pre"].shape, (1, 32))
        with open(path("ssru", "lex.s2t.bin"), "rb") as f:
            shortlist = ref.read_shortlist(f.read())
        model = ref.Marian.from_items(items, eos, unk)
        factor = self.expected["decoding"]["max_length_factor"]
        decode = lambda ids: vocab.decode([i for i in ids if i != eos])
        emitting_unk = 0
        for case in fx["cases"]:
            label = repr(case["text"])
            self.check_case(model, case, vocab.encode(case["text"]) + [eos], decode, shortlist,
                            True, rnn=True, traced="cross_attention" in case, label=label)
            self.assertNotIn(unk, case["ids"], label)
            free = model.translate(case["source_ids"], factor, allow_unk=True)
            self.assertEqual(free["ids"], case["unk_allowed"]["ids"], label)
            emitting_unk += unk in free["ids"]
            if "shortlist_unpadded" in case:
                s = model.translate(case["source_ids"], factor, shortlist, True,
                                    pad_shortlist=False)
                self.assertEqual(s["ids"], case["shortlist_unpadded"]["ids"], label)
                self.assertNotEqual(s["ids"], case["shortlist"]["ids"], label)
        # without Marian's suppression the model would emit <unk> in some sentences, and
        # without Marian's padding of the shortlist some shortlisted outputs would differ
        self.assertGreaterEqual(emitting_unk, 3)
        self.assertGreaterEqual(sum("shortlist_unpadded" in c for c in fx["cases"]), 2)

    def test_reference_reproduces_separate(self):
        fx = self.fx["separate"]
        src, trg = sp("separate", "source.spm"), sp("separate", "target.spm")
        eos = trg.eos_id()
        model = ref.Marian.from_items(ref.load_marian_bin(path("separate", "model.bin")), eos,
                                      trg.unk_id())
        for case in fx["cases"]:
            self.check_case(model, case, src.encode(case["text"]) + [src.eos_id()],
                            lambda ids: trg.decode([i for i in ids if i != eos]), rnn=True,
                            traced="cross_attention" in case, label=repr(case["text"]))

    def test_reference_reproduces_opus(self):
        fx = self.fx["opus"]
        src, trg = sp("opus", "source.spm"), sp("opus", "target.spm")
        with open(path("opus", "vocab.yml"), encoding="utf-8") as f:
            vocab = ref.parse_yaml(f.read())
        pieces = {i: p for p, i in vocab.items()}
        model = ref.Marian.from_items(ref.load_marian_npz(path("opus", "model.npz")), 0, 1)
        for case in fx["cases"]:
            source = src.encode(case["text"], out_type=str)
            self.assertEqual(source, case["source_pieces"])
            out = [pieces[i] for i in case["ids"] if i != 0]
            self.assertEqual(out, case["pieces"])
            self.check_case(model, case, [vocab.get(p, 1) for p in source] + [0],
                            lambda ids: trg.decode_pieces([pieces[i] for i in ids if i != 0]),
                            traced="cross_attention" in case, label=repr(case["text"]))

    def test_outputs_are_not_degenerate(self):
        for name, fx in self.fx.items():
            outputs = [c["output"] for c in fx["cases"]]
            self.assertGreaterEqual(len(set(outputs)), 10, name)
            ended = sum(c["ids"][-1] == fx["eos_id"] for c in fx["cases"])
            self.assertGreaterEqual(ended, 9, name)

    # ---- Bergamot still agrees ----

    def bergamot(self, fixture, args):
        """fixture_oracle.mjs's outputs for the sentences, run in tests/data/marian/."""
        if not os.path.isdir(NODE_MODULES) or shutil.which("node") is None:
            reason = "bench/bergamot/node_modules is absent (cd bench/bergamot && npm ci " \
                     "--no-audit --no-fund) or node is missing"
            print("\nmarian_fixtures_test: Bergamot check skipped: " + reason)
            self.skipTest(reason)
        vocabs = sum((["--vocab", "%s/%s" % (fixture, v)]
                      for v in self.fx[fixture]["vocabularies"]), [])
        with tempfile.TemporaryDirectory() as tmp:
            sentences = os.path.join(tmp, "sentences.json")
            with open(sentences, "w", encoding="utf-8") as f:
                json.dump(self.expected["sentences"], f)
            r = subprocess.run(["node", ORACLE, "--sentences", sentences] + args + vocabs,
                               cwd=DATA, capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["outputs"]

    def test_bergamot_translates_as_recorded(self):
        for fixture in ("ssru", "separate", "embnorm"):
            fx = self.fx[fixture]
            self.assertIn("bergamot", fx, "expected.json was written without Bergamot")
            for run, rec in fx["bergamot"].items():
                args = ["--model", "%s/%s" % (fixture, rec["model"]), "--gemm", rec["gemm"]]
                if rec["shortlist"]:
                    args += ["--shortlist", "%s/%s" % (fixture, fx["shortlist"]["file"])]
                outputs = self.bergamot(fixture, args)
                label = "%s %s" % (fixture, run)
                self.assertEqual(outputs, rec["outputs"], label)
                cases = fx["cases"]
                floats = [ref.bergamot_text(c["text"],
                                            (c["shortlist"] if rec["shortlist"] else c)["output"])
                          for c in cases]
                mine = floats if rec["gemm"] == "float32" else \
                    [ref.bergamot_text(c["text"], c["int8"][run]["output"]) for c in cases]
                # the reference computes what Bergamot computes, in float32 and in int8
                self.assertEqual(outputs, mine, label)
                self.assertEqual(rec["same"], len(outputs), label)
                self.assertEqual(rec["same_as_float32"],
                                 sum(a == b for a, b in zip(outputs, floats)), label)

    def test_bergamot_checks_the_shortlist_checksum_with_its_own_hash(self):
        """With check-bytearray, Bergamot's WASM build recomputes the checksum with libc++'s
        32-bit std::hash: the committed (native) file is refused, the same bytes with the
        checksum marian_reference computes for WASM are accepted."""
        with open(path("ssru", "lex.s2t.bin"), "rb") as f:
            blob = f.read()
        wasm = blob[:8] + struct.pack("<Q", ref.shortlist_checksum(blob, wasm=True)) + blob[16:]
        self.assertNotEqual(wasm, blob)
        with tempfile.TemporaryDirectory() as tmp:
            lex = os.path.join(tmp, "lex.wasm.bin")
            with open(lex, "wb") as f:
                f.write(wasm)
            outputs = self.bergamot("ssru", ["--model", "ssru/model.bin", "--gemm", "float32",
                                             "--shortlist", lex, "--check"])
        self.assertEqual(outputs, [ref.bergamot_text(c["text"], c["shortlist"]["output"])
                                   for c in self.fx["ssru"]["cases"]])
        with self.assertRaises(AssertionError):
            self.bergamot("ssru", ["--model", "ssru/model.bin", "--gemm", "float32",
                                   "--shortlist", "ssru/lex.s2t.bin", "--check"])


if __name__ == "__main__":
    unittest.main()
