"""Converts a Heed model to Marian's binary format, for the Bergamot comparison (bench/bergamot/).

Run from the repository root with any Python 3 that has numpy (here /usr/bin/python3):

    /usr/bin/python3 -m bench.bergamot.export_marian [--model models/en-fr-marian.heed] [--out bench/bergamot/marian]

What it writes (into --out, not committed):
  model.bin        Marian's binary format (marian-dev src/common/binary.cpp: version 1, item
                   headers, names, shapes, 256-byte aligned data), float32, the architecture in
                   the item "special:model.yml"
  model.int8.bin   the same with Marian's int8 matrices (type intgemm8: what marian-conv
                   --gemm-type intgemm8 writes and Bergamot's own models use), for
                   gemm-precision int8shiftAll
  vocab.spm        the model's own SentencePiece model (the file's `tokenizer.model`)
  manifest.json    source model and sha256, parameter shapes

The model is untrusted input: before anything is read here, the native engine checks it
(`heed info -m MODEL`, the CLI of HEED_CLI or build/heed: a regular file of at most 1 GiB,
the header, the config within the engine's limits, every weight finite, the tokenizer), and
whatever it refuses is refused here with its message; every value written into
"special:model.yml" must then be a plain integer. Nothing is written before all checks pass.

Only a model Marian can compute exactly is converted (models/pipeline/marian_compat.py says why
the shipped pre-norm models are not: Marian's pre-norm self-attention, its sinusoids, its zero
start, its LayerNorm epsilon); `models.pipeline.train --marian` trains such a model,
`models/en-fr-marian.heed` is one. Anything else is refused with the reasons. The conversion is
then exact, up to float rounding:
- Marian lays its sinusoids out as [sin of every frequency | cos of every frequency]; the model
  holds the same table interleaved. The residual stream is permuted accordingly (Marian's
  dimension j is Heed's 2j for j < D/2 and 2(j - D/2) + 1 after): the embedding's columns, the
  rows of every matrix reading the stream, the columns and biases of every matrix writing it,
  and LayerNorm's scales and biases (LayerNorm is blind to the order of its inputs).
- Post-norm is Marian's `transformer-preprocess: ""`, `transformer-postprocess: dan`, no final
  norms; embeddings scaled by sqrt(D) in both; one "Wemb" for source, target and output
  (`tied-embeddings-all`), output bias zero.
- An SSRU decoder (config `decoder_self: ssru`, models/pipeline/ssru_student.py trains one) is
  Marian's `transformer-decoder-autoreg: rnn`, `dec-cell: ssru`: per layer "decoder_lN_rnn_W"
  (no bias: the file's zero bias is checked), "_rnn_Wf", "_rnn_bf" and the cell's post-norm
  "_rnn_ffn_ln_{scale,bias}"; the cell's state is added to the stream, so W and W_f are permuted
  on both sides.
- Linear weights are transposed (Marian's affine is x·W + b with W [in, out]; Heed's W is
  [out, in]); int8 tensors are dequantised with their per-row scales, so Marian computes in
  float32 with exactly the values Heed's f32 path computes with.
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess

import numpy as np

from models import ROOT
from models.heed_file import HeedFile
from models.pipeline import marian_compat

BINARY_FILE_VERSION = 1
TYPE_INT8 = 0x0100 + 1  # marian-dev src/common/types.h, Type::int8 (signed_type + 1)
TYPE_FLOAT32 = 0x0400 + 4  # Type::float32 (float_type + 4)
TYPE_INTGEMM8 = 0x4000 + 0x0100 + 1  # Type::intgemm8 (intgemm_type + signed_type + 1)


CLI = os.environ.get("HEED_CLI", os.path.join(ROOT, "build", "heed"))
# the config fields model_yml() writes: each must be a plain integer
YML_FIELDS = ("d_model", "vocab_size", "encoder_layers", "decoder_layers", "heads", "ffn_dim",
              "max_positions")


def engine_config(path):
    """The engine's verdict on `path` (`heed info`): its config when it loads the model, else
    SystemExit with the engine's own message."""
    if not (os.path.isfile(CLI) and os.access(CLI, os.X_OK)):
        raise SystemExit("export_marian: the native engine %s checks the model first; build it "
                         "(cmake --build build) or set HEED_CLI" % CLI)
    r = subprocess.run([CLI, "info", "--compute", "f32", "-m", path], capture_output=True,
                       text=True, errors="replace")
    if r.returncode != 0:
        raise SystemExit("export_marian: the engine refuses %s: %s"
                         % (path, r.stderr.strip().replace("heed: error: ", "")))
    return json.loads(r.stdout[r.stdout.index("{"):])["config"]


def check_config(path, cfg, engine_cfg):
    """The file as read here is the file the engine checked, and every value model_yml()
    writes is a plain integer (no string reaches the YAML text)."""
    for key in YML_FIELDS:
        v = cfg.get(key)
        if type(v) is not int or v != engine_cfg.get(key):
            raise SystemExit("export_marian: %s: config field '%s' must be the integer the "
                             "engine read (%r), got %r" % (path, key, engine_cfg.get(key), v))


def check_finite(items):
    """Every converted value finite (the engine refused non-finite weights; this guards the
    conversion itself)."""
    for name, a in items.items():
        if not np.isfinite(a).all():
            raise SystemExit("export_marian: %s holds a value that is not finite" % name)


def marian_items(cfg, tensor):
    """Marian's parameter names and float32 arrays, the residual stream in Marian's order."""
    pi = marian_compat.marian_order(cfg["d_model"])
    items = {
        "Wemb": tensor("embed.weight")[:, pi],
        "decoder_ff_logit_out_b": np.zeros((1, cfg["vocab_size"])),
    }

    def reads(names, heed):  # a linear layer reading the residual stream
        items[names[0]] = tensor(heed + ".weight")[:, pi].T
        items[names[1]] = tensor(heed + ".bias")[None, :]

    def writes(names, heed):  # a linear layer adding to the residual stream
        items[names[0]] = tensor(heed + ".weight")[pi, :].T
        items[names[1]] = tensor(heed + ".bias")[pi][None, :]

    def norm(prefix, heed):  # post-norm: Marian's postProcess 'n', named after the block
        items[prefix + "_ln_scale"] = tensor(heed + ".weight")[pi][None, :]
        items[prefix + "_ln_bias"] = tensor(heed + ".bias")[pi][None, :]

    def attention(marian, heed):
        for p in "qkv":
            reads((marian + "_W" + p, marian + "_b" + p), heed + "." + p)
        writes((marian + "_Wo", marian + "_bo"), heed + ".o")

    def ffn(marian, heed):
        reads((marian + "_W1", marian + "_b1"), heed + ".fc1")
        writes((marian + "_W2", marian + "_b2"), heed + ".fc2")

    for i in range(cfg["encoder_layers"]):
        m, h = "encoder_l%d" % (i + 1), "encoder.%d" % i
        attention(m + "_self", h + ".self_attn")
        norm(m + "_self_Wo", h + ".ln1")
        ffn(m + "_ffn", h + ".ffn")
        norm(m + "_ffn_ffn", h + ".ln2")
    for i in range(cfg["decoder_layers"]):
        m, h = "decoder_l%d" % (i + 1), "decoder.%d" % i
        if cfg.get("decoder_self") == "ssru":
            # why: the cell's W and W_f both read the stream and write into it (c_t is added
            # to it), so rows and columns are permuted; W has no bias
            items[m + "_rnn_W"] = tensor(h + ".ssru.w.weight")[pi][:, pi].T
            items[m + "_rnn_Wf"] = tensor(h + ".ssru.f.weight")[pi][:, pi].T
            items[m + "_rnn_bf"] = tensor(h + ".ssru.f.bias")[pi][None, :]
            norm(m + "_rnn_ffn", h + ".ln1")
        else:
            attention(m + "_self", h + ".self_attn")
            norm(m + "_self_Wo", h + ".ln1")
        attention(m + "_context", h + ".cross_attn")
        norm(m + "_context_Wo", h + ".ln2")
        ffn(m + "_ffn", h + ".ffn")
        norm(m + "_ffn_ffn", h + ".ln3")
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in items.items()}


def model_yml(cfg):
    """The architecture, as Marian reads it from "special:model.yml" (merged over its defaults)."""
    V = cfg["vocab_size"]
    ssru = cfg.get("decoder_self") == "ssru"  # Kim et al. 2019: an SSRU cell for self-attention
    lines = {
        "type": "transformer",
        "dim-emb": cfg["d_model"],
        "dim-vocabs": "\n  - %d\n  - %d" % (V, V),
        "enc-depth": cfg["encoder_layers"],
        "dec-depth": cfg["decoder_layers"],
        "transformer-heads": cfg["heads"],
        "transformer-dim-ffn": cfg["ffn_dim"],
        "transformer-ffn-depth": 2,
        "transformer-ffn-activation": "relu",
        "transformer-preprocess": '""',
        "transformer-postprocess": "dan",
        "transformer-postprocess-emb": '""',
        "transformer-postprocess-top": '""',
        "transformer-decoder-autoreg": "rnn" if ssru else "self-attention",
        "dec-cell": "ssru" if ssru else "gru",
        "transformer-no-projection": "false",
        "tied-embeddings": "false",
        "tied-embeddings-src": "false",
        "tied-embeddings-all": "true",
        "output-omit-bias": "false",
        "max-length": cfg["max_positions"],
        # why: read without a default by Marian's model code; trained models' model.yml has them
        "right-left": "false",
        "skip": "false",
        "layer-normalization": "false",
        "best-deep": "false",
        "transformer-aan-nogate": "false",
        "transformer-pool": "false",
        "transformer-depth-scaling": "false",
        "transformer-tied-layers": "[]",
        "transformer-guided-alignment-layer": "last",
        "ulr": "false",
    }
    return "".join("%s: %s\n" % (k, v) for k, v in lines.items())


def quantised(name, a):
    """Marian's int8 format for one matrix, as marian-conv --gemm-type intgemm8 writes it (marian-dev
    src/tensors/cpu/expression_graph_packable.h): one scale for the whole matrix, quantMult =
    127 / max|W|, values rounded half to even (intgemm's PrepareA), the matrix transposed unless
    "Wemb" is in its name, while the shape stays [rows, cols], then quantMult as a float32."""
    qm = np.float32(127.0) / np.float32(np.abs(a).max())
    q = np.clip(np.rint(a.astype(np.float32) * qm), -127, 127).astype(np.int8)
    return (q if "Wemb" in name else q.T.copy()).tobytes() + struct.pack("<f", qm)


def int8_eligible(name, a):
    """The matrices marian-conv quantises: 2-D, the first "_W" at the name's end or one before
    it, or "Wemb" anywhere in the name."""
    k = name.find("_W")
    return a.ndim == 2 and (k in (len(name) - 3, len(name) - 2) or "Wemb" in name)


def marian_binary(entries, yml):
    """Marian's binary format, version 1 (marian-dev src/common/binary.cpp, saveItems), as bytes:
    `entries` (name, type, shape, data) then "special:model.yml" (int8, with its NUL); headers,
    names, shapes, and every item's data 256-aligned."""
    text = yml.encode() + b"\0"
    entries = list(entries) + [("special:model.yml", TYPE_INT8, [len(text)], text)]
    padded = [b + b"\0" * (-len(b) % 256) for _, _, _, b in entries]  # why: keeps every item 256-aligned
    out = bytearray(struct.pack("<QQ", BINARY_FILE_VERSION, len(entries)))
    for (name, typ, shape, _), data in zip(entries, padded):
        out += struct.pack("<QQQQ", len(name) + 1, typ, len(shape), len(data))
    for name, _, _, _ in entries:
        out += name.encode() + b"\0"
    for _, _, shape, _ in entries:
        out += struct.pack("<%di" % len(shape), *shape)
    pos = len(out)
    offset = ((pos + 8) // 256 + 1) * 256 - pos - 8
    out += struct.pack("<Q", offset) + b"\0" * offset
    for data in padded:
        out += data
    return bytes(out)


def write_marian_bin(path, items, yml, int8=False):
    """Marian's binary format of `items`; with int8, its intgemm8 matrices (Bergamot's own model
    files are such)."""
    entries = [(name, TYPE_INTGEMM8, list(a.shape), quantised(name, a))
               if int8 and int8_eligible(name, a) else
               (name, TYPE_FLOAT32, list(a.shape), a.tobytes()) for name, a in items.items()]
    out = marian_binary(entries, yml)
    with open(path, "wb") as f:
        f.write(out)
    return len(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr-marian.heed"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "bergamot", "marian"))
    args = ap.parse_args()
    engine_cfg = engine_config(args.model)  # why: the engine's checks before Python reads a byte
    try:
        model = HeedFile(args.model)
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit("export_marian: %s" % e)
    meta, cfg, tensor = model.meta, model.config, model.tensor
    check_config(args.model, cfg, engine_cfg)
    if "directions" in json.loads(meta.get("heed.languages", "{}")):
        raise SystemExit("export_marian: %s: multi-direction models have no Marian form (no "
                         "target-language start token)" % args.model)
    problems = marian_compat.problems(cfg, tensor)
    if problems:
        raise SystemExit("export_marian: Marian cannot compute %s exactly: %s"
                         % (args.model, "; ".join(problems)))
    items = marian_items(cfg, tensor)
    check_finite(items)
    os.makedirs(args.out, exist_ok=True)
    size = write_marian_bin(os.path.join(args.out, "model.bin"), items, model_yml(cfg))
    size8 = write_marian_bin(os.path.join(args.out, "model.int8.bin"), items, model_yml(cfg),
                             int8=True)
    with open(os.path.join(args.out, "vocab.spm"), "wb") as f:
        f.write(tensor("tokenizer.model"))
    with open(args.model, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "model": os.path.relpath(os.path.abspath(args.model), ROOT),
        "sha256": digest,
        "languages": json.loads(meta.get("heed.languages", "{}")),
        "config": cfg,
        "model_bin_bytes": size,
        "model_int8_bin_bytes": size8,
        "parameters": {k: list(v.shape) for k, v in items.items()},
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("export_marian: %s -> %s (%d tensors, %.1f MB float32), model.int8.bin (%.1f MB, "
          "Marian's intgemm8) and vocab.spm" % (manifest["model"], os.path.join(args.out, "model.bin"),
                                               len(items), size / 1e6, size8 / 1e6))


if __name__ == "__main__":
    main()
