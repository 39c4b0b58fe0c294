"""Writes the model-file fixtures for tests/model_file_test.cpp with heed_torch.write_heed.

What it is: a tiny untrained model (D=8, H=2, F=16, 1+1 layers, V=16) saved as F16
(tests/data/tiny_format.heed) and as I8 (tests/data/tiny_format_i8.heed), plus the numbers the
C++ test checks, printed. What it is not: a model that translates anything.
Run: /usr/bin/python3 -m models.goldens.make_format_fixture   (from the repository root)
"""
import copy
import os

import torch

from models import ROOT
from models.pipeline import heed_torch

OUT = os.path.join(ROOT, "tests", "data")
CONFIG = dict(d_model=8, heads=2, ffn_dim=16, encoder_layers=1, decoder_layers=1, vocab_size=16,
              max_positions=32)
TOKENIZER = b"heed fixture: stand-in tokenizer bytes \x00\x01\xfe\xff"
I8_MIN = 100  # why: quantises the [16, 8] / [8, 16] matrices but not the [8, 8] ones


def show(name, values):
    print("%s: {%s}" % (name, ", ".join("%.9gf" % float(v) for v in values)))


def main():
    torch.manual_seed(1234)
    base = heed_torch.Seq2Seq(CONFIG, dropout=0.0)
    meta = {"heed.languages": {"source": "en", "target": "de"}, "heed.card": "format fixture"}

    # F16: every float tensor stored as binary16
    m16 = heed_torch.round_to_dtype(copy.deepcopy(base), "F16")
    heed_torch.write_heed(os.path.join(OUT, "tiny_format.heed"), m16, TOKENIZER, "F16", meta)
    t16 = heed_torch.heed_tensors(m16)
    print("[F16] tiny_format.heed")
    show("embed.weight[1][0:4]", t16["embed.weight"][1, :4])
    show("encoder.0.ffn.fc1.bias[0:4]", t16["encoder.0.ffn.fc1.bias"][:4])
    show("decoder.0.cross_attn.v.weight[7][4:8]", t16["decoder.0.cross_attn.v.weight"][7, 4:])

    # I8: matrices of >= I8_MIN elements per-row int8, the rest F32
    m8 = heed_torch.round_to_dtype(copy.deepcopy(base), "I8", I8_MIN)
    path8 = os.path.join(OUT, "tiny_format_i8.heed")
    heed_torch.write_heed(path8, m8, TOKENIZER, "I8", meta, i8_min_elements=I8_MIN)
    t8 = heed_torch.heed_tensors(m8)
    for name, t in t8.items():  # the file must hold exactly what PyTorch now computes with
        if t.dim() == 2 and t.numel() >= I8_MIN:
            q, s = heed_torch.quantise_rows(t)
            assert torch.equal(q.float() * s[:, None], t), name
    q, s = heed_torch.quantise_rows(t8["embed.weight"])
    print("[I8] tiny_format_i8.heed")
    show("embed.weight[1][0:4]", t8["embed.weight"][1, :4])
    print("embed.weight q[1][0:4]: %s" % q[1, :4].tolist())
    show("embed.weight.scale[0:3]", s[:3])
    show("encoder.0.ffn.fc2.weight[2][0:4]", t8["encoder.0.ffn.fc2.weight"][2, :4])
    show("encoder.0.self_attn.q.weight[0][0:4] (F32)", t8["encoder.0.self_attn.q.weight"][0, :4])
    show("encoder.0.ffn.fc1.bias[0:4] (F32)", t8["encoder.0.ffn.fc1.bias"][:4])
    for p in ("tiny_format.heed", "tiny_format_i8.heed"):
        print("%s: %d bytes" % (p, os.path.getsize(os.path.join(OUT, p))))


if __name__ == "__main__":
    main()
