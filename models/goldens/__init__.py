"""The committed references the engine's tests compare against (tests/data/, models/tiny/),
written by PyTorch, numpy and the sentencepiece library; make_shipped_expected.sh alone records
the engine's own answers, as a regression guard for the shipped models."""
