"""Widens the feed-forward layers of a weights-only checkpoint without changing what it computes.

What it is: a trained model -> the same model with ffn_dim N (> its own) in every encoder and
decoder layer, for train.py --init to go on from. Each layer's FFN is fc2(relu(fc1 x)); the new
hidden units get random fc1 rows (of the trained rows' spread, zero bias) and zero fc2 columns,
so the output is the same bits of arithmetic plus exact zeros: the grown model translates as the
old one did, and training then puts the new units to work (fc2's new columns get gradients at
once, since the new units fire). Net2Net (Chen et al. 2016) grows models the same way.
Why: when the dev curves of a model at a held learning rate flatten while its training loss is
still far above the label-smoothing floor, the model is short of capacity, not of steps.
What it is not: a way to widen d_model or add layers; no PyTorch (numpy on models/heed_file.py).

Usage: /usr/bin/python3 -m models.pipeline.grow --ffn 2048 --out GROWN.f16.heed MODEL.f16.heed
"""
import argparse
import json
import re

import numpy as np

from models.heed_file import HeedFile, write_heed_file

FC1 = re.compile(r"^(encoder|decoder)\.(\d+)\.ffn\.fc1\.weight$")


def grow(path, ffn, seed=0):
    """(metadata, {name: (dtype, array)}) of the model in `path` with every FFN ffn wide."""
    f = HeedFile(path)
    config = json.loads(f.meta["heed.config"])
    old = config.get("ffn_dim")
    if not isinstance(old, int) or ffn <= old:
        raise ValueError(f"{path} has ffn_dim {old}; --ffn must be larger, not {ffn}")
    tensors = dict(f.stored_tensors())
    layers = sorted(FC1.match(n).group(1, 2) for n in tensors if FC1.match(n))
    if len(layers) != config["encoder_layers"] + config["decoder_layers"]:
        raise ValueError(f"{path}: {len(layers)} FFN layers, the config says "
                         f"{config['encoder_layers']} + {config['decoder_layers']}")
    rng = np.random.default_rng(seed)
    extra = ffn - old
    for side, i in layers:
        name = f"{side}.{i}.ffn."
        (d1, w1), (db, b1), (d2, w2) = (tensors[name + p] for p in
                                         ("fc1.weight", "fc1.bias", "fc2.weight"))
        if w1.shape[0] != old or b1.shape != (old,) or w2.shape[1] != old:
            raise ValueError(f"{path}: '{name}' is {list(w1.shape)} / {list(w2.shape)}, "
                             f"not ffn_dim {old}")
        spread = float(np.std(w1.astype(np.float64)))
        new_rows = rng.normal(0.0, spread, size=(extra, w1.shape[1]))
        tensors[name + "fc1.weight"] = (d1, np.concatenate([w1, new_rows.astype(w1.dtype)], 0))
        tensors[name + "fc1.bias"] = (db, np.concatenate([b1, np.zeros(extra, b1.dtype)]))
        tensors[name + "fc2.weight"] = (d2, np.concatenate(
            [w2, np.zeros((w2.shape[0], extra), w2.dtype)], 1))
    meta = dict(f.meta)
    meta["heed.config"] = json.dumps(dict(config, ffn_dim=ffn), sort_keys=True)
    training = json.loads(meta.get("heed.training", "{}"))
    grown = training.get("grown", []) + [{"ffn_dim": [old, ffn], "at_step": training.get("steps")}]
    meta["heed.training"] = json.dumps(dict(training, grown=grown))
    return meta, tensors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ffn", type=int, required=True, help="the new feed-forward width")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("checkpoint", help="a weights-only checkpoint (.heed)")
    args = ap.parse_args()
    try:
        meta, tensors = grow(args.checkpoint, args.ffn, args.seed)
    except (ValueError, KeyError) as e:
        raise SystemExit(f"grow.py: {e}")
    write_heed_file(args.out, meta, tensors)
    print(f"grow.py: {args.checkpoint} -> {args.out} (ffn_dim {args.ffn})")


if __name__ == "__main__":
    main()
