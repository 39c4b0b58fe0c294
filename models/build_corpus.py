#!/usr/bin/python3
"""Builds the parallel corpus from Debian's package-description translations (DDTP).

What it is: fetch the Translation-{en,de,fr} indexes with a private apt config, join on
Description-md5, align paragraphs and sentences by structure, filter, dedupe and split
train/dev/test deterministically (by a hash of the English side).
What it is not: a general aligner; pairs whose structure differs are dropped, not guessed.

Usage: /usr/bin/python3 models/build_corpus.py [--out models/data] [--langs de,fr]
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
import unicodedata

APT_CONF = """#clear Acquire::Languages;
Acquire::Languages { "en"; "de"; "fr"; "es"; };
"""

MAX_WORDS = 60  # why: long pairs cost quadratic attention and rarely align cleanly


def fetch_lists(out):
    lists = os.path.join(out, "lists")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    conf = os.path.join(out, "apt-languages.conf")
    with open(conf, "w") as f:
        f.write(APT_CONF)
    subprocess.run(["apt-get", "-c", conf, "-o", "Dir::State::Lists=" + os.path.abspath(lists),
                    "update", "-q"], check=True)
    return lists


def read_index(lists, lang):
    """Returns {md5: (short, [long lines])} from every Translation-<lang> index."""
    out = {}
    for name in sorted(os.listdir(lists)):
        if not name.endswith("Translation-%s.lz4" % lang):
            continue
        text = subprocess.run(["lz4", "-dc", os.path.join(lists, name)], check=True,
                              capture_output=True).stdout.decode("utf-8", "replace")
        for block in text.split("\n\n"):
            md5, desc = None, None
            lines = block.split("\n")
            for i, line in enumerate(lines):
                if line.startswith("Description-md5: "):
                    md5 = line.split(": ", 1)[1].strip()
                elif line.startswith("Description-%s: " % lang):
                    short = line.split(": ", 1)[1].strip()
                    body = [l[1:] for l in lines[i + 1:] if l.startswith(" ")]
                    desc = (short, body)
                    break
            if md5 and desc:
                out[md5] = desc
    return out


def paragraphs(body):
    paras, cur = [], []
    for line in body:
        if line.strip() == ".":
            paras.append(cur)
            cur = []
        else:
            cur.append(line)
    paras.append(cur)
    return [p for p in paras if p]


BULLET = re.compile(r"^\s*([*\-+o•]|\d+[.)])\s+")
SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-ÖØ-Þ«\"(])")


def units(para):
    """Splits a paragraph into aligned units: bullet items, else sentences."""
    if any(BULLET.match(l) for l in para):
        items, cur = [], []
        for l in para:
            if BULLET.match(l):
                if cur:
                    items.append(" ".join(cur))
                cur = [BULLET.sub("", l).strip()]
            else:
                cur.append(l.strip())
        if cur:
            items.append(" ".join(cur))
        return ["bullets"] + items
    text = " ".join(l.strip() for l in para)
    return ["text"] + [s.strip() for s in SENT_END.split(text) if s.strip()]


def clean(s):
    s = unicodedata.normalize("NFC", s)
    return re.sub(r"\s+", " ", s).strip()


def keep(src, tgt):
    if not src or not tgt or src == tgt:
        return False
    ws, wt = len(src.split()), len(tgt.split())
    if ws > MAX_WORDS or wt > MAX_WORDS * 1.5:
        return False
    if not (0.5 <= (len(tgt) + 5) / (len(src) + 5) <= 2.2):
        return False
    if "http" in src or "<" in src or "{" in src:
        return False
    if not re.search(r"[A-Za-z]{2}", src):
        return False
    return True


def align(en, tr):
    pairs = []
    es, eb = en
    ts, tb = tr
    pairs.append((es, ts))
    ep, tp = paragraphs(eb), paragraphs(tb)
    if len(ep) != len(tp):
        return pairs
    for a, b in zip(ep, tp):
        ua, ub = units(a), units(b)
        if ua[0] == ub[0] and len(ua) == len(ub):
            pairs.extend(zip(ua[1:], ub[1:]))
        elif len(" ".join(a).split()) <= MAX_WORDS:
            pairs.append((" ".join(l.strip() for l in a), " ".join(l.strip() for l in b)))
    return pairs


def split_of(src):
    h = int(hashlib.sha1(src.encode("utf-8")).hexdigest()[:8], 16) % 1000
    return "test" if h < 40 else "dev" if h < 55 else "train"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data"))
    ap.add_argument("--langs", default="de,fr")
    ap.add_argument("--no-fetch", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lists = os.path.join(args.out, "lists") if args.no_fetch else fetch_lists(args.out)
    en = read_index(lists, "en")
    print("en descriptions:", len(en), file=sys.stderr)
    for lang in args.langs.split(","):
        tr = read_index(lists, lang)
        seen, out = set(), {"train": [], "dev": [], "test": []}
        for md5, desc in tr.items():
            if md5 not in en:
                continue
            for s, t in align(en[md5], desc):
                s, t = clean(s), clean(t)
                if not keep(s, t) or s in seen:
                    continue
                seen.add(s)
                out[split_of(s)].append((s, t))
        for part, rows in out.items():
            rows.sort()
            for side, idx in (("en", 0), (lang, 1)):
                path = os.path.join(args.out, "en-%s.%s.%s" % (lang, part, side))
                with open(path, "w") as f:
                    f.write("".join(r[idx] + "\n" for r in rows))
        print("en-%s: train %d dev %d test %d" % (lang, len(out["train"]), len(out["dev"]),
                                                  len(out["test"])), file=sys.stderr)
    compare_checksums(args.out, args.langs.split(","))


CHECKSUMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.sha256")


def compare_checksums(out, langs):
    """Says whether the files just written are the corpus the shipped models were trained on
    (models/corpus.sha256, `sha256sum` format); DDTP changes as Debian does, so they may not be."""
    want = {}
    if os.path.exists(CHECKSUMS):
        for line in open(CHECKSUMS):
            digest, name = line.split()
            want[name] = digest
    for name in sorted(os.listdir(out)):
        if not name.startswith(tuple("en-%s." % l for l in langs)):
            continue
        with open(os.path.join(out, name), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        verdict = ("same as the shipped models' corpus" if want.get(name) == digest else
                   "DIFFERS from models/corpus.sha256 (DDTP has changed since)" if name in want
                   else "not in models/corpus.sha256")
        print("%s %s: %s" % (digest[:12], name, verdict), file=sys.stderr)


if __name__ == "__main__":
    main()
