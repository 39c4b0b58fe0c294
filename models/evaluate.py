#!/usr/bin/python3
"""Evaluates a Heed model on a held-out split with the C++ engine (build/heed), and checks that
PyTorch, given the same stored weights, produces the same translations.

What it is: BLEU (13a, corpus) and chrF (char 6-grams, beta 2) from models/metrics.py, the
copy-the-source baseline, words/s of the CLI, and the PyTorch/C++ agreement rate, written to a
JSON report the model card quotes.
What it is not: training; PyTorch is only needed for --pytorch (the agreement check).

Usage:
  /usr/bin/python3 models/evaluate.py --model models/en-fr.heed --pair en-fr \
      [--pytorch N] [--beams 1 4] [--limit N] --report models/cards/en-fr.eval.json
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from metrics import corpus_bleu, corpus_chrf  # noqa: E402


def read(path, limit):
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    return lines[:limit] if limit else lines


def run_engine(heed, model, sources, beam):
    t0 = time.time()
    out = subprocess.run([heed, "translate", "-m", model, "--beam", str(beam), "--ids"],
                         input="\n".join(sources) + "\n", capture_output=True, text=True)
    secs = time.time() - t0
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
    lines = out.stdout.split("\n")[:len(sources)]
    texts, ids = [], []
    for line in lines:
        text, _, id_text = line.partition("\t")
        texts.append(text)
        ids.append([int(x) for x in id_text.split()])
    return texts, ids, secs


def pytorch_greedy(model_path, sources, batch=64):
    """Greedy decoding in PyTorch (nn.Transformer) with the weights exactly as stored in the
    model file; returns (ids, top-2 logit margin per step) per sentence."""
    import sentencepiece as spm
    import torch
    from heed_torch import read_heed

    model, tokenizer, _ = read_heed(model_path)
    sp = spm.SentencePieceProcessor(model_proto=tokenizer)
    c = model.cfg
    results = []
    with torch.no_grad():
        for b in range(0, len(sources), batch):
            srcs = [sp.encode(s) + [c["eos_id"]] for s in sources[b:b + batch]]
            caps = [min(2 * len(s) + 10, c["max_positions"]) for s in srcs]
            n = max(map(len, srcs))
            src = torch.tensor([s + [c["pad_id"]] * (n - len(s)) for s in srcs])
            memory, mask = model.encode(src)
            ys = torch.full((len(srcs), 1), c["decoder_start_id"], dtype=torch.long)
            outs = [[] for _ in srcs]
            margins = [[] for _ in srcs]
            done = [False] * len(srcs)
            for t in range(max(caps)):
                logits = model.decode(ys, memory, mask)[:, -1]
                top2 = torch.topk(logits, 2, dim=-1)
                nxt = top2.indices[:, 0]
                for i in range(len(srcs)):
                    if not done[i]:
                        outs[i].append(int(nxt[i]))
                        margins[i].append(float(top2.values[i, 0] - top2.values[i, 1]))
                        if nxt[i] == c["eos_id"] or len(outs[i]) >= caps[i]:
                            done[i] = True
                if all(done):
                    break
                ys = torch.cat([ys, nxt[:, None]], 1)
            results += list(zip(outs, margins))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--pair", required=True)
    ap.add_argument("--split", default="test")
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--heed", default=os.path.join(HERE, "..", "build", "heed"))
    ap.add_argument("--pytorch", type=int, default=0, metavar="N",
                    help="also decode N sentences (spread over the split) with PyTorch, greedy, "
                         "and report the agreement with the C++ engine's greedy output")
    ap.add_argument("--beams", type=int, nargs="+", default=[1, 4],
                    help="beam sizes to evaluate (1 = greedy); the first is the card's headline")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--report")
    args = ap.parse_args()
    src_lang, tgt_lang = args.pair.split("-")
    base = os.path.join(args.data, "%s.%s." % (args.pair, args.split))
    sources, refs = read(base + src_lang, args.limit), read(base + tgt_lang, args.limit)
    words = sum(len(s.split()) for s in sources)
    report = {
        "model": os.path.basename(args.model), "pair": args.pair, "split": args.split,
        "sentences": len(sources), "words": words,
        "copy_source_bleu": round(corpus_bleu(sources, refs)[0], 2),
        "copy_source_chrf": round(corpus_chrf(sources, refs), 2),
        "results": [],
    }
    outputs = {}
    for beam in args.beams:
        hyps, ids, secs = run_engine(args.heed, args.model, sources, beam)
        outputs[beam] = (hyps, ids)
        report["results"].append({
            "beam": beam, "bleu": round(corpus_bleu(hyps, refs)[0], 2),
            "chrf": round(corpus_chrf(hyps, refs), 2), "cli_seconds": round(secs, 1),
            "cli_words_per_second": round(words / secs, 1)})
    # why: the splits are sorted, so the first pairs are not typical; take ten spread evenly
    picks = [i * len(sources) // 10 for i in range(min(10, len(sources)))]
    report["samples"] = [dict({"source": sources[i], "reference": refs[i]},
                              **{"beam %d" % b: outputs[b][0][i] for b in args.beams})
                         for i in picks]
    if args.pytorch and 1 in outputs:
        # an even spread of the split too, for the same reason
        n = min(args.pytorch, len(sources))
        chosen = [i * len(sources) // n for i in range(n)]
        torch_out = pytorch_greedy(args.model, [sources[i] for i in chosen])
        same = ties = 0
        for (tids, margins), i in zip(torch_out, chosen):
            cids = outputs[1][1][i]
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
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1))
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
