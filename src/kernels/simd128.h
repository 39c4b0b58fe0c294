// The single SIMD header: wasm_simd128.h names everywhere. Under Emscripten it is the real
// intrinsics header; natively SIMDe provides the same names (on SSE/AVX), so one kernel
// source is tested under Google Test. Not a SIMD abstraction layer of its own: beside the
// names it holds only the kernels' horizontal sum and maximum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
// why: SIMDe widens the 8 bytes by a generic vector conversion, which GCC 12 compiles to two
// half-width sign extensions, a shift and an unpack; in the int8 product's inner loop (70% of a
// native decode, perf) that cost more than the dot products. SSE4.1's pmovsxbw is the one
// instruction WebAssembly engines emit for it. The same lanes.
#undef wasm_i16x8_load8x8
inline v128_t wasm_i16x8_load8x8(const void* mem) {
    const __m128i bytes = _mm_loadl_epi64(static_cast<const __m128i*>(mem));
    return simde_v128_from_m128i(_mm_cvtepi8_epi16(bytes));
}
#endif
#endif

namespace heed::kernels {

/// [Σx0, Σx1, Σx2, Σx3]: each vector's four lanes summed as (l0 + l1) + (l2 + l3), four
/// vectors at once by a transpose-add. `Lane`: float (f32x4) or std::int32_t (i32x4). One
/// vector's sum is lane 0 of sum_lanes(x, x, x, x).
template <class Lane = float>
inline v128_t sum_lanes(v128_t x0, v128_t x1, v128_t x2, v128_t x3) {
    static_assert(std::is_same_v<Lane, float> || std::is_same_v<Lane, std::int32_t>);
    const auto add = [](v128_t a, v128_t b) {
        if constexpr (std::is_same_v<Lane, float>)
            return wasm_f32x4_add(a, b);
        else
            return wasm_i32x4_add(a, b);
    };
    // s01 = [x0: l0+l1, l2+l3, x1: l0+l1, l2+l3], s23 likewise
    const v128_t s01 =
        add(wasm_i32x4_shuffle(x0, x1, 0, 2, 4, 6), wasm_i32x4_shuffle(x0, x1, 1, 3, 5, 7));
    const v128_t s23 =
        add(wasm_i32x4_shuffle(x2, x3, 0, 2, 4, 6), wasm_i32x4_shuffle(x2, x3, 1, 3, 5, 7));
    return add(wasm_i32x4_shuffle(s01, s23, 0, 2, 4, 6), wasm_i32x4_shuffle(s01, s23, 1, 3, 5, 7));
}

/// The largest of an f32x4's lanes, as std::max folds them: (l0 max l1) max (l2 max l3).
inline float hmax(v128_t v) {
    return std::max(std::max(wasm_f32x4_extract_lane(v, 0), wasm_f32x4_extract_lane(v, 1)),
                    std::max(wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)));
}

}  // namespace heed::kernels
