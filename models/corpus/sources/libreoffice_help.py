"""LibreOffice's help (libreoffice-help-en-us / -de / -fr): HTML pages with the same file names
in every language, whose paragraphs and headings carry the same id (par_id…, hd_id…).

Aligned by (file, id); an id that occurs more than once in a file is ambiguous and dropped.
"""
import os
import re

from .common import strip_markup

PACKAGES = {"en": ["libreoffice-help-en-us"], "de": ["libreoffice-help-de"],
            "fr": ["libreoffice-help-fr"]}
HELP = "usr/share/libreoffice/help"
BLOCK = re.compile(r'<(p|h[1-6]|td|li)\b[^>]*\bid="([^"]+)"[^>]*>(.*?)</\1>', re.S)


def blocks(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        found = {}
        for _, ident, body in BLOCK.findall(f.read()):
            found.setdefault(ident, []).append(strip_markup(body))
    return {k: v[0] for k, v in found.items() if len(v) == 1}


def pairs(root, lang):
    en_dir, tr_dir = os.path.join(root, HELP, "en-US"), os.path.join(root, HELP, lang)
    for dirpath, _, files in sorted(os.walk(en_dir)):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), en_dir)
            other = os.path.join(tr_dir, rel)
            if not os.path.exists(other):
                continue
            en, tr = blocks(os.path.join(dirpath, name)), blocks(other)
            for ident in sorted(en):
                if ident in tr:
                    yield en[ident], tr[ident]
