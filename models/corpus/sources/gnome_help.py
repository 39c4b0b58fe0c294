"""GNOME's Mallard help (gnome-user-docs and the help of GNOME applications): pages under
usr/share/help/C/<doc>/ and their translations under usr/share/help/<lang>/<doc>/.

Translated pages are generated from the originals (itstool), so block elements come in the same
order: aligned by position among <title>, <desc>, <p> and <td> blocks when both pages have the same
number of them; pages whose structure differs are dropped.
"""
import os
import xml.etree.ElementTree as ET

from .common import clean

PACKAGES = {"all": ["gnome-user-docs", "evolution-common", "gnome-calculator", "gnome-clocks",
                    "rhythmbox-data", "totem-common"]}
HELP = "usr/share/help"
MAL = "{http://projectmallard.org/1.0/}"
BLOCKS = {MAL + t for t in ("title", "desc", "p", "td")}
SKIP = {MAL + "info", MAL + "credit", MAL + "license", MAL + "code", MAL + "screen"}


def blocks(path, kinds=BLOCKS, skip=SKIP):
    """The text blocks of a help page in order: the innermost elements whose tag is in `kinds`,
    none inside a `skip` element; None when the page does not parse (pastimes.py reads
    AisleRiot's DocBook pages with its own tags)."""
    try:
        tree = ET.parse(path)
    except (ET.ParseError, OSError):
        return None
    out = []

    def walk(e):
        if e.tag in skip:
            return
        if e.tag in kinds and not any(c.tag in kinds for c in e.iter() if c is not e):
            out.append(clean("".join(e.itertext())))
            return
        for c in e:
            walk(c)
    walk(tree.getroot())
    return out


def pairs(root, lang):
    base = os.path.join(root, HELP)
    if not os.path.isdir(os.path.join(base, "C")):
        return
    for doc in sorted(os.listdir(os.path.join(base, "C"))):
        src_dir, tr_dir = os.path.join(base, "C", doc), os.path.join(base, lang, doc)
        if not os.path.isdir(tr_dir):
            continue
        for name in sorted(os.listdir(src_dir)):
            if not name.endswith(".page") or not os.path.exists(os.path.join(tr_dir, name)):
                continue
            en, tr = blocks(os.path.join(src_dir, name)), blocks(os.path.join(tr_dir, name))
            if en and tr and len(en) == len(tr):
                yield from zip(en, tr)
