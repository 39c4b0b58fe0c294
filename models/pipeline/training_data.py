"""Which files a training run reads: per direction, the "all" training split, the --mix
sources again as often as asked, and the dev splits of every source (models/corpus/ writes them).
No torch here, so tests run where the training packages are not installed."""
import glob
import os

BACKTRANSLATED = ".backtranslated."  # a direction's own files: SRC-TGT.backtranslated.LANG


def parse_mix(text):
    """--mix "ding_examples=2,games=3" → {"ding_examples": 2, "games": 3}: how many times in all
    each named source's training pairs are read (the "all" split holds each once)."""
    mix = {}
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        name, eq, times = item.partition("=")
        if not eq or not name or not times.isdigit() or int(times) < 1:
            raise ValueError("--mix: %r is not SOURCE=TIMES (TIMES a whole number >= 1)" % item)
        if name == "all" or name in mix:  # why: corpus_of refuses the held-out checks (no train)
            raise ValueError("--mix: %r cannot be mixed in (given twice, or not a source)" % name)
        mix[name] = int(times)
    return mix


def corpus_of(args):
    """[(direction, src_lang, tgt_lang, train file prefix, [dev file prefixes], [extra train
    prefixes])]: one entry for --pair (DDTP, the shipped single-direction models) or one per
    --directions entry (every source's train split, the --mix sources' again as often as asked,
    and a few dev sentences from each source)."""
    if args.pair:
        src, tgt = args.pair.split("-")
        base = os.path.join(args.data, "ddtp", args.pair)
        return [(args.pair, src, tgt, base + ".train.", [base + ".dev."], [])]
    mix, out = parse_mix(args.mix), []
    for d in args.directions.split(","):
        src, tgt = d.split("-")
        pair = "en-" + (tgt if src == "en" else src)
        devs = sorted(glob.glob(os.path.join(args.data, "*", pair + ".dev.en")))
        extra = []
        for name, times in sorted(mix.items()):
            own = os.path.join(args.data, name, d + BACKTRANSLATED)
            if os.path.exists(own + src) and os.path.getsize(own + src) > 0:
                # why: a direction's own pairs (back-translation: a machine-made source, a human
                # target), which the "all" split lacks: read TIMES times, by it alone
                extra += [own] * times
                continue
            prefix = os.path.join(args.data, name, pair + ".train.")
            if not os.path.exists(prefix + "en") or os.path.getsize(prefix + "en") == 0:
                if not glob.glob(os.path.join(args.data, name, "*.train.en")) and not glob.glob(
                        os.path.join(args.data, name, "*" + BACKTRANSLATED + "en")):
                    raise ValueError("--mix: no source %r with training pairs in %s (the held-out"
                                     " checks have none)" % (name, args.data))
                continue  # why: a source of one language pair only (Ding has no French)
            extra += [prefix] * (times - 1)
        out.append((d, src, tgt, os.path.join(args.data, "all", pair + ".train."),
                    [p[:-2] for p in devs if "/all/" not in p], extra))
    return out
