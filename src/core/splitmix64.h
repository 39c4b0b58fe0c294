// splitmix64 (Steele, Lea and Flood 2014, "Fast splittable pseudorandom number generators"):
// the one 64-bit mixer behind every seeded draw (FAVOR+ projections, sparse attention's random
// blocks), the same natively and in WebAssembly. Not a general random-number library.
#pragma once

#include <cstdint>

namespace heed {

/// splitmix64's increment, the golden ratio as a 64-bit odd integer.
constexpr std::uint64_t kSplitmix64Gamma = 0x9E3779B97F4A7C15ull;

/// splitmix64's output for state `x`: x + γ through the finaliser. A well-mixed 64-bit hash,
/// for deriving seeds; a generator steps its state by γ and calls this on it.
inline std::uint64_t splitmix64(std::uint64_t x) {
    x += kSplitmix64Gamma;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace heed
