"""Exports a training checkpoint to a Heed model file (models/FORMAT.md).

What it is: checkpoint.pt + spm.model -> MODEL.heed (I8 by default: per-row int8 weights, so a
6 M-parameter model ships in ~7 MB), with languages and training facts in the metadata.
What it is not: training or evaluation (see train.py, evaluate.py).

Usage: /usr/bin/python3 -m models.pipeline.export --run models/runs/en-fr --out models/en-fr.heed
       /usr/bin/python3 -m models.pipeline.export --run models/runs/en-fr-marian --marian \
           --out models/en-fr-marian.heed
       /usr/bin/python3 -m models.pipeline.export --weights models/checkpoints/multi.f16.heed \
           --out models/multi.heed
"""
import argparse
import json
import os
import re

import torch

from models.pipeline import marian_compat
from models.pipeline.heed_torch import Seq2Seq, read_heed, write_heed


def load_checkpoint(run):
    ckpt = torch.load(os.path.join(run, "checkpoint.pt"), map_location="cpu")
    model = Seq2Seq(ckpt["config"], dropout=0.0)
    model.load_state_dict(ckpt["model"])
    model.eval()
    return model, ckpt


def from_weights(path):
    """A weights-only checkpoint (train.py --export): the model, tokenizer and metadata."""
    model, tokenizer, meta = read_heed(path)
    training = json.loads(meta.get("heed.training", "{}"))
    return model, tokenizer, json.loads(meta.get("heed.languages", "{}")), training


def main():
    ap = argparse.ArgumentParser()
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", help="a single-direction run folder (checkpoint.pt, spm.model)")
    what.add_argument("--weights", help="a weights-only checkpoint (.heed) of a multilingual "
                                        "run, e.g. models/checkpoints/multi.f16.heed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="", help="heed.name for a multilingual model")
    ap.add_argument("--dtype", default="I8", choices=["F32", "F16", "I8"])
    ap.add_argument("--marian", action="store_true",
                    help="a run of train.py --marian: store Marian's position table as the "
                         "learned positions it was trained with (models/pipeline/marian_compat.py)")
    args = ap.parse_args()
    if args.weights:
        model, spm_bytes, languages, training = from_weights(args.weights)
        meta = {"heed.languages": languages,
                "heed.name": args.name or ", ".join(languages.get("directions", [])),
                "heed.training": dict(training, data="Debian-shipped human translations "
                                      "(models/corpus/build_corpus.py)")}
        step = training.get("steps", 0)
    else:
        model, ckpt = load_checkpoint(args.run)
        src, tgt = os.path.basename(os.path.normpath(args.run)).split("-")[:2]
        with open(os.path.join(args.run, "spm.model"), "rb") as f:
            spm_bytes = f.read()
        log = open(os.path.join(args.run, "train.log")).read() if os.path.exists(
            os.path.join(args.run, "train.log")) else ""
        evals = re.findall(r"eval step (\d+) dev chrF ([\d.]+) BLEU ([\d.]+)", log)
        meta = {
            "heed.languages": {"source": src, "target": tgt},
            "heed.name": "%s → %s (DDTP%s)" % (src, tgt, ", Marian-compatible" if args.marian
                                              else ""),
            "heed.training": {"steps": ckpt["step"], "epochs": ckpt["epoch"],
                              "data": "Debian DDTP package descriptions, en-%s" % tgt,
                              "last_dev_eval": evals[-1] if evals else None},
        }
        step = ckpt["step"]
    write_heed(args.out, model, spm_bytes, dtype=args.dtype, metadata=meta)
    if args.marian:
        marian_compat.with_positions(args.out)
    n = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print("wrote %s (%d bytes, %d parameters, step %d)" % (
        args.out, os.path.getsize(args.out), n, step))


if __name__ == "__main__":
    main()
