"""Makes tests/data/marian/: tiny Marian model bundles shaped like the ones Firefox Translations
(Bergamot) and OPUS-MT ship, and expected.json, what tests/marian_reference.py (a numpy
transcription of Marian's inference) and Bergamot itself (Marian compiled to WASM,
bench/bergamot/fixture_oracle.mjs) translate with them.

What it is: deterministic weights (fixed seeds, one thread) in Marian's containers, written the
way Marian's tools write them:
  ssru/      d 32, 4 heads, FFN 64, 2 encoder layers, 2 SSRU decoder layers, post-norm "dan",
             one SentencePiece vocabulary (models/tiny/spm.model as vocab.spm: </s> is id 3
             there, not Marian's usual 0) and tied-embeddings-all ("Wemb"):
             model.bin           float32 (src/common/binary.cpp)
             model.intgemm8.bin  intgemm8 matrices, as marian-conv --gemm-type intgemm8 writes them
             model.alphas.bin    the same plus the activations' quantisation multipliers
                                 ("<matrix>_QuantMultA"; gemm-precision int8shiftAlphaAll)
             model.npz           Marian's npz (numpy savez, uncompressed), float32
             lex.s2t.bin         a binary lexical shortlist (src/data/shortlist.h)
  separate/  the same architecture with two vocabularies trained here (source.spm on English
             lines, with a small normalisation table of its own; target.spm on French lines,
             identity), Marian's ids (</s> 0, <unk> 1), tied-embeddings ("encoder_Wemb";
             "decoder_Wemb" also the output matrix), float32 model.bin
  opus/      an OPUS-MT bundle: a self-attention decoder, model.npz, source.spm (English) and
             target.spm (German) with SentencePiece's own ids, vocab.yml (one joint vocabulary,
             "</s>" 0 and "<unk>" 1, the other pieces in a seeded order of their own)
  embnorm/   ssru's architecture with transformer-postprocess-emb "dn" (a LayerNorm on the
             embeddings), its vocabulary and shortlist those of ssru/, output biases raised so
             that only Marian's suppression of <unk> keeps it out of the outputs and Marian's
             padding of the shortlist changes some, float32 model.bin
  expected.json  for each bundle and sentence: the reference's greedy ids and text, the
             cross-attention and SSRU forget gates of the first two sentences; for ssru also the
             shortlisted and the int8 outputs (the reference's model of Bergamot's int8 GEMM);
             Bergamot's outputs on ssru (float32, intgemm8, alphas, with and without the
             shortlist) and separate (float32), and how many equal the reference's.
The weights: random (glorot-like uniform matrices, normal biases and embeddings, LayerNorm
scales near 1), then a short Adam run (train: Marian's forward pass in PyTorch) on a task with
no meaning, each English piece of text "translated" into itself in the target vocabulary, so
that the greedy outputs follow the source, differ between sentences and end with </s> (a
random model repeats one token to the length limit).
What it is not: a translation model (the outputs are noisy copies), nor a test
(tests/marian_fixtures_test.py checks the committed files and regenerates nothing).

Usage: /usr/bin/python3 -m models.goldens.make_marian_fixtures [--no-bergamot] [--only NAME]
(--only remakes one fixture and its expected.json entry, the others kept as they are.)
(Bergamot runs when bench/bergamot/node_modules is installed: cd bench/bergamot && npm ci;
without it expected.json has no "bergamot" entries.) Takes about 10 minutes (the training).
"""
import argparse
import io
import json
import math
import os
import re
import shutil
import struct
import subprocess
import tempfile

import numpy as np
import sentencepiece as spm

from models import MODELS, ROOT
from bench.bergamot.export_marian import int8_eligible, marian_binary, quantised
from tests import marian_reference as ref

OUT = os.path.join(ROOT, "tests", "data", "marian")
CORPUS = os.path.join(ROOT, "tests", "data", "tokenizer_corpus.txt")
ORACLE = os.path.join(ROOT, "bench", "bergamot", "fixture_oracle.mjs")
NODE_MODULES = os.path.join(ROOT, "bench", "bergamot", "node_modules")
SEED = 20250611
D, HEADS, FFN, ENC, DEC = 32, 4, 64, 2, 2
MAX_LENGTH_FACTOR = 2.0
TRAIN_STEPS = {"ssru": 1500, "separate": 3000, "opus": 3000, "embnorm": 1500}  # Adam steps
TRAIN_MAX_LEN = 24  # training pairs: at most this many ids a side, </s> included

SENTENCES = [
    "Hello world.",
    "The package provides a library for reading and writing files.",
    "Fonts for the screen, and more!",
    "Version 2.4 was released in 2023 with 15 new features.",
    "Привет means hello.",
    "What is this?",
    "A tool to convert images (PNG, JPEG) to plain text.",
    "Don't stop: install it with apt-get.",
    "x",
    ".",
    "Le chat est sur la table.",
    "This utility shows the free disk space on each mounted file system.",
    "Ｆｕｌｌ ｗｉｄｔｈ ﬁles\u00a0and… more",
    "   Extra   spaces   everywhere   ",
]
BIAS_RAISES = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0)  # embnorm: raises of an output bias tried
TRACED = 2  # sentences whose cross-attention and forget gates are recorded
# ssru's runs, in the reference and in Bergamot: name -> (model file, gemm-precision, shortlist)
SSRU_RUNS = {
    "float32": ("model.bin", "float32", False),
    "float32 shortlist": ("model.bin", "float32", True),
    "intgemm8 int8shiftAll": ("model.intgemm8.bin", "int8shiftAll", False),
    "alphas int8shiftAlphaAll": ("model.alphas.bin", "int8shiftAlphaAll", False),
    "alphas int8shiftAlphaAll shortlist": ("model.alphas.bin", "int8shiftAlphaAll", True),
}


# ---- SentencePiece ----

def corpus_lines(first, last):
    """Lines [first, last) of the tokenizer corpus: 0-999 English, 1000-1999 French, 2000-2999
    German (models/goldens/make_tokenizer_corpus.py draws them in that order)."""
    with open(CORPUS, "rb") as f:
        lines = f.read().split(b"\n")
    return [l.decode("utf-8") for l in lines[first:last]]


# why: a small normalisation table of its own keeps the file small (nmt_nfkc's table is ~240 kB)
# while the file still carries a precompiled charsmap for the reader to apply
SOURCE_RULES = ["%X\t%X" % (c, c - 0xFEE0) for c in range(0xFF01, 0xFF5F)] + [
    "A0\t20", "FB01\t66 69", "FB02\t66 6C", "2026\t2E 2E 2E", "2019\t27"]


def train_spm(lines, vocab_size, marian_ids, rules=None):
    """A unigram model, one thread (deterministic). marian_ids: Marian's own spm ids (</s> 0,
    <unk> 1, no <s>, as Firefox's vocabularies have them), else SentencePiece's defaults (<unk> 0,
    <s> 1, </s> 2, as OPUS-MT's have them). rules: a normalisation table (else identity)."""
    model = io.BytesIO()
    ids = dict(eos_id=0, unk_id=1, bos_id=-1, pad_id=-1) if marian_ids else {}
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        norm = dict(normalization_rule_name="identity")
        if rules:
            with open(os.path.join(tmp, "rules.tsv"), "w") as f:
                f.write("\n".join(rules) + "\n")
            # why: the model keeps the path it was given; a relative one keeps the bytes the same
            norm = dict(normalization_rule_tsv="rules.tsv")
        os.chdir(tmp)
        try:
            spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                           vocab_size=vocab_size, model_type="unigram",
                                           character_coverage=1.0, num_threads=1,
                                           minloglevel=2, **ids, **norm)
        finally:
            os.chdir(cwd)
    return model.getvalue()


# ---- weights ----

class Weights:
    """Random parameters in Marian's names and shapes, float32."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.items = {}

    def matrix(self, name, n_in, n_out, gain=1.0):  # glorot-uniform-like
        a = gain * math.sqrt(6.0 / (n_in + n_out))
        self.items[name] = self.rng.uniform(-a, a, (n_in, n_out))

    def vector(self, name, n, std=0.1, mean=0.0):
        self.items[name] = mean + std * self.rng.standard_normal((1, n))

    def norm(self, prefix, suffix=""):
        self.vector(prefix + "_ln_scale" + suffix, D, 0.1, 1.0)
        self.vector(prefix + "_ln_bias" + suffix, D, 0.1)

    def attention(self, p):
        for s in "qkvo":
            self.matrix(p + "_W" + s, D, D)
            self.vector(p + "_b" + s, D)
        self.norm(p + "_Wo")

    def ffn(self, p):
        self.matrix(p + "_W1", D, FFN)
        self.vector(p + "_b1", FFN)
        self.matrix(p + "_W2", FFN, D)
        self.vector(p + "_b2", D)
        self.norm(p + "_ffn")

    def ssru(self, p):
        self.matrix(p + "_W", D, D, gain=1.5)
        self.matrix(p + "_Wf", D, D)
        self.vector(p + "_bf", D, 0.5)
        self.norm(p + "_ffn")

    def embedding(self, name, v, std):
        self.items[name] = std * self.rng.standard_normal((v, D))

    def float32(self):
        return {k: np.ascontiguousarray(v, np.float32) for k, v in sorted(self.items.items())}


def transformer_weights(seed, emb, v_out, decoder, emb_std=0.5, emb_norm=False):
    """Random initial weights. emb: {name: vocabulary size} of the embedding matrices;
    decoder: "ssru" or "self"; emb_norm: the LayerNorms of transformer-postprocess-emb n."""
    w = Weights(seed)
    for name, v in emb.items():
        w.embedding(name, v, emb_std)
    if emb_norm:
        w.norm("encoder_emb", "_pre")
        w.norm("decoder_emb", "_pre")
    for i in range(1, ENC + 1):
        w.attention("encoder_l%d_self" % i)
        w.ffn("encoder_l%d_ffn" % i)
    for i in range(1, DEC + 1):
        p = "decoder_l%d" % i
        if decoder == "ssru":
            w.ssru(p + "_rnn")
        else:
            w.attention(p + "_self")
        w.attention(p + "_context")
        w.ffn(p + "_ffn")
    w.vector("decoder_ff_logit_out_b", v_out, 0.5)
    return w.float32()


def train(items, decoder, pairs, steps, seed, lr=0.01, batch=32):
    """A short run of Adam on `pairs` (source ids, target ids, each ending in </s>), in place:
    the random weights then depend on their input the way a translation model's do (outputs
    that follow the source and end with </s>) instead of repeating one token. The forward pass
    is Marian's (tests/marian_reference.py), batched, in PyTorch; one thread, fixed seeds."""
    import torch
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    P = {k: torch.tensor(v, requires_grad=True) for k, v in items.items()}
    src_emb = P["Wemb"] if "Wemb" in P else P["encoder_Wemb"]
    trg_emb = P["Wemb"] if "Wemb" in P else P["decoder_Wemb"]
    longest = max(max(len(s), len(t)) for s, t in pairs)
    pos = torch.tensor(ref.sinusoids(0, longest, D), dtype=torch.float32)
    dh = D // HEADS

    def ln(x, p, suffix=""):
        m = x.mean(-1, keepdim=True)
        v = ((x - m) ** 2).mean(-1, keepdim=True)
        scale, bias = P[p + "_ln_scale" + suffix], P[p + "_ln_bias" + suffix]
        return (x - m) / torch.sqrt(v + 1e-6) * scale + bias

    def emb_ops(x, p):  # transformer-postprocess-emb n: a LayerNorm after the positions
        return ln(x, p + "_emb", "_pre") if p + "_emb_ln_scale_pre" in P else x

    def attention(p, q, kv, mask):
        b, t, s = q.shape[0], q.shape[1], kv.shape[1]
        Q = (q @ P[p + "_Wq"] + P[p + "_bq"]).view(b, t, HEADS, dh).transpose(1, 2)
        K = (kv @ P[p + "_Wk"] + P[p + "_bk"]).view(b, s, HEADS, dh).transpose(1, 2)
        V = (kv @ P[p + "_Wv"] + P[p + "_bv"]).view(b, s, HEADS, dh).transpose(1, 2)
        z = torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(dh) + mask[:, None], -1)
        o = (z @ V).transpose(1, 2).reshape(b, t, D)
        return ln(q + o @ P[p + "_Wo"] + P[p + "_bo"], p + "_Wo")

    def ffn(p, x):
        h = torch.relu(x @ P[p + "_W1"] + P[p + "_b1"]) @ P[p + "_W2"] + P[p + "_b2"]
        return ln(x + h, p + "_ffn")

    def loss(chunk):
        S = max(len(s) for s, _ in chunk)
        T = max(len(t) for _, t in chunk)
        src = torch.tensor([s + [0] * (S - len(s)) for s, _ in chunk])
        tgt = torch.tensor([t + [0] * (T - len(t)) for _, t in chunk])
        keep = torch.tensor([[1.0] * len(t) + [0.0] * (T - len(t)) for _, t in chunk])
        smask = torch.tensor([[0.0] * len(s) + [-1e9] * (S - len(s)) for s, _ in chunk])[:, None, :]
        x = emb_ops(math.sqrt(D) * src_emb[src] + pos[:S], "encoder")
        for i in range(1, ENC + 1):
            x = ffn("encoder_l%d_ffn" % i, attention("encoder_l%d_self" % i, x, x, smask))
        prev = torch.cat([torch.zeros_like(tgt[:, :1]), tgt[:, :-1]], 1)
        first = torch.cat([torch.zeros(len(chunk), 1), torch.ones(len(chunk), T - 1)], 1)
        y = emb_ops(math.sqrt(D) * trg_emb[prev] * first[:, :, None] + pos[:T], "decoder")
        causal = torch.triu(torch.full((T, T), -1e9), 1)[None]
        for i in range(1, DEC + 1):
            p = "decoder_l%d" % i
            if decoder == "ssru":
                xw = y @ P[p + "_rnn_W"]
                f = torch.sigmoid(y @ P[p + "_rnn_Wf"] + P[p + "_rnn_bf"])
                c, hs = torch.zeros_like(y[:, 0]), []
                for t in range(T):
                    c = f[:, t] * c + (1 - f[:, t]) * xw[:, t]
                    hs.append(torch.relu(c))
                y = ln(torch.stack(hs, 1) + y, p + "_rnn_ffn")
            else:
                y = attention(p + "_self", y, y, causal)
            y = ffn(p + "_ffn", attention(p + "_context", y, x, smask))
        logits = y @ trg_emb.T + P["decoder_ff_logit_out_b"]
        nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                tgt.reshape(-1), reduction="none")
        return (nll * keep.reshape(-1)).sum() / keep.sum()

    opt = torch.optim.Adam(P.values(), lr=lr)
    rng = np.random.RandomState(seed)
    for step in range(steps):
        chunk = [pairs[i] for i in rng.choice(len(pairs), batch, replace=False)]
        opt.zero_grad()
        l = loss(chunk)
        l.backward()
        opt.step()
    return {k: np.ascontiguousarray(v.detach().numpy(), np.float32) for k, v in P.items()}, float(l)


def model_yml(v_src, v_trg, decoder, tied, emb="d"):
    """special:model.yml as Marian writes it for such a model (the options a trained Firefox or
    OPUS-MT model carries that its inference reads; Marian's own file lists every option)."""
    lines = [
        ("type", "transformer"),
        ("dim-emb", D),
        ("dim-vocabs", "\n  - %d\n  - %d" % (v_src, v_trg)),
        ("enc-depth", ENC),
        ("dec-depth", DEC),
        ("enc-cell", "gru"),
        ("dec-cell", "ssru" if decoder == "ssru" else "gru"),
        ("transformer-heads", HEADS),
        ("transformer-dim-ffn", FFN),
        ("transformer-ffn-depth", 2),
        ("transformer-ffn-activation", "relu"),
        ("transformer-decoder-autoreg", "rnn" if decoder == "ssru" else "self-attention"),
        ("transformer-preprocess", '""'),
        ("transformer-postprocess", "dan"),
        ("transformer-postprocess-emb", emb),
        ("transformer-postprocess-top", '""'),
        ("transformer-aan-activation", "swish"),
        ("transformer-aan-depth", 2),
        ("transformer-aan-nogate", "false"),
        ("transformer-dim-aan", 2048),
        ("transformer-no-projection", "false"),
        ("transformer-pool", "false"),
        ("transformer-depth-scaling", "false"),
        ("transformer-tied-layers", "[]"),
        ("transformer-guided-alignment-layer", "last"),
        ("transformer-train-position-embeddings", "false"),
        ("tied-embeddings", "true" if tied in ("all", "trg") else "false"),
        ("tied-embeddings-src", "false"),
        ("tied-embeddings-all", "true" if tied == "all" else "false"),
        ("output-omit-bias", "false"),
        ("layer-normalization", "false"),
        ("right-left", "false"),
        ("skip", "false"),
        ("best-deep", "false"),
        ("input-types", "[]"),
        ("lemma-dim-emb", 0),
        ("max-length", 256),
        ("ulr", "false"),
        ("version", "v1.10.24; 4dd30b5 2021-09-08 14:02:21 +0100"),
    ]
    return "".join("%s: %s\n" % kv for kv in lines)


def training_pairs(encode_src, encode_trg):
    """The task the models are trained on: pieces of 1 to 8 words of the English lines of the
    tokenizer corpus, each "translated" into itself, tokenised by the target side's vocabulary
    (a copy where the vocabulary is shared, a re-tokenisation where it is not); pairs of at
    most TRAIN_MAX_LEN ids a side."""
    pairs = []
    for k, line in enumerate(corpus_lines(0, 1000)):
        words, n = line.split(), 1 + k % 8
        for i in range(0, len(words), n):
            text = " ".join(words[i:i + n])
            s, t = encode_src(text), encode_trg(text)
            if len(s) <= TRAIN_MAX_LEN and len(t) <= TRAIN_MAX_LEN:
                pairs.append((s, t))
    return pairs


def trained(items, decoder, pairs, seed, name):
    items, loss = train(items, decoder, pairs, TRAIN_STEPS[name], seed)
    print("trained %s: %d pairs, %d steps, last batch loss %.3f"
          % (name, len(pairs), TRAIN_STEPS[name], loss))
    return dict(sorted(items.items()))


# ---- containers ----

def marian_bin(items, yml, int8=False):
    """Marian's binary format: float32, or with int8 the intgemm8 items marian-conv writes
    (bench/bergamot/export_marian.py writes both)."""
    entries = [(name, ref.TYPE_INTGEMM8, a.shape, quantised(name, a))
               if int8 and int8_eligible(name, a) else
               (name, ref.TYPE_FLOAT32, a.shape, a.astype("<f4").tobytes())
               for name, a in items.items()]
    return marian_binary(entries, yml)


def marian_npz(path, items, yml):
    """Marian's npz: one .npy a parameter (biases [1, n] as Marian saves them), uncompressed,
    "special:model.yml" an int8 array of the text and its NUL."""
    arrays = dict(items)
    arrays["special:model.yml"] = np.frombuffer(yml.encode() + b"\0", np.int8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def shortlist_blob(first, best, lists):
    """A binary shortlist (src/data/shortlist.cpp, BinaryShortlistGenerator::import's layout):
    header (magic, checksum, firstNum, bestNum, offsets' count, lists' count), uint64 offsets
    (one a source id, then the end), uint32 target ids sorted within each list."""
    offsets, flat = [], []
    for l in lists:
        offsets.append(len(flat))
        flat += sorted(l)[:best]
    offsets.append(len(flat))
    body = struct.pack("<4Q", first, best, len(offsets), len(flat))
    body += struct.pack("<%dQ" % len(offsets), *offsets) + struct.pack("<%dI" % len(flat), *flat)
    blob = struct.pack("<QQ", ref.BINARY_SHORTLIST_MAGIC, 0) + body
    return blob[:8] + struct.pack("<Q", ref.shortlist_checksum(blob)) + blob[16:]


def make_shortlist(v_src, v_trg, seed):
    """Plausible entries: each source id lists itself (a shared vocabulary's copy) and up to five
    other target ids; every 25th source id lists nothing; an odd count of ids in all (the last
    one then lies outside the checksum's 64-bit words)."""
    rng = np.random.RandomState(seed)
    lists = []
    for s in range(v_src):
        if s % 25 == 7:
            lists.append([])
            continue
        l = {s} if s < v_trg else set()
        l.update(int(x) for x in rng.randint(0, v_trg, rng.randint(2, 6)))
        lists.append(sorted(l))
    if sum(len(l) for l in lists) % 2 == 0:
        lists[-1] = lists[-1][:-1]
    return 50, 8, lists


# ---- OPUS-MT's vocab.yml ----

_PLAIN = re.compile(r"[^\s\"'\\:#,\[\]{}&*!|>%@`?\-=~0-9+.][^\s\"'\\:#,\[\]{}]*")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def yaml_key(s):
    """A piece as a YAML key: plain where YAML reads it back as the same string, else
    double-quoted with YAML's escapes (\\" \\\\ \\t \\n, \\xXX / \\uXXXX for other controls)."""
    if _PLAIN.fullmatch(s) and s.lower() not in _YAML_WORDS:
        return s
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            out.append("\\x%02x" % ord(ch))
        elif ch in "\u2028\u2029\ufeff":
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def joint_vocab(sps, seed):
    """OPUS-MT's vocab.yml: "</s>" 0, "<unk>" 1, then every normal piece of both SentencePiece
    models once, in a seeded order (OPUS-MT's follow corpus frequency, not the spm ids)."""
    pieces = []
    for sp in sps:
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)):
                pieces.append(sp.id_to_piece(i))
    pieces = sorted(set(pieces))
    order = np.random.RandomState(seed).permutation(len(pieces))
    vocab = ["</s>", "<unk>"] + [pieces[i] for i in order]
    text = "".join("%s: %d\n" % (yaml_key(p), i) for i, p in enumerate(vocab))
    return vocab, text


# ---- decoding with the reference ----

def ids_text(sp, ids, eos):
    return sp.decode([i for i in ids if i != eos])


def rounded(a):
    return np.round(np.asarray(a, np.float64), 6).tolist()


def result(r, sp, eos):
    """ids, text and smallest margin of a translate() result."""
    return {"ids": r["ids"], "output": ids_text(sp, r["ids"], eos),
            "min_margin": round(min(r["margins"]), 6) if r["margins"] else None}


def traces(r, rnn):
    """cross_attention [layer][head][step][source], forget_gates [layer][step][D]."""
    att = np.array(r["cross_attention"])  # [step, layer, head, source]
    out = {"cross_attention": rounded(att.transpose(1, 2, 0, 3))}
    if rnn:
        out["forget_gates"] = rounded(np.array(r["forget_gates"]).transpose(1, 0, 2))
    return out


# ---- Bergamot ----

def bergamot(args):
    """bench/bergamot/fixture_oracle.mjs's JSON for `args` (paths relative to OUT)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(SENTENCES, f)
        sentences = f.name
    try:
        r = subprocess.run(["node", ORACLE, "--sentences", sentences] + args, cwd=OUT,
                           capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(sentences)
    if r.returncode != 0:
        raise SystemExit("fixture_oracle.mjs %s failed:\n%s" % (" ".join(args), r.stderr))
    return json.loads(r.stdout)["outputs"]


# ---- main ----

def compact_json(obj, indent=0):
    """JSON with lists of scalars on one line (the traces stay readable and small)."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        inner = ",\n".join("%s %s: %s" % (pad, json.dumps(k, ensure_ascii=False),
                                            compact_json(v, indent + 1)) for k, v in obj.items())
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(x, (dict, list)) for x in obj):
        inner = ",\n".join(pad + " " + compact_json(v, indent + 1) for v in obj)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False)


def make_ssru(write, run_bergamot):
    """ssru/: Firefox-shaped, one vocabulary, tied-embeddings-all; its expected entry."""
    shutil.copyfile(os.path.join(MODELS, "tiny", "spm.model"),
                    os.path.join(OUT, "ssru", "vocab.spm"))
    sp = spm.SentencePieceProcessor(model_file=os.path.join(OUT, "ssru", "vocab.spm"))
    v = sp.get_piece_size()
    eos, unk = sp.eos_id(), sp.unk_id()
    pairs = training_pairs(lambda t: sp.encode(t) + [eos], lambda t: sp.encode(t) + [eos])
    items = trained(transformer_weights(SEED, {"Wemb": v}, v, "ssru"), "ssru", pairs, SEED, "ssru")
    yml = model_yml(v, v, "ssru", "all")
    write("ssru/model.bin", marian_bin(items, yml))
    write("ssru/model.intgemm8.bin", marian_bin(items, yml, int8=True))
    marian_npz(os.path.join(OUT, "ssru", "model.npz"), items, yml)
    first, best, lists = make_shortlist(v, v, SEED + 1)
    write("ssru/lex.s2t.bin", shortlist_blob(first, best, lists))
    shortlist = ref.read_shortlist(open(os.path.join(OUT, "ssru", "lex.s2t.bin"), "rb").read())

    model = ref.Marian.from_items(ref.load_marian_bin(os.path.join(OUT, "ssru", "model.bin")),
                                  eos, unk)
    # the activations' quantisation multipliers: 127 / (mean + 1.1 std) of each matrix input's
    # max |x| over the calls (browsermt/marian-dev scripts/alphas/extract_stats.py), here over
    # the float model's runs on the sentences, with and without the shortlist
    model.record = {}
    for text in SENTENCES:
        src = sp.encode(text) + [eos]
        model.translate(src, MAX_LENGTH_FACTOR)
        model.translate(src, MAX_LENGTH_FACTOR, shortlist, True)
    record, model.record = model.record, None
    alphas = {}
    for name, maxima in sorted(record.items()):
        alphas[name + "_QuantMultA"] = np.array(
            [[127.0 / (np.mean(maxima) + 1.1 * np.std(maxima))]], np.float32)
    alphas["none_QuantMultA"] = alphas["Wemb_QuantMultA"].copy()  # the shortlisted output's name
    write("ssru/model.alphas.bin", marian_bin(dict(sorted({**items, **alphas}.items())), yml,
                                              int8=True))
    cases = []
    for k, text in enumerate(SENTENCES):
        src = sp.encode(text) + [eos]
        r = model.translate(src, MAX_LENGTH_FACTOR)
        case = {"text": text, "source_ids": src, **result(r, sp, eos)}
        case["shortlist"] = result(model.translate(src, MAX_LENGTH_FACTOR, shortlist, True),
                                   sp, eos)
        if k < TRACED:
            case.update(traces(r, True))
        cases.append(case)
    # the int8 runs as Bergamot computes them (marian_reference.Marian.int8_product)
    for run, (name, gemm, short) in SSRU_RUNS.items():
        if gemm == "float32":
            continue
        m = ref.Marian.from_items(ref.load_marian_bin(os.path.join(OUT, "ssru", name)), eos, unk,
                                  gemm)
        for case in cases:
            r = m.translate(case["source_ids"], MAX_LENGTH_FACTOR,
                            shortlist if short else None, True)
            case.setdefault("int8", {})[run] = result(r, sp, eos)
    fx = {"vocabularies": ["vocab.spm"], "eos_id": eos, "unk_id": unk,
          "models": {"model.bin": "float32", "model.intgemm8.bin": "intgemm8",
                     "model.alphas.bin": "intgemm8, float32 and intgemm8 *_QuantMultA",
                     "model.npz": "float32"},
          "shortlist": {"file": "lex.s2t.bin", "firstNum": first, "bestNum": best,
                        "ids": sum(len(l) for l in lists), "shared": True},
          "alphas": {k: float(a[0, 0]) for k, a in alphas.items()},
          "cases": cases}
    if run_bergamot:
        fx["bergamot"] = {}
        for run, (name, gemm, short) in SSRU_RUNS.items():
            outputs = bergamot(["--model", "ssru/" + name, "--vocab", "ssru/vocab.spm",
                                "--gemm", gemm]
                               + (["--shortlist", "ssru/lex.s2t.bin"] if short else []))
            floats = [ref.bergamot_text(c["text"], (c["shortlist"] if short else c)["output"])
                      for c in cases]
            mine = floats if gemm == "float32" else \
                [ref.bergamot_text(c["text"], c["int8"][run]["output"]) for c in cases]
            fx["bergamot"][run] = {
                "model": name, "gemm": gemm, "shortlist": short, "outputs": outputs,
                "same": sum(a == b for a, b in zip(outputs, mine)),
                "same_as_float32": sum(a == b for a, b in zip(outputs, floats)),
                "total": len(outputs)}
    return fx


def make_separate(write, run_bergamot):
    """separate/: two vocabularies, tied-embeddings (decoder_Wemb is the output matrix)."""
    src_spm = train_spm(corpus_lines(0, 1000), 500, True, SOURCE_RULES)
    trg_spm = train_spm(corpus_lines(1000, 2000), 450, True)
    write("separate/source.spm", src_spm)
    write("separate/target.spm", trg_spm)
    ssp = spm.SentencePieceProcessor(model_proto=src_spm)
    tsp = spm.SentencePieceProcessor(model_proto=trg_spm)
    vs, vt = ssp.get_piece_size(), tsp.get_piece_size()
    pairs = training_pairs(lambda t: ssp.encode(t) + [ssp.eos_id()],
                           lambda t: tsp.encode(t) + [tsp.eos_id()])
    items = trained(transformer_weights(SEED + 2, {"encoder_Wemb": vs, "decoder_Wemb": vt}, vt,
                                        "ssru"), "ssru", pairs, SEED + 2, "separate")
    yml = model_yml(vs, vt, "ssru", "trg")
    write("separate/model.bin", marian_bin(items, yml))
    model = ref.Marian.from_items(ref.load_marian_bin(os.path.join(OUT, "separate", "model.bin")),
                                  tsp.eos_id(), tsp.unk_id())
    cases = []
    for k, text in enumerate(SENTENCES):
        src = ssp.encode(text) + [ssp.eos_id()]
        r = model.translate(src, MAX_LENGTH_FACTOR)
        case = {"text": text, "source_ids": src, **result(r, tsp, tsp.eos_id())}
        if k < TRACED:
            case.update(traces(r, True))
        cases.append(case)
    fx = {"vocabularies": ["source.spm", "target.spm"], "eos_id": tsp.eos_id(),
          "unk_id": tsp.unk_id(), "models": {"model.bin": "float32"}, "cases": cases}
    if run_bergamot:
        outputs = bergamot(["--model", "separate/model.bin", "--vocab", "separate/source.spm",
                            "--vocab", "separate/target.spm", "--gemm", "float32"])
        floats = [ref.bergamot_text(c["text"], c["output"]) for c in cases]
        fx["bergamot"] = {"float32": {
            "model": "model.bin", "gemm": "float32", "shortlist": False, "outputs": outputs,
            "same": sum(a == b for a, b in zip(outputs, floats)),
            "same_as_float32": sum(a == b for a, b in zip(outputs, floats)), "total": len(outputs)}}
    return fx


def make_opus(write, run_bergamot):
    """opus/: OPUS-MT, self-attention decoder, model.npz, joint vocab.yml."""
    src_spm = train_spm(corpus_lines(0, 1000), 300, False)
    trg_spm = train_spm(corpus_lines(2000, 3000), 350, False)
    write("opus/source.spm", src_spm)
    write("opus/target.spm", trg_spm)
    ssp = spm.SentencePieceProcessor(model_proto=src_spm)
    tsp = spm.SentencePieceProcessor(model_proto=trg_spm)
    vocab, text = joint_vocab([ssp, tsp], SEED + 3)
    write("opus/vocab.yml", text.encode("utf-8"))
    index = {p: i for i, p in enumerate(vocab)}
    pairs = training_pairs(lambda t: [index.get(p, 1) for p in ssp.encode(t, out_type=str)] + [0],
                           lambda t: [index.get(p, 1) for p in tsp.encode(t, out_type=str)] + [0])
    items = trained(transformer_weights(SEED + 4, {"Wemb": len(vocab)}, len(vocab), "self"),
                    "self", pairs, SEED + 4, "opus")
    yml = model_yml(len(vocab), len(vocab), "self", "all")
    marian_npz(os.path.join(OUT, "opus", "model.npz"), items, yml)
    model = ref.Marian.from_items(ref.load_marian_npz(os.path.join(OUT, "opus", "model.npz")), 0, 1)
    cases = []
    for k, text in enumerate(SENTENCES):
        pieces = ssp.encode(text, out_type=str)
        src = [index.get(p, 1) for p in pieces] + [0]
        r = model.translate(src, MAX_LENGTH_FACTOR)
        out_pieces = [vocab[i] for i in r["ids"] if i != 0]
        case = {"text": text, "source_pieces": pieces, "source_ids": src, "ids": r["ids"],
                "pieces": out_pieces, "output": tsp.decode_pieces(out_pieces),
                "min_margin": round(min(r["margins"]), 6)}
        if k < TRACED:
            case.update(traces(r, False))
        cases.append(case)
    return {
        "vocabularies": ["source.spm", "target.spm", "vocab.yml"], "eos_id": 0, "unk_id": 1,
        "pipeline": "source.spm pieces -> vocab.yml ids (unknown pieces <unk>) + </s>; output ids "
                    "-> vocab.yml pieces -> target.spm's DecodePieces",
        "models": {"model.npz": "float32"}, "cases": cases}


def make_embnorm(write, run_bergamot):
    """embnorm/: ssru's architecture, vocabulary (ssru/vocab.spm) and shortlist (ssru/lex.s2t.bin)
    with transformer-postprocess-emb "dn": a LayerNorm on the encoder's and the decoder's
    embeddings after the positions ("encoder_emb_ln_scale_pre", ...). Then two output biases
    raised, each by the smallest of BIAS_RAISES that does it: firstNum's (the first id Marian's
    padding of a shortlist selection to a multiple of 8 adds), until the padding changes at
    least 2 shortlisted outputs ("shortlist_unpadded" records the outputs without it), and
    <unk>'s, until greedy decoding with <unk> allowed emits it in at least 3 sentences
    ("unk_allowed"): Marian suppresses <unk> (allow-unk false), so its outputs are what the
    model gives without <unk>."""
    sp = spm.SentencePieceProcessor(model_file=os.path.join(OUT, "ssru", "vocab.spm"))
    v = sp.get_piece_size()
    eos, unk = sp.eos_id(), sp.unk_id()
    pairs = training_pairs(lambda t: sp.encode(t) + [eos], lambda t: sp.encode(t) + [eos])
    items = trained(transformer_weights(SEED + 5, {"Wemb": v}, v, "ssru", emb_norm=True), "ssru",
                    pairs, SEED + 5, "embnorm")
    yml = model_yml(v, v, "ssru", "all", emb="dn")
    sources = [sp.encode(text) + [eos] for text in SENTENCES]
    with open(os.path.join(OUT, "ssru", "lex.s2t.bin"), "rb") as f:
        shortlist = ref.read_shortlist(f.read())
    pad_id = shortlist[0]  # firstNum: the first id Marian's padding of the selection adds

    def raise_bias(items, piece, condition):
        """items with `piece`'s output bias raised by the first of BIAS_RAISES after which
        condition(model) holds, and that raise."""
        for r in BIAS_RAISES:
            raised = dict(items)
            raised["decoder_ff_logit_out_b"] = items["decoder_ff_logit_out_b"].copy()
            raised["decoder_ff_logit_out_b"][0, piece] += np.float32(r)
            m = ref.Marian.from_items(ref.load_marian_bin(marian_bin(raised, yml)), eos, unk)
            if condition(m):
                return raised, r
        raise SystemExit("no raise of piece %d's output bias does it" % piece)

    def padding_wins(m):
        return sum(m.translate(s, MAX_LENGTH_FACTOR, shortlist, True)["ids"] !=
                   m.translate(s, MAX_LENGTH_FACTOR, shortlist, True, pad_shortlist=False)["ids"]
                   for s in sources) >= 2

    def unk_wins(m):
        return sum(unk in m.translate(s, MAX_LENGTH_FACTOR, allow_unk=True)["ids"]
                   for s in sources) >= 3

    items, pad_raise = raise_bias(items, pad_id, padding_wins)
    items, unk_raise = raise_bias(items, unk, unk_wins)
    write("embnorm/model.bin", marian_bin(items, yml))
    model = ref.Marian.from_items(ref.load_marian_bin(os.path.join(OUT, "embnorm", "model.bin")),
                                  eos, unk)
    cases = []
    for k, (text, src) in enumerate(zip(SENTENCES, sources)):
        r = model.translate(src, MAX_LENGTH_FACTOR)
        case = {"text": text, "source_ids": src, **result(r, sp, eos)}
        case["unk_allowed"] = result(model.translate(src, MAX_LENGTH_FACTOR, allow_unk=True),
                                     sp, eos)
        case["shortlist"] = result(model.translate(src, MAX_LENGTH_FACTOR, shortlist, True),
                                   sp, eos)
        unpadded = result(model.translate(src, MAX_LENGTH_FACTOR, shortlist, True,
                                          pad_shortlist=False), sp, eos)
        if unpadded["ids"] != case["shortlist"]["ids"]:
            case["shortlist_unpadded"] = unpadded
        if k < TRACED:
            case.update(traces(r, True))
        cases.append(case)
    fx = {"vocabularies": ["../ssru/vocab.spm"], "eos_id": eos, "unk_id": unk,
          "models": {"model.bin": "float32"},
          "bias_raised": {"<unk> %d" % unk: unk_raise, "first padding id %d" % pad_id: pad_raise},
          "shortlist": {"file": "../ssru/lex.s2t.bin", "shared": True}, "cases": cases}
    if run_bergamot:
        fx["bergamot"] = {}
        for run, short in (("float32", False), ("float32 shortlist", True)):
            outputs = bergamot(["--model", "embnorm/model.bin", "--vocab", "ssru/vocab.spm",
                                "--gemm", "float32"]
                               + (["--shortlist", "ssru/lex.s2t.bin"] if short else []))
            mine = [ref.bergamot_text(c["text"], (c["shortlist"] if short else c)["output"])
                    for c in cases]
            fx["bergamot"][run] = {
                "model": "model.bin", "gemm": "float32", "shortlist": short, "outputs": outputs,
                "same": sum(a == b for a, b in zip(outputs, mine)),
                "same_as_float32": sum(a == b for a, b in zip(outputs, mine)),
                "total": len(outputs)}
    return fx


MAKERS = {"ssru": make_ssru, "separate": make_separate, "opus": make_opus,
          "embnorm": make_embnorm}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-bergamot", action="store_true", help="do not run Bergamot")
    ap.add_argument("--only", choices=sorted(MAKERS),
                    help="remake this fixture alone (its folder and its expected.json entry)")
    args = ap.parse_args()
    run_bergamot = not args.no_bergamot and os.path.isdir(NODE_MODULES)
    names = [args.only] if args.only else list(MAKERS)
    kept = {}
    if args.only:
        with open(os.path.join(OUT, "expected.json"), encoding="utf-8") as f:
            kept = json.load(f)["fixtures"]
    elif os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for sub in names:
        if os.path.isdir(os.path.join(OUT, sub)):
            shutil.rmtree(os.path.join(OUT, sub))
        os.makedirs(os.path.join(OUT, sub))

    def write(rel, data):
        with open(os.path.join(OUT, rel), "wb") as f:
            f.write(data)

    expected = {
        "about": "tests/data/marian: written by models/goldens/make_marian_fixtures.py, checked by "
                 "tests/marian_fixtures_test.py; the reference is tests/marian_reference.py",
        "decoding": {
            "beam": 1, "max_length_factor": MAX_LENGTH_FACTOR, "allow_unk": False,
            "max_tokens": "ceil(max_length_factor * (source ids + 1 for </s>))",
            "ids": "the output ids, ending in </s> when the model produced it",
            "output": "the ids before </s> detokenised with the target vocabulary",
            "bergamot": "Bergamot's text is the output with the source's leading and trailing "
                        "whitespace around it (its FAITHFUL concatenation); \"same\" counts its "
                        "outputs equal to that text from the reference's output of the same "
                        "configuration (int8 ones: the reference's int8 model), "
                        "\"same_as_float32\" from the float32 output",
            "min_margin": "the smallest gap between the chosen logit and the next",
            "cross_attention": "[layer][head][step][source position] (first %d sentences)" % TRACED,
            "forget_gates": "[layer][step][D], SSRU decoders (first %d sentences)" % TRACED},
        "sentences": SENTENCES,
        "fixtures": kept,
    }

    for name in MAKERS:
        if name in names:
            kept[name] = MAKERS[name](write, run_bergamot)
    expected["fixtures"] = {k: kept[k] for k in MAKERS if k in kept}

    with open(os.path.join(OUT, "expected.json"), "w", encoding="utf-8") as f:
        f.write(compact_json(expected) + "\n")
    total = 0
    for dirpath, _, files in os.walk(OUT):
        for name in sorted(files):
            size = os.path.getsize(os.path.join(dirpath, name))
            total += size
            print("%-40s %8d" % (os.path.relpath(os.path.join(dirpath, name), ROOT), size))
    print("total %d bytes" % total)
    for name, fx in expected["fixtures"].items():
        for what, a in fx.get("bergamot", {}).items():
            print("Bergamot %s %s: %d/%d equal the reference's (%d/%d its float32 outputs)"
                  % (name, what, a["same"], a["total"], a["same_as_float32"], a["total"]))


if __name__ == "__main__":
    main()
