"""The licences of the corpus sources, read from each package's usr/share/doc/<pkg>/copyright
(machine-readable DEP-5 "License:" fields; for a free-form file, the licence names it mentions).
build_corpus.py writes the report to OUT/licences.txt and, for a full build into models/data, to
models/cards/licences.txt (committed), which the card generators read (card_section)."""
import os
import re

from models import MODELS

# why: models/data is not committed; the cards are made from this copy, so a clone without the
# corpus can still make them, and a card's licences can be checked against a file in the repo
CARD_COPY = os.path.join(MODELS, "cards", "licences.txt")
INDEX_NOTE = ("no package: apt's Translation-* indexes; each description and its translation is "
              "under the licence of the package it describes")

KNOWN = re.compile(r"\b(GPL-?[23](?:\+| or later)?|LGPL-?[23](?:\.1)?\+?|GNU (?:Lesser |Library )?"
                   r"General Public License(?:,? [Vv]ersion \d(?:\.\d)?)?|MPL-?2\.0|Mozilla "
                   r"Public License(?: 2\.0)?|Apache-2\.0|BSD-\d-clause|MIT|Unicode-DFS-20\d\d|"
                   r"Unicode(?: License| Terms of Use)|CC-BY-SA-\d\.\d|CC-BY-\d\.\d|CC0-1\.0|"
                   r"Expat|public domain|AGPL-3\.0\+?|ISC\b)", re.I)
# licences a free-form copyright file states by their wording or under a long name, not by a
# short one (freedink-data: its story under the zlib wording, its artwork "Creative Commons 3.0
# Attribution"; openclonk-data: content under "Creative Commons Attribution 3.0" or "CC0")
WORDED = [(re.compile(r"Permission is granted to anyone to use this software for any purpose,\s+"
                      r"including commercial applications, and to alter it", re.I), "zlib"),
          (re.compile(r"Creative Commons (\d\.\d) Attribution(?!-)", re.I), "CC-BY-%s"),
          (re.compile(r"Creative Commons Attribution (\d\.\d)", re.I), "CC-BY-%s"),
          (re.compile(r"Creative Commons\s+CC0", re.I), "CC0-1.0")]


def main_licence(text):
    """The License: of the DEP-5 paragraph "Files: *" (the package as a whole), or None."""
    for para in re.split(r"\n\s*\n", text):
        if re.search(r"^Files:\s*\*\s*$", para, re.M):
            m = re.search(r"^License:\s*(.+)$", para, re.M)
            if m:
                return m.group(1).strip()
    return None


def licences_of(root, package):
    """(licence names, note) for one package, from its copyright file; for a DEP-5 file the
    licence of "Files: *" comes first, marked (main)."""
    doc = os.path.join(root, "usr/share/doc", package)
    path = os.path.join(doc, "copyright")
    if not os.path.isfile(path):
        target = os.readlink(doc) if os.path.islink(doc) else None
        return [], ("no copyright file (doc directory links to %s)" % target if target
                    else "no copyright file in the package")
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = []
    dep5 = text.startswith("Format:")
    # why: [ \t], not \s: an empty "License:" line must not reach into the next stanza
    for m in re.finditer(r"^License:[ \t]*(\S.*)$", text if dep5 else "", re.M):
        name = m.group(1).strip()
        if name not in found:
            found.append(name)
    main = main_licence(text) if dep5 else None
    if main:
        found = ["%s (main)" % main] + [x for x in found if x != main]
    if not found:
        for m in KNOWN.finditer(text):
            name = re.sub(r"\s+", " ", m.group(1))
            if name.lower() not in [x.lower() for x in found]:
                found.append(name)
        for pattern, name in WORDED:
            m = pattern.search(text)
            worded = m and (name % m.groups() if m.groups() else name)
            if worded and worded not in found:
                found.append(worded)
    return found, "usr/share/doc/%s/copyright" % package


def report(root, sources):
    """sources: [(source name, [packages])]; a text report, one block per source."""
    lines = ["# Licences of the corpus sources, from each package's copyright file.",
             "# Written by models/corpus/build_corpus.py (models/corpus/sources/licences.py); "
             "do not edit.", ""]
    for name, packages in sources:
        lines.append("%s:" % name)
        if not packages:
            lines.append("  (%s)" % INDEX_NOTE)
        for package in sorted(set(packages)):
            found, note = licences_of(root, package)
            lines.append("  %s: %s (%s)" % (package, "; ".join(found) or "not stated", note))
        lines.append("")
    return "\n".join(lines)


def read_report(path):
    """{source: [(package, licences, copyright file)]} from a report() file; a source without
    packages has one entry (None, its note, None)."""
    sources, current = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if not line.startswith(" "):
            current = sources.setdefault(line.rstrip(":"), [])
        elif line.startswith("  (") and line.endswith(")"):
            current.append((None, line[3:-1], None))
        else:
            package, rest = line.strip().split(": ", 1)
            found, _, note = rest.rpartition(" (")
            current.append((package, found, note[:-1]))
    return sources


def card_section(sources, path=CARD_COPY):
    """The "Licences of the training data" section of a model card (markdown lines) for the
    sources [(source name in the report, its title)] the model was trained on."""
    if not os.path.isfile(path):
        raise SystemExit("licences: %s is missing; models/corpus/build_corpus.py writes it" % path)
    report = read_report(path)
    rel = os.path.relpath(path, os.path.dirname(os.path.dirname(CARD_COPY)))
    out = ["## Licences of the training data\n",
           "The texts this model learnt from, by source, with the licences each package's Debian "
           "copyright file names, read by `models/corpus/build_corpus.py` "
           "(`models/corpus/sources/licences.py`) "
           "and kept in `models/%s`. For a machine-readable copyright file the licence of its "
           "`Files: *` paragraph (the package as a whole) comes first, marked (main); the others "
           "are licences it names for some of the package's files, which need not be the "
           "translated texts.\n" % rel]
    for name, title in sources:
        if name not in report:
            raise SystemExit("licences: source '%s' is not in %s; rebuild the corpus"
                             % (name, path))
        out.append("**%s** (`%s`):\n" % (title, name))
        for package, found, note in report[name]:
            if package is None:
                out.append("- %s." % found.replace("Translation-*", "`Translation-*`"))
            elif note.startswith("usr/share/doc/"):
                out.append("- `%s`: %s (`/%s`)" % (package, found or "not stated", note))
            else:
                out.append("- `%s`: %s (%s)" % (package, found or "not stated", note))
        out.append("")
    return out
