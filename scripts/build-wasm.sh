#!/usr/bin/env bash
# Builds the WebAssembly engine from committed sources: web/lib/heed-core.mjs + web/lib/heed.wasm.
# Needs Debian's emscripten (emcc/emcmake 3.1.6), cmake and the xtensor/xtl/xsimd/nlohmann headers
# (apt: emscripten cmake xtensor-dev nlohmann-json3-dev). Not the native build (see CMakeLists.txt).
#
#   bash scripts/build-wasm.sh            # BUILD_DIR (default build-wasm), JOBS (default 1),
#                                         # HEED_HEADER_ROOT (default /usr/include; as in CMake)
set -euo pipefail

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

wasm="$root/web/lib/heed.wasm"
raw=$(wc -c < "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "build-wasm: web/lib/heed-core.mjs + web/lib/heed.wasm ($raw bytes, $gz gzipped)"
