"""What a Heed model must be for Marian (the engine inside Bergamot) to compute exactly its function.

What it is: the four differences between Heed's transformer and Marian's, as found in marian-dev's
sources (browsermt fork, the one compiled into @browsermt/bergamot-translator 0.4.9) and checked
by running Bergamot, and the helpers that make a Heed model satisfy them. Used by
`train.py --marian` (trains such a model) and `bench/bergamot/export_marian.py` (converts it).
What it is not: a converter for every Heed model; the shipped models cannot be converted exactly.

1. Pre-norm. Marian's pre-norm layer (`transformer-preprocess: n`) normalises the query of
   self-attention but projects its keys and values from the un-normalised residual stream
   (src/models/transformer.h, LayerAttention: preProcess applies to `input` only), which is not
   the standard pre-norm block Heed and PyTorch compute. Post-norm (`transformer-postprocess:
   dan`, Marian's default) is the standard block in both, so a convertible model is post-norm.
2. Positions. Marian's sinusoids put sin and cos in two halves and use the frequencies
   10000^(-i/(D/2-1)), Heed's interleave them with 10000^(-i/(D/2)) (src/graph/
   node_initializers.cpp, sinusoidalPositionEmbeddings); no permutation maps one table onto the
   other, and Marian's learned positions abort at inference ("Required option 'inference' has not
   been set"). A convertible model holds Marian's frequencies as learned positions in Heed's
   interleaved layout; the converter then permutes the residual stream into Marian's halves.
3. The decoder's first input. Marian starts from a zero vector (src/models/decoder.h,
   embeddingsFromPrediction), Heed from emb(decoder_start_id): that row must be zero.
4. LayerNorm epsilon: 1e-6 in Marian (src/layers/generic.h), so `layer_norm_eps` is 1e-6.
"""
import json

import numpy as np

from models.heed_file import HeedFile, write_heed_file

LAYER_NORM_EPS = 1e-6


def marian_sinusoids(n, d):
    """Marian's position table [n, d] as it computes it: float32, [sin | cos] halves."""
    half = np.float32(d / 2)
    step = np.float32(np.log(np.float32(10000.0))) / (half - np.float32(1.0))
    rate = np.exp(np.arange(d // 2, dtype=np.float32) * -step).astype(np.float32)
    v = (np.arange(n, dtype=np.float32)[:, None] * rate[None, :]).astype(np.float32)
    return np.concatenate([np.sin(v), np.cos(v)], axis=1).astype(np.float32)


def marian_order(d):
    """pi[j]: the Heed dimension that Marian's dimension j holds (halves vs interleaved)."""
    j = np.arange(d)
    return np.where(j < d // 2, 2 * j, 2 * (j - d // 2) + 1)


def positions(n, d):
    """Marian's table in Heed's interleaved layout: the learned positions of a convertible model."""
    table = marian_sinusoids(n, d)
    out = np.empty_like(table)
    out[:, marian_order(d)] = table
    return out


def problems(cfg, tensor):
    """Why Marian cannot compute this model exactly ([] when it can). tensor(name) -> float array."""
    out = []
    if cfg.get("pre_norm", True):
        out.append("pre-norm (Marian's pre-norm self-attention reads un-normalised keys and "
                   "values; only post-norm models convert)")
    if cfg.get("layer_norm_eps", 1e-5) != LAYER_NORM_EPS:
        out.append("layer_norm_eps %g (Marian's is 1e-6)" % cfg.get("layer_norm_eps", 1e-5))
    if cfg.get("positions", "sinusoidal") != "learned":
        out.append("Heed's sinusoidal positions (Marian's frequencies differ)")
    else:
        want = positions(cfg["max_positions"], cfg["d_model"])
        for side in ("encoder", "decoder"):
            if np.abs(tensor(side + ".pos.weight") - want).max() > 1e-5:
                out.append("%s positions other than Marian's sinusoids" % side)
    if not cfg.get("tied_embeddings", True):
        out.append("untied embeddings")
    if not cfg.get("scale_embeddings", True):
        out.append("unscaled embeddings")
    if cfg.get("final_logits_bias"):
        out.append("a logits bias")
    if cfg.get("activation", "relu") != "relu":
        out.append("activation '%s' (Marian's gelu and swish are other functions)"
                   % cfg.get("activation"))
    for i in range(cfg["decoder_layers"] if cfg.get("decoder_self") == "ssru" else 0):
        if np.abs(tensor("decoder.%d.ssru.w.bias" % i)).max() != 0:
            out.append("a bias on decoder layer %d's SSRU W (Marian's cell has none)" % i)
    if cfg.get("tied_embeddings", True) and \
            np.abs(tensor("embed.weight")[cfg["decoder_start_id"]]).max() != 0:
        out.append("a non-zero embedding of decoder_start_id (Marian starts from zeros)")
    return out


def with_positions(path):
    """Rewrites a Heed file written from a model trained with `positions(...)` in place of
    Heed's sinusoids (train.py --marian): the table is stored as learned positions and the
    config says so, so the engine computes what PyTorch trained. Every other byte unchanged."""
    f = HeedFile(path)
    meta, cfg = f.meta, f.config
    table = positions(cfg["max_positions"], cfg["d_model"])
    cfg["positions"] = "learned"
    meta["heed.config"] = json.dumps(cfg, sort_keys=True)
    # why: the F32 tables go first so every tensor stays aligned to its element size
    tensors = {"decoder.pos.weight": ("F32", table), "encoder.pos.weight": ("F32", table)}
    tensors.update(f.stored_tensors())
    write_heed_file(path, meta, tensors)
