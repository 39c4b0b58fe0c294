"""Writes tests/data/surgery_goldens.json: PyTorch's greedy ids for the tiny models under each
attention surgery the engine offers, done PyTorch's own way, as the engine's reference.

- no positions: the sinusoidal table zeroed;
- temperature f: the query projection (weights and bias) multiplied by f, which multiplies every
  score by f;
- window w: nn.Transformer's src_mask (encoder) and memory_mask (cross-attention, query = step);
- zero ablation of a head: the out-projection's input columns of that head zeroed.

What it is not: the engine's code path; none of this shares code with src/.
Usage: /usr/bin/python3 -m models.goldens.make_surgery_goldens
"""
import copy
import json
import os

import sentencepiece as spm
import torch

from models import MODELS, ROOT
from models.pipeline.heed_torch import greedy, read_heed

SENTENCES = ["A simple text editor", "This package contains the development files."]
MAX_LEN = 20


def band(n_q, n_k, w):
    """Additive mask, -inf where |min(i, n_k - 1) - j| > w (a decoding step past the source's
    end keeps the window on its last positions)."""
    i = torch.arange(n_q)[:, None].clamp(max=n_k - 1)
    j = torch.arange(n_k)[None, :]
    return torch.where((i - j).abs() > w, float("-inf"), 0.0)


class Windowed:
    """The model with a local window in encoder self- and cross-attention (nn.Transformer's own
    src_mask and memory_mask)."""

    def __init__(self, model, w):
        self.m, self.w, self.cfg, self.embed = model, w, model.cfg, model.embed

    def encode(self, src):
        mask = src == self.cfg["pad_id"]
        s = src.shape[1]
        x = self.m.transformer.encoder(self.m.embed_tokens(src), mask=band(s, s, self.w),
                                       src_key_padding_mask=mask)
        return x, mask

    def decode(self, tgt_in, memory, src_mask):
        t, s = tgt_in.shape[1], memory.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = self.m.transformer.decoder(self.m.embed_tokens(tgt_in), memory, tgt_mask=causal,
                                       memory_mask=band(t, s, self.w),
                                       memory_key_padding_mask=src_mask)
        return h @ self.m.embed.weight.t() + self.m.logits_bias


def hotter(model, f):
    m = copy.deepcopy(model)
    d = m.cfg["d_model"]
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.MultiheadAttention):
                mod.in_proj_weight[:d] *= f
                mod.in_proj_bias[:d] *= f
    return m


def no_positions(model):
    m = copy.deepcopy(model)
    m.pe.zero_()
    return m


def ablated(model, attn_path, head):
    m = copy.deepcopy(model)
    dh = m.cfg["d_model"] // m.cfg["heads"]
    mod = m.get_submodule(attn_path)
    with torch.no_grad():
        mod.out_proj.weight[:, head * dh:(head + 1) * dh] = 0
    return m


def main():
    out = {"max_length": MAX_LEN, "models": {}}
    for name in ("tiny", "tiny-post"):
        model, tokenizer, _ = read_heed(os.path.join(MODELS, "tiny", name + ".heed"))
        sp = spm.SentencePieceProcessor(model_proto=tokenizer)
        variants = {
            "none": model,
            "no_positions": no_positions(model),
            "temperature_2": hotter(model, 2.0),
            "window_1": Windowed(model, 1),
            "ablate_enc_0_1": ablated(model, "transformer.encoder.layers.0.self_attn", 1),
            "ablate_cross_0_0": ablated(model, "transformer.decoder.layers.0.multihead_attn", 0),
            "ablate_dec_0_1": ablated(model, "transformer.decoder.layers.0.self_attn", 1),
        }
        cases = []
        for text in SENTENCES:
            src = sp.encode(text) + [model.cfg["eos_id"]]
            case = {"text": text}
            with torch.no_grad():
                for key, m in variants.items():
                    case[key] = greedy(m, [src], [MAX_LEN])[0][0]
            cases.append(case)
        out["models"][name] = cases
    with open(os.path.join(ROOT, "tests", "data", "surgery_goldens.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out)[:600])


if __name__ == "__main__":
    main()
