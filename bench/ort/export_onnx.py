"""Exports a Heed model file to ONNX graphs for the onnxruntime-web comparison (bench/ort/).

Run from the repository root with the Python that has PyTorch (here /usr/bin/python3, torch 1.13):

    /usr/bin/python3 -m bench.ort.export_onnx [--model models/en-fr.heed] [--out bench/ort/onnx]

What it writes (into --out, not committed):
  encoder.onnx        src ids [1,S] int64 -> memory [1,S,D]             (nn.Transformer's encoder)
  decoder.onnx        tgt ids [1,T] int64, memory [1,S,D] -> logits [1,V] of the last position
                      (nn.Transformer's decoder on the whole prefix: no KV cache, so a greedy
                      loop re-runs it on the growing prefix, as any export without past_key_values)
  encoder_kv.onnx     src ids [1,S] -> cross_k_i, cross_v_i [1,H,S,Dh] per decoder layer
                      (encoder + the cross-attention K/V projections, once per sentence)
  decoder_step.onnx   token [1,1], cross_k_i, cross_v_i, past_k_i, past_v_i [1,H,t,Dh]
                      -> logits [1,V], present_k_i, present_v_i [1,H,t+1,Dh]
                      (one decoding step with a KV cache; written here from the same weights,
                      checked against nn.Transformer before export)
  encoder_int8.onnx, decoder_int8.onnx, encoder_kv_int8.onnx, decoder_step_int8.onnx
                      the same four graphs (same inputs and outputs) with dynamic quantisation,
                      as transformers.js' quantised models: every matrix the file holds as I8
                      (attention q/k/v/o, FFN, the tied embedding/logits matrix) keeps the file's
                      own int8 values and per-row scales (zero point 0), and each product is
                      DynamicQuantizeLinear (activations to uint8, one scale and zero point per
                      tensor, at run time) -> MatMulInteger -> Cast -> Mul by (x_scale · w_scale)
                      [-> Add bias]; the embedding gathers the int8 rows and their scales
  matmul_KxN.onnx     x [M,K] -> x·W [M,N], one MatMul with a constant W (GEMM timing)
  matmul_int8_KxN.onnx  the same W quantised per column (Heed's per-row int8 of Wᵀ), one
                      dynamically quantised product
  add_256.onnx        x [1,256] -> x + 1 (measures onnxruntime-web's fixed cost of one run())
  manifest.json       model path and sha256, config, opset, torch version, the graphs
  reference.json      PyTorch outputs on fixed ids, so bench.mjs checks ORT's numerics; for
                      int8 the torch forward of the same quantised modules (QuantLinear computes
                      the operators' math in torch), the spread one rounding tie causes there,
                      and each int8 product alone on fixed inputs (ORT must match it exactly)

The float32 graphs use models/pipeline/heed_torch.py's read_heed (I8 weights dequantised to f32,
exactly what Heed's f32 compute uses); the int8 graphs read the I8 tensors and their .scale as
stored (models/heed_file.py), so ORT int8 and Heed int8 hold identical weights.
torch.onnx.export here needs no `onnx` Python package: the exporter serialises the graph itself
(onnx is only needed for its optional checker).
"""
import argparse
import hashlib
import json
import math
import os
import sys
import warnings

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

from models import ROOT
from models.heed_file import HeedFile
from models.pipeline.heed_torch import quantise_rows, read_heed


class Encoder(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, src):
        memory, _ = self.m.encode(src)
        return memory


class Decoder(nn.Module):
    """model.decode for one unpadded sentence, projected on the last position only.

    why: the source has no padding (one sentence), so the memory mask is all False and is left
    out; slicing before the tied projection spares ORT (T-1)·D·V multiply-adds per step, the
    cheapest honest export of a decoder without a cache."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, tgt, memory):
        m = self.m
        t = tgt.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = m.transformer.decoder(m.embed_tokens(tgt), memory, tgt_mask=causal,
                                  tgt_key_padding_mask=tgt == m.cfg["pad_id"])
        return h[:, -1] @ m.embed.weight.t() + m.logits_bias


def _split_in_proj(mha, d):
    w, b = mha.in_proj_weight.detach(), mha.in_proj_bias.detach()
    return [(w[i * d:(i + 1) * d].clone(), b[i * d:(i + 1) * d].clone()) for i in range(3)]


class EncoderKV(nn.Module):
    """Encoder plus every decoder layer's cross-attention K and V, split into heads."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        c = model.cfg
        self.h, self.d = c["heads"], c["d_model"]
        for i, layer in enumerate(model.transformer.decoder.layers):
            _, (wk, bk), (wv, bv) = _split_in_proj(layer.multihead_attn, self.d)
            self.register_buffer("wk%d" % i, wk)
            self.register_buffer("bk%d" % i, bk)
            self.register_buffer("wv%d" % i, wv)
            self.register_buffer("bv%d" % i, bv)

    def heads(self, x):
        return x.reshape(1, -1, self.h, self.d // self.h).transpose(1, 2)

    def forward(self, src):
        memory, _ = self.m.encode(src)
        out = []
        for i in range(len(self.m.transformer.decoder.layers)):
            out.append(self.heads(F.linear(memory, getattr(self, "wk%d" % i), getattr(self, "bk%d" % i))))
            out.append(self.heads(F.linear(memory, getattr(self, "wv%d" % i), getattr(self, "bv%d" % i))))
        return tuple(out)


class DecoderStep(nn.Module):
    """One greedy step with a KV cache: the pre-norm nn.TransformerDecoderLayer, unrolled.

    Inputs: token [1,1], then per decoder layer cross_k, cross_v [1,H,S,Dh], then per layer
    past_k, past_v [1,H,t,Dh] (t = tokens already decoded; 0 at the first step).
    Outputs: logits [1,V], then per layer present_k, present_v [1,H,t+1,Dh]."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        c = model.cfg
        assert c["pre_norm"] and c["activation"] == "relu"
        self.h, self.d = c["heads"], c["d_model"]
        self.n = len(model.transformer.decoder.layers)
        for i, layer in enumerate(model.transformer.decoder.layers):
            (wq, bq), (wk, bk), (wv, bv) = _split_in_proj(layer.self_attn, self.d)
            (cq, cbq), _, _ = _split_in_proj(layer.multihead_attn, self.d)
            for name, t in (("wq", wq), ("bq", bq), ("wk", wk), ("bk", bk), ("wv", wv), ("bv", bv),
                            ("cq", cq), ("cbq", cbq)):
                self.register_buffer("%s%d" % (name, i), t)

    def heads(self, x):
        return x.reshape(1, -1, self.h, self.d // self.h).transpose(1, 2)

    def attend(self, q, k, v):
        w = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(self.d // self.h), dim=-1)
        return (w @ v).transpose(1, 2).reshape(1, -1, self.d)

    def forward(self, token, *kv):
        m = self.m
        cross, past = kv[:2 * self.n], kv[2 * self.n:]
        offset = past[0].shape[2]
        x = m.embed(token)
        if m.cfg["scale_embeddings"]:
            x = x * math.sqrt(self.d)
        x = x + m.pe[offset:offset + 1]
        present = []
        for i, layer in enumerate(m.transformer.decoder.layers):
            g = lambda name: getattr(self, "%s%d" % (name, i))  # noqa: E731
            y = layer.norm1(x)
            k = torch.cat([past[2 * i], self.heads(F.linear(y, g("wk"), g("bk")))], dim=2)
            v = torch.cat([past[2 * i + 1], self.heads(F.linear(y, g("wv"), g("bv")))], dim=2)
            present += [k, v]
            x = x + layer.self_attn.out_proj(self.attend(self.heads(F.linear(y, g("wq"), g("bq"))), k, v))
            y = layer.norm2(x)
            q = self.heads(F.linear(y, g("cq"), g("cbq")))
            x = x + layer.multihead_attn.out_proj(self.attend(q, cross[2 * i], cross[2 * i + 1]))
            x = x + layer.linear2(F.relu(layer.linear1(layer.norm3(x))))
        x = m.transformer.decoder.norm(x)
        return (x[:, -1] @ m.embed.weight.t() + m.logits_bias,) + tuple(present)


class MatMul(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        g = torch.Generator().manual_seed(k * 100003 + n)
        self.register_buffer("w", torch.rand(k, n, generator=g) - 0.5)

    def forward(self, x):
        return x @ self.w


class AddOne(nn.Module):
    def forward(self, x):
        return x + 1.0


# ---- int8: dynamic quantisation, the graph of transformers.js' quantised models ----
#
# Every weight the .heed file holds as I8 (2-D, >= 4096 elements: attention q/k/v/o, FFN, the
# tied embedding/logits matrix) keeps exactly the file's int8 values and per-row scales; the
# activations are quantised at run time, per tensor, to uint8 (ONNX DynamicQuantizeLinear).


def dynamic_quantize(x):
    """ONNX DynamicQuantizeLinear in torch: (x_q uint8 values as float, scale, zero point).

    scale = (max(0, max x) - min(0, min x)) / 255; zero point = round(-min(0, min x) / scale)
    saturated to [0, 255]; x_q = saturate(round(x / scale) + zero point). torch.round rounds
    half to even, as the operator does."""
    lo = torch.clamp(x.min(), max=0.0)
    hi = torch.clamp(x.max(), min=0.0)
    scale = (hi - lo) / 255.0
    zp = torch.clamp(torch.round(-lo / scale), 0.0, 255.0)
    q = torch.clamp(torch.round(x / scale) + zp, 0.0, 255.0)
    return q, scale, zp


class DynamicQuantMatMul(torch.autograd.Function):
    """y = float(Σ_k (x_q - zp)·w_q[k, n]) · (x_scale · w_scale[n]) (+ bias[n]).

    forward: the same math in torch (the integer sums exact in float64), the reference the ONNX
    graphs are checked against. symbolic: the nodes onnxruntime's quantize_dynamic writes,
    DynamicQuantizeLinear -> MatMulInteger (uint8 x int8, weight zero point 0, left out) ->
    Cast -> Mul by (x_scale · w_scale) -> Add bias, the pattern onnxruntime's CPU optimiser
    fuses (MatMulIntegerToFloat, then DynamicQuantizeMatMul)."""

    # why: tie_spread sets this to (relative size, generator) to jitter every quantised input,
    # measuring how far one rounding tie moves the reference (None: the exact reference)
    jitter = None

    @staticmethod
    def forward(ctx, x, w_t, w_scale, bias):
        if DynamicQuantMatMul.jitter is not None:
            rel, gen = DynamicQuantMatMul.jitter
            x = x * (1 + rel * torch.randn(x.shape, generator=gen))
        q, scale, zp = dynamic_quantize(x)
        acc = ((q - zp).double() @ w_t.double()).float()
        y = acc * (scale * w_scale)
        return y if bias is None else y + bias

    @staticmethod
    def symbolic(g, x, w_t, w_scale, bias):
        # why: torch 1.13 hands an autograd.Function's symbolic a torch.Graph, whose g.op it
        # marks deprecated (for 1.14) at every call; it is the documented way in 1.13
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            q, scale, zp = g.op("DynamicQuantizeLinear", x, outputs=3)
            acc = g.op("MatMulInteger", q, w_t, zp)
            y = g.op("Mul", g.op("Cast", acc, to_i=1), g.op("Mul", scale, w_scale))  # 1: FLOAT
            return y if bias is None else g.op("Add", y, bias)


class QuantLinear(nn.Module):
    """nn.Linear with Heed's int8 weight: q [out, in] int8 and scale [out] (W = q · scale per
    row, symmetric, so per column of Wᵀ), applied with DynamicQuantMatMul."""

    def __init__(self, q, scale, bias=None):
        super().__init__()
        self.register_buffer("w_t", torch.as_tensor(q, dtype=torch.int8).t().contiguous())
        self.register_buffer("w_scale", torch.as_tensor(scale, dtype=torch.float32).clone())
        self.register_buffer("bias", None if bias is None else torch.as_tensor(bias).float().clone())

    def forward(self, x):
        return DynamicQuantMatMul.apply(x, self.w_t, self.w_scale, self.bias)


class FloatLinear(nn.Module):
    """A weight the file keeps in float (under the I8 threshold): y = x·Wᵀ + b."""

    def __init__(self, w, bias=None):
        super().__init__()
        self.register_buffer("w", torch.as_tensor(w).float().clone())
        self.register_buffer("bias", None if bias is None else torch.as_tensor(bias).float().clone())

    def forward(self, x):
        return F.linear(x, self.w, self.bias)


class Int8Model(nn.Module):
    """The pre-norm model of a .heed file, every I8 matrix a QuantLinear (Vaswani et al. 2017 §3,
    pre-norm as nn.Transformer with norm_first). q/k/v that share an input are one QuantLinear
    (their rows stacked; per-row scales are unchanged and the input is quantised once, as in the
    float graphs, where nn.MultiheadAttention's in_proj is one MatMul)."""

    def __init__(self, path, model):
        super().__init__()
        f = HeedFile(path)
        c = self.cfg = model.cfg
        assert c["pre_norm"] and c["activation"] == "relu"
        self.h, self.d = c["heads"], c["d_model"]
        self.quantised, self.kept = [], []
        self.register_buffer("pe", model.pe.clone())

        def linear(*names, bias=True):
            ws = [n + ".weight" for n in names]
            b = np.concatenate([f.stored(n + ".bias") for n in names]) if bias else None
            if all(f.header[w]["dtype"] == "I8" for w in ws):
                self.quantised += ws
                return QuantLinear(np.concatenate([f.stored(w) for w in ws]),
                                   np.concatenate([f.stored(w + ".scale") for w in ws]), b)
            self.kept += ws
            return FloatLinear(np.concatenate([f.tensor(w) for w in ws]), b)

        def ln(name):
            m = nn.LayerNorm(self.d, eps=c["layer_norm_eps"]).requires_grad_(False)
            m.weight.copy_(torch.from_numpy(f.tensor(name + ".weight")))
            m.bias.copy_(torch.from_numpy(f.tensor(name + ".bias")))
            return m

        self.enc = nn.ModuleList()
        for i in range(c["encoder_layers"]):
            p = "encoder.%d." % i
            self.enc.append(nn.ModuleDict({
                "ln1": ln(p + "ln1"), "qkv": linear(*(p + "self_attn." + x for x in "qkv")),
                "o": linear(p + "self_attn.o"), "ln2": ln(p + "ln2"),
                "fc1": linear(p + "ffn.fc1"), "fc2": linear(p + "ffn.fc2")}))
        self.dec = nn.ModuleList()
        for i in range(c["decoder_layers"]):
            p = "decoder.%d." % i
            self.dec.append(nn.ModuleDict({
                "ln1": ln(p + "ln1"), "qkv": linear(*(p + "self_attn." + x for x in "qkv")),
                "o": linear(p + "self_attn.o"), "ln2": ln(p + "ln2"),
                "cq": linear(p + "cross_attn.q"), "ckv": linear(*(p + "cross_attn." + x for x in "kv")),
                "co": linear(p + "cross_attn.o"), "ln3": ln(p + "ln3"),
                "fc1": linear(p + "ffn.fc1"), "fc2": linear(p + "ffn.fc2")}))
        self.enc_ln, self.dec_ln = ln("encoder.ln"), ln("decoder.ln")
        # the tied matrix: token rows for the embedding, the same int8 rows for the logits
        if f.header["embed.weight"]["dtype"] != "I8":
            raise ValueError("%s: embed.weight is not I8; export the int8 graphs from an I8 file" % path)
        self.register_buffer("embed_q", torch.from_numpy(f.stored("embed.weight").copy()))
        self.register_buffer("embed_scale", torch.from_numpy(f.stored("embed.weight.scale").copy()))
        bias = f.stored("logits.bias") if c["final_logits_bias"] else None
        self.logits = QuantLinear(self.embed_q, self.embed_scale, bias)
        self.quantised.append("embed.weight")

    def embed(self, ids, offset=0):
        x = self.embed_q[ids].float() * self.embed_scale[ids].unsqueeze(-1)  # [1, T, D]
        if self.cfg["scale_embeddings"]:
            x = x * math.sqrt(self.d)
        return x + self.pe[offset:offset + ids.shape[1]]

    def heads(self, x):
        return x.reshape(1, -1, self.h, self.d // self.h).transpose(1, 2)  # [1, H, T, Dh]

    def attend(self, q, k, v, mask=None):
        s = q @ k.transpose(2, 3) / math.sqrt(self.d // self.h)
        w = torch.softmax(s if mask is None else s + mask, dim=-1)
        return (w @ v).transpose(1, 2).reshape(1, -1, self.d)  # [1, T, D]

    def split(self, x, n):
        return [self.heads(t) for t in x.chunk(n, dim=-1)]

    def encode(self, src):
        x = self.embed(src)  # [1, S, D]
        for L in self.enc:
            q, k, v = self.split(L["qkv"](L["ln1"](x)), 3)
            x = x + L["o"](self.attend(q, k, v))
            x = x + L["fc2"](F.relu(L["fc1"](L["ln2"](x))))
        return self.enc_ln(x)

    def cross_kv(self, memory):
        out = []
        for L in self.dec:
            out += self.split(L["ckv"](memory), 2)
        return out  # per layer k, v [1, H, S, Dh]

    def decode_last(self, tgt, cross):
        """The whole prefix, no cache; logits of the last position [1, V]."""
        t = tgt.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        x = self.embed(tgt)
        for i, L in enumerate(self.dec):
            q, k, v = self.split(L["qkv"](L["ln1"](x)), 3)
            x = x + L["o"](self.attend(q, k, v, causal))
            x = x + L["co"](self.attend(self.heads(L["cq"](L["ln2"](x))), cross[2 * i], cross[2 * i + 1]))
            x = x + L["fc2"](F.relu(L["fc1"](L["ln3"](x))))
        return self.logits(self.dec_ln(x)[:, -1])

    def step(self, token, cross, past):
        """One token with the self-attention KV cache; -> logits [1, V], present k/v per layer."""
        x = self.embed(token, past[0].shape[2])
        present = []
        for i, L in enumerate(self.dec):
            q, k, v = self.split(L["qkv"](L["ln1"](x)), 3)
            k = torch.cat([past[2 * i], k], dim=2)
            v = torch.cat([past[2 * i + 1], v], dim=2)
            present += [k, v]
            x = x + L["o"](self.attend(q, k, v))
            x = x + L["co"](self.attend(self.heads(L["cq"](L["ln2"](x))), cross[2 * i], cross[2 * i + 1]))
            x = x + L["fc2"](F.relu(L["fc1"](L["ln3"](x))))
        return self.logits(self.dec_ln(x)[:, -1]), present


@torch.no_grad()
def tie_spread(enc8, dec8, src, tgt, memory8, logits8, seeds=6, rel=1e-7):
    """Max change of the int8 reference's memory and last logits when every quantised input is
    multiplied by (1 + rel·N(0, 1)), over a few seeds.

    why: an activation within float noise of a rounding tie (x/scale = k + ½) lands on either
    side depending on the last bit of the float ops before it; one such flip early in the
    encoder moves everything after it by a quantisation step. ORT computes the float parts
    (layer norm, softmax) in another order, so this spread, not float32's 1e-6, is how close its
    int8 graphs can be to PyTorch's."""
    worst = [0.0, 0.0]
    try:
        for seed in range(seeds):
            DynamicQuantMatMul.jitter = (rel, torch.Generator().manual_seed(seed))
            m = enc8(src)
            worst[0] = max(worst[0], (m - memory8).abs().max().item())
            worst[1] = max(worst[1], (dec8(tgt, m) - logits8).abs().max().item())
    finally:
        DynamicQuantMatMul.jitter = None
    return worst


class Int8Encoder(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, src):
        return self.m.encode(src)


class Int8Decoder(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, tgt, memory):
        return self.m.decode_last(tgt, self.m.cross_kv(memory))


class Int8EncoderKV(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, src):
        return tuple(self.m.cross_kv(self.m.encode(src)))


class Int8DecoderStep(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, token, *kv):
        n = 2 * len(self.m.dec)
        logits, present = self.m.step(token, kv[:n], kv[n:])
        return (logits,) + tuple(present)


class Int8MatMul(nn.Module):
    """MatMul's W quantised per column (Heed's per-row int8 of Wᵀ): x [M,K] -> [M,N], no bias."""

    def __init__(self, k, n):
        super().__init__()
        q, scale = quantise_rows(MatMul(k, n).w.t())
        self.lin = QuantLinear(q, scale)

    def forward(self, x):
        return self.lin(x)


def export(module, args, path, inputs, outputs, axes, opset):
    torch.onnx.export(module, args, path, opset_version=opset, input_names=inputs,
                      output_names=outputs, dynamic_axes=axes, do_constant_folding=True)
    print("wrote %s (%.1f MB)" % (os.path.relpath(path, ROOT), os.path.getsize(path) / 1e6))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr.heed"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "ort", "onnx"))
    ap.add_argument("--opset", type=int, default=14)  # why: 14 is the first with Trilu (the causal mask)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with open(a.model, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    model, _, meta = read_heed(a.model)
    c = model.cfg
    H, D, V = c["heads"], c["d_model"], c["vocab_size"]
    nd = c["decoder_layers"]
    # why: nn.Transformer's inference fast path (fused native kernels, nested tensors) has no
    # ONNX export; it is taken only when no parameter needs a gradient under grad mode, so keep
    # grads on (the default after read_heed) and export the plain, exportable path
    for p in model.parameters():
        p.requires_grad_(True)

    # ---- check the cached step against nn.Transformer before exporting anything ----
    g = torch.Generator().manual_seed(7)
    src = torch.cat([torch.randint(4, V, (1, 12), generator=g), torch.tensor([[c["eos_id"]]])], 1)
    tgt = torch.cat([torch.tensor([[c["decoder_start_id"]]]), torch.randint(4, V, (1, 6), generator=g)], 1)
    enc, dec, enc_kv, step = Encoder(model), Decoder(model), EncoderKV(model), DecoderStep(model)
    with torch.no_grad():
        memory, src_mask = model.encode(src)
        full = model.decode(tgt, memory, src_mask)           # [1, T, V], the reference
        cross = enc_kv(src)
        past = [torch.zeros(1, H, 0, D // H) for _ in range(2 * nd)]
        worst_step, worst_dec = 0.0, 0.0
        for t in range(tgt.shape[1]):
            out = step(tgt[:, t:t + 1], *cross, *past)
            past = list(out[1:])
            worst_step = max(worst_step, (out[0] - full[:, t]).abs().max().item())
            worst_dec = max(worst_dec, (dec(tgt[:, :t + 1], memory) - full[:, t]).abs().max().item())
    print("PyTorch check: max |logits - model.decode| over %d positions: decoder %.2e, "
          "decoder_step (KV cache) %.2e" % (tgt.shape[1], worst_dec, worst_step))
    if worst_step > 1e-3 or worst_dec > 1e-3:
        sys.exit("the export wrappers disagree with model.decode")

    # ---- export ----
    p = lambda name: os.path.join(a.out, name)  # noqa: E731
    export(enc, (src,), p("encoder.onnx"), ["src"], ["memory"],
           {"src": {1: "S"}, "memory": {1: "S"}}, a.opset)
    export(dec, (tgt, memory), p("decoder.onnx"), ["tgt", "memory"], ["logits"],
           {"tgt": {1: "T"}, "memory": {1: "S"}}, a.opset)
    kv_names = []
    for i in range(nd):
        kv_names += ["cross_k%d" % i, "cross_v%d" % i]
    export(enc_kv, (src,), p("encoder_kv.onnx"), ["src"], kv_names,
           dict({"src": {1: "S"}}, **{n: {2: "S"} for n in kv_names}), a.opset)
    past_names, present_names = [], []
    for i in range(nd):
        past_names += ["past_k%d" % i, "past_v%d" % i]
        present_names += ["present_k%d" % i, "present_v%d" % i]
    # why: traced with a non-empty cache so the exporter sees the general shape
    past3 = [torch.zeros(1, H, 3, D // H) for _ in range(2 * nd)]
    axes = {n: {2: "S"} for n in kv_names}
    axes.update({n: {2: "t"} for n in past_names})
    axes.update({n: {2: "t1"} for n in present_names})
    export(step, (tgt[:, :1], *cross, *past3), p("decoder_step.onnx"),
           ["token"] + kv_names + past_names, ["logits"] + present_names, axes, a.opset)
    matmuls = []
    for k, n in ((D, V), (D, c["ffn_dim"]), (D, D)):
        name = "matmul_%dx%d.onnx" % (k, n)
        export(MatMul(k, n), (torch.zeros(1, k),), p(name), ["x"], ["y"],
               {"x": {0: "M"}, "y": {0: "M"}}, a.opset)
        matmuls.append({"file": name, "K": k, "N": n})
    export(AddOne(), (torch.zeros(1, 256),), p("add_256.onnx"), ["x"], ["y"], None, a.opset)

    # ---- int8: the same graphs with dynamic quantisation, from the file's own int8 weights ----
    q8 = Int8Model(a.model, model)
    enc8, dec8, enc_kv8, step8 = Int8Encoder(q8), Int8Decoder(q8), Int8EncoderKV(q8), Int8DecoderStep(q8)
    with torch.no_grad():
        memory8 = enc8(src)
        cross8 = enc_kv8(src)
        logits8 = dec8(tgt, memory8)                           # the no-cache graph's reference
        past = [torch.zeros(1, H, 0, D // H) for _ in range(2 * nd)]
        for t in range(tgt.shape[1]):
            out = step8(tgt[:, t:t + 1], *cross8, *past)
            past = list(out[1:])
        step_logits8 = out[0]                                  # the KV-cache graph's reference
    # why: not a check of the export (the torch forward is the reference the graphs are checked
    # against in bench.mjs), but how far uint8 activations move the logits from float32
    print("PyTorch int8 (%d matrices quantised, %d kept float): max |int8 - float32| memory %.2e, "
          "last logits %.2e (no cache) / %.2e (KV cache); argmax equal %s / %s"
          % (len(q8.quantised), len(q8.kept), (memory8 - memory).abs().max().item(),
             (logits8 - full[:, -1]).abs().max().item(), (step_logits8 - full[:, -1]).abs().max().item(),
             logits8.argmax().item() == full[0, -1].argmax().item(),
             step_logits8.argmax().item() == full[0, -1].argmax().item()))
    spread = tie_spread(enc8, dec8, src, tgt, memory8, logits8)
    print("PyTorch int8 against itself with every quantised input jittered by 1e-7 (relative, 6 "
          "seeds): max change memory %.2e, last logits %.2e (above 1e-5: a rounding tie flipped)"
          % tuple(spread))
    export(enc8, (src,), p("encoder_int8.onnx"), ["src"], ["memory"],
           {"src": {1: "S"}, "memory": {1: "S"}}, a.opset)
    export(dec8, (tgt, memory8), p("decoder_int8.onnx"), ["tgt", "memory"], ["logits"],
           {"tgt": {1: "T"}, "memory": {1: "S"}}, a.opset)
    export(enc_kv8, (src,), p("encoder_kv_int8.onnx"), ["src"], kv_names,
           dict({"src": {1: "S"}}, **{n: {2: "S"} for n in kv_names}), a.opset)
    export(step8, (tgt[:, :1], *cross8, *past3), p("decoder_step_int8.onnx"),
           ["token"] + kv_names + past_names, ["logits"] + present_names, axes, a.opset)
    product_refs = []  # one quantised product alone: ORT must match it exactly (no float ops before)
    for m in matmuls:
        m["int8_file"] = "matmul_int8_%dx%d.onnx" % (m["K"], m["N"])
        mm = Int8MatMul(m["K"], m["N"])
        export(mm, (torch.zeros(1, m["K"]),), p(m["int8_file"]), ["x"], ["y"],
               {"x": {0: "M"}, "y": {0: "M"}}, a.opset)
        x = torch.randn(24, m["K"], generator=torch.Generator().manual_seed(m["N"])) * 3
        with torch.no_grad():
            product_refs.append({"file": m["int8_file"], "M": 24, "K": m["K"],
                                 "x": x.flatten().tolist(), "y": mm(x).flatten().tolist()})

    # ---- what bench.mjs needs to check the graphs ----
    with torch.no_grad():
        ref = {"src": src[0].tolist(), "tgt": tgt[0].tolist(),
               "memory": memory[0].flatten().tolist(), "logits_last": full[0, -1].tolist(),
               "int8": {"memory": memory8[0].flatten().tolist(),
                        "logits_last": logits8[0].tolist(),
                        "step_logits_last": step_logits8[0].tolist(),
                        "tie_spread": {"memory": spread[0], "logits": spread[1]},
                        "products": product_refs}}
    with open(p("reference.json"), "w") as f:
        json.dump(ref, f)
    manifest = {
        "model": os.path.relpath(os.path.abspath(a.model), ROOT), "sha256": sha,
        "name": meta.get("heed.name"), "config": c, "opset": a.opset,
        "torch": torch.__version__,
        "parameters": sum(t.numel() for t in model.parameters()),
        "graphs": {"encoder": "encoder.onnx", "decoder": "decoder.onnx",
                   "encoder_kv": "encoder_kv.onnx", "decoder_step": "decoder_step.onnx",
                   "add": "add_256.onnx"},
        "graphs_int8": {"encoder": "encoder_int8.onnx", "decoder": "decoder_int8.onnx",
                        "encoder_kv": "encoder_kv_int8.onnx",
                        "decoder_step": "decoder_step_int8.onnx"},
        "int8": {"quantised": q8.quantised, "kept_float": q8.kept,
                 "activations": "uint8, per tensor, at run time (DynamicQuantizeLinear)",
                 "weights": "the file's int8, per output row (column of Wt), zero point 0"},
        "kv": {"cross": kv_names, "past": past_names, "present": present_names,
               "heads": H, "head_dim": D // H},
        "matmuls": matmuls,
        "pytorch_check": {"decoder": worst_dec, "decoder_step": worst_step},
    }
    with open(p("manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("wrote %s" % os.path.relpath(p("manifest.json"), ROOT))


if __name__ == "__main__":
    main()
