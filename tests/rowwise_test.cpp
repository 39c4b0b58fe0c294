// Row kernels (log-softmax in one pass and in stages, argmax, next-above scan, layer norm, relu,
// gelu) against their scalar references over odd lengths, extreme values and aliasing. Correctness
// only.
#include "kernels/rowwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "test_util.h"

namespace heed::kernels {
namespace {

const int kLengths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 256, 1000};
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> random_vec(std::size_t n, float lo, float hi, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

TEST(LogSoftmax, MatchesReferenceInPlaceWithMaskedEntries) {
    std::mt19937 rng(4);
    for (int n : {1, 2, 3, 5, 8, 33, 1000, 8000})
        for (float scale : {0.1f, 10.0f, 80.0f}) {
            std::vector<float> x = random_vec(n, -scale, scale, rng);
            if (n > 4) x[3] = -kInf;  // a shortlist or forced step's masked entry stays -inf
            std::vector<float> want(n), got = x;
            log_softmax_row_f32_ref(x.data(), n, want.data());
            log_softmax_row_f32(got.data(), n, got.data());
            for (int i = 0; i < n; ++i) {
                if (std::isinf(want[i])) {
                    EXPECT_EQ(got[i], want[i]);
                    continue;
                }
                // why: log-probabilities; an absolute error of 1e-5 nats is 1e-5 relative in p
                EXPECT_NEAR(got[i], want[i], 1e-5f + 2e-7f * std::fabs(want[i]))
                    << "n=" << n << " scale=" << scale << " i=" << i;
            }
        }
}

TEST(Argmax, GivesTheIndexMaxElementGives) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-5.0f, 5.0f);
    std::uniform_int_distribution<int> pick(0, 9);
    const float inf = std::numeric_limits<float>::infinity();
    for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 31, 100, 16000, 16001}) {
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<float> x(n);
            for (float& v : x) {
                switch (pick(rng)) {  // why: ties, signed zeros, -inf (banned), an odd NaN
                    case 0:
                        v = 1.5f;
                        break;
                    case 1:
                        v = pick(rng) < 5 ? -0.0f : 0.0f;
                        break;
                    case 2:
                        v = -inf;
                        break;
                    case 3:
                        v = trial == 7 && pick(rng) == 0 ? std::nanf("") : u(rng);
                        break;
                    default:
                        v = u(rng) - 10.0f;
                }
            }
            if (trial % 5 == 0) std::fill(x.begin(), x.end(), -inf);
            if (trial % 5 == 1) std::fill(x.begin(), x.end(), trial % 2 ? -0.0f : 0.0f);
            const int want = int(std::max_element(x.begin(), x.end()) - x.begin());
            EXPECT_EQ(argmax_f32(x.data(), n), want) << "n " << n << " trial " << trial;
        }
    }
}

TEST(LogSoftmax, InStagesGivesTheOnePassBitsOnAnySplit) {
    std::mt19937 rng(13);
    for (int n : {1, 3, 4, 5, 8, 17, 1000, 16001}) {
        std::vector<float> x = random_vec(std::size_t(n), -30.0f, 30.0f, rng);
        if (n > 4) x[2] = -kInf;  // a banned piece
        std::vector<float> want(n), got(n), e(n, -1.0f);
        log_softmax_row_f32(x.data(), n, want.data());
        const float m = max_f32(x.data(), n);
        const int whole = n & ~3;
        for (int split : {0, 4, whole / 2 & ~3, whole}) {  // two threads' parts, any boundary
            if (split > whole) continue;
            exp_minus_f32(x.data(), split, m, e.data());
            exp_minus_f32(x.data() + split, whole - split, m, e.data() + split);
            subtract_f32(x.data(), n, log_sum_exp_f32(x.data(), n, m, e.data()), got.data());
            EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(float) * std::size_t(n)), 0)
                << "n " << n << " split " << split;
        }
    }
}

TEST(NextAbove, FindsTheFirstValueAboveTheThresholdAsAScalarScanDoes) {
    std::mt19937 rng(9);
    std::uniform_int_distribution<int> small(-3, 3);
    for (std::size_t n : {0u, 1u, 3u, 4u, 5u, 9u, 64u, 1001u}) {
        std::vector<float> x(n);
        for (float& v : x) v = float(small(rng));  // why: many ties with the threshold
        if (n > 2) x[n / 2] = std::nanf("");
        for (float threshold : {-4.0f, -1.0f, 0.0f, 2.0f, 3.0f, -kInf, std::nanf("")})
            for (std::size_t begin = 0; begin <= n; begin += 1 + n / 7) {
                std::size_t want = begin;
                while (want < n && !(x[want] > threshold)) ++want;
                EXPECT_EQ(next_above_f32(x.data(), begin, n, threshold), want)
                    << "n " << n << " from " << begin << " above " << threshold;
            }
    }
}

TEST(LayerNorm, MatchesReferenceWithAndWithoutAffine) {
    std::mt19937 rng(3);
    for (int d : kLengths) {
        for (float offset : {0.0f, 100.0f}) {  // a large mean tests the two-pass variance
            SCOPED_TRACE("d=" + std::to_string(d) + " offset=" + std::to_string(offset));
            std::vector<float> x = random_vec(d, -2, 2, rng);
            for (float& v : x) v += offset;
            const std::vector<float> g = random_vec(d, 0.5f, 1.5f, rng);
            const std::vector<float> b = random_vec(d, -1, 1, rng);
            std::vector<float> got(d), want(d);
            layer_norm_row_f32(x.data(), d, g.data(), b.data(), 1e-5f, got.data());
            layer_norm_row_f32_ref(x.data(), d, g.data(), b.data(), 1e-5f, want.data());
            EXPECT_ALLCLOSE(got, want, 1e-4, 2e-4);
            layer_norm_row_f32(x.data(), d, nullptr, nullptr, 1e-5f, got.data());
            layer_norm_row_f32_ref(x.data(), d, nullptr, nullptr, 1e-5f, want.data());
            EXPECT_ALLCLOSE(got, want, 1e-4, 2e-4);
        }
    }
}

TEST(LayerNorm, InPlaceMatchesOutOfPlace) {
    std::mt19937 rng(4);
    std::vector<float> x = random_vec(257, -3, 3, rng);
    const std::vector<float> g = random_vec(257, 0.5f, 1.5f, rng), b = random_vec(257, -1, 1, rng);
    std::vector<float> out(257);
    layer_norm_row_f32(x.data(), 257, g.data(), b.data(), 1e-5f, out.data());
    layer_norm_row_f32(x.data(), 257, g.data(), b.data(), 1e-5f, x.data());
    EXPECT_ALLCLOSE(x, out, 0.0, 0.0);
}

TEST(Activations, ReluMatchesReferenceExactly) {
    std::mt19937 rng(5);
    for (int n : kLengths) {
        std::vector<float> x = random_vec(n, -3, 3, rng);
        x[0] = -0.0f;
        if (n > 2) x[2] = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> want = x;
        relu_f32(x.data(), x.size());
        relu_f32_ref(want.data(), want.size());
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(x[i], want[i]) << "n=" << n << " i=" << i;
            EXPECT_EQ(std::signbit(x[i]), std::signbit(want[i])) << "n=" << n << " i=" << i;
        }
    }
}

TEST(Activations, GeluMatchesReference) {
    std::mt19937 rng(6);
    for (int n : kLengths) {
        std::vector<float> x = random_vec(n, -6, 6, rng);
        std::vector<float> want = x;
        gelu_f32(x.data(), x.size());
        gelu_f32_ref(want.data(), want.size());
        EXPECT_ALLCLOSE(x, want, 1e-5, 1e-6) << "n=" << n;
    }
    std::vector<float> grid;  // dense grid plus the extremes
    for (float v = -12.0f; v <= 12.0f; v += 0.01f) grid.push_back(v);
    for (float v : {0.0f, -0.0f, 1e-8f, -1e-8f, 30.0f, -30.0f, 1e4f, -1e4f}) grid.push_back(v);
    std::vector<float> want = grid;
    gelu_f32(grid.data(), grid.size());
    gelu_f32_ref(want.data(), want.size());
    EXPECT_ALLCLOSE(grid, want, 1e-5, 1e-6);
}

TEST(RowKernels, ComparisonCatchesWrongValues) {
    std::mt19937 rng(7);
    const std::vector<float> x = random_vec(33, -4, 4, rng);
    std::vector<float> got = x, want = x;
    gelu_f32(got.data(), got.size());
    gelu_f32_ref(want.data(), want.size());
    ASSERT_TRUE(test::allclose(got, want, 1e-5, 1e-6));
    got[32] += 1e-3f;
    EXPECT_FALSE(test::allclose(got, want, 1e-5, 1e-6));
    std::vector<float> g = x, w = x;
    gelu_f32(g.data(), g.size());
    relu_f32_ref(w.data(), w.size());  // the wrong activation must not pass for gelu
    EXPECT_FALSE(test::allclose(g, w, 1e-5, 1e-6));
}

}  // namespace
}  // namespace heed::kernels
