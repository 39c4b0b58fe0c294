"""The PyTorch twin of a Marian SSRU student: Heed's post-norm transformer (heed_torch.Seq2Seq)
with each decoder layer's self-attention replaced by the SSRU cell.

What it is: the model models/pipeline/ssru_student.py trains and the weights-only Heed file it
writes and reads back. Per decoder layer, post-norm as Marian's DecoderLayerRNN computes it
(Kim et al. 2019, "From Research to Production and Back: Ludicrously Fast Neural Machine
Translation", §3.2):
    f_t = sigmoid(W_f x_t + b_f),  c_t = f_t * c_{t-1} + (1 - f_t) * W x_t,  c_0 = 0
    x = LN1(ReLU(c_t) + x_t);  x = LN2(x + CrossAttention(x, memory));  x = LN3(x + FFN(x))
Encoder, embeddings, positions and cross-attention are nn.Transformer's, as in Seq2Seq.
What it is not: a general recurrent decoder (SSRU alone, post-norm alone), nor the reference it
is checked against (tests/marian_reference.py, Marian's inference in numpy).
"""
import json
import math

import numpy as np
import torch
from torch import nn

from models.heed_file import HeedFile, write_heed_file
from models.pipeline.heed_torch import Seq2Seq, engine_config, heed_tensors


class SsruLayer(nn.Module):
    """One decoder layer: the SSRU cell and its norm, then a post-norm nn.TransformerDecoderLayer's
    cross-attention and feed-forward (taken over with their weights)."""

    def __init__(self, layer, d, eps, dropout):
        super().__init__()
        self.w = nn.Linear(d, d, bias=False)  # W: the cell's candidate, no bias
        self.f = nn.Linear(d, d)              # W_f, b_f: the forget gate
        # why: Marian's initialisation of a new SSRU (glorot-uniform matrices, zero bias)
        nn.init.xavier_uniform_(self.w.weight)
        nn.init.xavier_uniform_(self.f.weight)
        nn.init.zeros_(self.f.bias)
        self.norm1 = nn.LayerNorm(d, eps=eps)
        self.cross = layer.multihead_attn
        self.norm2, self.norm3 = layer.norm2, layer.norm3
        self.linear1, self.linear2 = layer.linear1, layer.linear2
        self.drop = nn.Dropout(dropout)

    def forward(self, x, cell, memory, src_mask):
        """x [B, T, D] (the layer's inputs at T consecutive steps), cell [B, D] (c before them);
        returns (output [B, T, D], cell after them [B, D], forget gates [B, T, D])."""
        f = torch.sigmoid(self.f(x))  # [B, T, D]
        xw = self.w(x)                # [B, T, D]
        hs = []
        for t in range(x.shape[1]):
            cell = f[:, t] * cell + (1 - f[:, t]) * xw[:, t]  # [B, D]
            hs.append(cell)
        h = torch.relu(torch.stack(hs, 1))                    # [B, T, D]
        x = self.norm1(x + self.drop(h))
        a = self.cross(x, memory, memory, key_padding_mask=src_mask, need_weights=False)[0]
        x = self.norm2(x + self.drop(a))
        y = self.linear2(self.drop(torch.relu(self.linear1(x))))
        return self.norm3(x + self.drop(y)), cell, f


class SsruSeq2Seq(nn.Module):
    """Seq2Seq's embeddings, positions and encoder; SSRU decoder layers."""

    def __init__(self, base, dropout=0.1):
        super().__init__()
        c = self.cfg = dict(base.cfg, decoder_self="ssru")
        assert not c["pre_norm"] and c["activation"] == "relu", "post-norm, ReLU only"
        self.embed, self.pe, self.drop = base.embed, base.pe, nn.Dropout(dropout)
        self.encoder = base.transformer.encoder
        self.layers = nn.ModuleList(SsruLayer(l, c["d_model"], c["layer_norm_eps"], dropout)
                                    for l in base.transformer.decoder.layers)
        for m in self.modules():  # why: the taken-over layers keep their own dropout modules
            if isinstance(m, nn.Dropout):
                m.p = dropout
            if isinstance(m, nn.MultiheadAttention):
                m.dropout = dropout

    def embed_tokens(self, ids, offset=0):
        x = self.embed(ids) * math.sqrt(self.cfg["d_model"])
        return self.drop(x + self.pe[offset:offset + ids.shape[1]])

    def encode(self, src):
        mask = src == self.cfg["pad_id"]
        return self.encoder(self.embed_tokens(src), src_key_padding_mask=mask), mask

    def decode(self, tgt_in, memory, src_mask, cells=None, offset=0):
        """Logits [B, T, V] for the inputs tgt_in [B, T] at positions offset.., and the cells
        after them (one [B, D] a layer; None: zeros)."""
        x = self.embed_tokens(tgt_in, offset)
        if cells is None:
            cells = [x.new_zeros(x.shape[0], x.shape[2]) for _ in self.layers]
        out = []
        for layer, cell in zip(self.layers, cells):
            x, cell, _ = layer(x, cell, memory, src_mask)
            out.append(cell)
        return x @ self.embed.weight.t(), out

    def forward(self, src, tgt_in):
        memory, src_mask = self.encode(src)
        return self.decode(tgt_in, memory, src_mask)[0]


@torch.no_grad()
def greedy(model, sources, caps):
    """Batched greedy decoding one step at a time with the cells carried (what Marian and Heed
    do); sources end in eos. Returns the ids per sentence (eos included when reached)."""
    c = model.cfg
    n = max(map(len, sources))
    src = torch.tensor([s + [c["pad_id"]] * (n - len(s)) for s in sources])
    memory, mask = model.encode(src)
    ys = torch.full((len(sources), 1), c["decoder_start_id"])
    cells, outs, done = None, [[] for _ in sources], [False] * len(sources)
    for t in range(max(caps)):
        logits, cells = model.decode(ys, memory, mask, cells, offset=t)
        nxt = logits[:, -1].argmax(-1)
        for i in range(len(sources)):
            if not done[i]:
                outs[i].append(int(nxt[i]))
                done[i] = int(nxt[i]) == c["eos_id"] or len(outs[i]) >= caps[i]
        if all(done):
            break
        ys = nxt[:, None]
    return outs


# ---- the weights-only Heed file (models/FORMAT.md; decoder_self "ssru", learned positions) ----

def tensors(model):
    """Heed's tensor names: Seq2Seq's for the encoder, embeddings and positions; per decoder
    layer decoder.i.ssru.{w,f}, ln1 (the cell's norm), cross_attn, ln2, ffn, ln3, as the engine's
    Marian reader writes them."""
    base = Seq2Seq(dict(model.cfg, decoder_layers=0), dropout=0.0)
    base.embed, base.transformer.encoder = model.embed, model.encoder
    out = {k: v for k, v in heed_tensors(base).items() if not k.startswith("decoder.")}
    d = model.cfg["d_model"]
    for i, l in enumerate(model.layers):
        p = "decoder.%d." % i
        sd = {k: v.detach().float().cpu() for k, v in l.state_dict().items()}
        out[p + "ssru.w.weight"] = sd["w.weight"]
        # why: the format gives every linear layer a bias; the cell's W has none (zeros)
        out[p + "ssru.w.bias"] = torch.zeros(d)
        out[p + "ssru.f.weight"], out[p + "ssru.f.bias"] = sd["f.weight"], sd["f.bias"]
        w, b = sd["cross.in_proj_weight"], sd["cross.in_proj_bias"]
        for k, n in enumerate("qkv"):
            out[p + "cross_attn.%s.weight" % n] = w[k * d:(k + 1) * d]
            out[p + "cross_attn.%s.bias" % n] = b[k * d:(k + 1) * d]
        out[p + "cross_attn.o.weight"] = sd["cross.out_proj.weight"]
        out[p + "cross_attn.o.bias"] = sd["cross.out_proj.bias"]
        for k, n in ((1, "norm1"), (2, "norm2"), (3, "norm3")):
            out[p + "ln%d.weight" % k], out[p + "ln%d.bias" % k] = sd[n + ".weight"], sd[n + ".bias"]
        for n, m in (("fc1", "linear1"), ("fc2", "linear2")):
            out[p + "ffn.%s.weight" % n], out[p + "ffn.%s.bias" % n] = sd[m + ".weight"], sd[m + ".bias"]
    table = model.pe.float().cpu()
    out["encoder.pos.weight"] = out["decoder.pos.weight"] = table
    return out


def write(path, model, tokenizer, dtype="F16", metadata=None):
    """A Heed file the engine loads (`heed translate -m`) and export_marian.py converts: weights
    in dtype (F16 or F32), the positions F32 (learned: Marian's sinusoids in Heed's layout)."""
    cfg = dict(engine_config(model.cfg), positions="learned", decoder_self="ssru")
    meta = {"format": "heed", "heed.version": "1", "heed.config": json.dumps(cfg, sort_keys=True)}
    for k, v in (metadata or {}).items():
        meta[k] = v if isinstance(v, str) else json.dumps(v)
    items = {}
    for name, t in tensors(model).items():
        kind = "F32" if name.endswith(".pos.weight") else dtype
        items[name] = (kind, t.numpy().astype(np.float16 if kind == "F16" else np.float32))
    items["tokenizer.model"] = ("U8", np.frombuffer(tokenizer, dtype=np.uint8))
    write_heed_file(path, meta, {n: items[n] for n in sorted(items)})


def read(path, dropout=0.0):
    """(SsruSeq2Seq with the file's weights as float32, tokenizer bytes, metadata)."""
    f = HeedFile(path)
    cfg = dict(f.config)
    if cfg.get("decoder_self") != "ssru" or cfg.get("positions") != "learned":
        raise ValueError("%s: not an SSRU student (decoder_self ssru, learned positions)" % path)
    base_cfg = {k: v for k, v in cfg.items() if k not in ("decoder_self", "search_rules")}
    base = Seq2Seq(dict(base_cfg, positions="sinusoidal"), dropout=dropout)
    model = SsruSeq2Seq(base, dropout)
    model.pe = torch.from_numpy(f.tensor("encoder.pos.weight"))
    load_tensors(model, {n: torch.from_numpy(f.tensor(n)) for n in tensors(model)})
    model.eval()
    return model, f.tensor("tokenizer.model"), f.meta


@torch.no_grad()
def load_tensors(model, t):
    """The inverse of tensors(): copies Heed-named tensors into the model."""
    model.embed.weight.copy_(t["embed.weight"])
    for i in range(model.cfg["encoder_layers"]):
        s, h = model.encoder.layers[i], "encoder.%d." % i
        s.self_attn.in_proj_weight.copy_(torch.cat([t[h + "self_attn.%s.weight" % n] for n in "qkv"]))
        s.self_attn.in_proj_bias.copy_(torch.cat([t[h + "self_attn.%s.bias" % n] for n in "qkv"]))
        s.self_attn.out_proj.weight.copy_(t[h + "self_attn.o.weight"])
        s.self_attn.out_proj.bias.copy_(t[h + "self_attn.o.bias"])
        for mod, n in ((s.norm1, "ln1"), (s.norm2, "ln2"), (s.linear1, "ffn.fc1"),
                       (s.linear2, "ffn.fc2")):
            mod.weight.copy_(t[h + n + ".weight"])
            mod.bias.copy_(t[h + n + ".bias"])
    for i, l in enumerate(model.layers):
        h = "decoder.%d." % i
        l.w.weight.copy_(t[h + "ssru.w.weight"])
        l.f.weight.copy_(t[h + "ssru.f.weight"])
        l.f.bias.copy_(t[h + "ssru.f.bias"])
        l.cross.in_proj_weight.copy_(torch.cat([t[h + "cross_attn.%s.weight" % n] for n in "qkv"]))
        l.cross.in_proj_bias.copy_(torch.cat([t[h + "cross_attn.%s.bias" % n] for n in "qkv"]))
        l.cross.out_proj.weight.copy_(t[h + "cross_attn.o.weight"])
        l.cross.out_proj.bias.copy_(t[h + "cross_attn.o.bias"])
        for mod, n in ((l.norm1, "ln1"), (l.norm2, "ln2"), (l.norm3, "ln3"),
                       (l.linear1, "ffn.fc1"), (l.linear2, "ffn.fc2")):
            mod.weight.copy_(t[h + n + ".weight"])
            mod.bias.copy_(t[h + n + ".bias"])
