#!/usr/bin/env bash
# Builds the WebAssembly engine from committed sources: web/lib/heed-core.mjs + web/lib/heed.wasm,
# and the pthreads build web/lib/mt/heed-mt.mjs + heed-mt.wasm + heed-mt.worker.js (used when
# loadTranslator asks for threads: in Node, and in cross-origin isolated pages).
# Needs Debian's emscripten (emcc/emcmake 3.1.6), cmake and the xtensor/xtl/xsimd/nlohmann headers
# (apt: emscripten cmake xtensor-dev nlohmann-json3-dev). Not the native build (see CMakeLists.txt).
#
#   bash scripts/build-wasm.sh            # BUILD_DIR (default build-wasm), JOBS (default 1),
#                                         # HEED_HEADER_ROOT (default /usr/include; as in CMake)
#   bash scripts/build-wasm.sh --bench    # also the bench-only module BUILD_DIR/heed-bench.mjs +
#                                         # heed-bench.wasm (LinearBench, for scripts/bench.mjs
#                                         # and bench/ort) and BUILD_DIR-mt/thread_pool_bench.js
#                                         # (the pool's hand-over, run with node); never copied
#                                         # to web/lib
set -euo pipefail

bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) bench=1 ;;
    *) echo "build-wasm: unknown argument '$arg' (expected --bench)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-wasm}"
jobs="${JOBS:-1}"
headers="${HEED_HEADER_ROOT:-/usr/include}"

for tool in emcmake emcc cmake node; do
  command -v "$tool" >/dev/null || { echo "build-wasm: '$tool' not found (apt install emscripten cmake nodejs)" >&2; exit 1; }
done

# why: under emcmake the sysroot hides /usr/include, and adding it wholesale pulls in glibc headers
# that break the build; a staging folder exposes only the header-only libraries we use.
mkdir -p "$build/include"
for lib in xtensor xtl xsimd nlohmann; do
  [ -d "$headers/$lib" ] || { echo "build-wasm: missing $headers/$lib (apt install xtensor-dev nlohmann-json3-dev)" >&2; exit 1; }
  ln -sfn "$headers/$lib" "$build/include/$lib"
done

# why: Debian's emcc runs its JS optimiser under the system node, which finds acorn only here.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"

emcmake cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHEED_TESTS=OFF \
  -DHEED_HEADER_ROOT="$build/include" >/dev/null
cmake --build "$build" --target heed-core -j "$jobs"
if [ "$bench" = 1 ]; then
  cmake --build "$build" --target heed-bench -j "$jobs"
fi

# the pthreads build: same sources, compiled with -pthread in a build folder of its own
mkdir -p "$build-mt"
ln -sfn "$build/include" "$build-mt/include"
emcmake cmake -S "$root" -B "$build-mt" -DCMAKE_BUILD_TYPE=Release -DHEED_TESTS=OFF \
  -DHEED_WASM_THREADS=ON -DHEED_HEADER_ROOT="$build/include" >/dev/null
cmake --build "$build-mt" --target heed-core -j "$jobs"
if [ "$bench" = 1 ]; then
  cmake --build "$build-mt" --target thread_pool_bench -j "$jobs"
fi
# why: 3.1.6's node branch makes any uncaught exception or unhandled rejection of the host
# process throw from its handlers; a library must not change that, so they are cut out (and the
# build fails if the generated text ever differs)
mt="$root/web/lib/mt/heed-mt.mjs"
# why: always from the build's own output, so a rerun that relinks nothing cuts the same text
cp "$build-mt/heed-mt.mjs" "$mt"
handlers='process["on"]("uncaughtException",function(ex){if(!(ex instanceof ExitStatus)){throw ex}});process["on"]("unhandledRejection",function(reason){throw reason});'
grep -qF "$handlers" "$mt" || { echo "build-wasm: $mt: the process handlers to remove were not found" >&2; exit 1; }
python3 - "$mt" "$handlers" <<'PY'
import sys
path, cut = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
open(path, "w", encoding="utf-8").write(text.replace(cut, ""))
PY

for wasm in web/lib/heed.wasm web/lib/mt/heed-mt.wasm; do
  raw=$(wc -c < "$root/$wasm")
  gz=$(gzip -9 -c "$root/$wasm" | wc -c)
  echo "build-wasm: $wasm ($raw bytes, $gz gzipped)"
done
if [ "$bench" = 1 ]; then
  echo "build-wasm: bench module $build/heed-bench.mjs ($(wc -c < "$build/heed-bench.wasm") bytes of wasm)"
  echo "build-wasm: pool bench: node --no-experimental-fetch $build-mt/thread_pool_bench.js"
fi
