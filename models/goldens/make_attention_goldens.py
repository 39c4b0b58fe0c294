"""Writes tests/data/attention_goldens.json: inputs and PyTorch reference outputs for the ops-layer
attention library (score functions, masks, nn.MultiheadAttention, sinusoidal positions, linear
attention). Not a test itself; the C++ tests read the file. Run with /usr/bin/python3 (torch 1.13).

Inputs are drawn in float32 (so the C++ side reads them exactly); every reference is computed in
float64, so the C++ error measured against it is the C++ side's own rounding only.
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

from models import ROOT

OUT = os.path.join(ROOT, "tests", "data", "attention_goldens.json")

# odd sizes on purpose: Lq != Lk != D, and D/H is not a power of two
LQ, LK, D, H = 5, 7, 12, 3


def randn(*shape):
    """float32 draw, returned as float64 (exactly the values the C++ side will read)."""
    return torch.randn(*shape, dtype=torch.float32).double()


def rows(t):
    """Tensor -> nested lists; -inf -> None (JSON has no infinities); 10 significant digits."""
    a = t.detach().cpu().numpy()

    def conv(x):
        if isinstance(x, np.ndarray):
            return [conv(y) for y in x]
        x = float(x)
        if math.isinf(x) and x < 0:
            return None
        assert math.isfinite(x), "unexpected non-finite value in a golden"
        return float("%.10g" % x)

    return conv(a)


# ---- masks, written from their definitions (True = blocked) ---------------------------------
def mask_spec(kind="none", window=0, causal_offset=0, key_padding=None, custom=None):
    return {"kind": kind, "window": window, "causal_offset": causal_offset,
            "key_padding": key_padding or [], "custom": custom or []}


def blocked(spec, lq, lk):
    i = torch.arange(lq).unsqueeze(1)
    j = torch.arange(lk).unsqueeze(0)
    off = spec["causal_offset"]
    kind = spec["kind"]
    if kind == "none" or kind == "key_padding":
        b = torch.zeros(lq, lk, dtype=torch.bool)
    elif kind == "causal":
        b = j > i + off  # query i sees keys j <= i + offset
    elif kind == "local_window":
        b = (i + off - j).abs() > spec["window"]  # |i - j| <= w visible (i shifted by offset)
    elif kind == "custom":
        b = torch.tensor(spec["custom"], dtype=torch.bool)
    else:
        raise ValueError(kind)
    if spec["key_padding"]:
        b = b | torch.tensor(spec["key_padding"], dtype=torch.bool).unsqueeze(0)
    return b


def masked_softmax(scores, block):
    """softmax over keys with blocked entries at -inf; a fully blocked row is all zeros."""
    s = scores.masked_fill(block, float("-inf"))
    w = torch.softmax(s, dim=-1)
    w = torch.where(block.all(dim=-1, keepdim=True), torch.zeros_like(w), w)
    return s, w


# ---- single attention: every score function written directly in torch ---------------------
def score(kind, q, k, p):
    if kind == "dot":  # e_ij = q_i . k_j
        return q @ k.T
    if kind == "scaled_dot":  # e_ij = q_i . k_j / sqrt(d_k)
        return q @ k.T / math.sqrt(k.shape[1])
    if kind == "general":  # e_ij = q_i^T W k_j
        return q @ p["w"] @ k.T
    if kind == "additive":  # e_ij = v^T tanh(W q_i + U k_j)
        wq = q @ p["w"].T  # [Lq, Da]
        uk = k @ p["u"].T  # [Lk, Da]
        return (torch.tanh(wq[:, None, :] + uk[None, :, :]) * p["v"]).sum(-1)
    raise ValueError(kind)


def attention_case(name, kind, q, k, v, spec, params=None):
    s = score(kind, q, k, params)
    s, w = masked_softmax(s, blocked(spec, q.shape[0], k.shape[0]))
    out = w @ v
    case = {"name": name, "score": kind, "mask": spec, "q": rows(q), "k": rows(k), "v": rows(v),
            "output": rows(out), "weights": rows(w), "scores": rows(s)}
    if params is not None:
        case["params"] = {key: rows(val) for key, val in params.items()}
    return case


def attention_cases():
    cases = []
    x = randn(LK, D)
    cases.append(attention_case("self_scaled_dot", "scaled_dot", x, x, x, mask_spec()))
    q, k, v = randn(LQ, D), randn(LK, D), randn(LK, 9)
    cases.append(attention_case("cross_dot", "dot", q, k, v, mask_spec()))
    cases.append(attention_case("cross_scaled_dot_padding", "scaled_dot", q, k, v,
                                mask_spec("key_padding", key_padding=[0, 0, 1, 0, 0, 1, 1])))
    qg, kg, vg = randn(LQ, 6), randn(LK, 10), randn(LK, 9)
    pg = {"w": randn(6, 10) * 0.5}
    cases.append(attention_case("cross_general", "general", qg, kg, vg, mask_spec(), pg))
    cases.append(attention_case("cross_general_padding", "general", qg, kg, vg,
                                mask_spec("key_padding", key_padding=[1, 0, 0, 0, 0, 0, 1]), pg))
    pa = {"w": randn(8, 6) * 0.5, "u": randn(8, 10) * 0.5, "v": randn(8)}
    cases.append(attention_case("cross_additive", "additive", qg, kg, vg, mask_spec(), pa))
    xs = randn(LK, 6)
    pa_self = {"w": randn(8, 6) * 0.5, "u": randn(8, 6) * 0.5, "v": randn(8)}
    cases.append(attention_case("self_additive_causal", "additive", xs, xs, xs,
                                mask_spec("causal"), pa_self))
    cases.append(attention_case("self_scaled_dot_causal", "scaled_dot", x, x, x,
                                mask_spec("causal")))
    # incremental decoding: 3 new queries at positions 2..4 over 5 cached keys
    qi, ki, vi = randn(3, D), randn(5, D), randn(5, D)
    cases.append(attention_case("incremental_causal_offset2", "scaled_dot", qi, ki, vi,
                                mask_spec("causal", causal_offset=2)))
    cases.append(attention_case("self_local_window1", "scaled_dot", x, x, x,
                                mask_spec("local_window", window=1)))
    cases.append(attention_case("cross_local_window2_general", "general", qg, kg, vg,
                                mask_spec("local_window", window=2), pg))
    custom = (torch.rand(LQ, LK) < 0.4).long()
    custom[3, :] = 1  # row 3 fully masked
    cases.append(attention_case("cross_custom_fully_masked_row", "scaled_dot", q, k, v,
                                mask_spec("custom", custom=custom.tolist())))
    cases.append(attention_case("cross_all_keys_padded", "dot", q, k, v,
                                mask_spec("key_padding", key_padding=[1] * LK)))
    # negative offset: query 0 sees no key at all
    cases.append(attention_case("self_causal_offset_minus1", "scaled_dot", x, x, x,
                                mask_spec("causal", causal_offset=-1)))
    cases.append(attention_case("self_causal_plus_padding", "scaled_dot", x, x, x,
                                mask_spec("causal", key_padding=[0, 0, 0, 0, 1, 0, 1])))
    return cases


# ---- multi-head attention: nn.MultiheadAttention, plus the intermediates recomputed --------
def init_mha(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(randn(*p.shape) * 0.4)  # random biases too, so a dropped bias shows


def mha_weights(m, d, kdim):
    if m._qkv_same_embed_dim:
        wq, wk, wv = m.in_proj_weight.split(d, dim=0)
    else:
        wq, wk, wv = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
    bq, bk, bv = m.in_proj_bias.split(d, dim=0)
    return {"wq": wq, "bq": bq, "wk": wk, "bk": bk, "wv": wv, "bv": bv,
            "wo": m.out_proj.weight, "bo": m.out_proj.bias}


def mha_manual(W, x_q, x_kv, heads, block, scaled=True):
    """Per-head projection, score, masked softmax, concat, output projection."""
    q = x_q @ W["wq"].T + W["bq"]
    k = x_kv @ W["wk"].T + W["bk"]
    v = x_kv @ W["wv"].T + W["bv"]
    dh = q.shape[1] // heads

    def split(t):  # [L, H*Dh] -> [H, L, Dh]; head h owns columns h*Dh .. (h+1)*Dh-1
        return t.view(t.shape[0], heads, -1).permute(1, 0, 2)

    qh, kh, vh = split(q), split(k), split(v)
    s = qh @ kh.transpose(1, 2)
    if scaled:
        s = s / math.sqrt(dh)
    s, w = masked_softmax(s, block.unsqueeze(0).expand_as(s))
    oh = w @ vh  # [H, Lq, Dv]
    concat = oh.permute(1, 0, 2).reshape(x_q.shape[0], -1)
    out = concat @ W["wo"].T + W["bo"]
    return {"output": out, "weights": w, "scores": s, "q_heads": qh, "k_heads": kh,
            "v_heads": vh, "concat": concat}


def mha_case(name, x_q, x_kv, spec, kdim=None, scaled=True):
    lq, lk = x_q.shape[0], x_kv.shape[0]
    m = torch.nn.MultiheadAttention(D, H, batch_first=True, kdim=kdim, vdim=kdim,
                                    dtype=torch.float64)
    init_mha(m)
    m.eval()
    W = mha_weights(m, D, kdim)
    block = blocked(spec, lq, lk)
    ref = mha_manual(W, x_q, x_kv, H, block, scaled)
    source = "manual torch (Dot: no scaling)"
    if scaled:
        source = "nn.MultiheadAttention"
        kw = {"need_weights": True, "average_attn_weights": False}
        if spec["kind"] not in ("none", "key_padding"):
            kw["attn_mask"] = blocked(dict(spec, key_padding=[]), lq, lk)
        if spec["key_padding"]:
            kw["key_padding_mask"] = torch.tensor([spec["key_padding"]], dtype=torch.bool)
        with torch.no_grad():
            out, w = m(x_q[None], x_kv[None], x_kv[None], **kw)
        out, w = out[0], w[0]
        dead = block.all(dim=-1)  # torch yields NaN there; Heed's contract: weights 0, concat 0
        assert torch.isnan(out[dead]).all() and not torch.isnan(out[~dead]).any()
        assert torch.allclose(out[~dead], ref["output"][~dead], rtol=1e-10, atol=1e-12)
        assert torch.allclose(w[:, ~dead], ref["weights"][:, ~dead], rtol=1e-10, atol=1e-12)
        assert torch.allclose(ref["output"][dead], W["bo"].expand(int(dead.sum()), -1))
        out[dead] = W["bo"]
        w[:, dead] = 0
        ref["output"], ref["weights"] = out, w
    case = {"name": name, "source": source, "heads": H, "score": "scaled_dot" if scaled else "dot",
            "mask": spec, "x_q": rows(x_q), "x_kv": rows(x_kv)}
    case.update({key: rows(val) for key, val in W.items()})
    case.update({key: rows(val) for key, val in ref.items()})
    return case


def mha_cases():
    xs, xq, xkv = randn(LK, D), randn(LQ, D), randn(LK, D)
    pad = [0, 0, 0, 1, 0, 1, 0]
    custom = (torch.rand(LQ, LK) < 0.35).long()
    custom[:, 0] = 0
    dead_row = torch.zeros(LQ, LK, dtype=torch.long)
    dead_row[1, :] = 1
    return [
        mha_case("self_nomask", xs, xs, mask_spec()),
        mha_case("self_causal_padding", xs, xs, mask_spec("causal", key_padding=pad)),
        mha_case("cross_padding", xq, xkv, mask_spec("key_padding", key_padding=pad)),
        mha_case("cross_custom_padding", xq, xkv,
                 mask_spec("custom", custom=custom.tolist(), key_padding=pad)),
        mha_case("cross_kdim10", xq, randn(LK, 10), mask_spec("key_padding", key_padding=pad),
                 kdim=10),
        mha_case("cross_fully_masked_row", xq, xkv, mask_spec("custom", custom=dead_row.tolist())),
        mha_case("self_causal_dot_unscaled", xs, xs, mask_spec("causal"), scaled=False),
    ]


# ---- sinusoidal positions (Vaswani et al. 2017, section 3.5) -------------------------------
def position_cases():
    cases = []
    for length, d in [(9, 12), (6, 7), (40, 16)]:
        pos = torch.arange(length, dtype=torch.float64).unsqueeze(1)
        two_i = torch.arange(0, d, 2, dtype=torch.float64)
        angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
        pe = torch.zeros(length, d, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(angle)
        pe[:, 1::2] = torch.cos(angle[:, : d // 2])
        sim = F.cosine_similarity(pe[:, None, :], pe[None, :, :], dim=-1)
        cases.append({"length": length, "d_model": d, "pe": rows(pe), "similarity": rows(sim)})
    return cases


# ---- linear attention, phi(x) = elu(x) + 1 (Katharopoulos et al. 2020) ---------------------
def linear_case(name, q, k, v, causal):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    a = fq @ fk.T  # kernel similarities [Lq, Lk]
    lq, lk = a.shape
    block = torch.arange(lk)[None, :] > torch.arange(lq)[:, None] if causal else \
        torch.zeros(lq, lk, dtype=torch.bool)
    a = a.masked_fill(block, 0.0)
    w = a / a.sum(-1, keepdim=True)
    out = w @ v
    # the linear-time form must agree: S_i = sum_{j visible} phi(k_j) v_j^T, z_i = sum phi(k_j)
    kv = fk[:, :, None] * v[:, None, :]  # [Lk, Dk, Dv]
    if causal:
        s_pref, z_pref = kv.cumsum(0), fk.cumsum(0)
        last = torch.clamp(torch.arange(lq), max=lk - 1)
        s_i, z_i = s_pref[last], z_pref[last]
    else:
        s_i, z_i = kv.sum(0).expand(lq, -1, -1), fk.sum(0).expand(lq, -1)
    out_lin = torch.einsum("id,idv->iv", fq, s_i) / (fq * z_i).sum(-1, keepdim=True)
    assert torch.allclose(out, out_lin, rtol=1e-12, atol=1e-12)
    return {"name": name, "causal": causal, "q": rows(q), "k": rows(k), "v": rows(v),
            "output": rows(out), "weights": rows(w),
            "scores": rows((fq @ fk.T).masked_fill(block, float("-inf")))}


def linear_cases():
    x = randn(LK, 6)
    return [
        linear_case("cross_noncausal", randn(LQ, 6), randn(LK, 6), randn(LK, 9), False),
        linear_case("self_causal", x, x, x, True),
        linear_case("cross_causal", randn(LQ, 6), randn(LK, 6), randn(LK, 9), True),
    ]


# ---- the numpy self-attention example of seed text 002 (Pitie, 4C16 handout) ---------------
def seed_002_numpy():
    """The handout's four words (word_3 = word_1 + word_2), d=3, dK=dQ=dV=2, its procedure
    step by step in numpy. The handout draws W_Q, W_K, W_V with an unseeded randn and prints
    no numbers, so the weights here come from a fixed generator (the numbers are ours)."""
    rng = np.random.default_rng(4016)
    words = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=np.float64)
    w_q, w_k, w_v = (rng.standard_normal((3, 2)).astype(np.float32).astype(np.float64)
                     for _ in range(3))
    queries, keys, values = words @ w_q, words @ w_k, words @ w_v
    scores = np.array([[qi @ kj for kj in keys] for qi in queries])
    weights = np.exp(scores / keys.shape[1] ** 0.5)
    weights = weights / weights.sum(axis=1, keepdims=True)
    attention = weights @ values
    return {"words": words.tolist(), "W_Q": w_q.tolist(), "W_K": w_k.tolist(),
            "W_V": w_v.tolist(), "scores": scores.tolist(), "weights": weights.tolist(),
            "attention": attention.tolist()}


def main():
    torch.set_grad_enabled(False)  # references only; nothing is trained here
    torch.manual_seed(20240917)
    doc = {
        "generator": "models/goldens/make_attention_goldens.py",
        "torch": torch.__version__,
        "note": "references in float64 from float32 inputs; null in scores = -inf (masked)",
        "attention": attention_cases(),
        "mha": mha_cases(),
        "positions": position_cases(),
        "linear": linear_cases(),
        "seed_002_numpy": seed_002_numpy(),
    }
    text = json.dumps(doc, separators=(",", ":"))
    assert len(text) < 1_000_000, len(text)
    with open(OUT, "w") as f:
        f.write(text + "\n")
    print("wrote %s (%d bytes)" % (os.path.relpath(OUT), len(text)), file=sys.stderr)


if __name__ == "__main__":
    main()
