"""The PyTorch twin of Heed's model: nn.Transformer with tied embeddings and sinusoidal positions.

What it is: the reference the C++ engine is checked against, used for training, goldens and
export. It is built from PyTorch's own layers (nn.Transformer), so it is an independent oracle.
What it is not: a general model zoo; only the configurations Heed's engine runs are allowed.
"""
import json
import math

import numpy as np
import torch
from torch import nn

from models.heed_file import HeedFile, write_heed_file


def sinusoidal_positions(n, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)  (Vaswani et al., 3.5)."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float64)[None, :]
    angle = pos / torch.pow(10000.0, i / d)
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.float()


DEFAULT_CONFIG = dict(
    d_model=256, heads=4, ffn_dim=1024, encoder_layers=4, decoder_layers=1, vocab_size=8000,
    pre_norm=True, activation="relu", positions="sinusoidal", max_positions=256,
    tied_embeddings=True, scale_embeddings=True, final_logits_bias=False, layer_norm_eps=1e-5,
    pad_id=0, unk_id=1, bos_id=2, eos_id=3, decoder_start_id=2)


class Seq2Seq(nn.Module):
    def __init__(self, cfg, dropout=0.1):
        super().__init__()
        self.cfg = dict(DEFAULT_CONFIG, **cfg)
        c = self.cfg
        assert c["positions"] == "sinusoidal" and c["tied_embeddings"]
        self.embed = nn.Embedding(c["vocab_size"], c["d_model"], padding_idx=c["pad_id"])
        nn.init.normal_(self.embed.weight, 0.0, c["d_model"] ** -0.5)
        with torch.no_grad():
            self.embed.weight[c["pad_id"]].zero_()
        self.transformer = nn.Transformer(
            d_model=c["d_model"], nhead=c["heads"], num_encoder_layers=c["encoder_layers"],
            num_decoder_layers=c["decoder_layers"], dim_feedforward=c["ffn_dim"], dropout=dropout,
            activation=c["activation"], batch_first=True, norm_first=c["pre_norm"],
            layer_norm_eps=c["layer_norm_eps"])
        if not c["pre_norm"]:
            # why: post-norm models (Marian style) have no final encoder/decoder norm
            self.transformer.encoder.norm = None
            self.transformer.decoder.norm = None
        self.logits_bias = nn.Parameter(torch.zeros(c["vocab_size"]),
                                        requires_grad=c["final_logits_bias"])
        self.register_buffer("pe", sinusoidal_positions(c["max_positions"], c["d_model"]),
                             persistent=False)
        self.drop = nn.Dropout(dropout)

    def embed_tokens(self, ids, offset=0):
        c = self.cfg
        x = self.embed(ids)
        if c["scale_embeddings"]:
            x = x * math.sqrt(c["d_model"])
        return self.drop(x + self.pe[offset:offset + ids.shape[1]])

    def encode(self, src):
        mask = src == self.cfg["pad_id"]
        return self.transformer.encoder(self.embed_tokens(src), src_key_padding_mask=mask), mask

    def decode(self, tgt_in, memory, src_mask, last_only=False):
        """Logits at every target position, or (last_only) at the last one alone: a search
        needs no more, and the vocabulary product over the whole prefix is most of its time."""
        h = self.decoder_states(tgt_in, memory, src_mask)
        if last_only:
            h = h[:, -1:]
        logits = h @ self.embed.weight.t()
        # why: adding a frozen zero bias over every logit costs a pass over B·T·V for nothing
        return logits + self.logits_bias if self.cfg["final_logits_bias"] else logits

    def decoder_states(self, tgt_in, memory, src_mask):
        """The decoder's output at every target position, before the vocabulary product."""
        t = tgt_in.shape[1]
        # why: on the inputs' device (a CPU mask stops a GPU run), and boolean like the padding
        # masks (PyTorch 2 warns of, and may refuse, a float mask beside boolean ones)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tgt_in.device), diagonal=1)
        return self.transformer.decoder(self.embed_tokens(tgt_in), memory, tgt_mask=causal,
                                        tgt_key_padding_mask=tgt_in == self.cfg["pad_id"],
                                        memory_key_padding_mask=src_mask)

    def forward(self, src, tgt_in):
        memory, src_mask = self.encode(src)
        return self.decode(tgt_in, memory, src_mask)


@torch.no_grad()
def greedy(model, sources, caps, start_ids=None):
    """Batched greedy decoding, the one PyTorch decoder the scripts share (training's dev
    evaluation, evaluate.py's agreement check, the tiny models' goldens).

    sources: token id lists, each ending in eos; caps: the most tokens to produce per sentence;
    start_ids: the decoder's first token per sentence (default: the config's decoder_start_id;
    a multilingual model starts with the target-language token). Returns, per sentence, the ids
    produced (eos included when reached) and the top-2 logit margin at each step.
    """
    c = model.cfg
    device = model.embed.weight.device
    n = max(map(len, sources))
    src = torch.tensor([s + [c["pad_id"]] * (n - len(s)) for s in sources], device=device)
    memory, mask = model.encode(src)
    starts = start_ids or [c["decoder_start_id"]] * len(sources)
    ys = torch.tensor(starts, device=device)[:, None]
    outs, margins = [[] for _ in sources], [[] for _ in sources]
    done = [False] * len(sources)
    for _ in range(max(caps)):
        top2 = torch.topk(model.decode(ys, memory, mask, last_only=True)[:, -1].double(), 2,
                          dim=-1)
        nxt = top2.indices[:, 0]
        for i in range(len(sources)):
            if not done[i]:
                outs[i].append(int(nxt[i]))
                margins[i].append(float(top2.values[i, 0] - top2.values[i, 1]))
                done[i] = int(nxt[i]) == c["eos_id"] or len(outs[i]) >= caps[i]
        if all(done):
            break
        ys = torch.cat([ys, nxt[:, None]], 1)
    return outs, margins


# ---- export to the Heed model file (see models/FORMAT.md) ----

def heed_tensors(model):
    """Maps the PyTorch state to Heed's tensor names (q/k/v split out of in_proj)."""
    sd = {k: v.detach().float().cpu() for k, v in model.state_dict().items()}
    c = model.cfg
    d = c["d_model"]
    out = {"embed.weight": sd["embed.weight"]}
    if c["final_logits_bias"]:
        out["logits.bias"] = sd["logits_bias"]

    def attn(dst, src):
        w, b = sd[src + ".in_proj_weight"], sd[src + ".in_proj_bias"]
        for i, n in enumerate("qkv"):
            out["%s.%s.weight" % (dst, n)] = w[i * d:(i + 1) * d]
            out["%s.%s.bias" % (dst, n)] = b[i * d:(i + 1) * d]
        out[dst + ".o.weight"] = sd[src + ".out_proj.weight"]
        out[dst + ".o.bias"] = sd[src + ".out_proj.bias"]

    def copy(dst, src):
        out[dst + ".weight"], out[dst + ".bias"] = sd[src + ".weight"], sd[src + ".bias"]

    # why: one mapping for both stacks; the decoder adds cross-attention and a third norm
    for side, n, attns, norms in (("encoder", c["encoder_layers"], ("self_attn",), 2),
                                  ("decoder", c["decoder_layers"], ("self_attn", "cross_attn"), 3)):
        for i in range(n):
            s, t = "transformer.%s.layers.%d" % (side, i), "%s.%d" % (side, i)
            for a in attns:
                attn("%s.%s" % (t, a), "%s.%s" % (s, "multihead_attn" if a == "cross_attn" else a))
            for k in range(1, norms + 1):
                copy("%s.ln%d" % (t, k), "%s.norm%d" % (s, k))
            copy(t + ".ffn.fc1", s + ".linear1")
            copy(t + ".ffn.fc2", s + ".linear2")
    if c["pre_norm"]:
        copy("encoder.ln", "transformer.encoder.norm")
        copy("decoder.ln", "transformer.decoder.norm")
    return out


def engine_config(cfg):
    keys = list(DEFAULT_CONFIG.keys())
    return {k: cfg[k] for k in keys}


# I8 export: 2-D weight matrices with at least this many elements are stored per-row int8.
I8_MIN_ELEMENTS = 4096


def _i8_eligible(t, min_elements):
    """True for the tensors an I8 export quantises: 2-D, >= min_elements (not norms/biases)."""
    return t.dim() == 2 and t.numel() >= min_elements


def quantise_rows(w):
    """Per-row symmetric int8: returns (q int8 [R, C], scale f32 [R]), w ~= q * scale[:, None].

    The scale is max|row| / 127 (1 for an all-zero row). It is nudged to a fixed point of
    s -> fl(fl(127 s) / 127), so quantising the dequantised weights again gives the same q and
    scale: a model rounded by round_to_dtype is then written exactly as PyTorch sees it.
    """
    w = w.detach().float()
    amax = w.abs().amax(dim=1)
    scale = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    for _ in range(4):
        again = (scale * 127.0) / 127.0
        if torch.equal(again, scale):
            break
        scale = again
    q = torch.clamp(torch.round(w / scale[:, None]), -127, 127).to(torch.int8)
    return q, scale


def write_heed(path, model, tokenizer_bytes, dtype="F16", metadata=None,
               i8_min_elements=I8_MIN_ELEMENTS):
    """Writes the model as a Heed file (models/heed_file.py writes the bytes).

    The header's "__metadata__" holds strings only (safetensors rule): "heed.config" is the
    model config as JSON; the tokenizer is the tensor "tokenizer.model" (U8, the .model bytes).
    dtype is "F32", "F16" or "I8". With "I8", each 2-D weight of >= i8_min_elements elements
    (embed.weight included) is written as I8 "X" plus F32 "X.scale" [rows] (value = q * scale);
    everything else (biases, layer norms, small matrices) stays F32.
    """
    if dtype not in ("F32", "F16", "I8"):
        raise ValueError("write_heed: dtype must be F32, F16 or I8, not %r" % (dtype,))
    meta = {"format": "heed", "heed.version": "1",
            "heed.config": json.dumps(engine_config(model.cfg), sort_keys=True)}
    for k, v in (metadata or {}).items():
        meta[k] = v if isinstance(v, str) else json.dumps(v)
    items = {}  # name -> (dtype, numpy array)
    for name, t in heed_tensors(model).items():
        if dtype == "I8" and _i8_eligible(t, i8_min_elements):
            q, scale = quantise_rows(t)
            items[name] = ("I8", q.numpy())
            items[name + ".scale"] = ("F32", scale.numpy().astype(np.float32))
        elif dtype == "F16":
            items[name] = ("F16", t.numpy().astype(np.float16))
        else:
            items[name] = ("F32", t.numpy().astype(np.float32))
    items["tokenizer.model"] = ("U8", np.frombuffer(tokenizer_bytes, dtype=np.uint8))
    # why: in name order, so each width's tensors are written sorted by name
    write_heed_file(path, meta, {name: items[name] for name in sorted(items)})


def round_to_dtype(model, dtype, i8_min_elements=I8_MIN_ELEMENTS):
    """Rounds the weights as they are stored, so PyTorch and the engine see the same numbers.

    For "I8" the weights write_heed quantises become q * scale (per row); the rest is untouched
    (stored as F32). in_proj_weight holds q, k and v, each its own Heed tensor of a third of
    the rows, so the size threshold applies to a third; per-row scales are unaffected by the split.
    """
    with torch.no_grad():
        if dtype == "F16":
            for p in model.parameters():
                p.copy_(p.half().float())
        elif dtype == "I8":
            for name, p in model.named_parameters():
                pieces = 3 if name.endswith("in_proj_weight") else 1
                if p.dim() == 2 and p.numel() // pieces >= i8_min_elements:
                    q, scale = quantise_rows(p)
                    p.copy_(q.float() * scale[:, None])
    return model


# ---- import from a Heed model file (the inverse of write_heed) ----


def read_heed(path):
    """Returns (Seq2Seq with the file's weights, dequantised; tokenizer .model bytes; metadata).

    Lets PyTorch run exactly the weights a shipped file holds (evaluation, agreement checks)."""
    f = HeedFile(path)
    meta = f.meta

    def tensor(name):
        return torch.from_numpy(f.tensor(name))

    cfg = f.config
    table = None
    if cfg.get("positions") == "learned":
        # why: Seq2Seq holds one fixed table for both sides (train.py --marian writes such files)
        table = tensor("encoder.pos.weight")
        if not torch.equal(table, tensor("decoder.pos.weight")):
            raise ValueError("read_heed: different encoder and decoder positions are not supported")
        cfg = dict(cfg, positions="sinusoidal")
    model = Seq2Seq(cfg, dropout=0.0)
    if table is not None:
        model.pe = table
    sd = model.state_dict()
    for key in sd:
        if key.endswith("in_proj_weight") or key.endswith("in_proj_bias"):
            # why: nn.MultiheadAttention stacks q, k, v; Heed stores them as three tensors
            layer = key.rsplit(".", 1)[0].replace("transformer.", "").replace("layers.", "")
            layer = layer.replace("multihead_attn", "cross_attn")
            kind = "weight" if key.endswith("weight") else "bias"
            sd[key] = torch.cat([tensor("%s.%s.%s" % (layer, p, kind)) for p in "qkv"], 0)
    for name in heed_tensors(model):
        if name.split(".")[-2] not in ("q", "k", "v"):
            sd[_state_name(name, model.cfg)] = tensor(name)
    model.load_state_dict(sd)
    model.eval()
    return model, f.tensor("tokenizer.model"), meta


def _state_name(name, cfg):
    """Heed tensor name -> nn.Transformer state_dict name (q/k/v handled by the caller)."""
    if name == "embed.weight":
        return "embed.weight"
    if name == "logits.bias":
        return "logits_bias"
    parts = name.split(".")
    if parts[0] in ("encoder", "decoder") and parts[1] == "ln":
        return "transformer.%s.norm.%s" % (parts[0], parts[2])
    side, idx, rest = parts[0], parts[1], parts[2:]
    prefix = "transformer.%s.layers.%s." % (side, idx)
    table = {"ln1": "norm1", "ln2": "norm2", "ln3": "norm3"}
    if rest[0] in table:
        return prefix + table[rest[0]] + "." + rest[1]
    if rest[0] == "ffn":
        return prefix + {"fc1": "linear1", "fc2": "linear2"}[rest[1]] + "." + rest[2]
    if rest[1] == "o":
        attn = "self_attn" if rest[0] == "self_attn" else "multihead_attn"
        return prefix + attn + ".out_proj." + rest[2]
    raise KeyError(name)
