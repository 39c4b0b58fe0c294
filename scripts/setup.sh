#!/usr/bin/env bash
# Installs everything Heed needs on a fresh Debian 12 machine (as root) and builds it:
# Debian packages via apt-get, npm packages via npm ci, the native engine and the WASM module.
# Safe to run again: it skips what is already there.
#
#   bash scripts/setup.sh              # what the demo and the tests need
#   bash scripts/setup.sh --training   # also PyTorch, sentencepiece and numpy for /usr/bin/python3
#                                      # (models/: build the corpus, train, evaluate, make cards)
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS=(cmake g++ make pkg-config xtensor-dev xtl-dev libxsimd-dev libgtest-dev libsimde-dev
      nlohmann-json3-dev libsentencepiece-dev emscripten chromium python3
      python3-numpy  # why: tests/marian_export_test.py (the Bergamot export)
      python3-sentencepiece  # why: tests/engine_tokenizer_test.py (training reads text so)
      clang libclang-rt-14-dev  # why: clang + its runtimes for the ASan/UBSan and libFuzzer stages
      clang-format)  # why: the C++ format stage of npm test (clang-format 14, .clang-format)
case "${1:-}" in
    "") ;;
    --training)
        # why: without libopenblas0-pthread PyTorch trains about ten times slower
        # why: libjemalloc2 — models/pipeline/train.py runs under it, keeping freed pages (5x faster
        # steps than glibc's allocator, which returns every large tensor to the kernel)
        DEBS+=(python3-torch python3-sentencepiece python3-numpy libopenblas0-pthread
               libjemalloc2) ;;
    *) echo "setup: unknown option '$1' (the only option is --training)" >&2; exit 2 ;;
esac
missing=()
for p in "${DEBS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
    npm ci --ignore-scripts --no-audit --no-fund
fi

echo "setup: native build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

echo "setup: WebAssembly build"
bash scripts/build-wasm.sh
