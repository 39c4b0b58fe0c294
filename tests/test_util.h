// Test helpers shared by the suite: tolerant float comparison that names the worst element,
// small file readers for goldens, and the message of an expected heed::Error. Not a framework.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"

namespace heed::test {

/// Passes when |a-b| <= atol + rtol*|b| everywhere; otherwise reports the first failing index
/// and the max abs / rel error over the whole array.
inline ::testing::AssertionResult allclose(const float* a, const float* b, std::size_t n,
                                           double rtol = 1e-4, double atol = 1e-5) {
    double max_abs = 0, max_rel = 0;
    std::ptrdiff_t first_bad = -1;
    for (std::size_t i = 0; i < n; ++i) {
        double d = std::fabs(double(a[i]) - double(b[i]));
        bool bad = !(d <= atol + rtol * std::fabs(double(b[i])));  // why: catches NaN too
        if (bad && first_bad < 0) first_bad = std::ptrdiff_t(i);
        if (d > max_abs || std::isnan(d)) max_abs = d;
        double rel = d / std::max(1e-12, std::fabs(double(b[i])));
        if (rel > max_rel) max_rel = rel;
    }
    if (first_bad < 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "mismatch at index " << first_bad << ": got " << a[first_bad] << ", want "
           << b[first_bad] << " (max abs err " << max_abs << ", max rel err " << max_rel
           << ", n=" << n << ", rtol=" << rtol << ", atol=" << atol << ")";
}

template <class A, class B>
::testing::AssertionResult allclose(const A& a, const B& b, double rtol = 1e-4,
                                    double atol = 1e-5) {
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << "size mismatch: " << a.size() << " vs " << b.size();
    return allclose(a.data(), b.data(), a.size(), rtol, atol);
}

#define EXPECT_ALLCLOSE(a, b, ...) EXPECT_TRUE(::heed::test::allclose(a, b, ##__VA_ARGS__))

inline std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

/// `v` as 8 little-endian bytes (the model file's header length prefix).
inline std::string u64_le(std::uint64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = char((v >> (8 * i)) & 0xFF);
    return s;
}

/// The what() of the heed::Error that f() throws, or "(no heed::Error)" if it returns.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no heed::Error)";
}

}  // namespace heed::test
