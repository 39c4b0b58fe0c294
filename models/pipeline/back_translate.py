"""Back-translation: more training pairs for the directions into English, made with the model.

The corpus has English sentences that one language pair has and the other lacks: the Ding and
FreeDict example sentences, the dictionary nouns and verbs in short sentences and the role-playing
games' lines are English-German only (~120,000 sentences of the everyday sources), GCompris' words
and the French verbs English-French only (~12,000). The model translates each such English
sentence into the other language, and the pair (the model's translation, the human-written English)
trains that language → English: the source side is machine-made, the side the decoder learns to
write is real. The directions out of English get nothing from it (their target would be the
model's own output).

Only the everyday sources are read (models/pipeline/everyday.mix, less the synthetic control pairs),
never an English sentence that stands in any source's dev or test split or in the held-out checks,
and never one the other pair already has a human translation of. A translation is dropped when it
is empty, the English unchanged, of a length far from the English's, holds a repeated run of words
(the greedy loop a weak model falls into) or U+FFFD, or when the engine refused the English as
longer than the model's positions.

Writes OUT/<src>-en.backtranslated.<src> (machine-made) and .en (the English), pairs in
the corpus' order, and OUT/manifest.json (the model's sha256, the counts, what was dropped and why).
A run reads it with --mix backtranslated=N (models/pipeline/training_data.py: a direction's own
files, read by that direction only), each machine-made source starting with bos (train.py), an id
no typed text becomes: tagged back-translation, so the model can tell such input from human text.

Usage (repository root, the corpus built, build/heed built):
  /usr/bin/python3 -m models.pipeline.back_translate --model models/multi.heed [--jobs 2]
"""
import argparse
import glob
import hashlib
import json
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from models import ROOT
from models.pipeline import evaluate
from models.pipeline.training_data import BACKTRANSLATED, parse_mix

# why: the everyday sources, as everyday.mix names them; "controls" are synthetic pairs
EVERYDAY_MIX = os.path.join(ROOT, "models", "pipeline", "everyday.mix")
SYNTHETIC = {"controls", "copy"}
OTHER = {"de": "fr", "fr": "de"}  # the language whose pair lacks the English sentence
TOO_LONG = re.compile(r"error: line (\d+): text is too long")
REPEAT = re.compile(r"\b(\w+(?: \w+){0,2})(?: \1\b){2,}", re.UNICODE)


def everyday_sources(path=EVERYDAY_MIX):
    with open(path) as f:
        return [n for n in parse_mix(f.read()) if n not in SYNTHETIC]


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def held_english(data):
    """Every English sentence of a dev or test split (every source, the held-out checks too)."""
    held = set()
    for path in glob.glob(os.path.join(data, "*", "en-*.dev.en")) + glob.glob(
            os.path.join(data, "*", "en-*.test.en")):
        held.update(read_lines(path))
    return held


def english_to_translate(data, lang, sources):
    """English training sentences of the everyday sources that pair en-LANG has and pair
    en-OTHER lacks (a human translation beats a machine-made one), first occurrence kept, in the
    sources' order: what back-translation into OTHER adds for the direction OTHER → en."""
    other = OTHER[lang]
    have = set(read_lines(os.path.join(data, "all", "en-%s.train.en" % other)))
    held = held_english(data)
    seen, out = set(), []
    for name in sources:
        for s in read_lines(os.path.join(data, name, "en-%s.train.en" % lang)):
            if s and s not in have and s not in held and s not in seen:
                seen.add(s)
                out.append(s)
    return out


def why_dropped(english, translation):
    """None when the translation is kept, else the reason it is not."""
    if translation is None:
        return "too long"
    if not translation.strip():
        return "empty"
    if translation.strip() == english.strip():
        return "unchanged"
    ratio = len(translation) / max(1, len(english))
    if len(english) >= 12 and not 0.5 <= ratio <= 2.0:
        return "length"
    if REPEAT.search(translation) and not REPEAT.search(english):
        return "repeats"
    if "\ufffd" in translation:
        return "U+FFFD"
    return None


def translate(heed, model, lang, sentences, jobs):
    """The engine's greedy translations, one per sentence, in jobs processes side by side."""
    def run(chunk):
        p = evaluate.engine_process(heed, model, chunk, to=lang)
        lines, _ = evaluate.text_and_ids(p.stdout, len(chunk))
        # why: a line over the model's 249 positions is refused by name (an empty line out, exit
        # 1) and the rest translated: None for it, anything else stops the run
        long = {int(n) - 1 for n in TOO_LONG.findall(p.stderr)}
        other = [l for l in p.stderr.splitlines() if "error:" in l and "too long" not in l]
        if (p.returncode != 0 and (other or not long)) or len(lines) != len(chunk):
            raise RuntimeError("heed translate: exit %d, %d lines for %d: %s" % (
                p.returncode, len(lines), len(chunk), p.stderr.strip()[-300:]))
        return [None if i in long else line for i, line in enumerate(lines)]

    chunks = [sentences[i::jobs] for i in range(jobs)]
    with ThreadPoolExecutor(jobs) as pool:
        outs = list(pool.map(run, chunks))
    result = [None] * len(sentences)
    for j, lines in enumerate(outs):
        result[j::jobs] = lines
    return result


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", default=os.path.join(ROOT, "models", "data"))
    ap.add_argument("--out", help="default: DATA/backtranslated")
    ap.add_argument("--heed", default=os.path.join(ROOT, "build", "heed"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="at most N sentences a direction (a try)")
    ap.add_argument("--directions", default="fr-en,de-en", help="of fr-en and de-en, which")
    args = ap.parse_args(argv)
    out = args.out or os.path.join(args.data, "backtranslated")
    if not os.path.isdir(os.path.join(args.data, "all")):
        sys.exit("back_translate: no %s/all: build the corpus first" % args.data)
    os.makedirs(out, exist_ok=True)
    sources = everyday_sources()
    manifest = {"model": os.path.basename(args.model), "model_sha256": sha256(args.model),
                "sources": sources, "directions": {}}
    old = os.path.join(out, "manifest.json")
    if os.path.exists(old):  # why: --directions one at a time: keep the other's counts
        with open(old) as f:
            before = json.load(f)
        if all(before.get(k) == manifest[k] for k in ("model_sha256", "sources")):
            manifest["directions"] = before.get("directions", {})
    for lang in ("de", "fr"):  # en-de's English → French: fr-en pairs; en-fr's → German: de-en
        other = OTHER[lang]
        if "%s-en" % other not in args.directions.split(","):
            continue
        english = english_to_translate(args.data, lang, sources)
        if args.limit:
            english = english[:args.limit]
        t0 = time.time()
        machine = translate(args.heed, args.model, other, english, args.jobs)
        kept, dropped = [], {}
        for e, m in zip(english, machine):
            why = why_dropped(e, m)
            if why:
                dropped[why] = dropped.get(why, 0) + 1
            else:
                kept.append((m, e))
        direction = "%s-en" % other
        for side, lang_code in ((0, other), (1, "en")):
            with open(os.path.join(out, direction + BACKTRANSLATED + lang_code), "w") as f:
                f.write("".join(p[side] + "\n" for p in kept))
        manifest["directions"][direction] = {"english": len(english), "kept": len(kept),
                                             "dropped": dropped,
                                             "seconds": round(time.time() - t0)}
        print("%s: %d English sentences, %d pairs kept, dropped %s (%.0f s)" % (
            direction, len(english), len(kept), dropped, time.time() - t0), file=sys.stderr)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
