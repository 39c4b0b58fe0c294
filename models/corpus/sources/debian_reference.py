"""The Debian Reference (debian-reference-en / -de / -fr): one HTML file per chapter and
language, translated with po4a, so paragraphs come in the same order.

Aligned by position among <p> and <title>-like blocks per chapter when both chapters have the same
number of them; chapters whose structure differs are dropped.
"""
import glob
import os
import re

from .common import strip_markup

PACKAGES = {"en": ["debian-reference-en"],
            "de": ["debian-reference-de"], "fr": ["debian-reference-fr"]}
DOC = "usr/share/debian-reference"
BLOCK = re.compile(r"<(p|h[1-6]|li)\b[^>]*>(.*?)</\1>", re.S)


def blocks(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [strip_markup(b) for _, b in BLOCK.findall(f.read())]


def pairs(root, lang):
    for en_path in sorted(glob.glob(os.path.join(root, DOC, "*.en.html"))):
        tr_path = en_path[:-len(".en.html")] + ".%s.html" % lang
        if not os.path.exists(tr_path):
            continue
        en, tr = blocks(en_path), blocks(tr_path)
        if len(en) == len(tr):
            yield from zip(en, tr)
