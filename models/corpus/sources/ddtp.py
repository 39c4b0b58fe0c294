"""DDTP: Debian's package-description translations (Translation-{en,de,fr} indexes).

Fetched with a private apt config, joined on Description-md5, aligned by paragraph, then by
bullet items or sentences when both sides have the same structure; other paragraphs are dropped,
not guessed.
"""
import os
import re
import subprocess

PACKAGES = {}  # why: DDTP comes from apt's index files, not from packages
MAX_WORDS = 60
APT_CONF = """#clear Acquire::Languages;
Acquire::Languages { "en"; "de"; "fr"; "es"; };
"""


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




def pairs(root, lang, lists):
    en, tr = read_index(lists, "en"), read_index(lists, lang)
    for md5, desc in tr.items():  # why: index order, so the first of duplicates is stable
        if md5 in en:
            yield from align(en[md5], desc)
