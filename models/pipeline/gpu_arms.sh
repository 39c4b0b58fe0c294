#!/bin/bash
# Trains the multilingual model on one lent GPU for a fixed time: two runs ("arms", or more) side
# by side from the same weights-only checkpoint, each cooling its rate down to zero over the last
# quarter of the time, then packs the exports and logs for the trip back.
#
# Usage (repository root, models/data built or unpacked there):
#   bash models/pipeline/gpu_arms.sh INIT.f16.heed OUT_DIR MINUTES
# Writes OUT_DIR/arms.tar.xz.aa, .ab, ... (15 MiB pieces: cat them, then tar xJf) holding
# a.f16.heed, b.f16.heed and each arm's train.log. HEED_ARMS_DEVICE=cpu tries it without a GPU
# (HEED_ARMS_TOKENS: another --max-tokens, e.g. 1024 for such a try; HEED_ARMS_LRS: the arms'
# held rates, one arm each, default "4e-4 8e-4"; a third and fourth rate make arms d and e, c
# being the name the README gives the run from the arms' mean; the H200 ran two arms at 9.3-9.7
# updates a second each, and nobody has timed three there: check the steps a second in the logs;
# HEED_ARMS_MIXES: one word an arm, "-" or --mix items the arm reads besides everyday.mix's, e.g.
# HEED_ARMS_LRS="3e-3 3e-3" HEED_ARMS_MIXES="- backtranslated=1" for arms that differ in the
# back-translated pairs alone, models/pipeline/back_translate.py).
#
# why two arms: a lent machine is there for one try, and its 8x larger batches need a larger
# rate than the CPU's held 1.5e-4 by an amount nobody here measured; two rates side by side give
# a choice, made afterwards on dev, instead of a guess. Dropout stays 0 as in every CPU stage
# (tried at 0.1 from this checkpoint: the first steps' loss 5.0 against 2.9).
# why --pad-to 8: in the first run (H200, 2026-11-27) each arm's first epoch ran at 3.4 updates a
# second and the next at 10.3, the same batches in a new order: the time went to shapes seen for
# the first time (578 distinct (batch, source width, target width) in an epoch of the corpus);
# widths rounded to 8 leave 74, for 947 batches instead of 778 (more padding; not yet timed there).
set -euo pipefail
init=$1 out=$2 minutes=$3
device=${HEED_ARMS_DEVICE:-cuda}
work=$(mktemp -d)
mix=$(cat models/pipeline/everyday.mix)
cool=$(awk -v m="$minutes" 'BEGIN { print m / 4 }')

arm() {
  local name=$1
  shift
  mkdir -p "$work/$name"
  PYTHONUNBUFFERED=1 python3 -m models.pipeline.train --directions en-de,de-en,en-fr,fr-en \
    --run "$work/$name" --init "$init" --device "$device" --bf16 --threads 4 \
    --max-tokens "${HEED_ARMS_TOKENS:-32768}" --pad-to 8 --hold-lr --eval-every 1000 \
    --dev-per-source 10 --minutes "$minutes" --cooldown-minutes "$cool" \
    --export "$work/$name.f16.heed" "$@" >"$work/$name.out" 2>&1
}

read -r -a lrs <<<"${HEED_ARMS_LRS:-4e-4 8e-4}"
letters=(a b d e)
[ "${#lrs[@]}" -ge 1 ] && [ "${#lrs[@]}" -le "${#letters[@]}" ] ||
  { echo "gpu_arms: HEED_ARMS_LRS names 1 to ${#letters[@]} rates, got '${lrs[*]}'" >&2; exit 2; }
read -r -a mixes <<<"${HEED_ARMS_MIXES:-}"
[ "${#mixes[@]}" -eq 0 ] || [ "${#mixes[@]}" -eq "${#lrs[@]}" ] ||
  { echo "gpu_arms: HEED_ARMS_MIXES names one word an arm ('-': none), got '${mixes[*]}'" \
    "for ${#lrs[@]} rates" >&2; exit 2; }
names=("${letters[@]:0:${#lrs[@]}}")
pids=()
for i in "${!lrs[@]}"; do
  extra=${mixes[$i]:--}
  arm "${names[$i]}" --lr "${lrs[$i]}" --dropout 0 \
    --mix "$mix$([ "$extra" = - ] || echo ",$extra")" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=$?
done
for name in "${names[@]}"; do
  echo "== arm $name"
  tail -n 25 "$work/$name.out"
  cp "$work/$name/train.log" "$work/$name.train.log" 2>/dev/null || true
done
mkdir -p "$out"
files=()
for name in "${names[@]}"; do files+=("$name.f16.heed" "$name.train.log" "$name.out"); done
(cd "$work" && ls "${files[@]}" 2>/dev/null |
  tar cf - -T - | xz -T0 -3 | split -b 15M - "$out/arms.tar.xz.")
ls -la "$out"
exit $status
