// int8-weight GEMM kernels against their scalar reference and against double-precision
// products of the dequantised operands, over odd shapes, strides, bias, the int32 chunk
// boundary and the extreme values that would overflow without it. Timings: bench/gemm_bench.
#include "kernels/gemm_i8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace heed {
namespace {

using namespace kernels;

constexpr float kSentinel = 12345.0f;  // fills C's gaps between N and ldc; must survive

/// W [N, K] int8 with per-row scales, packed; A [M, K] f32 (lda = K + 3); bias [N].
struct Problem {
    int M, N, K, lda, ldc, ldq;
    std::vector<std::int8_t> w, packed;
    std::vector<float> w_scales, a, bias;

    Problem(int m, int n, int k, std::mt19937& rng)
        : M(m), N(n), K(k), lda(k + 3), ldc(n + 2), ldq(padded_k_i8(k) + 8) {
        std::uniform_int_distribution<int> q(-127, 127);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        w.resize(std::size_t(N) * K);
        for (auto& x : w) x = std::int8_t(q(rng));
        w_scales.assign(packed_rows_i8(N), 0.0f);
        for (int i = 0; i < N; ++i) w_scales[i] = 0.001f + 0.01f * std::fabs(u(rng));
        a.resize(std::size_t(M) * lda);
        for (auto& x : a) x = 3.0f * u(rng);
        bias.resize(N);
        for (auto& x : bias) x = u(rng);
        packed.resize(packed_i8_size(N, K));
        pack_i8(N, K, w.data(), K, packed.data());
    }
    /// C in double from the dequantised weights and the unrounded activations.
    double exact(int m, int n, bool with_bias) const {
        double s = 0;
        for (int k = 0; k < K; ++k)
            s += double(a[std::size_t(m) * lda + k]) * w[std::size_t(n) * K + k] * w_scales[n];
        return s + (with_bias ? bias[n] : 0.0);
    }
};

struct Quantised {
    std::vector<std::int16_t> q;
    std::vector<float> scales;
};

Quantised quantise(const Problem& p) {
    Quantised out;
    out.q.assign(std::size_t(p.M) * p.ldq, 777);  // why: padding must be rewritten to zero
    out.scales.resize(p.M);
    quantise_rows_i16(p.M, p.K, p.a.data(), p.lda, out.q.data(), p.ldq, out.scales.data());
    return out;
}

TEST(GemmI8, PackThenUnpackGivesEveryRowBack) {
    std::mt19937 rng(1);
    for (int N : {1, 3, 4, 5, 9}) {
        for (int K : {1, 7, 8, 9, 20}) {
            Problem p(1, N, K, rng);
            std::vector<std::int8_t> row(K);
            for (int n = 0; n < N; ++n) {
                unpack_row_i8(N, K, p.packed.data(), n, row.data());
                EXPECT_TRUE(std::equal(row.begin(), row.end(), p.w.begin() + std::size_t(n) * K))
                    << N << "x" << K << " row " << n;
            }
        }
    }
}

TEST(GemmI8, QuantisedRowsRoundToNearestAndPadWithZeros) {
    const float a[5] = {1.0f, -0.5f, 0.25f, 0.0f, -1.0f};
    std::vector<std::int16_t> q(16, 99);
    float scale = 0;
    quantise_rows_i16(1, 5, a, 5, q.data(), 16, &scale);
    EXPECT_FLOAT_EQ(scale, 1.0f / 32767.0f);
    EXPECT_EQ(q[0], 32767);
    EXPECT_EQ(q[1], -16384);  // -16383.5 rounds half to even
    EXPECT_EQ(q[2], 8192);    // 8191.75
    EXPECT_EQ(q[4], -32767);
    for (int k = 5; k < padded_k_i8(5); ++k) EXPECT_EQ(q[k], 0);
    EXPECT_EQ(q[padded_k_i8(5)], 99);  // past the padded row: untouched
    const float zero[3] = {};
    quantise_rows_i16(1, 3, zero, 3, q.data(), 16, &scale);
    EXPECT_EQ(scale, 1.0f);
}

TEST(GemmI8, QuantisedRowsMatchTheScalarReferenceBitForBit) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> pick(0, 5);
    for (int K : {1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 64, 255, 256, 2048, 2049}) {
        const int M = 3, lda = K + 5, ldq = padded_k_i8(K) + 8;
        std::vector<float> a(std::size_t(M) * lda);
        for (int m = 0; m < M; ++m)
            for (int k = 0; k < K; ++k) {
                float& x = a[std::size_t(m) * lda + k];
                // why: the cases where the rounding or the maximum could differ: denormal-sized,
                // huge, halves, signed zeros, ordinary
                const int kind = pick(rng);
                if (kind == 0)
                    x = u(rng) * 1e-38f;
                else if (kind == 1)
                    x = u(rng) * 1e30f;
                else if (kind == 2)
                    x = std::round(u(rng) * 32767.0f) + 0.5f;
                else if (kind == 3)
                    x = u(rng) < 0 ? -0.0f : 0.0f;
                else
                    x = 4.0f * u(rng);
            }
        // why: row 1 scales by exactly 1 (max 32767), so its halves stay halves; row 2 is zero
        a[std::size_t(lda) + std::size_t(K - 1)] = -32767.0f;
        for (int k = 0; k < K; ++k) {
            float& x = a[std::size_t(lda) + k];
            if (k != K - 1) x = std::clamp(std::round(x) + 0.5f * (k % 2), -32766.5f, 32766.5f);
        }
        std::fill(a.begin() + 2 * std::size_t(lda), a.begin() + 2 * std::size_t(lda) + K, -0.0f);
        std::vector<std::int16_t> ref(std::size_t(M) * ldq, 777), got = ref;
        std::vector<float> ref_scales(M), got_scales(M);
        quantise_rows_i16_ref(M, K, a.data(), lda, ref.data(), ldq, ref_scales.data());
        quantise_rows_i16(M, K, a.data(), lda, got.data(), ldq, got_scales.data());
        EXPECT_EQ(got, ref) << "K " << K;
        for (int m = 0; m < M; ++m)
            EXPECT_EQ(std::memcmp(&got_scales[m], &ref_scales[m], sizeof(float)), 0)
                << "K " << K << " row " << m;
        EXPECT_EQ(got_scales[2], 1.0f);
    }
}

TEST(GemmI8, SimdMatchesReferenceOverOddShapes) {
    std::mt19937 rng(7);
    for (int M : {1, 2, 3, 4, 5})
        for (int N : {1, 2, 3, 4, 5, 7, 8, 9, 13, 33})
            for (int K : {1, 3, 7, 8, 9, 16, 31, 64, 100}) {
                Problem p(M, N, K, rng);
                const Quantised qa = quantise(p);
                for (bool with_bias : {false, true}) {
                    const float* bias = with_bias ? p.bias.data() : nullptr;
                    std::vector<float> ref(std::size_t(M) * p.ldc, kSentinel), got = ref;
                    gemm_i16i8_ref(M, N, K, qa.q.data(), p.ldq, qa.scales.data(), p.packed.data(),
                                   p.w_scales.data(), bias, ref.data(), p.ldc);
                    gemm_i16i8_simd128(M, N, K, qa.q.data(), p.ldq, qa.scales.data(),
                                       p.packed.data(), p.w_scales.data(), bias, got.data(), p.ldc);
                    for (int m = 0; m < M; ++m) {
                        for (int n = 0; n < N; ++n) {
                            const float r = ref[std::size_t(m) * p.ldc + n];
                            // why: one product and one sum, maybe fused by the compiler
                            EXPECT_NEAR(got[std::size_t(m) * p.ldc + n], r,
                                        1e-6f * std::fabs(r) + 1e-6f)
                                << M << "x" << N << "x" << K << " at " << m << "," << n;
                            // the activation rounding: at most half a step of the row's scale
                            // per product
                            const double tol = 0.5 * qa.scales[m] * 127 * p.w_scales[n] * K + 1e-5;
                            EXPECT_NEAR(r, p.exact(m, n, with_bias), tol);
                        }
                        for (int n = N; n < p.ldc; ++n)
                            EXPECT_EQ(got[std::size_t(m) * p.ldc + n], kSentinel);
                    }
                }
            }
}

TEST(GemmI8, WideningF32KernelMatchesDoubleProducts) {
    std::mt19937 rng(11);
    for (int M : {1, 2, 3})
        for (int N : {1, 4, 5, 9, 33})
            for (int K : {1, 7, 8, 9, 100, 257}) {
                Problem p(M, N, K, rng);
                std::vector<float> got(std::size_t(M) * p.ldc, kSentinel);
                gemm_f32i8_simd128(M, N, K, p.a.data(), p.lda, p.packed.data(), p.w_scales.data(),
                                   p.bias.data(), got.data(), p.ldc);
                for (int m = 0; m < M; ++m) {
                    for (int n = 0; n < N; ++n) {
                        const double e = p.exact(m, n, true);
                        EXPECT_NEAR(got[std::size_t(m) * p.ldc + n], e,
                                    1e-5 * std::sqrt(double(K)) * (std::fabs(e) + 1.0))
                            << M << "x" << N << "x" << K;
                    }
                    for (int n = N; n < p.ldc; ++n)
                        EXPECT_EQ(got[std::size_t(m) * p.ldc + n], kSentinel);
                }
            }
}

// Every product at its extreme (32767 · 127) and K past two int32 chunks: an accumulator that
// was not flushed per chunk would wrap and change sign.
TEST(GemmI8, ExtremeValuesOverLongRowsDoNotOverflow) {
    for (int K : {kI8Chunk - 8, kI8Chunk, kI8Chunk + 8, 2 * kI8Chunk + 5, 16384}) {
        const int M = 3, N = 6;
        std::vector<std::int8_t> w(std::size_t(N) * K, 127);
        for (int k = 0; k < K; ++k) w[std::size_t(5) * K + k] = -127;
        std::vector<std::int8_t> packed(packed_i8_size(N, K));
        pack_i8(N, K, w.data(), K, packed.data());
        std::vector<float> w_scales(packed_rows_i8(N), 1.0f);
        const int ldq = padded_k_i8(K);
        std::vector<std::int16_t> qa(std::size_t(M) * ldq, 0);
        for (int m = 0; m < M; ++m)
            for (int k = 0; k < K; ++k) qa[std::size_t(m) * ldq + k] = m == 1 ? -32767 : 32767;
        const float a_scales[3] = {1.0f, 1.0f, 1.0f};
        std::vector<float> ref(M * N), got(M * N);
        gemm_i16i8_ref(M, N, K, qa.data(), ldq, a_scales, packed.data(), w_scales.data(), nullptr,
                       ref.data(), N);
        gemm_i16i8_simd128(M, N, K, qa.data(), ldq, a_scales, packed.data(), w_scales.data(),
                           nullptr, got.data(), N);
        const double expected = double(K) * 32767.0 * 127.0;
        for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
                const double sign = (m == 1 ? -1 : 1) * (n == 5 ? -1 : 1);
                EXPECT_NEAR(ref[m * N + n], sign * expected, 1e-6 * expected) << K;
                EXPECT_EQ(got[m * N + n], ref[m * N + n]) << K << " at " << m << "," << n;
            }
    }
}

}  // namespace
}  // namespace heed
