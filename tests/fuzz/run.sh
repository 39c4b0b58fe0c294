#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz for a bounded time each, starting from its committed
# seeds (tests/fuzz/seeds/<name>/) plus the committed model files named below, with heed.dict.
# New inputs go to a temporary corpus (the repository is not written). Targets run FUZZ_JOBS at a
# time (default: one a core). Fails when any target crashes, reports a sanitizer error or times
# out, printing the end of its log and where the reproducer was saved.
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
# One target: fuzzes for $seconds, then writes its verdict line to $work/$name.result and its
# exit status to $work/$name.rc.
fuzz_one() {
  local name="$1" max_len="$2" extra="$3"
  local bin="$build/tests/fuzz/fuzz_$name" corpus="$work/$name" start=$SECONDS rc runs cov
  mkdir -p "$corpus" "$keep"
  cp "$here/seeds/$name"/* "$corpus"/
  # why: named by their whole path, as two seed files may share a name (model.bin)
  for f in $extra; do cp "$root/$f" "$corpus/${f//\//_}"; done
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
  fi >"$work/$name.result"
  echo $rc >"$work/$name.rc"
}

# why: each fuzzer is one process on one core; FUZZ_JOBS of them at once (default: every core)
# keep each one's time the same and divide the stage's wall time
jobs="${FUZZ_JOBS:-$(nproc)}"
names=()
for spec in "${targets[@]}"; do
  read -r name max_len extra <<<"$spec"
  names+=("$name")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  fuzz_one "$name" "$max_len" "$extra" &
done
wait
for name in "${names[@]}"; do
  cat "$work/$name.result"
  [ "$(cat "$work/$name.rc" 2>/dev/null)" = 0 ] || fail=1
done
exit $fail
