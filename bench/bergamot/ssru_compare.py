"""Bergamot and Heed on one SSRU student (models/pipeline/ssru_student.py), in Marian's format.

What it does, on the DDTP en→fr test split (models/data/ddtp/en-fr.test.*):
1. references (--reference N sentences): the greedy ids of PyTorch (models/pipeline/ssru_torch.py,
   the student's Heed file), of tests/marian_reference.py (Marian's inference in numpy, float64,
   on model.bin) and of Heed reading model.bin (`heed translate --marian`), compared; and
   Bergamot's int8 greedy output against that reference's model of its int8 GEMM;
2. agreement (--limit N sentences, one per call in each engine): Bergamot 0.4.9
   (bench/bergamot/fixture_oracle.mjs: Firefox's options, <unk> banned, max-length-factor 2)
   against Heed's --marian reading (its Marian search rules: <unk> banned; the same length limit,
   ceil(2 × the source's pieces with </s>)): float32 greedy and beam 4 on model.bin, int8 greedy
   and beam 4 (Heed on model.int8.bin, int8 compute; Bergamot int8shiftAll on the same file), and
   Bergamot int8 against Bergamot float32; identical output strings counted, chrF of each run;
3. chrF and BLEU of Heed's float32 greedy (and beam 4 with --beam4-all) on the whole test split.
What it is not: a speed comparison (bench.mjs), nor a test.

Usage (after export_marian.py wrote the bundle; build/heed and bench/bergamot/node_modules needed):
  /usr/bin/python3 -m bench.bergamot.ssru_compare --bundle bench/bergamot/marian/ssru \
      --model models/checkpoints/en-fr-ssru.f16.heed --report models/cards/en-fr-ssru.compare.json
"""
import argparse
import json
import math
import os
import subprocess
import tempfile

import sentencepiece as spm
import torch

from models import ROOT
from models.pipeline import ssru_torch
from models.pipeline.metrics import corpus_bleu, corpus_chrf
from models.pipeline.train import read
from tests import marian_reference as ref

HEED = os.environ.get("HEED_CLI", os.path.join(ROOT, "build", "heed"))
ORACLE = os.path.join(ROOT, "bench", "bergamot", "fixture_oracle.mjs")
TEST = os.path.join(ROOT, "models", "data", "ddtp", "en-fr.test.")
FACTOR = 2.0  # Marian's max-length-factor, as Firefox sets it


def heed(model, vocab, sources, limits, beam=1, compute="f32"):
    """(texts, ids) of `heed translate --marian`, one sentence a line, each with its
    own length limit (the CLI takes one per call, so the sentences go in groups of one limit)."""
    texts, ids = [None] * len(sources), [None] * len(sources)
    for limit in sorted(set(limits)):
        rows = [i for i, l in enumerate(limits) if l == limit]
        r = subprocess.run([HEED, "translate", "--marian", model, "--vocab", vocab, "--no-split",
                            "--ids", "--beam", str(beam), "--compute", compute,
                            "--max-length", str(limit)],
                           input="".join(sources[i] + "\n" for i in rows), capture_output=True,
                           text=True)
        lines = r.stdout.split("\n")
        if len(lines) <= len(rows):
            raise SystemExit("heed translate failed:\n" + r.stderr)
        for i, line in zip(rows, lines):
            text, _, id_text = line.partition("\t")
            texts[i], ids[i] = text, [int(x) for x in id_text.split()]
    return texts, ids


def bergamot(model, vocab, sources, gemm="float32", beam=1):
    """Bergamot's outputs, one call a sentence (fixture_oracle.mjs)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sources, f)
    try:
        r = subprocess.run(["node", ORACLE, "--model", model, "--vocab", vocab, "--gemm", gemm,
                            "--beam", str(beam), "--sentences", f.name],
                           capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        raise SystemExit("fixture_oracle.mjs failed:\n" + r.stderr)
    return json.loads(r.stdout)["outputs"]


def strip(ids, eos):
    return [i for i in ids if i != eos]


def references(args, sp, sources, limits):
    """Greedy ids of PyTorch, the numpy reference and Heed on the first --reference sentences."""
    torch.set_num_threads(1)
    model, _, _ = ssru_torch.read(args.model)
    eos, unk = model.cfg["eos_id"], model.cfg["unk_id"]
    marian = ref.Marian.from_items(ref.load_marian_bin(os.path.join(args.bundle, "model.bin")),
                                   eos, unk)
    n = args.reference
    _, heed_ids = heed(os.path.join(args.bundle, "model.bin"), args.vocab, sources[:n], limits[:n])
    rows = []
    for k, text in enumerate(sources[:n]):
        src = sp.encode(text) + [eos]
        r = marian.translate(src, FACTOR)
        unk_allowed = marian.translate(src, FACTOR, allow_unk=True)["ids"]
        torch_ids = ssru_torch.greedy(model, [src], [limits[k]])[0]
        rows.append({"source": text, "reference_ids": strip(r["ids"], eos),
                     "pytorch_same": strip(torch_ids, eos) == strip(unk_allowed, eos),
                     "heed_same": strip(heed_ids[k], eos) == strip(r["ids"], eos),
                     "unk_would_win": unk_allowed != r["ids"],
                     "min_margin": round(min(r["margins"]), 6)})
    # int8: the reference's model of Bergamot's int8shiftAll GEMM (marian_reference.Marian.
    # int8_product) on model.int8.bin, against Bergamot itself
    int8 = os.path.join(args.bundle, "model.int8.bin")
    marian8 = ref.Marian.from_items(ref.load_marian_bin(int8), eos, unk, "int8shiftAll")
    bergamot8 = bergamot(int8, args.vocab, sources[:n], "int8shiftAll")
    for k, text in enumerate(sources[:n]):
        r8 = marian8.translate(sp.encode(text) + [eos], FACTOR)
        ids = strip(r8["ids"], eos)
        rows[k]["bergamot_int8_same"] = bergamot8[k] == ref.bergamot_text(text, sp.decode(ids))
        rows[k]["int8_min_margin"] = round(min(r8["margins"]), 6)
    return {"sentences": n,
            "bergamot_int8_equals_reference_int8": sum(r["bergamot_int8_same"] for r in rows),
            "pytorch_equals_reference": sum(r["pytorch_same"] for r in rows),
            "heed_equals_reference": sum(r["heed_same"] for r in rows),
            "unk_would_win": sum(r["unk_would_win"] for r in rows),
            "smallest_margin": min(r["min_margin"] for r in rows), "rows": rows}


def scored(hyps, refs):
    return {"chrF": round(corpus_chrf(hyps, refs), 2), "BLEU": round(corpus_bleu(hyps, refs)[0], 2)}


def agreement(args, sources, refs, limits):
    """Identical outputs of Bergamot and Heed per configuration, with examples of differences."""
    f32, int8 = (os.path.join(args.bundle, n) for n in ("model.bin", "model.int8.bin"))
    runs, out = {}, {}
    for name, model, gemm, beam in (("float32 greedy", f32, "float32", 1),
                                    ("float32 beam 4", f32, "float32", 4),
                                    ("int8 greedy", int8, "int8shiftAll", 1),
                                    ("int8 beam 4", int8, "int8shiftAll", 4)):
        if args.runs and name not in args.runs:
            continue
        h = heed(model, args.vocab, sources, limits, beam, "f32" if gemm == "float32" else "int8")[0]
        b = bergamot(model, args.vocab, sources, gemm, beam)
        runs[name] = (h, b)
        same = [i for i in range(len(sources)) if h[i] == b[i]]
        out[name] = {"identical": len(same), "total": len(sources),
                     "heed": scored(h, refs), "bergamot": scored(b, refs),
                     "differences": [{"source": sources[i], "heed": h[i], "bergamot": b[i]}
                                     for i in range(len(sources)) if h[i] != b[i]][:5]}
        print("%s: %d/%d identical" % (name, len(same), len(sources)), flush=True)
    for beam in ("greedy", "beam 4"):
        if "int8 " + beam not in runs or "float32 " + beam not in runs:
            continue
        b8, b32 = runs["int8 " + beam][1], runs["float32 " + beam][1]
        out["Bergamot int8 vs float32, " + beam] = {
            "identical": sum(x == y for x, y in zip(b8, b32)), "total": len(sources)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundle", required=True, help="export_marian.py's --out folder")
    ap.add_argument("--model", required=True, help="the student's Heed file (PyTorch reads it)")
    ap.add_argument("--limit", type=int, default=200,
                    help="sentences compared (0: the whole split)")
    ap.add_argument("--reference", type=int, default=20)
    ap.add_argument("--only-references", action="store_true", help="step 1 alone (no report)")
    ap.add_argument("--runs", nargs="+", metavar="RUN",
                    help="step 2's runs to make (default all): 'float32 greedy', 'float32 beam 4', "
                         "'int8 greedy', 'int8 beam 4'")
    ap.add_argument("--no-test-split", action="store_true", help="leave out step 3")
    ap.add_argument("--beam4-all", action="store_true", help="also beam 4 on the whole split")
    ap.add_argument("--report", required=True)
    args = ap.parse_args()
    args.vocab = os.path.join(args.bundle, "vocab.spm")
    sp = spm.SentencePieceProcessor(model_file=args.vocab)
    sources, refs = read(TEST + "en"), read(TEST + "fr")
    limits = [int(math.ceil(FACTOR * (len(sp.encode(s)) + 1))) for s in sources]
    report = {"bundle": os.path.relpath(os.path.abspath(args.bundle), ROOT),
              "model": os.path.relpath(os.path.abspath(args.model), ROOT),
              "length_limit": "ceil(2 x (source pieces + 1))"}
    if args.reference:
        report["references"] = references(args, sp, sources, limits)
        print("references: PyTorch %(pytorch_equals_reference)d/%(sentences)d, Heed "
              "%(heed_equals_reference)d/%(sentences)d equal the numpy reference; Bergamot int8 "
              "%(bergamot_int8_equals_reference_int8)d/%(sentences)d its int8 model"
              % report["references"], flush=True)
    if args.only_references:
        return
    n = args.limit or len(sources)
    report["agreement"] = agreement(args, sources[:n], refs[:n], limits[:n])
    f32 = os.path.join(args.bundle, "model.bin")
    report["test_split"] = {"pairs": len(sources)}
    for beam in [] if args.no_test_split else [1, 4] if args.beam4_all else [1]:
        hyps = heed(f32, args.vocab, sources, limits, beam)[0]
        report["test_split"]["heed float32 beam %d" % beam] = scored(hyps, refs)
        print("whole test split, Heed float32 beam %d: %s"
              % (beam, report["test_split"]["heed float32 beam %d" % beam]), flush=True)
    with open(args.report, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
