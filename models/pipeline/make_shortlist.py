"""Builds a model's output-vocabulary shortlist from its training corpus and stores it inside the
model file (models/FORMAT.md, "Output shortlist").

What it is: the lexical-shortlist idea of Marian/Bergamot, from counts. Both sides of every
training pair are tokenised with the model's own SentencePiece; for each source piece s the
target pieces t that co-occur with it most often relative to how often s occurs (p(t|s) =
c(s, t) / c(s), at least --min-count pairs) are kept, up to --per-source of them, besides the
--frequent most frequent target pieces, which every sentence may always use. At translation time
the engine lets the decoder choose only among the frequent pieces, the pieces listed for the
sentence's source pieces, and the special pieces. Prints the shortlist's size and its coverage of
the reference translations of the dev split (never the test split).
What it is not: a word aligner (no fast_align here), nor a change to the weights: every other
tensor is copied byte for byte.

Usage: /usr/bin/python3 -m models.pipeline.make_shortlist MODEL.heed --train PREFIX --src en
           --tgt fr [--dev PREFIX] [--frequent 256] [--per-source 24] [--min-count 2]
           [--out OUT.heed]
PREFIX is a corpus path without its language suffix, e.g. models/data/ddtp/en-fr.train.
"""
import argparse
import collections
import hashlib
import sys

import numpy as np
import sentencepiece as spm

from models.heed_file import HeedFile, write_heed_file


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def build(sp, src_lines, tgt_lines, frequent_n, per_source, min_count, specials):
    """-> (frequent ids, offsets [V+1], targets): the shortlist tables."""
    V = sp.get_piece_size()
    c_src = collections.Counter()
    c_tgt = collections.Counter()
    pair = collections.defaultdict(collections.Counter)
    for s_line, t_line in zip(src_lines, tgt_lines):
        s_ids = set(sp.encode(s_line))
        t_ids = set(sp.encode(t_line))
        c_tgt.update(t_ids)
        for s in s_ids:
            c_src[s] += 1
            pair[s].update(t_ids)
    frequent = sorted(set(t for t, _ in c_tgt.most_common(frequent_n)) | set(specials))
    always = set(frequent)
    offsets, targets = [0], []
    for s in range(V):
        ranked = [(n / c_src[s], t) for t, n in pair[s].items() if n >= min_count and t not in always]
        ranked.sort(key=lambda x: (-x[0], x[1]))
        targets.extend(sorted(t for _, t in ranked[:per_source]))
        offsets.append(len(targets))
    return frequent, offsets, targets


def coverage(sp, frequent, offsets, targets, src_lines, tgt_lines):
    """Share of reference target pieces inside each sentence's shortlist, and the mean size."""
    inside = total = size = 0
    for s_line, t_line in zip(src_lines, tgt_lines):
        allowed = set(frequent)
        for s in set(sp.encode(s_line)):
            allowed.update(targets[offsets[s]:offsets[s + 1]])
        ref = sp.encode(t_line)
        inside += sum(1 for t in ref if t in allowed)
        total += len(ref)
        size += len(allowed)
    return inside / max(total, 1), size / max(len(src_lines), 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--train", required=True)
    ap.add_argument("--dev")
    ap.add_argument("--src", required=True)
    ap.add_argument("--tgt", required=True)
    ap.add_argument("--frequent", type=int, default=256)
    ap.add_argument("--per-source", type=int, default=24)
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args()

    model = HeedFile(a.model)
    meta, cfg, tensors = model.meta, model.config, model.stored_tensors()
    sp = spm.SentencePieceProcessor(model_proto=model.tensor("tokenizer.model"))
    if sp.get_piece_size() != cfg["vocab_size"]:
        sys.exit("make_shortlist: the tokenizer has %d pieces, the config %d"
                 % (sp.get_piece_size(), cfg["vocab_size"]))
    specials = [cfg["eos_id"], cfg["unk_id"]]
    src, tgt = lines(a.train + a.src), lines(a.train + a.tgt)
    frequent, offsets, targets = build(sp, src, tgt, a.frequent, a.per_source, a.min_count,
                                       specials)
    print("%s: %d training pairs; %d frequent pieces, %d source-specific entries (%.1f per "
          "source piece)" % (a.model, len(src), len(frequent), len(targets),
                             len(targets) / cfg["vocab_size"]))
    if a.dev:
        cov, size = coverage(sp, frequent, offsets, targets, lines(a.dev + a.src),
                             lines(a.dev + a.tgt))
        print("dev %s: %.2f%% of reference pieces inside the shortlist; %.0f pieces per sentence "
              "on average (of %d)" % (a.dev, 100 * cov, size, cfg["vocab_size"]))
    lang = a.tgt
    for name in list(tensors):
        if name.startswith("shortlist."):
            del tensors[name]  # why: rebuilding replaces every direction's old tables
    for part, values in (("frequent", frequent), ("offsets", offsets), ("targets", targets)):
        tensors["shortlist.%s.%s" % (lang, part)] = ("I32", np.asarray(values, dtype="<i4"))
    out = a.out or a.model
    # why: in name order, so each width's tensors are written sorted by name
    write_heed_file(out, meta, {name: tensors[name] for name in sorted(tensors)})
    digest = hashlib.sha256(open(out, "rb").read()).hexdigest()[:12]
    print("wrote %s (%d bytes, sha256 %s)" % (out, len(open(out, "rb").read()), digest))


if __name__ == "__main__":
    main()
