// Exact conversion of IEEE binary16 (f16) and bfloat16 bit patterns to float, used when
// reading model files. Every input, including subnormals, infinities and NaN payloads, maps to
// the float of the same value. Not an f32 -> f16 encoder and not a vectorised kernel.
#pragma once

#include <cstdint>
#include <cstring>

namespace heed {

/// Reinterprets 32 bits as a float (memcpy, so no aliasing trouble).
inline float f32_from_bits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// The float equal to the binary16 value `h` (1 sign, 5 exponent, 10 mantissa bits).
inline float f16_to_f32(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    std::uint32_t mant = h & 0x3FFu;
    if (exp == 0x1F) return f32_from_bits(sign | 0x7F800000u | (mant << 13));  // inf, NaN
    if (exp != 0) return f32_from_bits(sign | ((exp - 15 + 127) << 23) | (mant << 13));
    if (mant == 0) return f32_from_bits(sign);  // +-0
    // why: a subnormal is mant * 2^-24; shift the leading 1 up to the hidden-bit position and
    // lower the exponent once per shift, which gives a normal float (f32 has the range).
    std::uint32_t e = 127 - 15 + 1;
    while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --e;
    }
    return f32_from_bits(sign | (e << 23) | ((mant & 0x3FFu) << 13));
}

/// The float equal to the bfloat16 value `b` (the top 16 bits of a float).
inline float bf16_to_f32(std::uint16_t b) { return f32_from_bits(std::uint32_t(b) << 16); }

}  // namespace heed
