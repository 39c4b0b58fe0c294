"""Sources of the parallel corpus: one module per Debian-shipped human translation.

Each module exposes PACKAGES (the Debian packages it reads, besides DDTP's indexes) and
pairs(root, lang) -> iterable of (english, translation) raw text pairs. Alignment is the
module's job; cleaning, filtering, de-duplication and splitting are build_corpus.py's.
"""
