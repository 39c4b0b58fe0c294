#!/bin/bash
# Packs what models/pipeline/gpu_arms.sh needs on a lent GPU machine into .gpu/ (which
# .git/info/exclude keeps out of git): data.tar.xz (models/data's all/ training split, the train
# splits of the sources models/pipeline/everyday.mix reads again, every dev split) and
# init.f16.heed.xz (the weights to start from), then prints the device call to make.
#
# Usage (repository root, models/data built): bash models/pipeline/gpu_pack.sh INIT.f16.heed
#
# why a pack: the device tool carries the working tree and at most 64 MiB in all; the corpus is
# 7.7 GB with the packages it came from, these files ~18 MB, the weights ~30 MB compressed. The
# tracked files over 7 MB (the shipped models and checkpoints) do not fit beside them: leave
# them out of the index for the call, as this script prints, and put them back after.
set -euo pipefail
init=$1
data=models/data
[ -d "$data/all" ] || { echo "gpu_pack: no $data/all: build the corpus first" >&2; exit 1; }
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
mix=$(tr ',' '\n' <models/pipeline/everyday.mix | cut -d= -f1)
# why: backtranslated/ (models/pipeline/back_translate.py) when there, for HEED_ARMS_MIXES
files=$(cd "$data" && ls all/*.train.* && for s in $mix; do ls "$s"/*.train.*; done &&
  ls ./*/*.dev.* | sed 's|^\./||' && { ls backtranslated/*.backtranslated.* 2>/dev/null || true; })
# why: -9 on one thread: its 64 MiB window finds the --mix sources' pairs again in all/ (17.7 MB
# against 25.8 MB with -T2 -6, 2026-11-28), and the call carries at most 64 MiB with the tree
(cd "$data" && tar cf - $files) | xz -T1 -9 >.gpu/data.tar.xz
xz -T2 -6 -c "$init" >.gpu/init.f16.heed.xz
ls -l .gpu
big=$(git ls-files -z | xargs -0 du -b | awk '$1 > 7000000 { print $2 }' | tr '\n' ' ')
cat <<MSG

Before the call, leave the large tracked files out (and put them back after):
  cp .git/info/exclude /tmp/exclude.bak && git rm -q --cached $big
  printf '/%s\n' $big >>.git/info/exclude
After it:
  cp /tmp/exclude.bak .git/info/exclude && git add $big && git status --short
The call (carry [".gpu"], timeout 600, about 9.5 minutes for 8.5 of training):
  mkdir -p models/data && tar xJf .gpu/data.tar.xz -C models/data &&
  xz -dc .gpu/init.f16.heed.xz >/tmp/init.f16.heed &&
  HEED_ARMS_LRS="1.5e-3 2e-3" bash models/pipeline/gpu_arms.sh /tmp/init.f16.heed \$OUT 8.5
MSG
