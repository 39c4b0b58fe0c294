"""Makes models/tiny/tiny-multi.heed and tests/data/multi_goldens.json: the tiny model's weights
with two directions (en-fr, en-de), each target started by its own token, and what PyTorch's
greedy decoder produces for each target — the reference for the engine's --to / `to` routing.

What it is not: a trained multilingual model (the weights are the tiny test model's; "<s>"
starts French as before, another piece starts "German", so the two outputs differ).

Usage: /usr/bin/python3 -m models.goldens.make_multi_fixture
"""
import json
import os

import sentencepiece as spm

from models import MODELS, ROOT
from models.pipeline.heed_torch import greedy, read_heed, write_heed

SENTENCES = ["A simple text editor", "This package contains the development files."]
TOKENS = {"fr": "<s>", "de": "▁le"}
MAX_LEN = 20


def main():
    model, tokenizer, _ = read_heed(os.path.join(MODELS, "tiny", "tiny.heed"))
    sp = spm.SentencePieceProcessor(model_proto=tokenizer)
    languages = {"directions": ["en-fr", "en-de"], "target_tokens": TOKENS}
    write_heed(os.path.join(MODELS, "tiny", "tiny-multi.heed"), model, tokenizer, dtype="F32",
               metadata={"heed.languages": languages, "heed.card": "random weights for tests"})
    cases = []
    for text in SENTENCES:
        src = sp.encode(text) + [model.cfg["eos_id"]]
        out = {"text": text}
        for lang, token in TOKENS.items():
            out[lang] = greedy(model, [src], [MAX_LEN], [sp.piece_to_id(token)])[0][0]
        cases.append(out)
    with open(os.path.join(ROOT, "tests", "data", "multi_goldens.json"), "w") as f:
        json.dump({"max_length": MAX_LEN, "languages": languages, "cases": cases}, f, indent=1,
                  ensure_ascii=False)
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
