"""Builds the tiny random test models and their PyTorch goldens (the end-to-end oracle).

What it is: two small random nn.Transformer models (pre-norm/relu and post-norm/gelu with a
final logits bias) with a small SentencePiece model, written as Heed files, plus what PyTorch
computes for a few sentences: source ids, teacher-forced logits, encoder self-, decoder self-
and cross-attention (from nn.MultiheadAttention with average_attn_weights=False), greedy ids
and beam-search ids/scores (same algorithm as src/decoding/beam_search.cpp, run on PyTorch's
full-recompute forward pass).
What it is not: a trained model; the outputs are gibberish by design.

Needs the corpus (models/corpus/build_corpus.py) for the SentencePiece model.
Usage: /usr/bin/python3 -m models.goldens.make_tiny_model
"""
import io
import json
import os

import sentencepiece as spm
import torch

from models import MODELS, ROOT
from models.pipeline.heed_torch import Seq2Seq, greedy, write_heed

OUT = os.path.join(MODELS, "tiny")
GOLDENS = os.path.join(ROOT, "tests", "data")

SENTENCES = [
    "This package contains the development files.",
    "A simple text editor",
    "It reads the configuration file and starts the server in the background.",
    "Hello, world! 42 ☃",
]

CONFIGS = {
    "tiny": dict(d_model=32, heads=4, ffn_dim=64, encoder_layers=2, decoder_layers=2,
                 pre_norm=True, activation="relu", final_logits_bias=False),
    "tiny-post": dict(d_model=24, heads=3, ffn_dim=40, encoder_layers=1, decoder_layers=2,
                      pre_norm=False, activation="gelu", final_logits_bias=True),
}
MAX_LEN = 20
BEAM = 3
LENGTH_PENALTY = 1.0


def train_spm():
    path = os.path.join(OUT, "spm.model")
    if os.path.exists(path):
        return path
    lines = []
    for side in ("en", "fr"):
        with open(os.path.join(MODELS, "data", "en-fr.train." + side)) as f:
            lines += [next(f).strip() for _ in range(3000)]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                   vocab_size=400, model_type="unigram", pad_id=0, unk_id=1,
                                   bos_id=2, eos_id=3, character_coverage=1.0)
    with open(path, "wb") as f:
        f.write(model.getvalue())
    return path


def quick_train(model, sp, steps=300):
    """A few hundred updates so the model's output depends on its input (a random model
    repeats one token forever, which would make weak goldens)."""
    src, tgt = [], []
    for side, out in (("en", src), ("fr", tgt)):
        with open(os.path.join(MODELS, "data", "en-fr.train." + side)) as f:
            out += [next(f).strip() for _ in range(2000)]
    c = model.cfg
    pairs = [(sp.encode(a)[:20] + [c["eos_id"]], sp.encode(b)[:20]) for a, b in zip(src, tgt)]
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(5)
    model.train()
    for step in range(steps):
        idx = torch.randint(len(pairs), (32,), generator=g).tolist()
        s = [pairs[i][0] for i in idx]
        t = [pairs[i][1] for i in idx]
        pad = lambda xs: torch.tensor([x + [0] * (max(map(len, xs)) - len(x)) for x in xs])
        t_in = pad([[c["decoder_start_id"]] + x for x in t])
        t_out = pad([x + [c["eos_id"]] for x in t])
        logits = model(pad(s), t_in)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                 t_out.reshape(-1), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("quick_train loss %.3f" % loss.item())


class AttentionRecorder:
    """Re-runs each nn.MultiheadAttention call with need_weights=True to read its weights."""

    def __init__(self, model):
        self.records = []
        self.active = False
        for name, mod in model.named_modules():
            if isinstance(mod, torch.nn.MultiheadAttention):
                mod.register_forward_hook(self.hook(name))

    def hook(self, name):
        def fn(mod, args, _out):
            if not self.active:
                return
            q, k, v = args[:3]
            causal = name.endswith("self_attn") and ".decoder." in name
            mask = None
            if causal:
                t = q.shape[1]
                mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
            self.active = False  # why: the re-run below must not record itself
            _, w = mod(q, k, v, attn_mask=mask, need_weights=True, average_attn_weights=False)
            self.active = True
            self.records.append((name, w[0].detach().clone()))  # [H, Lq, Lk]
        return fn


def flat(t):
    return [float("%.8g" % x) for x in t.reshape(-1).tolist()]


def full_logits(model, src_ids, tgt_in):
    src = torch.tensor([src_ids])
    memory, mask = model.encode(src)
    return model.decode(torch.tensor([tgt_in]), memory, mask)[0]  # [T, V]


def greedy_ids(model, src_ids):
    return greedy(model, [src_ids], [MAX_LEN])[0][0]


def beam(model, src_ids):
    """Mirror of beam_search.cpp: 2K candidates per step, EOS ones finish, stop at K finished."""
    c, K = model.cfg, BEAM
    live = [([], 0.0)]
    finished = []
    for _ in range(MAX_LEN):
        cands = []
        for r, (toks, score) in enumerate(live):
            lp = torch.log_softmax(
                full_logits(model, src_ids, [c["decoder_start_id"]] + toks)[-1], -1)
            for v in range(lp.shape[0]):
                cands.append((score + float(lp[v]), r * lp.shape[0] + v, r, v))
        cands.sort(key=lambda x: (-x[0], x[1]))
        nxt = []
        for total, _, r, v in cands[:2 * K]:
            if len(nxt) >= K:
                break
            toks = live[r][0] + [v]
            if v == c["eos_id"]:
                if len(finished) < K:
                    finished.append((toks, total / len(toks) ** LENGTH_PENALTY))
                continue
            nxt.append((toks, total))
        if len(finished) >= K or not nxt:
            break
        live = nxt
    if len(finished) < K:
        for toks, total in live:
            if toks and toks[-1] != c["eos_id"]:
                finished.append((toks, total / len(toks) ** LENGTH_PENALTY))
    return max(finished, key=lambda x: x[1])


def main():
    os.makedirs(OUT, exist_ok=True)
    sp_path = train_spm()
    sp = spm.SentencePieceProcessor(model_file=sp_path)
    goldens = {}
    for seed, (name, cfg) in enumerate(CONFIGS.items()):
        torch.manual_seed(100 + seed)
        model = Seq2Seq(dict(cfg, vocab_size=sp.get_piece_size(), max_positions=64), dropout=0.0)
        quick_train(model, sp)
        if cfg["final_logits_bias"]:
            with torch.no_grad():
                model.logits_bias.normal_(0, 0.3)
        model.eval()
        with open(sp_path, "rb") as f:
            write_heed(os.path.join(OUT, name + ".heed"), model, f.read(), dtype="F32",
                       metadata={"heed.languages": {"source": "en", "target": "fr"},
                                 "heed.card": "random weights for tests"})
        cases = []
        rec = AttentionRecorder(model)
        for s in SENTENCES:
            src_ids = sp.encode(s) + [model.cfg["eos_id"]]
            g = greedy_ids(model, src_ids)
            b_toks, b_score = beam(model, src_ids)
            tgt_in = [model.cfg["decoder_start_id"]] + g[:-1]
            rec.records, rec.active = [], True
            logits = full_logits(model, src_ids, tgt_in)
            rec.active = False
            att = {"encoder": [], "decoder_self": [], "cross": []}
            for mod_name, w in rec.records:
                key = ("encoder" if ".encoder." in mod_name else
                       "decoder_self" if mod_name.endswith("self_attn") else "cross")
                att[key].append(flat(w))
            cases.append({"text": s, "source_ids": src_ids, "greedy_ids": g,
                          "beam_ids": b_toks, "beam_score": b_score,
                          # why: logits of two sentences suffice and keep the file small
                          "teacher_logits": flat(logits) if len(cases) < 2 else [],
                          "attention": att})
        goldens[name] = {"config": model.cfg, "max_length": MAX_LEN, "beam": BEAM,
                         "length_penalty": LENGTH_PENALTY, "cases": cases}
        print(name, [c["greedy_ids"] for c in cases])
    with open(os.path.join(GOLDENS, "tiny_goldens.json"), "w") as f:
        json.dump(goldens, f)


if __name__ == "__main__":
    main()
