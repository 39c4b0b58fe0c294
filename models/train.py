#!/usr/bin/python3
"""Trains a Heed translation model (SentencePiece + nn.Transformer) in resumable, timed stages.

What it is: the exact recipe behind the shipped models. Every stage resumes from the last
checkpoint in --run, trains for --minutes and saves; dev chrF is logged as it goes.
What it is not: a general trainer (one GPU-less machine, one language pair per run).

Example (the shipped en-fr model):
  nice -n 10 /usr/bin/python3 models/train.py --pair en-fr --run models/runs/en-fr --minutes 120
Continue from the committed weights-only checkpoint in a fresh clone:
  /usr/bin/python3 models/train.py --pair en-fr --run models/runs/en-fr \
      --init models/checkpoints/en-fr.f16.heed --minutes 120
"""
import argparse
import json
import math
import os
import random
import sys
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heed_torch import Seq2Seq, read_heed  # noqa: E402
from metrics import corpus_bleu, corpus_chrf  # noqa: E402


def log(run, msg):
    line = time.strftime("%H:%M:%S ") + msg
    print(line, flush=True)
    with open(os.path.join(run, "train.log"), "a") as f:
        f.write(line + "\n")


def read(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f]


def train_spm(args, src_lang, tgt_lang):
    prefix = os.path.join(args.run, "spm")
    if os.path.exists(prefix + ".model"):
        return prefix + ".model"
    files = [os.path.join(args.data, "%s.train.%s" % (args.pair, l)) for l in (src_lang, tgt_lang)]
    spm.SentencePieceTrainer.train(
        input=",".join(files), model_prefix=prefix, vocab_size=args.vocab, model_type="unigram",
        character_coverage=0.9995, pad_id=0, unk_id=1, bos_id=2, eos_id=3,
        num_threads=args.threads)
    return prefix + ".model"


def make_batches(pairs, max_tokens, rng):
    """Buckets by length so padding stays small; each batch holds <= max_tokens per side."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]), len(pairs[i][0]),
                                                    rng.random()))
    batches, cur, cur_max = [], [], 0
    for i in order:
        m = max(cur_max, len(pairs[i][0]), len(pairs[i][1]) + 1)
        if cur and m * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, m = [], max(len(pairs[i][0]), len(pairs[i][1]) + 1)
        cur.append(i)
        cur_max = m
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def pad(seqs, value=0):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


@torch.no_grad()
def greedy(model, sp, sents, max_len=64, batch=100):
    model.eval()
    c, out = model.cfg, []
    for b in range(0, len(sents), batch):
        src = pad([sp.encode(s)[:c["max_positions"] - 1] + [c["eos_id"]] for s in sents[b:b + batch]])
        memory, mask = model.encode(src)
        ys = torch.full((src.shape[0], 1), c["decoder_start_id"], dtype=torch.long)
        done = torch.zeros(src.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            nxt = model.decode(ys, memory, mask)[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, c["pad_id"]), nxt)
            ys = torch.cat([ys, nxt[:, None]], 1)
            done |= nxt == c["eos_id"]
            if done.all():
                break
        for row in ys[:, 1:].tolist():
            ids = [t for t in row if t not in (c["pad_id"],)]
            if c["eos_id"] in ids:
                ids = ids[:ids.index(c["eos_id"])]
            out.append(sp.decode(ids))
    model.train()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", required=True)
    ap.add_argument("--data", default="models/data")
    ap.add_argument("--run", required=True)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--max-tokens", type=int, default=4096)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--config", default="{}", help="JSON overrides of the model config")
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--stop-step", type=int, default=0,
                    help="end training at this step (0: run until --minutes)")
    ap.add_argument("--cooldown", type=int, default=0,
                    help="decay the rate linearly to zero over the last N steps before --stop-step")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", help="start from a weights-only checkpoint (a .heed file) when "
                                   "--run has no checkpoint.pt")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.run, exist_ok=True)
    src_lang, tgt_lang = args.pair.split("-")
    ckpt_path = os.path.join(args.run, "checkpoint.pt")
    ckpt = torch.load(ckpt_path) if os.path.exists(ckpt_path) else None
    init = None
    if args.init and not ckpt:
        # why: a weights-only checkpoint (a Heed file) carries the tokenizer and the step count
        init_model, tokenizer, meta = read_heed(args.init)
        with open(os.path.join(args.run, "spm.model"), "wb") as f:
            f.write(tokenizer)
        init = (init_model, json.loads(meta.get("heed.training", "{}")))
    sp = spm.SentencePieceProcessor(model_file=train_spm(args, src_lang, tgt_lang))

    if ckpt:
        cfg = ckpt["config"]
    elif init:
        cfg = init[0].cfg
    else:
        cfg = dict(json.loads(args.config), vocab_size=sp.get_piece_size())
    torch.manual_seed(args.seed)
    model = Seq2Seq(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    step, epoch, seen = 0, 0, 0
    rewarm_from = None
    if ckpt:
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        step, epoch = ckpt["step"], ckpt["epoch"]
        rewarm_from = ckpt.get("rewarm_from")
    elif init:
        model.load_state_dict(init[0].state_dict())
        step, epoch = init[1].get("steps", 0), init[1].get("epochs", 0)
        rewarm_from = step  # why: Adam's moments start empty again, so ramp the rate up anew
    nparams = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log(args.run, "start step %d, %d params, config %s" % (step, nparams, json.dumps(model.cfg)))
    log(args.run, "arguments: %s" % " ".join(sys.argv[1:]))

    src = read(os.path.join(args.data, "%s.train.%s" % (args.pair, src_lang)))
    tgt = read(os.path.join(args.data, "%s.train.%s" % (args.pair, tgt_lang)))
    c = model.cfg
    pairs = []
    for s, t in zip(sp.encode(src), sp.encode(tgt)):
        if len(s) < args.max_len and len(t) < args.max_len:
            pairs.append((s + [c["eos_id"]], t))
    dev_src = read(os.path.join(args.data, "%s.dev.%s" % (args.pair, src_lang)))[:200]
    dev_ref = read(os.path.join(args.data, "%s.dev.%s" % (args.pair, tgt_lang)))[:200]
    log(args.run, "%d training pairs (of %d)" % (len(pairs), len(src)))

    def save(batch_in_epoch):
        tmp = ckpt_path + ".tmp"
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "epoch": epoch, "batch_in_epoch": batch_in_epoch, "config": model.cfg,
                    "rewarm_from": rewarm_from}, tmp)
        os.replace(tmp, ckpt_path)

    t_end = time.time() + args.minutes * 60
    t_save = time.time()
    model.train()
    while time.time() < t_end and not (args.stop_step and step >= args.stop_step):
        rng = random.Random(args.seed * 1000 + epoch)
        batches = make_batches(pairs, args.max_tokens, rng)
        skip = ckpt.get("batch_in_epoch", 0) if ckpt else 0
        bi = 0
        for bi, batch in enumerate(batches):
            if bi < skip:
                continue
            if time.time() >= t_end or (args.stop_step and step >= args.stop_step):
                save(bi)
                break
            s = pad([pairs[i][0] for i in batch])
            t = [pairs[i][1] for i in batch]
            t_in = pad([[c["decoder_start_id"]] + x for x in t])
            t_out = pad([x + [c["eos_id"]] for x in t])
            step += 1
            lr = args.lr * min(step / args.warmup, math.sqrt(args.warmup / step))
            if rewarm_from is not None:
                lr *= min(1.0, (step - rewarm_from) / 100)
            if args.stop_step and args.cooldown:
                lr *= min(1.0, (args.stop_step - step + 1) / args.cooldown)
            for g in opt.param_groups:
                g["lr"] = lr
            logits = model(s, t_in)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t_out.reshape(-1),
                                   ignore_index=c["pad_id"], label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if step % 20 == 0:
                log(args.run, "step %d epoch %d loss %.3f lr %.2e tokens %d" %
                    (step, epoch, loss.item(), lr, int((t_out != 0).sum())))
            if step % args.eval_every == 0:
                hyps = greedy(model, sp, dev_src)
                log(args.run, "eval step %d dev chrF %.1f BLEU %.1f | %s" % (
                    step, corpus_chrf(hyps, dev_ref), corpus_bleu(hyps, dev_ref)[0], hyps[0]))
            if time.time() - t_save > 300:
                save(bi + 1)
                t_save = time.time()
        else:
            epoch += 1
            ckpt = None
            save(0)
    log(args.run, "stage end at step %d" % step)


if __name__ == "__main__":
    main()
