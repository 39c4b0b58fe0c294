"""Times train.py's own optimiser step (train_step) on synthetic batches: float32 or bfloat16
autocast, with or without dropout, for the multilingual model's shape.

What it is: the measurement behind train.py's --bf16 and --dropout defaults in README "Models".
Run it on a quiet machine (no training or build); it prints the load average with the figures.
What it is not: a test (no timed assertion anywhere).

Usage: /usr/bin/python3 -m models.pipeline.bench_train_step [--steps 6] [--threads 2]
           [--tokens 4096]
"""
import argparse
import os
import time

import torch

from models.pipeline.heed_torch import Seq2Seq
from models.pipeline.train import train_step

SHAPE = {"d_model": 256, "heads": 4, "ffn_dim": 1024, "encoder_layers": 6, "decoder_layers": 3,
         "vocab_size": 16000}


def seconds_per_step(bf16, dropout, args):
    torch.manual_seed(0)
    model = Seq2Seq(SHAPE, dropout=dropout)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    n = args.tokens // args.length  # sentences of args.length tokens per side
    g = torch.Generator().manual_seed(1)
    src = torch.randint(5, SHAPE["vocab_size"], (n, args.length), generator=g)
    tgt = torch.randint(5, SHAPE["vocab_size"], (n, args.length + 1), generator=g)
    train_step(model, opt, src, tgt[:, :-1], tgt[:, 1:], 1e-4, bf16)  # warm-up
    t0 = time.perf_counter()
    for _ in range(args.steps):
        train_step(model, opt, src, tgt[:, :-1], tgt[:, 1:], 1e-4, bf16)
    return (time.perf_counter() - t0) / args.steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--length", type=int, default=32)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    rows = [(False, 0.1), (True, 0.1), (False, 0.0), (True, 0.0)]
    times = {r: seconds_per_step(*r, args) for r in rows}
    base = times[(False, 0.1)]
    for (bf16, dropout), t in times.items():
        print("%-9s dropout %.1f: %.2f s/step  (%.2fx float32 + dropout)" % (
            "bfloat16" if bf16 else "float32", dropout, t, base / t))
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
