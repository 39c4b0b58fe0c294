"""Times train.py's own optimiser step (train_step) on synthetic batches: float32 or bfloat16
autocast, with or without dropout, the loss over the whole batch's logits or a slice at a time
(chunked_loss.py), for the multilingual model's shape; with each row's peak memory.

What it is: the measurement behind train.py's --bf16 and --dropout defaults and its CPU loss in
README "Models". Each row runs in a process of its own, under the allocator settings train.py
runs under (train.tune_process), so its peak resident memory is its own.
Run it on a quiet machine (no training or build); it prints the load average with the figures.
What it is not: a test (no timed assertion anywhere).

Usage: /usr/bin/python3 -m models.pipeline.bench_train_step [--steps 6] [--threads 2]
           [--tokens 4096] [--ffn 2048] [--rows plain,chunked,bf16,bf16-chunked,dropout]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import torch

from models.pipeline.heed_torch import Seq2Seq
from models.pipeline.train import train_step, tune_process

SHAPE = {"d_model": 256, "heads": 4, "encoder_layers": 6, "decoder_layers": 3,
         "vocab_size": 16000}
ROWS = {  # name: (bf16, dropout, chunked loss)
    "plain": (False, 0.0, False), "chunked": (False, 0.0, True),
    "bf16": (True, 0.0, False), "bf16-chunked": (True, 0.0, True),
    "dropout": (False, 0.1, False)}


def seconds_per_step(bf16, dropout, chunked, args):
    torch.manual_seed(0)
    model = Seq2Seq(dict(SHAPE, ffn_dim=args.ffn), dropout=dropout)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    n = args.tokens // args.length  # sentences of args.length tokens per side
    g = torch.Generator().manual_seed(1)
    src = torch.randint(5, SHAPE["vocab_size"], (n, args.length), generator=g)
    tgt = torch.randint(5, SHAPE["vocab_size"], (n, args.length + 1), generator=g)
    step = lambda: train_step(model, opt, src, tgt[:, :-1], tgt[:, 1:], 1e-4, bf16, chunked)
    step()  # warm-up
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    return (time.perf_counter() - t0) / args.steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--length", type=int, default=32)
    ap.add_argument("--ffn", type=int, default=2048, help="FFN width (the shipped model: 2048)")
    ap.add_argument("--rows", default="plain,chunked,bf16,bf16-chunked,dropout")
    ap.add_argument("--row", help=argparse.SUPPRESS)  # why: one row, in a child process
    args = ap.parse_args()
    if args.row:
        tune_process()
        torch.set_num_threads(args.threads)
        secs = seconds_per_step(*ROWS[args.row], args)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # KiB -> GiB
        print(json.dumps({"seconds": secs, "peak_gib": peak}))
        return
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    print("%d tokens a side, FFN %d, %d threads, %d steps a row" % (
        args.tokens, args.ffn, args.threads, args.steps))
    rows = {}
    for name in args.rows.split(","):
        out = subprocess.run(
            [sys.executable, "-m", "models.pipeline.bench_train_step", "--row", name] +
            [a for k in ("steps", "threads", "tokens", "length", "ffn")
             for a in ("--" + k, str(getattr(args, k)))], capture_output=True, text=True)
        if out.returncode:
            sys.exit("bench_train_step: row %s failed: %s" % (name, out.stderr[-500:]))
        rows[name] = json.loads(out.stdout.strip().splitlines()[-1])
    base = rows[args.rows.split(",")[0]]["seconds"]
    for name, r in rows.items():
        bf16, dropout, chunked = ROWS[name]
        print("%-12s (%s, dropout %.1f, %s loss): %.2f s/step (%.2fx the first row), peak %.1f GiB"
              % (name, "bfloat16" if bf16 else "float32", dropout,
                 "chunked" if chunked else "whole-batch", r["seconds"], base / r["seconds"],
                 r["peak_gib"]))
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
