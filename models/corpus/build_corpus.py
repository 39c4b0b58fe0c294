"""Builds the parallel corpus from human translations that Debian ships.

What it is: download the packages each source in models/corpus/sources/ names (apt-get download,
unpacked with dpkg -x, nothing installed), let each source align its English/German and English/French
pairs, then clean, filter, de-duplicate across sources and split train/dev/test by a hash of the
English side, so a sentence lands in the same split whatever source it came from. Prints, per
source and language, how many pairs were kept and how many dropped, and why; then one checksum
line per file written, compared with models/corpus.sha256.
What it is not: a general aligner; pairs whose structure differs are dropped, not guessed.

Reserved for evaluation, never downloaded here: developers-reference, maint-guide,
debian-handbook, tuxpaint-stamps-default.

Usage: /usr/bin/python3 -m models.corpus.build_corpus [--out models/data] [--langs de,fr]
                                                     [--no-fetch]
Writes OUT/<source>/en-<lang>.<split>.<en|lang>, OUT/copy/en-<lang>.train.* (synthetic copy pairs
made from the train split only, sources/copy_pairs.py), OUT/controls/en-<lang>.train.* (synthetic
pairs with a control string such as "<2fr>" typed in, the same way), OUT/all/en-<lang>.train.*
(every source's train split, everyday sources repeated REPEAT times, and the synthetic pairs: the
training data), OUT/everyday/en-<lang>.test.* (the held-out everyday check),
OUT/copy_check/en-<lang>.test.* and OUT/control_check/en-<lang>.test.* (the held-out copy and
control checks: test pairs with a string to copy put in, and in .copy each pair's kind or place
and string), OUT/licences.txt (each source's
packages and the licences their copyright files name; a full build into models/data also writes
it to models/cards/licences.txt, the committed copy the model cards are made from) and
OUT/packages.txt (versions).
"""
import argparse
import collections
import hashlib
import os
import re
import subprocess
import sys

from models import MODELS
from models.corpus.sources import (adventures, cldr, ddtp, debian_reference, ding, ding_verbs,
                                   everyday_verbs, freedict, games, gcompris_words,
                                   gettext_catalogs, gnome_help, libreoffice_help, manpages,
                                   pastimes, rpgs, strategy, ui, verbs_fr, wesnoth, zero_ad)
from models.corpus.sources import copy_pairs, licences
from models.corpus.sources.common import clean

# Order matters: a pair whose English side an earlier source already gave is a duplicate.
SOURCES = [("ddtp", ddtp), ("libreoffice_help", libreoffice_help), ("gnome_help", gnome_help),
           ("debian_reference", debian_reference), ("gettext", gettext_catalogs),
           ("wesnoth", wesnoth), ("freedict_examples", freedict.Examples),
           ("freedict_words", freedict.Words), ("ding_examples", ding.Examples),
           ("ding_nouns", ding.Nouns), ("ding_verbs", ding_verbs),
           ("verbs_fr", verbs_fr), ("everyday_verbs", everyday_verbs),
           ("freedict_nouns", freedict.Nouns), ("cldr", cldr),
           ("gcompris_words", gcompris_words),
           ("games", games), ("libreoffice_ui", ui.LibreOffice), ("mozilla", ui.Mozilla),
           ("manpages", manpages), ("rpgs", rpgs), ("strategy", strategy),
           ("adventures", adventures), ("pastimes", pastimes),
           ("zero_ad", zero_ad)]
# Everyday sources are short and few beside documentation: their train split is repeated this many
# times in all/ (the file train.py reads, every line once an epoch), so training sees them. The
# source's own files are written once.
REPEAT = {"de": {"ding_examples": 2, "ding_nouns": 1, "cldr": 3, "gcompris_words": 2},
          "fr": {"freedict_nouns": 3, "cldr": 3, "gcompris_words": 2}}
COPY_SHARE = 0.04  # synthetic copy pairs, as a share of the train split (sources/copy_pairs.py)
COPY_CHECK_PER_KIND = 50  # the held-out copy check's pairs per kind (from the test splits)
CONTROL_SHARE = 0.01  # synthetic pairs with a control string typed in (sources/copy_pairs.py)
CONTROL_CHECK_PER_STRING = 30  # the held-out control check's pairs per control string
RESERVED = {"developers-reference", "maint-guide", "debian-handbook", "tuxpaint-stamps-default"}
MAX_WORDS = 60  # why: long pairs cost quadratic attention and rarely align cleanly
CHECKSUMS = os.path.join(MODELS, "corpus.sha256")
DEFAULT_OUT = os.path.join(MODELS, "data")


def packages_of(module, langs):
    return [p for key in ["all", "en"] + langs for p in module.PACKAGES.get(key, [])]


def fetch_packages(out, names):
    """Downloads and unpacks (dpkg -x, no install) every package into OUT/root; returns the
    root and a {package: version} manifest."""
    debs, root = os.path.join(out, "debs"), os.path.join(out, "root")
    os.makedirs(debs, exist_ok=True)
    assert not RESERVED & set(names), "a reserved evaluation package is in a source's list"
    have = {f.split("_")[0] for f in os.listdir(debs) if f.endswith(".deb")}
    missing = sorted(set(names) - have)
    if missing:
        subprocess.run(["apt-get", "download", "-q"] + missing, cwd=debs, check=True)
    versions = {}
    for f in sorted(os.listdir(debs)):
        name = f.split("_")[0]
        if f.endswith(".deb") and name in names:
            stamp = os.path.join(root, ".unpacked", f)
            if not os.path.exists(stamp):
                subprocess.run(["dpkg", "-x", os.path.join(debs, f), root], check=True)
                os.makedirs(os.path.dirname(stamp), exist_ok=True)
                open(stamp, "w").close()
            versions[name] = f.split("_")[1].replace("%3a", ":")
    return root, versions


def verdict(src, tgt):
    """None when the pair is kept, else why it is dropped."""
    if not src or not tgt:
        return "empty side"
    if src == tgt:
        return "identical sides"
    if len(src.split()) > MAX_WORDS or len(tgt.split()) > MAX_WORDS * 1.5:
        return "too long"
    if not 0.5 <= (len(tgt) + 5) / (len(src) + 5) <= 2.2:
        return "length ratio"
    if "http" in src or "<" in src or "{" in src:
        return "markup or URL"
    if not re.search(r"[A-Za-z]{2}", src):
        return "no English word"
    return None


def split_of(src):
    h = int(hashlib.sha1(src.encode("utf-8")).hexdigest()[:8], 16) % 1000
    return "test" if h < 40 else "dev" if h < 55 else "train"


EVERYDAY = re.compile(r"^[A-Z\"'][^_*#=|]{6,}[.?!\"']$")


def everyday_pairs(root, lang):
    """Short dialogue lines of the held-out Wesnoth campaign: 3 to 25 words, one utterance."""
    out, seen = [], set()
    for s, t in wesnoth.everyday(root, lang):
        s, t = clean(s), clean(t)
        if (EVERYDAY.match(s) and 3 <= len(s.split()) <= 25 and verdict(s, t) is None
                and s not in seen):
            seen.add(s)
            out.append((s, t))
    return sorted(out)


def write_pairs(folder, name, lang, rows):
    os.makedirs(folder, exist_ok=True)
    for side, idx in (("en", 0), (lang, 1)):
        with open(os.path.join(folder, "%s.%s" % (name, side)), "w") as f:
            f.write("".join(r[idx] + "\n" for r in rows))


def build(out, root, lists, lang):
    pair = "en-" + lang
    everyday = everyday_pairs(root, lang)
    write_pairs(os.path.join(out, "everyday"), pair + ".test", lang, everyday)
    held = {s for s, _ in everyday}
    print("%s everyday (wesnoth-httt, held out): %d pairs" % (pair, len(everyday)), file=sys.stderr)
    seen, train, originals, tests = set(), [], [], []
    for name, module in SOURCES:
        rows = {"train": [], "dev": [], "test": []}
        dropped = collections.Counter()
        found = (module.pairs(root, lang, lists) if module is ddtp
                 else module.pairs(root, lang, originals) if hasattr(module, "READS_TEXT")
                 else module.pairs(root, lang))
        for s, t in found:
            s, t = clean(s), clean(t)
            why = verdict(s, t)
            why = why or ("duplicate" if s in seen else "held out (everyday)" if s in held else None)
            if why:
                dropped[why] += 1
                continue
            seen.add(s)
            rows[split_of(s)].append((s, t))
        for part, r in rows.items():
            r.sort()
            write_pairs(os.path.join(out, name), "%s.%s" % (pair, part), lang, r)
        train += rows["train"] * REPEAT.get(lang, {}).get(name, 1)
        tests += rows["test"]
        originals += rows["train"]
        kept = sum(len(r) for r in rows.values())
        print("%s %-17s kept %7d (train %d dev %d test %d), dropped %d: %s" % (
            pair, name, kept, len(rows["train"]), len(rows["dev"]), len(rows["test"]),
            sum(dropped.values()), ", ".join("%s %d" % kv for kv in dropped.most_common())),
            file=sys.stderr)
    synthetic = copy_pairs.make(originals, lang, int(len(originals) * COPY_SHARE))
    controls = [(s, t) for s, t, _, _ in copy_pairs.typed_controls(
        originals, lang, int(len(originals) * CONTROL_SHARE))]
    for name, rows in (("copy", synthetic), ("controls", controls)):
        write_pairs(os.path.join(out, name), pair + ".train", lang, rows)
        print("%s %-17s kept %7d (train only, from %d train pairs)" % (
            pair, name + " (synthetic)", len(rows), len(originals)), file=sys.stderr)
        train += rows
    for name, check in (("copy_check", copy_pairs.check(tests, lang, COPY_CHECK_PER_KIND)),
                        ("control_check", copy_pairs.control_check(tests, lang,
                                                                   CONTROL_CHECK_PER_STRING))):
        folder = os.path.join(out, name)
        write_pairs(folder, pair + ".test", lang, [(s, t) for s, t, _, _ in check])
        with open(os.path.join(folder, pair + ".test.copy"), "w") as f:
            f.write("".join("%s\t%s\n" % (kind, new) for _, _, kind, new in check))
        print("%s %-17s kept %7d (test only, from %d test pairs)" % (
            pair, name.replace("_", " "), len(check), len(tests)), file=sys.stderr)
    write_pairs(os.path.join(out, "all"), pair + ".train", lang, train)
    print("%s all sources: train %d (%d distinct pairs before repeats and copies)" % (
        pair, len(train), len(originals)), file=sys.stderr)


def compare_checksums(out):
    """Says, per file written, whether it is the corpus the shipped models were trained on
    (models/corpus.sha256, `sha256sum` format); Debian's data changes with point releases."""
    want = {}
    if os.path.exists(CHECKSUMS):
        for line in open(CHECKSUMS):
            digest, name = line.split()
            want[name] = digest
    for folder in sorted(os.listdir(out)):
        if folder in ("debs", "root", "lists") or not os.path.isdir(os.path.join(out, folder)):
            continue
        for name in sorted(os.listdir(os.path.join(out, folder))):
            rel = folder + "/" + name
            with open(os.path.join(out, rel), "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            state = ("same as models/corpus.sha256" if want.get(rel) == digest else
                     "DIFFERS from models/corpus.sha256" if rel in want
                     else "not in models/corpus.sha256")
            print("%s %s: %s" % (digest[:12], rel, state), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--langs", default="de,fr")
    ap.add_argument("--no-fetch", action="store_true", help="reuse OUT/lists and OUT/debs")
    args = ap.parse_args()
    langs = args.langs.split(",")
    os.makedirs(args.out, exist_ok=True)
    lists = os.path.join(args.out, "lists") if args.no_fetch else ddtp.fetch_lists(args.out)
    names = sorted({p for _, m in SOURCES for p in packages_of(m, langs)})
    root, versions = fetch_packages(args.out, names)
    with open(os.path.join(args.out, "packages.txt"), "w") as f:
        f.write("".join("%s %s\n" % kv for kv in sorted(versions.items())))
    for lang in langs:
        build(args.out, root, lists, lang)
    text = licences.report(root, [(n, packages_of(m, langs)) for n, m in SOURCES])
    with open(os.path.join(args.out, "licences.txt"), "w") as f:
        f.write(text)
    # why: only a full build into models/data speaks for the shipped models' cards
    if (os.path.realpath(args.out) == os.path.realpath(DEFAULT_OUT)
            and sorted(langs) == ["de", "fr"]):
        with open(licences.CARD_COPY, "w") as f:
            f.write(text)
        print("licences: %s written" % os.path.relpath(licences.CARD_COPY), file=sys.stderr)
    compare_checksums(args.out)


if __name__ == "__main__":
    main()
