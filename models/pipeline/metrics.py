"""Corpus BLEU (sacreBLEU-compatible: 13a tokenisation, exp smoothing) and chrF (char 6-grams, beta 2).

What it is: a small, dependency-free re-implementation of the two standard MT metrics, following
their published definitions (Papineni et al. 2002; Popovic 2015; sacreBLEU's defaults).
What it is not: sacreBLEU itself (no signatures, no multiple references).
"""
import math
import re
from collections import Counter

_13A = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line):
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = (line.replace("&quot;", '"').replace("&amp;", "&")
                .replace("&lt;", "<").replace("&gt;", ">"))
    line = " %s " % line
    for rx, sub in _13A:
        line = rx.sub(sub, line)
    return line.split()


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def corpus_bleu(hyps, refs, max_n=4):
    """Returns (bleu, precisions, brevity_penalty, hyp_len, ref_len); scores in 0..100.

    `refs` is one reference per hypothesis, or a list of reference streams (sacreBLEU's
    multi-reference form: n-gram counts clipped by the max over references, and the reference
    length closest to the hypothesis, the shorter on ties)."""
    streams = [refs] if refs and isinstance(refs[0], str) else refs
    match, total = [0] * max_n, [0] * max_n
    hyp_len = ref_len = 0
    for i, h in enumerate(hyps):
        ht = tokenize_13a(h)
        rts = [tokenize_13a(s[i]) for s in streams]
        hyp_len += len(ht)
        ref_len += min((abs(len(r) - len(ht)), len(r)) for r in rts)[1]
        for n in range(1, max_n + 1):
            hc = _ngrams(ht, n)
            rc = Counter()
            for r in rts:
                rc |= _ngrams(r, n)
            match[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[n - 1] += max(0, len(ht) - n + 1)
    if hyp_len == 0:
        return 0.0, [0.0] * max_n, 0.0, hyp_len, ref_len
    precisions, smooth = [], 1.0
    for m, t in zip(match, total):
        if t == 0:
            precisions.append(0.0)
        elif m == 0:
            smooth *= 2  # why: sacreBLEU's default 'exp' smoothing for zero-match orders
            precisions.append(100.0 / (smooth * t))
        else:
            precisions.append(100.0 * m / t)
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    if min(precisions) <= 0:
        return 0.0, precisions, bp, hyp_len, ref_len
    log_avg = sum(math.log(p / 100.0) for p in precisions) / max_n
    return 100.0 * bp * math.exp(log_avg), precisions, bp, hyp_len, ref_len


def corpus_chrf(hyps, refs, order=6, beta=2.0):
    """chrF: character n-gram statistics summed over the corpus, whitespace removed,
    precision and recall averaged over the orders present, then the F-beta score (0..100)."""
    stats = [[0, 0, 0] for _ in range(order)]  # hyp, ref, match
    for h, r in zip(hyps, refs):
        h, r = "".join(h.split()), "".join(r.split())
        for n in range(1, order + 1):
            hc = Counter(h[i:i + n] for i in range(len(h) - n + 1))
            rc = Counter(r[i:i + n] for i in range(len(r) - n + 1))
            s = stats[n - 1]
            s[0] += sum(hc.values())
            s[1] += sum(rc.values())
            s[2] += sum(min(c, rc[g]) for g, c in hc.items())
    prec = rec = 0.0
    eff = 0
    for nh, nr, nm in stats:
        if nh > 0 and nr > 0:
            prec += nm / nh
            rec += nm / nr
            eff += 1
    if eff == 0:
        return 0.0
    prec, rec = prec / eff, rec / eff
    if prec + rec == 0:
        return 0.0
    b2 = beta * beta
    return 100.0 * (1 + b2) * prec * rec / (b2 * prec + rec)
