"""Compares one model's translations under the engine's compute settings on a held-out split:
f32 (int8 weights widened at load), int8 (the default) and int8 with the output shortlist,
greedy and beam 4. Prints chrF and BLEU (models/pipeline/metrics.py) of each and how many
sentences each setting translates differently from f32.

What it is: the quality check of issue 12 (int8 within 0.3 chrF of f32; how often the shortlist
changes the output), run with the C++ CLI (build/heed).
What it is not: a speed benchmark (npm run bench, bench/) nor training.

Usage: /usr/bin/python3 -m models.pipeline.compare_compute --model models/en-fr.heed --pair en-fr \
           [--source ddtp] [--split test] [--limit N] [--beams 1 4]
"""
import argparse
import os
import subprocess
import sys

from models import MODELS, ROOT
from models.pipeline.metrics import corpus_bleu, corpus_chrf

SETTINGS = [("f32", ["--compute", "f32"]), ("int8", []), ("int8 + shortlist", ["--shortlist"])]


def translate(heed, model, sources, beam, extra):
    cmd = [heed, "translate", "-m", model, "--no-split", "--beam", str(beam)] + extra
    out = subprocess.run(cmd, input="\n".join(sources) + "\n", capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("compare_compute: %s failed: %s" % (" ".join(cmd), out.stderr[-500:]))
    return out.stdout.rstrip("\n").split("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--pair", required=True)
    ap.add_argument("--source", default="ddtp")
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--beams", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--data", default=os.path.join(MODELS, "data"))
    ap.add_argument("--heed", default=os.path.join(ROOT, "build", "heed"))
    a = ap.parse_args()
    src_lang, tgt_lang = a.pair.split("-")
    en = "en-" + (tgt_lang if src_lang == "en" else src_lang)
    base = os.path.join(a.data, a.source, "%s.%s." % (en, a.split))
    with open(base + src_lang) as f:
        sources = f.read().rstrip("\n").split("\n")
    with open(base + tgt_lang) as f:
        refs = f.read().rstrip("\n").split("\n")
    if a.limit:
        sources, refs = sources[:a.limit], refs[:a.limit]
    print("%s, %s %s split, %d sentences" % (a.model, a.source, a.split, len(sources)))
    print("%-8s %-18s %7s %7s %18s" % ("search", "compute", "chrF", "BLEU", "differ from f32"))
    for beam in a.beams:
        reference = None
        for name, extra in SETTINGS:
            hyps = translate(a.heed, a.model, sources, beam, extra)
            chrf = corpus_chrf(hyps, refs)
            bleu = corpus_bleu(hyps, refs)[0]
            if reference is None:
                reference = hyps
            changed = sum(1 for x, y in zip(hyps, reference) if x != y)
            print("%-8s %-18s %7.2f %7.2f %10d (%4.1f%%)" % (
                "greedy" if beam == 1 else "beam %d" % beam, name, chrf, bleu, changed,
                100.0 * changed / len(hyps)))


if __name__ == "__main__":
    main()
