"""Trains a Heed translation model (SentencePiece + nn.Transformer) in resumable, timed stages.

What it is: the exact recipe behind the shipped models. Every stage resumes from the last
checkpoint in --run, trains for --minutes and saves; dev chrF is logged as it goes.
What it is not: a general trainer (one GPU-less machine, one language pair per run).

Example (the shipped en-fr model), from the repository root:
  nice -n 10 /usr/bin/python3 -m models.pipeline.train --pair en-fr --run models/runs/en-fr \
      --minutes 120
Continue from the committed weights-only checkpoint in a fresh clone:
  /usr/bin/python3 -m models.pipeline.train --pair en-fr --run models/runs/en-fr \
      --init models/checkpoints/en-fr.f16.heed --minutes 120
"""
import argparse
import array
import dataclasses
import json
import os
import random
import shutil
import signal
import sys
import time
from typing import Optional

import sentencepiece as spm
import torch
import torch.nn.functional as F

from models.pipeline import engine_tokenizer, marian_compat
from models.pipeline.batches import make_batches, round_up
from models.pipeline.chunked_loss import tied_cross_entropy
from models.pipeline.cpu_bf16 import keep_bf16
from models.pipeline.heed_torch import Seq2Seq, greedy, read_heed, write_heed
from models.pipeline.metrics import corpus_bleu, corpus_chrf
from models.pipeline.schedule import learning_rate, timed_cooldown
from models.pipeline.training_data import BACKTRANSLATED, corpus_of


def log(run, msg):
    line = time.strftime("%H:%M:%S ") + msg
    print(line, flush=True)
    with open(os.path.join(run, "train.log"), "a") as f:
        f.write(line + "\n")


def read(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f]


LANG_TOKEN = "<2%s>"  # the decoder's first token names the target language (multilingual)
# why: byte fallback writes any other character as <0xNN> pieces; these must still be whole
# pieces so common text never falls back to bytes
REQUIRED_CHARS = ("".join(chr(c) for c in range(0x21, 0x7F)) +
                  "".join(chr(c) for c in range(0xA1, 0x180) if chr(c).isprintable()) +
                  "–—‘’‚“”„…€«»")


def train_spm(args, files, langs):
    prefix = os.path.join(args.run, "spm")
    if os.path.exists(prefix + ".model"):
        return prefix + ".model"
    extra = {}
    if args.directions:
        extra = dict(byte_fallback=True, required_chars=REQUIRED_CHARS,
                     user_defined_symbols=[LANG_TOKEN % l for l in langs],
                     input_sentence_size=3000000, shuffle_input_sentence=True)
    spm.SentencePieceTrainer.train(
        input=",".join(files), model_prefix=prefix, vocab_size=args.vocab, model_type="unigram",
        character_coverage=0.9995, pad_id=0, unk_id=1, bos_id=2, eos_id=3,
        num_threads=args.threads, **extra)
    return prefix + ".model"


def pad(seqs, value=0, multiple=1):
    """The id sequences (lists or arrays) as one tensor, padded to a common width."""
    n = round_up(max(len(s) for s in seqs), multiple)
    return torch.tensor([list(s) + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


ENCODE_SLICE = 20000  # lines encoded at once while loading


def encoded(sp, lines, typecode):
    """Each line's piece ids as a compact array (2 bytes an id for typecode "H", where a list
    holds a Python int of ~36 bytes for each). why: two million examples held as lists, and a
    whole file's encoding at once, made loading peak at 3.3 GB (1.7 so), which the allocator
    keeps for the run's life."""
    for a in range(0, len(lines), ENCODE_SLICE):
        for ids in sp.encode(lines[a:a + ENCODE_SLICE]):
            yield array.array(typecode, ids)


def translate(model, sp, sents, starts, batch=100):
    model.eval()
    c, out = model.cfg, [None] * len(sents)
    srcs = [sp.encode(x)[:c["max_positions"] - 1] + [c["eos_id"]] for x in sents]
    # why: a batch decodes until its longest sentence ends, so batches of like lengths waste less
    order = sorted(range(len(sents)), key=lambda i: len(srcs[i]))
    for b in range(0, len(order), batch):
        chosen = order[b:b + batch]
        # why: the engine's own cap; an untrained model repeats itself up to it
        caps = [min(2 * len(srcs[i]) + 10, 64) for i in chosen]
        ids, _ = greedy(model, [srcs[i] for i in chosen], caps, [starts[i] for i in chosen])
        for i, row in zip(chosen, ids):
            out[i] = sp.decode([t for t in row if t != c["eos_id"]])
    model.train()
    return out


def load_examples(args, sp, corpus, cfg):
    """Training examples (source ids + eos, decoder start id, target ids) of every direction, and
    per direction the dev sentences (source, reference, start id, corpus source) logged during
    training."""
    examples, dev = [], {}
    typecode = "H" if sp.get_piece_size() <= 1 << 16 else "I"
    for direction, src, tgt, train, devs, extra in corpus:
        start = sp.piece_to_id(LANG_TOKEN % tgt) if args.directions else cfg["decoder_start_id"]
        n = machine = 0
        for prefix in [train] + extra:
            # why: a direction's own files hold back-translated pairs (training_data.corpus_of);
            # their machine-made source starts with bos, an id no typed text becomes, so the
            # model can tell them from human text and need not learn to write what is not there
            machine_made = prefix.endswith(BACKTRANSLATED)
            tag = array.array(typecode, [cfg["bos_id"]] if machine_made else [])
            eos = array.array(typecode, [cfg["eos_id"]])
            for s_ids, t_ids in zip(encoded(sp, read(prefix + src), typecode),
                                    encoded(sp, read(prefix + tgt), typecode)):
                if len(s_ids) + len(tag) < args.max_len and len(t_ids) < args.max_len:
                    examples.append((tag + s_ids + eos, start, t_ids))
                    n += 1
                    machine += bool(tag)
        rows = []
        for d in devs:
            share = 200 if args.pair else args.dev_per_source
            source = os.path.basename(os.path.dirname(d))
            rows += [(a, b, start, source)
                     for a, b in zip(read(d + src), read(d + tgt))][:share]
        dev[direction] = rows
        log(args.run, "%s: %d training pairs%s, %d dev" % (
            direction, n, ", %d back-translated (tagged)" % machine if machine else "", len(rows)))
    return examples, dev


def evaluate_dev(args, model, sp, dev, step):
    for direction, rows in dev.items():
        hyps = translate(model, sp, [r[0] for r in rows], [r[2] for r in rows])
        refs = [r[1] for r in rows]
        log(args.run, "eval step %d %sdev chrF %.1f BLEU %.1f | %s" % (
            step, "" if args.pair else direction + " ", corpus_chrf(hyps, refs),
            corpus_bleu(hyps, refs)[0], hyps[0]))
        if args.directions:
            by_source = {}
            for r, h in zip(rows, hyps):
                by_source.setdefault(r[3], ([], []))
                by_source[r[3]][0].append(h)
                by_source[r[3]][1].append(r[1])
            scores = ", ".join("%s %.1f" % (name, corpus_chrf(h, r))
                               for name, (h, r) in sorted(by_source.items()))
            log(args.run, "eval step %d %s per source chrF: %s" % (step, direction, scores))


def train_step(model, opt, src, tgt_in, tgt_out, lr, bf16, chunked=None):
    """One optimiser step on one batch (label-smoothed cross-entropy, gradients clipped to 1);
    returns the loss. bf16: the forward pass's matrix products in bfloat16 under autocast.
    chunked (default: on a CPU): the loss a slice of positions at a time (chunked_loss.py: the
    same loss and gradients without the batch's whole logits in memory)."""
    for g in opt.param_groups:
        g["lr"] = lr
    c = model.cfg
    if chunked is None:
        chunked = src.device.type == "cpu" and not c["final_logits_bias"]
    if chunked:
        with torch.autocast(src.device.type, dtype=torch.bfloat16, enabled=bf16):
            memory, src_mask = model.encode(src)
            h = model.decoder_states(tgt_in, memory, src_mask)
        loss = tied_cross_entropy(h, model.embed.weight, tgt_out, c["pad_id"], 0.1,
                                  dtype=torch.bfloat16 if bf16 else None)
    else:
        with torch.autocast(src.device.type, dtype=torch.bfloat16, enabled=bf16):
            logits = model(src, tgt_in)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                               tgt_out.reshape(-1), ignore_index=c["pad_id"],
                               label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


def shuffle_rng(args, epoch, order):
    """The batch order of one epoch. order 0 is the first run's; a resume from a weights-only
    checkpoint that did not record its place draws a new order, so it reads fresh batches."""
    return random.Random(args.seed * 1000 + epoch + order * 1000003)


def export_weights(args, model, sp_path, progress, batch_in_epoch):
    """The weights-only checkpoint (a Heed file, f16) that --init resumes from."""
    if not args.export:
        return
    with open(sp_path, "rb") as f:
        tokenizer = f.read()
    meta = {"heed.training": {"steps": progress.step, "epochs": progress.epoch,
                              "order": progress.order, "batch_in_epoch": batch_in_epoch}}
    if args.directions:
        langs = sorted({l for d in args.directions.split(",") for l in d.split("-")})
        meta["heed.languages"] = {"directions": args.directions.split(","),
                                  "target_tokens": {l: LANG_TOKEN % l for l in langs}}
    tmp = args.export + ".tmp"
    write_heed(tmp, model, tokenizer, dtype="F16", metadata=meta)
    if args.marian:
        marian_compat.with_positions(tmp)
    os.replace(tmp, args.export)
    if args.keep_exports:
        # why: the last of these are averaged before shipping (models/pipeline/average.py)
        os.makedirs(args.keep_exports, exist_ok=True)
        name = os.path.basename(args.export).split(".")[0]
        shutil.copyfile(args.export, os.path.join(args.keep_exports,
                                                  "%s.%d.f16.heed" % (name, progress.step)))


JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"


def tune_process():
    """Runs this module again, once, under the settings measured to train faster here:
    - jemalloc keeping freed pages, when Debian's libjemalloc2 is there (scripts/setup.sh
      --training installs it; HEED_TRAIN_ALLOCATOR set by hand keeps the allocator as it is).
      why: each step allocates and frees tensors of hundreds of MB (the logits of 4,096 tokens);
      glibc hands every block over 32 MB back to the kernel at once, so the next step faults all
      its pages in again: a third of the CPU time went to the kernel and a step took 3.6-3.8 s on
      2 threads here, against 0.75-0.8 s with jemalloc told never to return pages.
    - OMP_WAIT_POLICY=PASSIVE, unless set. why: PyTorch's OpenMP threads otherwise spin after each
      parallel region while OpenBLAS's own threads compute the matrix products on the same cores:
      a float32 step of the multilingual model's shape (bench_train_step with FFN 2,048, 2
      threads, AMD EPYC) took 4.57 s (twice) against 3.48-3.97 s (three runs) passive."""
    if os.environ.get("HEED_TRAIN_TUNED"):
        return
    env = dict(os.environ, HEED_TRAIN_TUNED="1")
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if not os.environ.get("HEED_TRAIN_ALLOCATOR") and os.path.exists(JEMALLOC):
        env.update(HEED_TRAIN_ALLOCATOR="jemalloc",
                   MALLOC_CONF="dirty_decay_ms:-1,muzzy_decay_ms:-1",
                   LD_PRELOAD=" ".join(filter(None, [JEMALLOC, os.environ.get("LD_PRELOAD")])))
    # why: sys.argv[0] is this file's path, which cannot run as a script (the package's imports
    # need `-m`); sys.orig_argv is the command as typed, interpreter options and `-m` included
    os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)


def parse_args():
    ap = argparse.ArgumentParser(prog="python3 -m models.pipeline.train")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--pair", help="one direction on DDTP alone, e.g. en-fr (shipped models)")
    what.add_argument("--directions", help="one multilingual model, e.g. en-de,de-en,en-fr,fr-en "
                                           "(every source; the target language token starts "
                                           "the decoder)")
    ap.add_argument("--data", default="models/data")
    ap.add_argument("--run", required=True)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--max-tokens", type=int, default=4096)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--pad-to", type=int, default=1, metavar="N",
                    help="pad every batch's width to a multiple of N (8 on a GPU: fewer shapes; "
                         "1, the default, changes no batch of a run in progress)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--config", default="{}", help="JSON overrides of the model config")
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--dev-per-source", type=int, default=20)
    ap.add_argument("--stop-step", type=int, default=0,
                    help="end training at this step (0: run until --minutes)")
    ap.add_argument("--hold-lr", action="store_true",
                    help="after the warm-up hold the rate at --lr (with --cooldown: warm-up, "
                         "stable, decay) instead of decaying it as 1/sqrt(step)")
    ap.add_argument("--cooldown", type=int, default=0,
                    help="decay the rate linearly to zero over the last N steps before --stop-step")
    ap.add_argument("--cooldown-minutes", type=float, default=0,
                    help="decay the rate linearly to zero over the last M of --minutes, by the "
                         "clock (a run on a lent accelerator for a fixed time)")
    ap.add_argument("--mix", metavar="SOURCE=TIMES,...",
                    help="read these sources' training pairs TIMES times in all (--directions; "
                         "e.g. a cool-down weighted towards everyday language)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--bf16", action="store_true",
                    help="matrix products in bfloat16 under autocast (weights, optimiser and loss "
                         "stay float32); about 3x faster on CPUs with AVX-512; on those without, "
                         "ignored with a logged line (models/pipeline/cpu_bf16.py)")
    ap.add_argument("--init", help="start from a weights-only checkpoint (a .heed file) when "
                                   "--run has no checkpoint.pt")
    ap.add_argument("--marian", action="store_true",
                    help="train a model Marian computes exactly (bench/bergamot): post-norm, "
                         "LayerNorm eps 1e-6, Marian's sinusoids, a zero start embedding "
                         "(models/pipeline/marian_compat.py); give it again when resuming")
    ap.add_argument("--export", help="write a weights-only f16 checkpoint (.heed) here at every "
                                     "save, for committing")
    ap.add_argument("--keep-exports", metavar="DIR",
                    help="also keep a copy of every --export, named by its step, in DIR (for "
                         "models.pipeline.average)")
    args = ap.parse_args()
    if args.cooldown_minutes and (args.stop_step or args.cooldown or
                                  not 0 < args.cooldown_minutes < args.minutes):
        ap.error("--cooldown-minutes needs a longer --minutes and no --stop-step or --cooldown")
    return args


@dataclasses.dataclass
class Progress:
    """Where training stands: what a checkpoint records besides the weights and optimiser."""
    step: int = 0  # updates made
    epoch: int = 0  # epochs completed
    order: int = 0  # which batch order the epochs draw (shuffle_rng)
    resume_at: int = 0  # the batch of the current epoch to go on from
    rewarm_from: Optional[int] = None  # the step the rate ramps up again from (after --init)


def starting_point(args):
    """(--run's checkpoint.pt or None, --init's (model, heed.training) or None); --init counts
    only when the run has no checkpoint, and its tokenizer becomes the run's."""
    ckpt_path = os.path.join(args.run, "checkpoint.pt")
    ckpt = torch.load(ckpt_path, map_location="cpu") if os.path.exists(ckpt_path) else None
    if not args.init or ckpt:
        return ckpt, None
    # why: a weights-only checkpoint (a Heed file) carries the tokenizer and the step count
    init_model, tokenizer, meta = read_heed(args.init)
    with open(os.path.join(args.run, "spm.model"), "wb") as f:
        f.write(tokenizer)
    return None, (init_model, json.loads(meta.get("heed.training", "{}")))


def tokenizer(args, corpus):
    """(path, processor) of the run's SentencePiece model, trained on the first stage."""
    langs = sorted({l for c in corpus for l in c[1:3]})
    sp_path = train_spm(args, sorted({c[3] + l for c in corpus for l in c[1:3]}), langs)
    # why: read text as the engine does (a typed "<2fr>" is text, not the token)
    return sp_path, engine_tokenizer.processor(model_file=sp_path)


def model_config(args, sp, ckpt, init):
    """The checkpoint's config, --init's, or --config's over the defaults; made post-norm with
    Marian's epsilon for --marian."""
    if ckpt:
        cfg = ckpt["config"]
    elif init:
        cfg = init[0].cfg
        if args.marian and cfg.get("pre_norm", True):
            # why: starting from a pre-norm model's weights (the final norms are dropped)
            cfg = dict(cfg, pre_norm=False, layer_norm_eps=marian_compat.LAYER_NORM_EPS)
    else:
        cfg = dict(json.loads(args.config), vocab_size=sp.get_piece_size())
        if args.marian:
            cfg.update(pre_norm=False, layer_norm_eps=marian_compat.LAYER_NORM_EPS)
    if args.marian and (cfg.get("pre_norm", True) or args.directions):
        raise SystemExit("train.py: --marian needs --pair and a post-norm model")
    return cfg


def build_model(args, cfg, ckpt, init):
    """The model and optimiser from the seed, then the weights and place of the checkpoint or
    of --init (the optimiser's state is restored after the move to the device)."""
    torch.manual_seed(args.seed)
    model = Seq2Seq(cfg, dropout=args.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    if ckpt:
        model.load_state_dict(ckpt["model"])
        return model, opt, Progress(ckpt["step"], ckpt["epoch"], ckpt.get("order", 0),
                                    ckpt.get("batch_in_epoch", 0), ckpt.get("rewarm_from"))
    if not init:
        return model, opt, Progress()
    init_model, training = init
    weights = init_model.state_dict()
    if not cfg["pre_norm"] and init_model.cfg["pre_norm"]:
        weights = {k: v for k, v in weights.items()
                   if not k.startswith(("transformer.encoder.norm.", "transformer.decoder.norm."))}
    model.load_state_dict(weights)
    step, epoch = training.get("steps", 0), training.get("epochs", 0)
    if "batch_in_epoch" in training:
        order, resume_at = training.get("order", 0), training["batch_in_epoch"]
    else:
        # why: where it stopped in the epoch is unknown; replaying the same order from its
        # first batch would show it the batches it has seen again and never the rest
        order, resume_at = step, 0
    # why: Adam's moments start empty again, so ramp the rate up anew
    return model, opt, Progress(step, epoch, order, resume_at, rewarm_from=step)


def set_start(args, model, sp, first_target):
    """The decoder's start as the engine will run it: the first direction's language token
    (multilingual), or a zero embedding and Marian's positions (--marian)."""
    if args.directions:
        # why: an engine asked for no target language translates into the first direction's
        model.cfg["decoder_start_id"] = sp.piece_to_id(LANG_TOKEN % first_target)
    if args.marian:
        # why: trained on the table and start Marian computes; the file stores the table as
        # learned positions (marian_compat.with_positions), so the engine computes the same
        c0 = model.cfg
        model.pe = torch.from_numpy(marian_compat.positions(c0["max_positions"], c0["d_model"]))
        with torch.no_grad():
            model.embed.weight[c0["decoder_start_id"]].zero_()


class Stage:
    """One stage: epochs from the run's place until --minutes, --stop-step or SIGTERM ends it,
    saving at each epoch's end, every five minutes and at the end."""

    def __init__(self, args, model, opt, sp, sp_path, dev):
        self.args, self.model, self.opt = args, model, opt
        self.sp, self.sp_path, self.dev = sp, sp_path, dev
        self.device = torch.device(args.device)
        self.ckpt_path = os.path.join(args.run, "checkpoint.pt")

    def run(self, examples, progress):
        args = self.args
        t_end = self.t_end = time.time() + args.minutes * 60
        self.saved_at = time.time()
        self.cooling = False
        self.cool_from = t_end - args.cooldown_minutes * 60 if args.cooldown_minutes else None
        stop = []  # why: SIGTERM (kill, the end of a session) saves at the next step, then exits
        signal.signal(signal.SIGTERM, lambda *_: stop.append(True))

        def over():
            return (time.time() >= t_end or stop or
                    (args.stop_step and progress.step >= args.stop_step))

        self.model.train()
        while not over():
            if self.epoch(examples, progress, over):
                progress.epoch += 1
                self.save(progress, 0)

    def epoch(self, examples, p, over):
        """The epoch's batches from p.resume_at; False when `over` ended it early (saved)."""
        args = self.args
        batches = make_batches([(e[0], e[2]) for e in examples], args.max_tokens,
                               shuffle_rng(args, p.epoch, p.order), args.pad_to)
        skip, p.resume_at = p.resume_at, 0
        log(args.run, "epoch %d: %d batches (order %d), from batch %d" %
            (p.epoch, len(batches), p.order, skip))
        for bi, batch in enumerate(batches):
            if bi < skip:
                continue
            if over():
                self.save(p, bi)
                return False
            self.update([examples[i] for i in batch], p)
            if p.step % args.eval_every == 0:
                evaluate_dev(args, self.model, self.sp, self.dev, p.step)
            if time.time() - self.saved_at > 300:
                self.save(p, bi + 1)
                self.saved_at = time.time()
        return True

    def update(self, batch, p):
        """One optimiser step on a batch of examples; logs the loss every 20 steps."""
        args, c = self.args, self.model.cfg
        s = pad([e[0] for e in batch], multiple=args.pad_to).to(self.device)
        t_in = pad([[e[1]] + list(e[2]) for e in batch], multiple=args.pad_to).to(self.device)
        t_out = pad([list(e[2]) + [c["eos_id"]] for e in batch],
                    multiple=args.pad_to).to(self.device)
        p.step += 1
        lr = learning_rate(args, p.step, p.rewarm_from) * self.cooled(p)
        loss = train_step(self.model, self.opt, s, t_in, t_out, lr, args.bf16)
        if args.marian:
            with torch.no_grad():
                self.model.embed.weight[c["decoder_start_id"]].zero_()
        if p.step % 20 == 0:
            log(args.run, "step %d epoch %d loss %.3f lr %.2e tokens %d" %
                (p.step, p.epoch, loss.item(), lr, int((t_out != 0).sum())))

    def cooled(self, p):
        """The share of the rate --cooldown-minutes keeps now (1 without it); logs the start."""
        if self.cool_from is None:
            return 1.0
        now = time.time()
        if now >= self.cool_from and not self.cooling:
            self.cooling = True
            log(self.args.run, "cool-down: from step %d, the rate falls to zero by the stage's "
                "end in %.0f s" % (p.step, self.t_end - now))
        return timed_cooldown(self.t_end - now, self.args.cooldown_minutes * 60)

    def save(self, p, batch_in_epoch):
        """checkpoint.pt (weights, optimiser, place in the epoch), then the --export file."""
        tmp = self.ckpt_path + ".tmp"
        torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                    "step": p.step, "epoch": p.epoch, "order": p.order,
                    "batch_in_epoch": batch_in_epoch, "config": self.model.cfg,
                    "rewarm_from": p.rewarm_from}, tmp)
        os.replace(tmp, self.ckpt_path)
        export_weights(self.args, self.model, self.sp_path, p, batch_in_epoch)


def main():
    tune_process()
    args = parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.run, exist_ok=True)
    args.bf16 = keep_bf16(args.bf16, args.device, lambda why: log(args.run, why))
    try:
        corpus = corpus_of(args)
    except ValueError as e:
        sys.exit(str(e))
    ckpt, init = starting_point(args)
    sp_path, sp = tokenizer(args, corpus)
    model, opt, progress = build_model(args, model_config(args, sp, ckpt, init), ckpt, init)
    set_start(args, model, sp, corpus[0][2])
    model.to(torch.device(args.device))
    if ckpt:  # why: the optimiser's moments follow the parameters to the device
        opt.load_state_dict(ckpt["opt"])
    nparams = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log(args.run, "start step %d, %d params, config %s" % (progress.step, nparams,
                                                          json.dumps(model.cfg)))
    log(args.run, "arguments: %s (allocator: %s, OMP_WAIT_POLICY %s)" % (
        " ".join(sys.argv[1:]), os.environ.get("HEED_TRAIN_ALLOCATOR", "glibc"),
        os.environ.get("OMP_WAIT_POLICY", "unset")))
    examples, dev = load_examples(args, sp, corpus, model.cfg)
    log(args.run, "%d training examples in all" % len(examples))
    Stage(args, model, opt, sp, sp_path, dev).run(examples, progress)
    log(args.run, "stage end at step %d" % progress.step)


if __name__ == "__main__":
    main()
