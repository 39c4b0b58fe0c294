"""Heed's Python side, one package: the model file, the training pipeline, the corpus and the
test goldens. The shipped artefacts (*.heed, models.json, cards/, checkpoints/, tiny/) sit beside
it; FORMAT.md is the model file's specification, README.md the npm package's (package.json).

- heed_file: the one reader and writer of the .heed format (numpy, no PyTorch);
- pipeline/: the PyTorch model, training, export, evaluation, shortlists, model cards;
- corpus/: the parallel corpus from Debian's human translations (build_corpus, sources/);
- goldens/: the fixtures and reference outputs the engine's tests compare against.

Every tool is a module run from the repository root with Debian's Python, e.g.
  /usr/bin/python3 -m models.pipeline.train --help
What it is not: imported by the engine; importing this package loads nothing but `os`.
"""
import os

MODELS = os.path.dirname(os.path.abspath(__file__))  # this folder: the shipped artefacts
ROOT = os.path.dirname(MODELS)  # the repository
