"""Averages the weights of several weights-only checkpoints of one training run.

What it is: train.py --export files saved at different steps of one run (same config, same
tokenizer, same tensors) -> one F16 weights-only checkpoint holding the mean of every float
tensor, which export.py ships and evaluate.py scores like any other. Averaging the last
checkpoints of a run at a held learning rate smooths the noise of the last updates, much as
cooling the rate does, without spending steps (Vaswani et al. 2017 average their last 5 or 20).
What it is not: a way to combine different runs or models (their weights do not line up). No
PyTorch: the files are read and written as numpy arrays (models/heed_file.py).

Usage: /usr/bin/python3 -m models.pipeline.average --out AVG.f16.heed A.f16.heed B.f16.heed ...
"""
import argparse
import json

import numpy as np

from models.heed_file import HeedFile, write_heed_file

FLOAT = ("F32", "F16")


def average(paths):
    """(metadata, {name: (dtype, array)}): the mean of the float tensors (in float64, stored
    as each file stores them), every other tensor (the tokenizer) as the first file holds it,
    and heed.training of the last file with `averaged_steps`, the steps of all."""
    files = [HeedFile(p) for p in paths]
    first = files[0]
    tensors = first.stored_tensors()
    for f in files[1:]:
        if f.meta.get("heed.config") != first.meta.get("heed.config"):
            raise ValueError(f"{f.path} has another config than {first.path}")
        theirs = f.stored_tensors()
        if set(theirs) != set(tensors):
            raise ValueError(f"{f.path} holds other tensors than {first.path}")
        for name, (dtype, a) in tensors.items():
            d, b = theirs[name]
            if d != dtype or b.shape != a.shape:
                raise ValueError(f"{f.path}: tensor '{name}' is {d} {list(b.shape)}, "
                                 f"{first.path} has {dtype} {list(a.shape)}")
            if dtype not in FLOAT and not np.array_equal(a, b):
                raise ValueError(f"{f.path}: '{name}' differs from {first.path}'s "
                                 "(another tokenizer?)")
    out = {}
    for name, (dtype, a) in tensors.items():
        if dtype in FLOAT:
            mean = sum(f.stored(name).astype(np.float64) for f in files) / len(files)
            out[name] = (dtype, mean)
        else:
            out[name] = (dtype, a)
    steps = [json.loads(f.meta.get("heed.training", "{}")).get("steps") for f in files]
    meta = dict(files[-1].meta)
    meta["heed.training"] = json.dumps(
        dict(json.loads(meta.get("heed.training", "{}")), averaged_steps=steps))
    return meta, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("checkpoints", nargs="+", help="weights-only checkpoints (.heed) of one run")
    args = ap.parse_args()
    if len(args.checkpoints) < 2:
        raise SystemExit("average.py: give at least two checkpoints")
    try:
        meta, tensors = average(args.checkpoints)
    except (ValueError, KeyError) as e:
        raise SystemExit(f"average.py: {e}")
    write_heed_file(args.out, meta, tensors)
    print(f"average.py: {len(args.checkpoints)} checkpoints -> {args.out} "
          f"({json.loads(meta['heed.training'])['averaged_steps']})")


if __name__ == "__main__":
    main()
