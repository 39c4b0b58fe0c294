// The single SIMD header: wasm_simd128.h names everywhere. Under Emscripten it is the real
// intrinsics header; natively SIMDe provides the same names (on SSE/AVX), so one kernel
// source is tested under Google Test. Not a SIMD abstraction layer of its own.
#pragma once

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif
