"""Writes a model card (models/cards/PAIR.md) from the evaluation report, the training log and
the model file's header.

What it is: bookkeeping, so every figure on a card comes from a file a script produced (the
licences from models/cards/licences.txt, which models/corpus/build_corpus.py writes).
What it is not: evaluation (models/pipeline/evaluate.py) or training (models/pipeline/train.py).

Usage: /usr/bin/python3 -m models.pipeline.make_card --pair en-fr
"""
import argparse
import json
import os
import re

from models import MODELS
from models.corpus.sources import licences
from models.heed_file import HeedFile

DDTP = "Debian package descriptions (DDTP), this model's only source"
# the schedules the shipped models were trained with (train.py --stop-step / --cooldown), in
# order; each later entry is a warm restart: the rate jumps back to the inverse-square-root value
# and decays to zero again
SCHEDULES = {"en-fr": [(4200, 1000)], "en-de": [(4200, 1000), (4700, 500), (8400, 1500)]}
# why: the first stage's log (steps 0 to ~1620, session 1) was not kept; these are the figures
# the session-1 note recorded for it. Later stages log to models/cards/PAIR.train.log.
FIRST_STAGE = {"hours": 2.33, "note": "steps 0 to {init} ran in an earlier stage of about 2.3 "
                                      "hours whose log was not kept"}


def count_lines(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return sum(1 for _ in f)


def stages(lines):
    """One dict per training stage of a log, in order: first step, start clock (seconds into the
    day), the model config its start line gives (or None), the command's arguments (a list, or
    None), wall seconds, the step it ended at (or None), the rate of its last logged step (or
    None)."""
    found, prev = [], None
    for l in lines:
        m = re.match(r"(\d\d):(\d\d):(\d\d) ", l)
        t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) if m else None
        start = re.search(r" start step (\d+)", l)
        if start:
            config = re.search(r", config (\{.*\})$", l)
            found.append({"first": int(start.group(1)), "clock": t, "args": None,
                          "config": json.loads(config.group(1)) if config else None,
                          "seconds": 0, "end": None, "last_lr": None})
        # why: a stage that logged its end is over; a timed line before the next start (train.py's
        # "--bf16 ignored", written before "start step") must not give it the time in between
        elif found and t is not None and prev is not None and found[-1]["end"] is None:
            found[-1]["seconds"] += (t - prev) % 86400
        prev = t if t is not None else prev
        if not found:
            continue
        # why: train.py logs the arguments on a line of their own, ssru_student.py after the start
        args = re.search(r" arguments: (.*?)( \(allocator|$)", l)
        if args:
            found[-1]["args"] = args.group(1).split()
        rate = re.search(r" step \d+ epoch \d+ loss \S+ lr (\S+)", l)
        if rate:
            found[-1]["last_lr"] = float(rate.group(1))
        end = re.search(r" stage end at step (\d+)", l)
        if end:
            found[-1]["end"] = int(end.group(1))
    return found


def wall_seconds(stages_):
    """Stages run side by side (the log holds them one after the other: same first step,
    started within a minute) count once, as the longest of them."""
    total, group = 0, []
    for s in stages_ + [None]:
        if group and (s is None or s["first"] != group[0]["first"] or s["clock"] is None
                      or group[0]["clock"] is None
                      or (s["clock"] - group[0]["clock"]) % 86400 > 60):
            total += max(g["seconds"] for g in group)
            group = []
        if s is not None:
            group.append(s)
    return total


def training_facts(log_path):
    if not os.path.exists(log_path):
        return {}
    with open(log_path) as f:
        lines = f.read().splitlines()
    steps = [int(m.group(1)) for l in lines
             for m in [re.search(r" step (\d+)(?: |$)", l)] if m]  # why: "stage end at step N" too
    evals = re.findall(r"eval step (\d+) dev chrF ([\d.]+) BLEU ([\d.]+)", "\n".join(lines))
    found = stages(lines)
    return {"steps": steps[-1] if steps else 0, "stages": len(found),
            "hours": wall_seconds(found) / 3600,
            "first_step": found[0]["first"] if found else 0,
            # a stage started with --init rebuilt the optimizer from the weights alone
            "inits": [s["first"] for s in found if s["args"] and "--init" in s["args"]],
            "evals": evals, "stage_list": found}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", required=True)
    args = ap.parse_args()
    src, tgt = args.pair.split("-")
    model_path = os.path.join(MODELS, args.pair + ".heed")
    meta = HeedFile(model_path).meta
    cfg = json.loads(meta["heed.config"])
    report = json.load(open(os.path.join(MODELS, "cards", args.pair + ".eval.json")))
    train = training_facts(os.path.join(MODELS, "cards", args.pair + ".train.log"))
    data = os.path.join(MODELS, "data")
    counts = {part: count_lines(os.path.join(data, "ddtp", "%s.%s.%s" % (args.pair, part, src)))
              for part in ("train", "dev", "test")}
    d, f, v = cfg["d_model"], cfg["ffn_dim"], cfg["vocab_size"]
    params = (v * d + cfg["encoder_layers"] * (4 * (d * d + d) + 2 * d * f + f + d + 4 * d)
              + cfg["decoder_layers"] * (8 * (d * d + d) + 2 * d * f + f + d + 6 * d) + 4 * d)
    out = []
    out.append("# Heed %s → %s (`models/%s.heed`)\n" % (src, tgt, args.pair))
    out.append("A small Transformer translation model trained on this project's machine (2 CPU "
               "cores, no GPU) from real human translations.\n")
    out.append("## Data\n")
    out.append("- Debian package descriptions and their human translations (DDTP, Debian 12 "
               "`Translation-en` / `Translation-%s` indexes), joined on `Description-md5`, "
               "aligned by paragraph and sentence structure "
               "(`models/corpus/build_corpus.py`)." % tgt)
    out.append("- Pairs: train %s, dev %s, test %s (split by a hash of the English side; the "
               "test split is never trained on)." % (counts["train"], counts["dev"],
                                                      counts["test"]))
    out.append("- SentencePiece unigram, joint %s+%s vocabulary of %d pieces.\n" % (src, tgt, v))
    out += licences.card_section([("ddtp", DDTP)])
    out.append("## Architecture\n")
    out.append("| | |\n|---|---|")
    for k in ("d_model", "heads", "ffn_dim", "encoder_layers", "decoder_layers", "vocab_size",
              "pre_norm", "activation", "positions", "tied_embeddings", "scale_embeddings"):
        out.append("| %s | %s |" % (k, cfg[k]))
    out.append("| parameters | %s |" % format(params, ","))
    out.append("| file | %.2f MB (int8 per-row weights, f32 norms and biases, tokenizer "
               "included) |\n" % (os.path.getsize(model_path) / 1e6))
    out.append("## Training\n")
    out.append("- Recipe: `models/pipeline/train.py` (label smoothing 0.1, Adam β=(0.9, 0.98), "
               "peak lr "
               "2e-3 with 200 warm-up steps then inverse square root, %s, ~4k-token batches, pairs "
               "under 64 pieces, dropout 0.1), one thread per model." % "; then ".join(
                   "decayed linearly to zero over the %d steps up to step %d" % (c, s)
                   for s, c in SCHEDULES[args.pair]))
    inits = train.get("inits", [])
    restarts = ("; at step%s %s training resumed from the weights alone with a fresh optimizer "
                "(`--init`, 100 steps of re-warm-up), elsewhere from full checkpoints" % (
                    "s" if len(inits) > 1 else "", " and ".join(str(i) for i in inits))
                if inits else "")
    out.append("- %d updates, %.1f hours of wall time on this machine in all (shared with the "
               "other model's training and with builds); %s%s; the log from step %d on is "
               "`models/cards/%s.train.log`." %
               (train.get("steps", 0), train.get("hours", 0) + FIRST_STAGE["hours"],
                FIRST_STAGE["note"].format(init=train.get("first_step", 0)), restarts,
                train.get("first_step", 0), args.pair))
    if train.get("evals"):
        out.append("- Dev chrF during training (greedy, 200 dev pairs): " + ", ".join(
            "step %s: %s" % (s, c) for s, c, _ in train["evals"]) + ".")
    out.append("")
    out.append("## Reproduce\n")
    out.append("From a clean clone, after `bash scripts/setup.sh --training` (which installs "
               "PyTorch and builds `build/heed`):\n")
    out.append("```sh")
    out.append("/usr/bin/python3 -m models.corpus.build_corpus   "
               "# compares with models/corpus.sha256")
    for stop, cooldown in SCHEDULES[args.pair]:
        out.append("nice /usr/bin/python3 -m models.pipeline.train --pair %s "
                   "--run models/runs/%s \\" % (args.pair, args.pair))
        out.append("    --minutes 600 --stop-step %d --cooldown %d     # re-run to resume"
                   % (stop, cooldown))
    out.append("/usr/bin/python3 -m models.pipeline.export --run models/runs/%s "
               "--out models/%s.heed" % (args.pair, args.pair))
    out.append("/usr/bin/python3 -m models.pipeline.evaluate --model models/%s.heed --pair %s \\"
               % (args.pair, args.pair))
    out.append("    --pytorch %d --report models/cards/%s.eval.json"
               % (report.get("pytorch_checked", 0), args.pair))
    out.append("/usr/bin/python3 -m models.pipeline.make_card --pair %s" % args.pair)
    out.append("```\n")
    out.append("Training stops at a time limit (`--minutes`) and resumes from "
               "`models/runs/%s/checkpoint.pt` (weights, optimizer state, position in the epoch), "
               "so stages add up to one run (the `--init` restarts above are the exception: "
               "they rebuilt the optimizer state); dropout noise "
               "is not replayed, so a rerun lands near, not exactly on, these figures.\n"
               % args.pair)
    out.append("## Evaluation (C++ engine, `models/pipeline/evaluate.py`)\n")
    out.append("| %s test, %d pairs | BLEU | chrF | words/s (CLI, one thread) |\n"
               "|---|---|---|---|" % (args.pair, report["sentences"]))
    for r in report["results"]:
        out.append("| Heed, %s | %.2f | %.2f | %.0f |" % (
            "greedy" if r["beam"] == 1 else "beam %d" % r["beam"], r["bleu"], r["chrf"],
            r["cli_words_per_second"]))
    out.append("| copy the source | %.2f | %.2f | |\n" % (report["copy_source_bleu"],
                                                          report["copy_source_chrf"]))
    if report.get("pytorch_checked"):
        n, bad = report["pytorch_checked"], report["pytorch_disagreements"]
        line = ("PyTorch (`nn.Transformer` with the file's weights) and the C++ engine give the "
                "same greedy translation for %d of %d test sentences (%.2f%%)" %
                (n - bad, n, 100 * report["pytorch_agreement"]))
        if bad:
            line += ("; of the %d that differ, %d split where the two best logits tie within "
                     "1e-3" % (bad, report["pytorch_disagreements_at_near_ties"]))
        out.append(line + ".\n")
    out.append("## Ten sample translations (spread evenly over the sorted test split)\n")
    systems = [k for k in report["samples"][0] if k.startswith("beam ")]
    out.append("| source | reference | %s |\n|---|---|%s" % (
        " | ".join("Heed, " + ("greedy" if k == "beam 1" else k) for k in systems), "---|" * len(systems)))
    for s in report["samples"]:
        out.append("| %s |" % " | ".join(s[k].replace("|", "\\|") for k in
                                         ["source", "reference"] + systems))
    os.makedirs(os.path.join(MODELS, "cards"), exist_ok=True)
    with open(os.path.join(MODELS, "cards", args.pair + ".md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
