"""Evaluates a Heed model on a held-out split with the C++ engine (build/heed), and checks that
PyTorch, given the same stored weights, produces the same translations.

What it is: BLEU (13a, corpus) and chrF (char 6-grams, beta 2) from models/pipeline/metrics.py, the
copy-the-source baseline, words/s of the CLI, and the PyTorch/C++ agreement rate, written to a
JSON report the model card quotes.
What it is not: training; PyTorch is only needed for --pytorch (the agreement check).

Usage:
  /usr/bin/python3 -m models.pipeline.evaluate --model models/en-fr.heed --pair en-fr \
      [--source ddtp] [--split test] [--to LANG] [--pytorch N] [--beams 1 4] [--limit N] \
      [--shortlist] --report models/cards/en-fr.eval.json
  /usr/bin/python3 -m models.pipeline.evaluate --model models/multi.heed --matrix --limit 300 \
      --report models/cards/multi.eval.json
"""
import argparse
import json
import os
import subprocess
import sys
import time

from models import MODELS, ROOT
from models.heed_file import HeedFile
from models.pipeline.metrics import corpus_bleu, corpus_chrf


def read(path, limit=0):
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    return lines[:limit] if limit else lines


def engine_process(heed, model, sources, beam=1, to=None, shortlist=False, copy_guard=True):
    """`heed translate --ids` over the sources, one line each; returns the finished process."""
    # why: --no-split: one line is one sentence, as PyTorch and the references see it
    cmd = [heed, "translate", "-m", model, "--no-split", "--beam", str(beam), "--ids"] + (
        ["--to", to] if to else []) + (["--shortlist"] if shortlist else []) + (
        [] if copy_guard else ["--no-copy-guard"])
    return subprocess.run(cmd, input="\n".join(sources) + "\n", capture_output=True, text=True)


def text_and_ids(stdout, count):
    """The first count lines of `heed translate --ids` output as (texts, id lists)."""
    texts, ids = [], []
    for line in stdout.split("\n")[:count]:
        text, _, id_text = line.rpartition("\t") if "\t" in line else (line, "", "")
        texts.append(text)
        ids.append([int(x) for x in id_text.split()])
    return texts, ids


def run_engine(heed, model, sources, beam, to=None, shortlist=False, copy_guard=True):
    t0 = time.time()
    out = engine_process(heed, model, sources, beam, to, shortlist, copy_guard)
    secs = time.time() - t0
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
    texts, ids = text_and_ids(out.stdout, len(sources))
    return texts, ids, secs


def pytorch_greedy(model_path, sources, to=None, batch=64):
    """Greedy decoding in PyTorch (nn.Transformer) with the weights exactly as stored in the
    model file; returns (ids, top-2 logit margin per step) per sentence."""
    from models.pipeline import engine_tokenizer
    from models.pipeline.heed_torch import greedy, read_heed

    model, tokenizer, meta = read_heed(model_path)
    sp = engine_tokenizer.processor(model_proto=tokenizer)
    c = model.cfg
    start = c["decoder_start_id"]
    if to:
        start = sp.piece_to_id(json.loads(meta["heed.languages"])["target_tokens"][to])
    results = []
    for b in range(0, len(sources), batch):
        srcs = [sp.encode(s) + [c["eos_id"]] for s in sources[b:b + batch]]
        caps = [min(2 * len(s) + 10, c["max_positions"]) for s in srcs]
        ids, margins = greedy(model, srcs, caps, [start] * len(srcs))
        results += list(zip(ids, margins))
    return results


def read_split(args, pair, source):
    """(sources, references, strings) of a split, spread evenly over it with --limit; strings
    are the [(kind, string)] of its .copy file (the held-out copy check), else None."""
    src_lang, tgt_lang = pair.split("-")
    files = "en-" + (tgt_lang if src_lang == "en" else src_lang)
    base = os.path.join(args.data, source, "%s.%s." % (files, args.split))
    sources, refs = read(base + src_lang, 0), read(base + tgt_lang, 0)
    strings = None
    if os.path.exists(base + "copy"):
        strings = [tuple(line.split("\t", 1)) for line in read(base + "copy")]
        if len(strings) != len(sources):
            raise SystemExit("evaluate: %scopy has %d lines for %d pairs" % (
                base, len(strings), len(sources)))
    if args.limit and len(sources) > args.limit:
        # why: the splits are sorted, so take the sentences spread evenly, not the first ones
        picks = [i * len(sources) // args.limit for i in range(args.limit)]
        sources, refs = [sources[i] for i in picks], [refs[i] for i in picks]
        strings = strings and [strings[i] for i in picks]
    return sources, refs, strings


def copied(hyps, strings):
    """{kind: share of translations that hold their string unchanged}, and "all"."""
    by_kind = {}
    for hyp, (kind, string) in zip(hyps, strings):
        by_kind.setdefault(kind, []).append(string in hyp)
        by_kind.setdefault("all", []).append(string in hyp)
    return {k: round(sum(v) / len(v), 4) for k, v in sorted(by_kind.items())}


def evaluate(args, pair, source, to):
    """One report: BLEU/chrF per beam, the copy-source baseline, samples, PyTorch agreement;
    for the copy check, the share of strings that came through unchanged."""
    sources, refs, strings = read_split(args, pair, source)
    words = sum(len(s.split()) for s in sources)
    report = {
        "model": os.path.basename(args.model), "pair": pair, "source": source,
        "split": args.split, "sentences": len(sources), "words": words,
        "shortlist": args.shortlist,
        "copy_source_bleu": round(corpus_bleu(sources, refs)[0], 2),
        "copy_source_chrf": round(corpus_chrf(sources, refs), 2),
        "results": [],
    }
    outputs = {}
    for beam in args.beams:
        hyps, ids, secs = run_engine(args.heed, args.model, sources, beam, to, args.shortlist)
        outputs[beam] = (hyps, ids)
        report["results"].append({
            "beam": beam, "bleu": round(corpus_bleu(hyps, refs)[0], 2),
            "chrf": round(corpus_chrf(hyps, refs), 2), "cli_seconds": round(secs, 1),
            "cli_words_per_second": round(words / secs, 1)})
        if strings:
            report["results"][-1]["copied"] = copied(hyps, strings)
    # why: the splits are sorted, so the first pairs are not typical; take ten spread evenly
    picks = [i * len(sources) // 10 for i in range(min(10, len(sources)))]
    report["samples"] = [dict({"source": sources[i], "reference": refs[i]},
                              **{"beam %d" % b: outputs[b][0][i] for b in args.beams})
                         for i in picks]
    if args.pytorch and 1 in outputs:
        # an even spread of the split too, for the same reason
        n = min(args.pytorch, len(sources))
        chosen = [i * len(sources) // n for i in range(n)]
        torch_out = pytorch_greedy(args.model, [sources[i] for i in chosen], to)
        # why: PyTorch's greedy search has no copy guard; the engine's ids without it are the
        # ones that must match
        _, unguarded, _ = run_engine(args.heed, args.model, [sources[i] for i in chosen], 1, to,
                                     args.shortlist, copy_guard=False)
        same = ties = 0
        for (tids, margins), cids in zip(torch_out, unguarded):
            if tids == cids:
                same += 1
                continue
            k = next((j for j, (a, b) in enumerate(zip(tids, cids)) if a != b),
                     min(len(tids), len(cids)))
            if k < len(margins) and margins[k] < 1e-3:
                ties += 1  # why: the two best logits tie within float noise at the split
        report["pytorch_checked"] = len(torch_out)
        report["pytorch_agreement"] = round(same / len(torch_out), 4)
        report["pytorch_disagreements"] = len(torch_out) - same
        report["pytorch_disagreements_at_near_ties"] = ties
    return report


def model_directions(path):
    """The directions a model file names in heed.languages (old files: one source/target)."""
    langs = json.loads(HeedFile(path).meta.get("heed.languages", "{}"))
    return langs.get("directions") or ["%s-%s" % (langs["source"], langs["target"])]


def matrix(args):
    """Every direction of the model × every source's split (and the everyday check); --jobs
    runs that many evaluations at once (each engine process is single-threaded)."""
    from concurrent.futures import ThreadPoolExecutor
    directions = model_directions(args.model)
    jobs = []
    for pair in directions:
        files = "en-" + [l for l in pair.split("-") if l != "en"][0]
        for source in sorted(os.listdir(args.data)):
            split = os.path.join(args.data, source, "%s.%s.en" % (files, args.split))
            if source in ("all", "debs", "root", "lists") or not os.path.exists(split):
                continue
            if os.path.getsize(split):
                jobs.append((pair, source, pair.split("-")[1] if len(directions) > 1 else None))
    reports = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (pair, source, _), r in zip(jobs, pool.map(lambda j: evaluate(args, *j), jobs)):
            reports.append(r)
            print("%s %-17s %5d  copy %5.1f  %s" % (
                pair, source, r["sentences"], r["copy_source_chrf"], "  ".join(
                    "beam %d chrF %.1f BLEU %.1f%s" % (
                        x["beam"], x["chrf"], x["bleu"],
                        " copied %.1f%%" % (100 * x["copied"]["all"]) if "copied" in x else "")
                    for x in r["results"])), flush=True)
    return reports


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--pair", help="source-target, e.g. en-fr or de-en")
    ap.add_argument("--matrix", action="store_true",
                    help="every direction of the model on every source's split (with --limit)")
    ap.add_argument("--source", default="ddtp",
                    help="corpus source folder under --data (everyday: the held-out check)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--to", help="target language, for a model with several directions")
    ap.add_argument("--data", default=os.path.join(MODELS, "data"))
    ap.add_argument("--heed", default=os.path.join(ROOT, "build", "heed"))
    ap.add_argument("--pytorch", type=int, default=0, metavar="N",
                    help="also decode N sentences (spread over the split) with PyTorch, greedy, "
                         "and report the agreement with the C++ engine's greedy output")
    ap.add_argument("--beams", type=int, nargs="+", default=[1, 4],
                    help="beam sizes to evaluate (1 = greedy); the first is the card's headline")
    ap.add_argument("--limit", type=int, default=0,
                    help="at most N sentences, spread evenly over the split")
    ap.add_argument("--jobs", type=int, default=1,
                    help="with --matrix: evaluations run at once (the engine uses one core each)")
    ap.add_argument("--shortlist", action="store_true",
                    help="decode with the model's output shortlist (heed translate --shortlist)")
    ap.add_argument("--report")
    args = ap.parse_args()
    if args.matrix:
        report = matrix(args)
    elif args.pair:
        directions = model_directions(args.model)
        if args.pair not in directions:
            ap.error("%s has no direction %s (it has %s)" % (args.model, args.pair,
                                                             ", ".join(directions)))
        # why: without it a model of several directions translates into its first direction's
        # language whatever --pair says, and the figures measure the wrong thing
        to = args.to or (args.pair.split("-")[1] if len(directions) > 1 else None)
        report = evaluate(args, args.pair, args.source, to)
        print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1))
    else:
        ap.error("give --pair or --matrix")
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
