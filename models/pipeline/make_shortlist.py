"""Builds a model's output-vocabulary shortlists from its training corpus and stores them inside
the model file (models/FORMAT.md, "Output shortlist").

What it is: the lexical-shortlist idea of Marian/Bergamot, from counts. Both sides of every
training pair are tokenised with the model's own SentencePiece; for each source piece s the
target pieces t that co-occur with it most often relative to how often s occurs (p(t|s) =
c(s, t) / c(s), at least --min-count pairs) are kept, up to --per-source of them, besides the
--frequent most frequent target pieces, which every sentence may always use. One table per target
language: a multilingual model's directions into the same language (de-en and fr-en) pool their
pairs into one table, which a shared vocabulary allows (a source piece's counts are summed over
the directions it occurs in). At translation time the engine lets the decoder choose only among
the frequent pieces, the pieces listed for the sentence's source pieces, and the special pieces.
Prints each table's size and its coverage of the reference translations of the dev splits
(never the test splits).
What it is not: a word aligner (no fast_align here), nor a change to the weights: every other
tensor is copied byte for byte.

Usage: /usr/bin/python3 -m models.pipeline.make_shortlist MODEL.heed --train PREFIX --src en
           --tgt fr [--dev PREFIX] [--frequent 256] [--per-source 24] [--min-count 2]
           [--out OUT.heed]
       /usr/bin/python3 -m models.pipeline.make_shortlist MODEL.heed --directions
           en-de,de-en,en-fr,fr-en [--data models/data] [...]
PREFIX is a corpus path without its language suffix, e.g. models/data/ddtp/en-fr.train.
--directions reads what training reads: models/data/all/<pair>.train.* and every source's
<pair>.dev.* (models/pipeline/train.py, corpus_of).
"""
import argparse
import glob
import hashlib
import os
import sys

import numpy as np

from models.heed_file import HeedFile, write_heed_file
from models.pipeline import engine_tokenizer

CHUNK = 200000  # pairs counted per numpy pass


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def count(sp, pairs, V):
    """-> (c_tgt [V], c_pair [V, V]) over [(src_lines, tgt_lines)]: in how many pairs each target
    piece and each (source, target) pair of pieces occurs (c(s) is not needed: it is the same
    along a row of c_pair, so it does not change a row's ranking)."""
    c_tgt = np.zeros(V, np.int64)
    c_pair = np.zeros(V * V, np.int32)
    for src_lines, tgt_lines in pairs:
        for at in range(0, len(src_lines), CHUNK):
            s_ids = sp.encode(src_lines[at:at + CHUNK])
            t_ids = sp.encode(tgt_lines[at:at + CHUNK])
            keys = []
            for s, t in zip(s_ids, t_ids):
                s, t = np.unique(s), np.unique(t)
                c_tgt[t] += 1
                keys.append((s[:, None] * V + t[None, :]).ravel())
            if keys:
                k, n = np.unique(np.concatenate(keys), return_counts=True)
                c_pair[k] += n.astype(np.int32)
    return c_tgt, c_pair.reshape(V, V)


def build(c_tgt, c_pair, frequent_n, per_source, min_count, specials):
    """-> (frequent ids, offsets [V+1], targets): the shortlist tables. Ties go to the lower id
    (the frequent pieces by count, the listed ones by c(s, t); c(s) is the same along a row)."""
    V = len(c_tgt)
    by_count = sorted(range(V), key=lambda t: (-c_tgt[t], t))
    top = [t for t in by_count[:frequent_n] if c_tgt[t] > 0]
    frequent = sorted(set(top) | set(specials))
    always = np.zeros(V, bool)
    always[frequent] = True
    offsets, targets = [0], []
    for s in range(V):
        row = c_pair[s]
        t = np.nonzero((row >= min_count) & ~always)[0]
        best = t[np.lexsort((t, -row[t].astype(np.int64)))][:per_source]
        targets.extend(sorted(best.tolist()))
        offsets.append(len(targets))
    return frequent, offsets, targets


def coverage(sp, frequent, offsets, targets, src_lines, tgt_lines):
    """Share of reference target pieces inside each sentence's shortlist, and the mean size."""
    inside = total = size = 0
    for s_ids, ref in zip(sp.encode(src_lines), sp.encode(tgt_lines)):
        allowed = set(frequent)
        for s in set(s_ids):
            allowed.update(targets[offsets[s]:offsets[s + 1]])
        inside += sum(1 for t in ref if t in allowed)
        total += len(ref)
        size += len(allowed)
    return inside / max(total, 1), size / max(len(src_lines), 1)


def corpus(a):
    """{target language: [(direction, train prefix, [dev prefixes], src, tgt)]}."""
    if not a.directions:
        if not (a.train and a.src and a.tgt):
            sys.exit("make_shortlist: give --train, --src and --tgt, or --directions")
        return {a.tgt: [(a.src + "-" + a.tgt, a.train, [a.dev] if a.dev else [], a.src, a.tgt)]}
    out = {}
    for d in a.directions.split(","):
        src, tgt = d.split("-")
        pair = "en-" + (tgt if src == "en" else src)  # why: corpus files are named en-X both ways
        devs = sorted(glob.glob(os.path.join(a.data, "*", pair + ".dev.en")))
        out.setdefault(tgt, []).append(
            (d, os.path.join(a.data, "all", pair + ".train."),
             [p[:-2] for p in devs if os.sep + "all" + os.sep not in p], src, tgt))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--train")
    ap.add_argument("--dev")
    ap.add_argument("--src")
    ap.add_argument("--tgt")
    ap.add_argument("--directions", help="e.g. en-de,de-en,en-fr,fr-en: one table per target")
    ap.add_argument("--data", default="models/data")
    ap.add_argument("--frequent", type=int, default=256)
    ap.add_argument("--per-source", type=int, default=24)
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args()

    model = HeedFile(a.model)
    meta, cfg, tensors = model.meta, model.config, model.stored_tensors()
    sp = engine_tokenizer.processor(model_proto=model.tensor("tokenizer.model"))
    V = cfg["vocab_size"]
    if sp.get_piece_size() != V:
        sys.exit("make_shortlist: the tokenizer has %d pieces, the config %d"
                 % (sp.get_piece_size(), V))
    specials = [cfg["eos_id"], cfg["unk_id"]]
    for name in list(tensors):
        if name.startswith("shortlist."):
            del tensors[name]  # why: rebuilding replaces every language's old tables
    for lang, parts in sorted(corpus(a).items()):
        pairs = [(lines(p + s), lines(p + t)) for _, p, _, s, t in parts]
        c_tgt, c_pair = count(sp, pairs, V)
        frequent, offsets, targets = build(c_tgt, c_pair, a.frequent, a.per_source, a.min_count,
                                           specials)
        del c_pair
        print("into %s (%s): %d training pairs; %d frequent pieces, %d source-specific entries "
              "(%.1f per source piece)" % (lang, ",".join(d for d, *_ in parts),
                                           sum(len(s) for s, _ in pairs), len(frequent),
                                           len(targets), len(targets) / V))
        for d, _, devs, s, t in parts:
            if not devs:
                continue
            src_dev = sum((lines(p + s) for p in devs), [])
            tgt_dev = sum((lines(p + t) for p in devs), [])
            cov, size = coverage(sp, frequent, offsets, targets, src_dev, tgt_dev)
            print("  dev %s (%d sentences): %.2f%% of reference pieces inside the shortlist; "
                  "%.0f pieces per sentence on average (of %d)"
                  % (d, len(src_dev), 100 * cov, size, V))
        ids = ("U16", "<u2") if V <= 65536 else ("I32", "<i4")  # why: half the bytes to download
        for part, values, (dtype, np_type) in (("frequent", frequent, ids),
                                               ("offsets", offsets, ("I32", "<i4")),
                                               ("targets", targets, ids)):
            tensors["shortlist.%s.%s" % (lang, part)] = (dtype, np.asarray(values, dtype=np_type))
    out = a.out or a.model
    # why: in name order, so each width's tensors are written sorted by name
    write_heed_file(out, meta, {name: tensors[name] for name in sorted(tensors)})
    data = open(out, "rb").read()
    print("wrote %s (%d bytes, sha256 %s)" % (out, len(data), hashlib.sha256(data).hexdigest()[:12]))


if __name__ == "__main__":
    main()
