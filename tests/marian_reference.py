"""An independent numpy (float64) reference of Marian's inference, for the model families Firefox
Translations (Bergamot) and OPUS-MT ship; the fixtures in tests/data/marian/ are checked against it.

What it is: a transcription, written from Marian's sources (browsermt/marian-dev, the fork compiled
into @browsermt/bergamot-translator 0.4.9), of what Marian computes for one sentence:
- the model containers: the binary format (src/common/binary.cpp, loadItems; float32 and intgemm8
  items) and the npz one (src/common/io.cpp, loadItemsFromNpz), the "special:model.yml" item;
- the transformer encoder (src/models/transformer.h: LayerAttention, LayerFFN, preProcess and
  postProcess with their ops 'd', 'a', 'n'; post-norm "dan" or pre-norm "n"/"da");
- the two decoders: self-attention (`transformer-decoder-autoreg: self-attention`) and the SSRU
  (`transformer-decoder-autoreg: rnn`, `dec-cell: ssru`; transformer.h DecoderLayerRNN,
  src/rnn/cells.h class SSRU, src/rnn/rnn.h): per layer
      x' = preProcess(x)                          (prefix decoder_lN_rnn, none for post-norm)
      f_t = sigmoid(x' Wf + bf),   c_t = f_t * c_{t-1} + (1 - f_t) * (x' W),   h_t = relu(c_t)
      x = postProcess(h_t, x)                     (prefix decoder_lN_rnn_ffn: LN(h_t + x))
  with c_0 = 0 (DecoderTransformer::startState), then cross-attention and the FFN as usual;
- embeddings (src/layers/generic.cpp, createEmbeddingLayer; transformer.h lazyCreateOutputLayer):
  "Wemb" for everything with tied-embeddings-all (or source and target with tied-embeddings-src),
  else "encoder_Wemb" / "decoder_Wemb"; the output matrix is the target embedding [V, D] used
  transposed when tied (tied-embeddings or -all), else "decoder_ff_logit_out_Wt" [V, D] (or the
  legacy "decoder_ff_logit_out_W" [D, V]); bias "decoder_ff_logit_out_b" [1, V] unless
  output-omit-bias; embeddings scaled by sqrt(D) plus Marian's [sin | cos] sinusoids; the decoder's
  first input is a zero vector (src/models/decoder.h); LayerNorm eps 1e-6 (src/layers/generic.h);
- embeddings + positions then the ops of transformer-postprocess-emb, which Marian applies with
  preProcess ('d' nothing at inference, 'n' LayerNorm "<encoder|decoder>_emb_ln_{scale,bias}_pre"),
  on the encoder's and on the decoder's (SSRU decoders too);
- the search (src/translator/beam_search.cpp; greedy in translate(), Marian's narrowing beam with
  its length-normalised choice, history.h, in beam()): <unk> suppressed unless allow-unk (the only
  column Marian's search suppresses: every state's blacklist() is a no-op), the
  lexical shortlist's column selection (src/data/shortlist.cpp, BinaryShortlistGenerator::generate),
  at most ceil(max-length-factor * source length with </s>) output tokens.

What it is not: the engine's code, nor Marian's (nothing is copied; the structure follows the
equations). It computes in float64, so it matches Marian's float32 results up to rounding; where a
greedy choice is closer than that, `margins` says so.

Used by tests/marian_export_test.py (load_marian_bin, Marian) and tests/marian_fixtures_test.py;
models/goldens/make_marian_fixtures.py writes the fixtures and their expected outputs with it.
"""
import math
import struct

import numpy as np

TYPE_INT8 = 0x0100 + 1  # marian-dev src/common/types.h: Type::int8
TYPE_FLOAT32 = 0x0400 + 4  # Type::float32
TYPE_INTGEMM8 = 0x4000 + 0x0100 + 1  # Type::intgemm8
LAYER_NORM_EPS = 1e-6
BINARY_SHORTLIST_MAGIC = 0xF11A48D5013417F5  # src/data/shortlist.h


# ---- containers ----

def load_marian_bin(path_or_bytes):
    """marian-dev src/common/binary.cpp, loadItems. {name: float64 array} for float32 items,
    {name: (dequantised float64 array, quantMult)} for intgemm8 ones (int8 values transposed,
    items whose name contains "Wemb" excepted, then one float32 quantMult), raw bytes otherwise
    (the "special:model.yml" item: the YAML text and its NUL)."""
    if isinstance(path_or_bytes, (bytes, bytearray)):
        b = bytes(path_or_bytes)
    else:
        with open(path_or_bytes, "rb") as f:
            b = f.read()
    version, n = struct.unpack_from("<QQ", b, 0)
    assert version == 1, version
    headers = [struct.unpack_from("<QQQQ", b, 16 + 32 * i) for i in range(n)]
    pos = 16 + 32 * n
    names = []
    for name_len, _, _, _ in headers:
        names.append(b[pos:pos + name_len - 1].decode())
        pos += name_len
    shapes = []
    for _, _, shape_len, _ in headers:
        shapes.append(struct.unpack_from("<%di" % shape_len, b, pos))
        pos += 4 * shape_len
    pos += 8 + struct.unpack_from("<Q", b, pos)[0]
    assert pos % 256 == 0
    items = {}
    for (_, typ, _, data_len), name, shape in zip(headers, names, shapes):
        assert pos % 256 == 0, name
        count = int(np.prod(shape))
        if typ == TYPE_FLOAT32:
            items[name] = np.frombuffer(b, np.float32, count, pos).reshape(shape).astype(np.float64)
        elif typ == TYPE_INTGEMM8:
            q = np.frombuffer(b, np.int8, count, pos).astype(np.float64)
            qm = struct.unpack_from("<f", b, pos + count)[0]
            q = q.reshape(shape) if "Wemb" in name else q.reshape(shape[::-1]).T
            items[name] = (q / qm, qm)
        else:
            items[name] = b[pos:pos + count]
        pos += data_len
    return items


def load_marian_npz(path):
    """marian-dev src/common/io.cpp, loadItemsFromNpz: {name: float64 array}, a 1-D array read as
    [1, n] as Marian does; "special:model.yml" (int8, the text and its NUL) as bytes."""
    items = {}
    with np.load(path, allow_pickle=False) as z:
        for name in z.files:
            a = z[name]
            if name.startswith("special:"):
                items[name] = a.astype(np.int8).tobytes()
            else:
                items[name] = (a.reshape(1, -1) if a.ndim == 1 else a).astype(np.float64)
    return items


def parse_yaml(text):
    """The small YAML subset Marian's model.yml and vocab.yml use: one `key: value` a line, a key
    plain, "double-quoted" (with YAML's escapes) or 'single-quoted'; a value a scalar, a flow list
    [a, b] or, when empty, the block list of `  - item` lines that follows. Scalars: true/false,
    integers, floats, quoted or plain strings."""
    out, key = {}, None
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith((" ", "-")) and line.strip().startswith("-"):
            if key is None:
                raise ValueError("a list item outside a key: %r" % line)
            if not isinstance(out[key], list):
                out[key] = []
            out[key].append(_scalar(line.strip()[1:].strip()))
            continue
        k, rest = _key(line)
        key = k
        rest = rest.strip()
        if rest == "":
            out[k] = []
        elif rest.startswith("[") and rest.endswith("]"):
            inner = rest[1:-1].strip()
            out[k] = [_scalar(x.strip()) for x in inner.split(",")] if inner else []
        else:
            out[k] = _scalar(rest)
    return out


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
            "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
            "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}


def _double_quoted(s, i):
    """(the string, the index after the closing quote) of the double-quoted scalar at s[i]."""
    assert s[i] == '"'
    out, i = [], i + 1
    while True:
        c = s[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            e = s[i + 1]
            if e in "xuU":
                n = {"x": 2, "u": 4, "U": 8}[e]
                out.append(chr(int(s[i + 2:i + 2 + n], 16)))
                i += 2 + n
                continue
            out.append(_ESCAPES[e])
            i += 2
            continue
        out.append(c)
        i += 1


def _key(line):
    if line.startswith('"'):
        k, i = _double_quoted(line, 0)
    elif line.startswith("'"):
        i, k = 1, []
        while True:
            if line[i] == "'" and line[i + 1:i + 2] == "'":
                k.append("'")
                i += 2
            elif line[i] == "'":
                i += 1
                break
            else:
                k.append(line[i])
                i += 1
        k = "".join(k)
    else:
        i = line.index(": ") if ": " in line else line.rindex(":")
        k = line[:i]
    assert line[i] == ":", line
    return k, line[i + 1:]


def _scalar(s):
    if s.startswith('"'):
        return _double_quoted(s, 0)[0]
    if s.startswith("'"):
        return s[1:-1].replace("''", "'")
    if s in ("true", "false"):
        return s == "true"
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return s


def model_yml(items):
    """The architecture an items dict carries in "special:model.yml", parsed."""
    raw = items["special:model.yml"]
    return parse_yaml(bytes(raw).rstrip(b"\0").decode("utf-8"))


# ---- the binary lexical shortlist (src/data/shortlist.h/.cpp) ----

def shortlist_checksum(blob, wasm=False):
    """util::hashMem<uint64_t, uint64_t> (src/common/hash.h) over the blob's 64-bit words after
    the magic and the checksum (a trailing partial word, the last id of an odd count, is left
    out): seed ^= hash(word) + 0x9e3779b9 + (seed << 6) + (seed >> 2), modulo 2^64, with
    hash = std::hash<uint64_t>: the identity in libstdc++ on 64-bit (native Marian, the tools
    that write shortlists); with wasm, libc++'s on 32-bit size_t (Bergamot's WASM build), the
    32-bit MurmurHash2 of the word's 8 bytes, which is what Bergamot checks with
    check-bytearray: true (so it rejects natively written shortlists then)."""
    mask = (1 << 64) - 1
    seed = 0
    words = (len(blob) - 16) // 8
    for (w,) in struct.iter_unpack("<Q", blob[16:16 + 8 * words]):
        h = _murmur2_32(struct.pack("<Q", w)) if wasm else w
        seed ^= (h + 0x9E3779B9 + ((seed << 6) & mask) + (seed >> 2)) & mask
    return seed


def _murmur2_32(data):
    """libc++ __murmur2_or_cityhash<uint32_t, 32> of a whole number of 4-byte words."""
    m, mask = 0x5BD1E995, 0xFFFFFFFF
    h = len(data)
    for (k,) in struct.iter_unpack("<I", data):
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
    h ^= h >> 13
    h = (h * m) & mask
    return h ^ (h >> 15)


def read_shortlist(blob):
    """(firstNum, bestNum, [the target ids listed for each source id]) of a binary shortlist,
    every check BinaryShortlistGenerator::load makes with check = true."""
    magic, checksum, first, best, n_offsets, n_lists = struct.unpack_from("<6Q", blob, 0)
    assert magic == BINARY_SHORTLIST_MAGIC, "magic"
    assert len(blob) == 48 + 8 * n_offsets + 4 * n_lists, "size"
    assert checksum == shortlist_checksum(blob), "checksum"
    offsets = struct.unpack_from("<%dQ" % n_offsets, blob, 48)
    lists = struct.unpack_from("<%dI" % n_lists, blob, 48 + 8 * n_offsets)
    assert offsets[-1] == n_lists and all(o <= n_lists for o in offsets), "offsets"
    return first, best, [list(lists[offsets[i]:offsets[i + 1]]) for i in range(n_offsets - 1)]


def shortlist_columns(shortlist, src_ids, trg_vocab_size, shared, pad=True):
    """The target ids Marian's output layer keeps for one sentence (src_ids with its </s>):
    the firstNum first ids, every source id's list, the source ids themselves when the vocabulary
    is shared, then (pad) ids from firstNum up until the count is a multiple of 8; sorted."""
    first, _, lists = shortlist
    keep = np.zeros(trg_vocab_size, bool)
    keep[:min(first, trg_vocab_size)] = True
    for s in src_ids:
        if shared:
            keep[s] = True
        keep[lists[s]] = True
    i = first
    while pad and keep.sum() % 8 and i < trg_vocab_size:
        keep[i] = True
        i += 1
    return np.nonzero(keep)[0]


def bergamot_text(source, output):
    """The text Bergamot returns for a one-sentence `source` translated as `output` (the target
    vocabulary's detokenisation): its ResponseBuilder (bergamot-translator src/translator/
    response_builder.cpp, ConcatStrategy::FAITHFUL) puts the source's text around the sentence
    (the gaps before and after it) around the translation: here, for one sentence a line, the
    source's leading and trailing whitespace."""
    return source[:len(source) - len(source.lstrip())] + output + source[len(source.rstrip()):]


# ---- the model ----

def sinusoids(start, n, d):
    """node_initializers.cpp sinusoidalPositionEmbeddings: positions start..start+n-1, [sin | cos]
    of the frequencies 10000^(-i / (D/2 - 1))."""
    half = d // 2
    inc = math.log(10000.0) / (d / 2 - 1)
    v = np.arange(start, start + n)[:, None] * np.exp(-np.arange(half) * inc)[None, :]
    return np.concatenate([np.sin(v), np.cos(v)], axis=1)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# Marian's defaults (src/common/config_parser.cpp) for the options a model.yml may leave out
DEFAULTS = {
    "transformer-preprocess": "", "transformer-postprocess": "dan",
    "transformer-postprocess-emb": "d", "transformer-postprocess-top": "",
    "transformer-ffn-depth": 2, "transformer-ffn-activation": "swish",
    "transformer-decoder-autoreg": "self-attention", "dec-cell": "gru",
    "tied-embeddings": False, "tied-embeddings-src": False, "tied-embeddings-all": False,
    "output-omit-bias": False, "layer-normalization": False, "transformer-no-projection": False,
    "transformer-tied-layers": [], "transformer-train-positions": False,
}


def options_from_heed(cfg):
    """The options of a Heed config converted by bench/bergamot/export_marian.py."""
    return dict(DEFAULTS, **{
        "dim-emb": cfg["d_model"], "transformer-heads": cfg["heads"],
        "enc-depth": cfg["encoder_layers"], "dec-depth": cfg["decoder_layers"],
        "transformer-ffn-activation": "relu", "transformer-postprocess-emb": "",
        "tied-embeddings-all": True, "eos-id": cfg["eos_id"], "unk-id": None})


class Marian:
    """Marian's encoder-decoder transformer, inference, float64.

    Marian(items, options): items as load_marian_bin / load_marian_npz give them (intgemm8 items
    are used dequantised); options: Marian's option names ("dim-emb", "enc-depth", ...; missing
    ones take Marian's defaults) plus "eos-id" and "unk-id" (the target vocabulary's), or a Heed
    config (d_model, heads, ...) as tests/marian_export_test.py passes it. Marian.from_items
    reads the options from the items' model.yml."""

    def __init__(self, items, options):
        o = options_from_heed(options) if "d_model" in options else dict(DEFAULTS, **options)
        self.o = o
        self.w = {k: (v[0] if isinstance(v, tuple) else v) for k, v in items.items()
                  if isinstance(v, (tuple, np.ndarray))}
        self.d, self.heads = int(o["dim-emb"]), int(o["transformer-heads"])
        self.eos, self.unk = o["eos-id"], o.get("unk-id")
        if o.get("transformer-tied-layers"):
            raise NotImplementedError("transformer-tied-layers")
        if o.get("transformer-train-positions") or o.get("transformer-train-position-embeddings"):
            raise NotImplementedError("learned positions (Marian aborts on them at inference)")
        if o["transformer-decoder-autoreg"] not in ("self-attention", "rnn"):
            raise NotImplementedError(o["transformer-decoder-autoreg"])
        if o["transformer-decoder-autoreg"] == "rnn" and o["dec-cell"] != "ssru":
            raise NotImplementedError("dec-cell " + o["dec-cell"])
        if o["transformer-decoder-autoreg"] == "rnn" and o["layer-normalization"]:
            raise NotImplementedError("SSRU with layer-normalization")
        if o["transformer-no-projection"]:
            raise NotImplementedError("transformer-no-projection")
        all_, src_, trg_ = (bool(o[k]) for k in ("tied-embeddings-all", "tied-embeddings-src",
                                                 "tied-embeddings"))
        self.src_emb = self.w["Wemb" if all_ or src_ else "encoder_Wemb"]
        self.trg_emb = self.w["Wemb" if all_ or src_ else "decoder_Wemb"]
        if all_ or trg_:  # transformer.h lazyCreateOutputLayer: tieTransposed
            self.out_name = "Wemb" if all_ or src_ else "decoder_Wemb"
            self.out_wt = self.trg_emb
        elif "decoder_ff_logit_out_W" in self.w:  # generic.cpp Output: legacy, untransposed
            self.out_name = "decoder_ff_logit_out_W"
            self.out_wt = self.w["decoder_ff_logit_out_W"].T
        else:
            self.out_name = "decoder_ff_logit_out_Wt"
            self.out_wt = self.w["decoder_ff_logit_out_Wt"]
        self.out_b = None if o["output-omit-bias"] else self.w["decoder_ff_logit_out_b"][0]
        self.record = None  # {matrix name: [max |input| per call]} while set (the alphas' input)
        self.gemm = o.get("gemm-precision", "float32")
        if self.gemm not in ("float32", "int8shiftAll", "int8shiftAlphaAll"):
            raise NotImplementedError("gemm-precision " + self.gemm)
        if self.gemm != "float32" and o["transformer-decoder-autoreg"] != "rnn":
            # why: translate() recomputes a self-attention decoder over the whole prefix, where
            # Marian quantises only the new step's row (its alpha would differ)
            raise NotImplementedError("int8 with a self-attention decoder")
        self.int8 = {}  # matrix name -> (int8 values, quantMult, paired values, column sums)

    @classmethod
    def from_items(cls, items, eos_id, unk_id=None, gemm="float32"):
        """gemm: Marian's gemm-precision, float32, int8shiftAll or int8shiftAlphaAll."""
        return cls(items, dict(model_yml(items), **{"eos-id": eos_id, "unk-id": unk_id,
                                                    "gemm-precision": gemm}))

    # -- pieces --

    def mm(self, x, name, bias=None, w=None):
        """x @ W (+ b): Marian's dot / affine with a parameter matrix [in, out] (w: the matrix
        when it is not the parameter itself: the transposed output embedding)."""
        if self.record is not None:
            self.record.setdefault(name, []).append(float(np.abs(x).max()))
        w = self.w[name] if w is None else w
        y = x @ w if self.gemm == "float32" else self.int8_product(x, name, w)
        return y if bias is None else y + self.w[bias]

    def int8_product(self, x, name, w):
        """Marian's int8 GEMM as Bergamot's WASM build computes it (src/tensors/cpu/
        intgemm_interface.h, wasm_intgemm_fallback.cpp: intgemm's Int8Shift): B quantised with
        127 / max|B| (an intgemm8 item holds exactly those values), A with the precomputed
        "<B>_QuantMultA" (int8shiftAlphaAll) or 127 / max|A| of this call (int8shiftAll), both
        rounded half to even and kept within +-127; A shifted to unsigned (+127), multiplied by
        B with maddubs (intgemm/multiply.h Multiply8Shift: each pair of adjacent products along
        the inner dimension, (a[2j] b[2j] + a[2j+1] b[2j+1]), saturates to int16 before the
        int32 sums), the shift taken back through the bias (127 * B's column sums, exact), then
        unquantised with 1 / (alphaA * quantMultB). The saturation is rare but changes outputs:
        without it the greedy outputs of tests/data/marian/ssru differ from Bergamot's."""
        if name not in self.int8:
            qb = np.float32(127.0) / np.float32(np.abs(w).max())
            q = np.clip(np.rint(w * qb), -127, 127)
            self.int8[name] = (q, float(qb), q.reshape(-1, 2, q.shape[1]), q.sum(0))
        q, qb, pairs_b, colsum = self.int8[name]
        if self.gemm == "int8shiftAlphaAll":
            alpha = self.w[name + "_QuantMultA"].reshape(-1)[0]
        else:
            alpha = np.float32(127.0) / np.float32(np.abs(x).max())
        a = np.clip(np.rint(x * np.float32(alpha)), -127, 127) + 127  # unsigned, 0..254
        pairs = np.einsum("npj,pjm->npm", a.reshape(a.shape[0], -1, 2), pairs_b)
        acc = np.clip(pairs, -32768, 32767).sum(1) - 127 * colsum[None, :]
        return acc * float(np.float32(1.0) / (np.float32(alpha) * np.float32(qb)))

    def ln(self, x, prefix, suffix=""):  # generic.h layerNorm
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return ((x - m) / np.sqrt(v + LAYER_NORM_EPS) * self.w[prefix + "_ln_scale" + suffix]
                + self.w[prefix + "_ln_bias" + suffix])

    def pre(self, prefix, x):  # transformer.h preProcess
        for op in self.o["transformer-preprocess"]:
            if op == "n":
                x = self.ln(x, prefix, "_pre")
            elif op != "d":
                raise NotImplementedError("preprocess op " + op)
        return x

    def post(self, prefix, ops, x, prev):  # transformer.h postProcess
        for op in ops:
            if op == "a":
                x = x + prev
            elif op == "n":
                x = self.ln(x, prefix)
            elif op != "d":
                raise NotImplementedError("postprocess op " + op)
        return x

    def emb_ops(self, prefix, x):  # transformer-postprocess-emb, applied with preProcess
        for op in self.o["transformer-postprocess-emb"]:
            if op == "n":
                x = self.ln(x, prefix + "_emb", "_pre")
            elif op != "d":
                raise NotImplementedError("postprocess-emb op " + op)
        return x

    def multi_head(self, p, q, kv, mask=None):
        """MultiHead: (output [n, D], attention weights [heads, n, len(kv)])."""
        Q = self.mm(q, p + "_Wq", p + "_bq")
        K = self.mm(kv, p + "_Wk", p + "_bk")
        V = self.mm(kv, p + "_Wv", p + "_bv")
        h = self.heads
        dh = Q.shape[1] // h
        out, weights = [], []
        for i in range(h):
            z = Q[:, i * dh:(i + 1) * dh] @ K[:, i * dh:(i + 1) * dh].T / math.sqrt(dh)
            if mask is not None:
                z = z + mask
            z = np.exp(z - z.max(-1, keepdims=True))
            z = z / z.sum(-1, keepdims=True)
            weights.append(z)
            out.append(z @ V[:, i * dh:(i + 1) * dh])
        return self.mm(np.concatenate(out, 1), p + "_Wo", p + "_bo"), np.array(weights)

    def attention_layer(self, p, x, kv, mask=None):
        """LayerAttention: preProcess on the query only (keys and values are `kv` as given)."""
        out, weights = self.multi_head(p, self.pre(p + "_Wo", x), kv, mask)
        return self.post(p + "_Wo", self.o["transformer-postprocess"], out, x), weights

    def act(self, x):
        a = self.o["transformer-ffn-activation"]
        if a == "relu":
            return np.maximum(x, 0)
        if a in ("swish", "gelu"):  # SwishNodeOp: x * sigmoid(b x), b = 1 or 1.702
            return x * sigmoid((1.0 if a == "swish" else 1.702) * x)
        raise NotImplementedError("activation " + a)

    def ffn(self, p, x):  # LayerFFN: depth-1 layers with the activation, then one without
        y = self.pre(p + "_ffn", x)
        depth = int(self.o["transformer-ffn-depth"])
        for i in range(1, depth):
            y = self.act(self.mm(y, p + "_W%d" % i, p + "_b%d" % i))
        y = self.mm(y, p + "_W%d" % depth, p + "_b%d" % depth)
        return self.post(p + "_ffn", self.o["transformer-postprocess"], y, x)

    def encode(self, src):
        x = math.sqrt(self.d) * self.src_emb[src] + sinusoids(0, len(src), self.d)
        prev = x
        x = self.emb_ops("encoder", x)
        for i in range(1, int(self.o["enc-depth"]) + 1):
            p = "encoder_l%d" % i
            x, _ = self.attention_layer(p + "_self", x, x)
            x = self.ffn(p + "_ffn", x)
        return self.post("encoder_top", self.o["transformer-postprocess-top"], x, prev)

    # -- decoding --

    def start_state(self):
        """The decoder's state before its first step: (its inputs so far, which a self-attention
        decoder recomputes over; the SSRU cells, zeros as DecoderTransformer::startState)."""
        return [], [np.zeros(self.d) for _ in range(int(self.o["dec-depth"]))]

    def step(self, ctx, state, prev):
        """One decoder step after target id `prev` (None: the first step, whose input is a zero
        vector, src/models/decoder.h): (logits [V], the new state (`state` is left as it was),
        cross-attention [layer][head][source position], forget gates [layer][D] (SSRU))."""
        o = self.o
        rnn = o["transformer-decoder-autoreg"] == "rnn"
        history, cells = state[0], list(state[1])
        t = len(history)
        e = np.zeros(self.d) if prev is None else self.trg_emb[prev]
        history = history + [math.sqrt(self.d) * e + sinusoids(t, 1, self.d)[0]]
        y = np.array(history) if not rnn else history[-1][None, :]
        y = self.emb_ops("decoder", y)
        prev_y = y
        step_att, step_gates = [], []
        causal = np.triu(np.full((len(y), len(y)), -1e9), 1) if not rnn else None
        for i in range(1, int(o["dec-depth"]) + 1):
            p = "decoder_l%d" % i
            if rnn:  # DecoderLayerRNN with the SSRU cell
                xin = self.pre(p + "_rnn", y)
                xw = self.mm(xin, p + "_rnn_W")
                f = sigmoid(self.mm(xin, p + "_rnn_Wf", p + "_rnn_bf"))
                cells[i - 1] = f[0] * cells[i - 1] + (1 - f[0]) * xw[0]
                h = np.maximum(cells[i - 1], 0)[None, :]
                y = self.post(p + "_rnn_ffn", o["transformer-postprocess"], h, y)
                step_gates.append(f[0])
            else:
                y, _ = self.attention_layer(p + "_self", y, y, causal)
            y, w = self.attention_layer(p + "_context", y, ctx)
            step_att.append(w[:, -1, :])
            y = self.ffn(p + "_ffn", y)
        y = self.post("decoder_top", o["transformer-postprocess-top"], y, prev_y)
        logits = self.mm(y[-1:], self.out_name, w=self.out_wt.T)[0]
        if self.out_b is not None:
            logits = logits + self.out_b
        return logits, (history, cells), step_att, step_gates

    def translate(self, src, max_length_factor=2.0, shortlist=None, shared_vocab=False,
                  allow_unk=False, max_len=None, pad_shortlist=True):
        """Greedy decoding of `src` (ids, ending in </s> as Marian's source does); pad_shortlist
        False leaves out the shortlist's padding to a multiple of 8 (not Marian: to show what it
        changes). Returns
        {"ids": output ids (the final </s> included when produced), "cross_attention":
        [step][layer][head][source position], "forget_gates": [step][layer][D] (SSRU),
        "margins": [step] the chosen logit minus the runner-up's, "probs": [step] the chosen
        token's probability (over the shortlist when there is one)}."""
        if max_len is None:
            max_len = int(math.ceil(max_length_factor * len(src)))
        ctx = self.encode(src)
        cols = None
        if shortlist is not None:
            cols = shortlist_columns(shortlist, src, self.out_wt.shape[0], shared_vocab,
                                     pad_shortlist)
        ids, atts, gates, margins, probs = [], [], [], [], []
        if len(src) == 1 and src[0] == self.eos:  # beam_search.cpp: an empty source gives </s>
            return {"ids": [self.eos], "cross_attention": [], "forget_gates": [], "margins": [],
                    "probs": []}
        state = self.start_state()
        while len(ids) < max_len:
            logits, state, step_att, step_gates = self.step(ctx, state, ids[-1] if ids else None)
            allowed = np.ones(len(logits), bool)
            if cols is not None:
                allowed[:] = False
                allowed[cols] = True
            if not allow_unk and self.unk is not None:
                allowed[self.unk] = False
            z = np.where(allowed, logits, -np.inf)
            best = int(np.argmax(z))
            runner = np.partition(z, -2)[-2]
            ids.append(best)
            margins.append(float(z[best] - runner))
            probs.append(float(1.0 / np.exp(z[allowed] - z[best]).sum()))
            atts.append(step_att)
            gates.append(step_gates)
            if best == self.eos:
                break
        return {"ids": ids, "cross_attention": atts, "forget_gates": gates, "margins": margins,
                "probs": probs}

    def beam(self, src, beam_size, max_length_factor=2.0, normalize=1.0, allow_unk=False):
        """Marian's beam search of one sentence (src/translator/beam_search.cpp, history.h):
        each step every live hypothesis is extended by every token (path score plus the token's
        log-softmax, <unk> suppressed unless allow_unk), the beam's width of best candidates
        are kept (the first step: beam_size of the start's row), and those ending in </s> end
        and leave the beam, which narrows; at ceil(max-length-factor * source length) tokens
        every kept candidate ends as it stands. The winner has the best path score /
        length^normalize, its length counting </s>. Returns {"ids", "score" (normalised),
        "ended": [(ids, normalised score)] in the order they ended, "prune_margins": [step] the
        last kept candidate's path score minus the first left out's (how near the step came to
        keeping another set)}."""
        max_len = int(math.ceil(max_length_factor * len(src)))
        ctx = self.encode(src)
        live = [([], 0.0, self.start_state())]  # (ids, path score, decoder state)
        ended, margins = [], []
        for t in range(max_len):
            width = beam_size if t == 0 else len(live)
            rows, states = [], []
            for ids, score, state in live:
                logits, state, _, _ = self.step(ctx, state, ids[-1] if ids else None)
                z = logits - logits.max()
                lp = z - math.log(np.exp(z).sum())
                if not allow_unk and self.unk is not None:
                    lp[self.unk] = -np.inf
                rows.append(score + lp)
                states.append(state)
            flat = np.concatenate(rows)
            order = np.argsort(-flat, kind="stable")[:width + 1]
            if len(order) > width:
                margins.append(float(flat[order[width - 1]] - flat[order[width]]))
            kept = []
            for k in order[:width]:
                row, v = divmod(int(k), len(rows[0]))
                ids = live[row][0] + [v]
                if v == self.eos or t + 1 >= max_len:
                    ended.append((ids, float(flat[k]) / (t + 1) ** normalize))
                if v != self.eos:
                    kept.append((ids, float(flat[k]), states[row]))
            live = kept
            if not live:
                break
        ids, score = max(ended, key=lambda e: e[1])
        return {"ids": ids, "score": score, "ended": ended, "prune_margins": margins}

    def greedy(self, src, max_len):
        """(ids, probs) of translate() with at most max_len tokens and <unk> allowed, as
        tests/marian_export_test.py compares them with the engine's."""
        r = self.translate(src, max_len=max_len, allow_unk=True)
        return r["ids"], r["probs"]
