"""The licences of the corpus sources, read from each package's usr/share/doc/<pkg>/copyright
(machine-readable DEP-5 "License:" fields; for a free-form file, the licence names it mentions).
build_corpus.py writes the report to OUT/licences.txt, for the model cards (issue #28)."""
import os
import re

KNOWN = re.compile(r"\b(GPL-?[23](?:\+| or later)?|LGPL-?[23](?:\.1)?\+?|GNU (?:Lesser |Library )?"
                   r"General Public License(?:,? [Vv]ersion \d(?:\.\d)?)?|MPL-?2\.0|Mozilla "
                   r"Public License(?: 2\.0)?|Apache-2\.0|BSD-\d-clause|MIT|Unicode-DFS-20\d\d|"
                   r"Unicode(?: License| Terms of Use)|CC-BY-SA-\d\.\d|CC-BY-\d\.\d|CC0-1\.0|"
                   r"Expat|public domain|AGPL-3\.0\+?)", re.I)


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
    for m in re.finditer(r"^License:\s*(.+)$", text if dep5 else "", re.M):
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
    return found, "usr/share/doc/%s/copyright" % package


def report(root, sources):
    """sources: [(source name, [packages])]; a text report, one block per source."""
    lines = ["# Licences of the corpus sources, from each package's copyright file.",
             "# DDTP (package descriptions) comes from apt's Translation-* indexes: each",
             "# description and its translation is under the licence of the package it describes.",
             ""]
    for name, packages in sources:
        lines.append("%s:" % name)
        if not packages:
            lines.append("  (no package: apt index files)")
        for package in sorted(set(packages)):
            found, note = licences_of(root, package)
            lines.append("  %s: %s (%s)" % (package, "; ".join(found) or "not stated", note))
        lines.append("")
    return "\n".join(lines)
