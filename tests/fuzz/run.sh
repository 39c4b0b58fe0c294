#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a bounded time each, starting from its committed
# seeds (tests/fuzz/seeds/<name>/) plus the committed model files named below, with heed.dict.
# New inputs go to a temporary corpus (the repository is not written). Fails on the first crash,
# sanitizer report or timeout, printing the end of the log and where the reproducer was saved.
#
#   bash tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]    # default 25
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:?usage: run.sh BUILD_DIR [SECONDS]}"
seconds="${2:-25}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
keep="${FUZZ_ARTIFACTS:-$build/fuzz-artifacts}"
fail=0

# name, -max_len, extra seed files (committed elsewhere in the repository)
targets=(
  "loader 600000 models/tiny/tiny.heed tests/data/tiny_format.heed tests/data/tiny_format_i8.heed"
  "header 16384 tests/data/tiny_format.heed tests/data/tiny_format_i8.heed"
  "tokenizer_model 300000 models/tiny/spm.model"
  "text 2048"
  "marian_archive 8192 tests/data/marian_io/tiny.npz"
  "marian_text 4096"
  "marian_bundle 240000 tests/data/marian/ssru/model.intgemm8.bin tests/data/marian/ssru/model.bin tests/data/marian/embnorm/model.bin"
)
for spec in "${targets[@]}"; do
  read -r name max_len extra <<<"$spec"
  bin="$build/tests/fuzz/fuzz_$name"
  corpus="$work/$name"; mkdir -p "$corpus" "$keep"
  cp "$here/seeds/$name"/* "$corpus"/
  # why: named by their whole path, as two seed files may share a name (model.bin)
  for f in $extra; do cp "$root/$f" "$corpus/${f//\//_}"; done
  start=$SECONDS
  # why: leak checks stay on (a leak is a bug too); -timeout bounds one input, max_total_time all
  "$bin" "$corpus" -dict="$here/heed.dict" -max_total_time="$seconds" -max_len="$max_len" \
    -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$keep/$name-" -print_final_stats=1 \
    >"$work/$name.log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$work/$name.log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "fuzz_$name: ok, ${runs:-?} inputs in $((SECONDS - start)) s, $cov, corpus $(ls "$corpus" | wc -l)"
  else
    echo "fuzz_$name: FAILED (exit $rc); the input is saved under $keep/$name-*"
    tail -40 "$work/$name.log"
    fail=1
  fi
done
exit $fail
