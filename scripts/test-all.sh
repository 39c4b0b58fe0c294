#!/usr/bin/env bash
# Every test of the project, in order: the JS format check (Prettier), the C++ format check
# (clang-format, the repository's .clang-format), the native build + ctest
# (with the layer check tests/check_layers.py), the same ctest built with ASan + UBSan
# (build-asan, clang, no recovery), the libFuzzer targets of tests/fuzz for a bounded time each,
# the WASM build, the npm package's Node tests (tests/node, through the package's public
# exports), and the browser tests (tests/browser/run.mjs, then the packed tarball in a plain
# page) when present. Runs every stage, prints how long each took, then fails if any stage failed.
#
#   bash scripts/test-all.sh       # npm test
#   NATIVE_BUILD_DIR (default build, which scripts/setup.sh has built already)
#   JOBS (default: all cores): build jobs, ctest's parallel tests, node --test's parallel files
#   FUZZ_SECONDS (default 25): how long each fuzz target runs
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
native_dir="${NATIVE_BUILD_DIR:-build}"
jobs="${JOBS:-$(nproc)}"
failed=()

stage() {
  local name="$1"
  shift
  echo
  echo "=== $name"
  local start=$SECONDS
  if "$@"; then echo "=== $name: ok ($((SECONDS - start)) s)"
  else echo "=== $name: FAILED ($((SECONDS - start)) s)"; failed+=("$name"); fi
}

native() {
  cmake -S . -B "$native_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build "$native_dir" -j "$jobs" &&
    ctest --test-dir "$native_dir" --output-on-failure -j "$jobs"
}

# why: one sanitized build serves both stages (see HEED_SANITIZE in CMakeLists.txt)
sanitized() {
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEED_SANITIZE=ON \
    -DCMAKE_CXX_COMPILER=clang++ >/dev/null &&
    cmake --build build-asan -j "$jobs" &&
    UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j "$jobs"
}

stage "JS format (prettier --check)" npx --no-install prettier --check '**/*.{js,mjs}'
stage "C++ format (clang-format --dry-run --Werror, .clang-format)" bash -c \
  "git ls-files 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'bench/*.cpp' 'bench/*.h' |
   xargs clang-format --dry-run --Werror"
stage "native build + ctest ($native_dir)" native
stage "ASan + UBSan build + ctest (build-asan)" sanitized
stage "fuzzers, ${FUZZ_SECONDS:-25} s each (tests/fuzz)" \
  bash tests/fuzz/run.sh build-asan "${FUZZ_SECONDS:-25}"
stage "wasm build (build-wasm)" env JOBS="$jobs" bash scripts/build-wasm.sh
# why: cli.test.mjs (two minutes of CLI calls) runs beside the other files, not before them
stage "node tests (tests/node)" env HEED_CLI="$root/$native_dir/heed" \
  node --test --test-concurrency="$jobs" tests/node/
if [ -f tests/browser/run.mjs ]; then
  stage "browser tests (tests/browser)" node tests/browser/run.mjs
  stage "the packed package in a user's page (tests/browser/package_page.mjs)" \
    node tests/browser/package_page.mjs
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
  printf 'test-all: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "test-all: every stage passed"
