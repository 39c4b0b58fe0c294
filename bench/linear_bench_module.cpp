// Embind bindings of the bench-only WebAssembly module (heed-bench.mjs + heed-bench.wasm, built
// by `scripts/build-wasm.sh --bench`): the GEMM fixture LinearBench, which scripts/bench.mjs and
// bench/ort time. Not the shipped module: src/bindings/bindings.cpp binds the translator.
#include <emscripten/bind.h>

#include "linear_bench.h"

EMSCRIPTEN_BINDINGS(heed_bench) {
    emscripten::class_<heed::LinearBench>("LinearBench")
        .constructor<int, int, int, int>()
        .constructor<int, int, int>()
        .function("run", &heed::LinearBench::run)
        .function("checksum", &heed::LinearBench::checksum);
}
