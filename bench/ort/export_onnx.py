"""Exports a Heed model file to ONNX graphs for the onnxruntime-web comparison (bench/ort/).

Run with the Python that has PyTorch (here /usr/bin/python3, torch 1.13):

    /usr/bin/python3 bench/ort/export_onnx.py [--model models/en-fr.heed] [--out bench/ort/onnx]

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
  matmul_KxN.onnx     x [M,K] -> x·W [M,N], one MatMul with a constant W (GEMM timing)
  add_256.onnx        x [1,256] -> x + 1 (measures onnxruntime-web's fixed cost of one run())
  manifest.json       model path and sha256, config, opset, torch version, the graphs
  reference.json      PyTorch outputs on fixed ids, so bench.mjs checks ORT's numerics

The model is read with models/heed_torch.py's read_heed (I8 weights dequantised to f32, exactly
what Heed's engine computes with). torch.onnx.export here needs no `onnx` Python package: the
exporter serialises the graph itself (onnx is only needed for its optional checker).
"""
import argparse
import hashlib
import json
import math
import os
import sys

import torch
from torch import nn
import torch.nn.functional as F

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "models"))
from heed_torch import read_heed  # noqa: E402


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

    # ---- what bench.mjs needs to check the graphs ----
    with torch.no_grad():
        ref = {"src": src[0].tolist(), "tgt": tgt[0].tolist(),
               "memory": memory[0].flatten().tolist(), "logits_last": full[0, -1].tolist()}
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
