"""Trains the en→fr SSRU student: models/en-fr-marian.heed with its decoder self-attention replaced
by an SSRU cell (Kim et al. 2019, §3.2; models/pipeline/ssru_torch.py), fine-tuned on the DDTP
en-fr training split, the shape of Firefox Translations' students, for the Bergamot comparison.

What it is: one resumable, timed stage per call, on the data `train --pair en-fr --marian` reads
(models/data/ddtp/en-fr.train.*; dev: the first 200 pairs of en-fr.dev.*), writing a weights-only
f16 Heed file (decoder_self "ssru") that the engine loads and bench/bergamot/export_marian.py
writes in Marian's format. What it is not: distillation (the targets are the human references,
not a teacher's translations), nor the general trainer (models/pipeline/train.py).

The copied parts: embeddings (with <s>'s row zero: Marian starts from zeros), Marian's positions,
the encoder, and each decoder layer's cross-attention, feed-forward and their norms; the old
self-attention's post-norm becomes the cell's; the cell's W, W_f, b_f are new (glorot-uniform,
zero bias). For the first --freeze-steps updates only the cells and their norms learn.

Commands (repository root; the card models/cards/en-fr-ssru.md has the run's figures):
  nohup nice -n 5 /usr/bin/python3 -m models.pipeline.ssru_student --run models/runs/en-fr-ssru \
      --steps 900 --cooldown 200 --minutes 70 --bf16 \
      --export models/checkpoints/en-fr-ssru.f16.heed > /tmp/ssru.out &
  # again with the same --run (its checkpoint.pt) to go on after --minutes; from a fresh clone,
  # from the committed weights (the rates warm up again): --init models/checkpoints/en-fr-ssru.f16.heed
  /usr/bin/python3 -m bench.bergamot.export_marian --model models/checkpoints/en-fr-ssru.f16.heed \
      --out bench/bergamot/marian/ssru          # model.bin, model.int8.bin, vocab.spm
  /usr/bin/python3 -m bench.bergamot.ssru_compare --bundle bench/bergamot/marian/ssru \
      --model models/checkpoints/en-fr-ssru.f16.heed --report models/cards/en-fr-ssru.compare.json
"""
import argparse
import json
import os
import random
import signal
import sys
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

from models.heed_file import HeedFile
from models.pipeline import ssru_torch
from models.pipeline.cpu_bf16 import keep_bf16
from models.pipeline.heed_torch import read_heed
from models.pipeline.metrics import corpus_bleu, corpus_chrf
from models.pipeline.train import log, make_batches, pad, read


def student_from(path, dropout):
    """(model, tokenizer bytes, steps already made): an SSRU student file as it is, or a
    post-norm Marian-computable model (train.py --marian) with SSRU cells in place of its
    decoder self-attention."""
    if HeedFile(path).config.get("decoder_self") == "ssru":
        model, tok, meta = ssru_torch.read(path, dropout)
        return model, tok, json.loads(meta.get("heed.training", "{}")).get("steps", 0)
    base, tok, _ = read_heed(path)
    model = ssru_torch.SsruSeq2Seq(base, dropout)
    with torch.no_grad():
        for new, old in zip(model.layers, base.transformer.decoder.layers):
            new.norm1.load_state_dict(old.norm1.state_dict())
    return model, tok, 0


def parse_args():
    ap = argparse.ArgumentParser(prog="python3 -m models.pipeline.ssru_student")
    ap.add_argument("--init", default="models/en-fr-marian.heed",
                    help="a post-norm Marian-computable model, or an SSRU student to go on from")
    ap.add_argument("--data", default="models/data/ddtp/en-fr")
    ap.add_argument("--run", required=True)
    ap.add_argument("--steps", type=int, default=600, help="the last update of the schedule")
    ap.add_argument("--minutes", type=float, default=75, help="stop (saved) after this long")
    ap.add_argument("--lr", type=float, default=5e-4,
                    help="the cells' rate, held after the warm-up")
    ap.add_argument("--body-lr", type=float, default=2e-4,
                    help="the copied parameters' rate, warmed up again after --freeze-steps")
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--cooldown", type=int, default=250,
                    help="decay the rate linearly to zero over the last N steps")
    ap.add_argument("--freeze-steps", type=int, default=150,
                    help="train only the SSRU cells and their norms for the first N steps")
    ap.add_argument("--max-tokens", type=int, default=4096)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bf16", action="store_true", help="matrix products in bfloat16 (autocast)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--export", help="the weights-only f16 Heed file, written at every save")
    ap.add_argument("--export-only", choices=("F16", "F32"),
                    help="write --export from the run's checkpoint in this dtype, train nothing")
    return ap.parse_args()


def rates(args, step):
    """(the cells' rate, the copied parameters' rate): each warmed up linearly over --warmup
    steps (the copied ones from --freeze-steps, where they start to learn with fresh Adam
    moments), then held, then both cooled linearly to zero at --steps."""
    start = args.rewarm_from  # why: 0, or the step a student file (--init) stopped at
    cool = min(1.0, (args.steps - step + 1) / args.cooldown)
    cells = min(1.0, (step - start) / args.warmup)
    body = min(1.0, max(0.0, (step - max(start, args.freeze_steps)) / args.warmup))
    return args.lr * cells * cool, args.body_lr * body * cool


def dev_chrf(model, sp, rows):
    """(chrF, BLEU, first output) of greedy decoding on the dev rows, as train.py's log."""
    model.eval()
    hyps, eos = [], model.cfg["eos_id"]
    for b in range(0, len(rows), 100):
        srcs = [sp.encode(r[0])[:model.cfg["max_positions"] - 1] + [eos] for r in rows[b:b + 100]]
        ids = ssru_torch.greedy(model, srcs, [min(2 * len(s) + 10, 64) for s in srcs])
        hyps += [sp.decode([t for t in row if t != eos]) for row in ids]
    model.train()
    refs = [r[1] for r in rows]
    return corpus_chrf(hyps, refs), corpus_bleu(hyps, refs)[0], hyps[0]


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.run, exist_ok=True)
    args.bf16 = keep_bf16(args.bf16, "cpu", lambda why: log(args.run, why))
    ckpt_path = os.path.join(args.run, "checkpoint.pt")
    ckpt = torch.load(ckpt_path) if os.path.exists(ckpt_path) else None
    model, tok, step = student_from(args.init, args.dropout)
    # why: after --init from a student, batch orders its own run never drew (its were 0, 1, ...)
    epoch, skip = step, 0
    args.rewarm_from = step  # why: Adam's moments start empty again after --init
    if ckpt:
        model.load_state_dict(ckpt["model"])
        step, epoch, skip = ckpt["step"], ckpt["epoch"], ckpt["batch_in_epoch"]
        args.rewarm_from = ckpt.get("rewarm_from", 0)
    start_row = model.cfg["decoder_start_id"]
    if args.export_only:
        ssru_torch.write(args.export, model, tok, dtype=args.export_only,
                         metadata={"heed.training": {"steps": step, "init": args.init}})
        return
    cells = [p for l in model.layers for m in (l.w, l.f, l.norm1) for p in m.parameters()]
    body = [p for p in model.parameters() if all(p is not c for c in cells)]
    # why: two groups: new cells learn fast; the copied weights slowly, or they are undone
    opt = torch.optim.Adam([{"params": cells}, {"params": body}], lr=args.lr, betas=(0.9, 0.98),
                           eps=1e-9)
    if ckpt:
        opt.load_state_dict(ckpt["opt"])
    sp = spm.SentencePieceProcessor(model_proto=tok)
    eos = model.cfg["eos_id"]
    examples = [(s + [eos], t) for s, t in zip(sp.encode(read(args.data + ".train.en")),
                                              sp.encode(read(args.data + ".train.fr")))
                if len(s) < args.max_len and len(t) < args.max_len]
    dev = list(zip(read(args.data + ".dev.en"), read(args.data + ".dev.fr")))[:200]
    log(args.run, "start step %d, %d training pairs, %d dev; arguments: %s"
        % (step, len(examples), len(dev), " ".join(sys.argv[1:])))

    def save(batch_in_epoch):
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "epoch": epoch, "batch_in_epoch": batch_in_epoch,
                    "rewarm_from": args.rewarm_from},
                   ckpt_path + ".tmp")
        os.replace(ckpt_path + ".tmp", ckpt_path)
        if args.export:
            ssru_torch.write(args.export + ".tmp", model, tok,
                             metadata={"heed.training": {"steps": step, "init": args.init}})
            os.replace(args.export + ".tmp", args.export)
        log(args.run, "saved step %d" % step)

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    t_end, saved_at = time.time() + args.minutes * 60, time.time()
    model.train()
    while step < args.steps and not stop and time.time() < t_end:
        batches = make_batches(examples, args.max_tokens, random.Random(args.seed * 1000 + epoch))
        for bi, batch in enumerate(batches):
            if bi < skip:
                continue
            if step >= args.steps or stop or time.time() >= t_end:
                save(bi)
                break
            step += 1
            frozen = step <= args.freeze_steps
            for p in body:
                p.requires_grad_(not frozen)
            rows = [examples[i] for i in batch]
            src = pad([r[0] for r in rows])
            t_in = pad([[start_row] + r[1] for r in rows])
            t_out = pad([r[1] + [eos] for r in rows])
            lr, body_lr = rates(args, step)
            opt.param_groups[0]["lr"], opt.param_groups[1]["lr"] = lr, body_lr
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = model(src, t_in)
            loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                   t_out.reshape(-1), ignore_index=model.cfg["pad_id"],
                                   label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            with torch.no_grad():
                model.embed.weight[start_row].zero_()
            if step % 20 == 0:
                log(args.run, "step %d loss %.3f lr %.2e / %.2e tokens %d%s" % (
                    step, loss.item(), lr, body_lr, int((t_out != 0).sum()),
                    " (cells only)" if frozen else ""))
            if step % args.eval_every == 0:
                chrf, bleu, first = dev_chrf(model, sp, dev)
                log(args.run, "eval step %d dev chrF %.1f BLEU %.1f | %s" % (step, chrf, bleu, first))
            if time.time() - saved_at > 300:
                save(bi + 1)
                saved_at = time.time()
        else:
            epoch, skip = epoch + 1, 0
            save(0)
    chrf, bleu, first = dev_chrf(model, sp, dev)
    log(args.run, "stage end at step %d: dev chrF %.1f BLEU %.1f | %s" % (step, chrf, bleu, first))


if __name__ == "__main__":
    main()
