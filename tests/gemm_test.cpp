// GEMM kernels and ops/matmul against the scalar reference over odd shapes, both B layouts,
// strided operands, bias and accumulate. Correctness only: timings live in bench/gemm_bench.
#include "kernels/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops/matmul.h"
#include "ops/packed_linear.h"
#include "test_util.h"

namespace heed {
namespace {

using kernels::gemm_f32_ref;

const int kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64};
constexpr float kSentinel = 12345.0f;  // fills C's gaps between N and ldc; must survive

std::vector<float> random_vec(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

/// Tolerance on sums of K products of values in [-1, 1] in another order (and maybe fused).
double atol_for(int K) { return 2e-6 * std::sqrt(double(K) + 1.0) + 1e-6; }

/// One problem: A [M,K] (lda), B as [K,N] and as [N,K] (ldb padded), bias, C's start state.
struct Problem {
    int M, N, K, lda, ldb_kn, ldb_nk, ldc;
    std::vector<float> a, b_kn, b_nk, bias, c0;

    Problem(int m, int n, int k, std::mt19937& rng, int pad = 3)
        : M(m), N(n), K(k), lda(k + pad), ldb_kn(n + pad), ldb_nk(k + pad), ldc(n + pad) {
        a = random_vec(std::size_t(M) * lda, rng);
        b_kn = random_vec(std::size_t(K) * ldb_kn, rng);
        b_nk.assign(std::size_t(N) * ldb_nk, 0.0f);
        for (int kk = 0; kk < K; ++kk)
            for (int j = 0; j < N; ++j)
                b_nk[std::size_t(j) * ldb_nk + kk] = b_kn[std::size_t(kk) * ldb_kn + j];
        bias = random_vec(std::size_t(N), rng);
        c0 = random_vec(std::size_t(M) * ldc, rng);
        for (int i = 0; i < M; ++i)
            for (int j = N; j < ldc; ++j) c0[std::size_t(i) * ldc + j] = kSentinel;
    }

    const float* b(bool transposed) const { return transposed ? b_nk.data() : b_kn.data(); }
    int ldb(bool transposed) const { return transposed ? ldb_nk : ldb_kn; }

    std::vector<float> reference(bool with_bias, bool accumulate) const {
        std::vector<float> c = c0;
        gemm_f32_ref(M, N, K, a.data(), lda, b_kn.data(), ldb_kn, false,
                     with_bias ? bias.data() : nullptr, c.data(), ldc, accumulate);
        return c;
    }
    std::string name() const {
        return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
    }
};

/// The four paths of the kernel layer against the reference, with every bias/accumulate mix.
void check_kernels(const Problem& p) {
    SCOPED_TRACE(p.name());
    const double atol = atol_for(p.K);
    std::vector<float> packed(kernels::packed_b_size(p.K, p.N));
    std::vector<float> tail(std::size_t(p.K) * kernels::kGemmNr);
    for (int variant = 0; variant < 4; ++variant) {
        const bool with_bias = variant & 1, accumulate = variant & 2;
        SCOPED_TRACE("bias=" + std::to_string(with_bias) +
                     " accumulate=" + std::to_string(accumulate));
        const float* bias = with_bias ? p.bias.data() : nullptr;
        const std::vector<float> want = p.reference(with_bias, accumulate);
        for (bool bt : {false, true}) {
            SCOPED_TRACE(bt ? "B [N,K]" : "B [K,N]");
            kernels::pack_b_f32(p.K, p.N, p.b(bt), p.ldb(bt), bt, packed.data());
            std::vector<float> c = p.c0;
            kernels::gemm_f32_4x8_simd128(p.M, p.N, p.K, p.a.data(), p.lda, packed.data(), bias,
                                          c.data(), p.ldc, accumulate);
            EXPECT_ALLCLOSE(c, want, 1e-5, atol) << "gemm_f32_4x8_simd128";
            // the reference itself must agree across B layouts
            c = p.c0;
            gemm_f32_ref(p.M, p.N, p.K, p.a.data(), p.lda, p.b(bt), p.ldb(bt), bt, bias, c.data(),
                         p.ldc, accumulate);
            EXPECT_ALLCLOSE(c, want, 1e-5, atol) << "gemm_f32_ref";
        }
        std::vector<float> c = p.c0;
        kernels::gemm_f32_nn_simd128(p.M, p.N, p.K, p.a.data(), p.lda, p.b_kn.data(), p.ldb_kn,
                                     bias, c.data(), p.ldc, accumulate, tail.data());
        EXPECT_ALLCLOSE(c, want, 1e-5, atol) << "gemm_f32_nn_simd128";
        c = p.c0;
        kernels::gemm_f32_nt_dot_simd128(p.M, p.N, p.K, p.a.data(), p.lda, p.b_nk.data(), p.ldb_nk,
                                         bias, c.data(), p.ldc, accumulate);
        EXPECT_ALLCLOSE(c, want, 1e-5, atol) << "gemm_f32_nt_dot_simd128";
    }
}

/// matmul_raw (both layouts, strided) and PackedLinear (contiguous, bias) against the reference.
void check_ops(const Problem& p) {
    SCOPED_TRACE(p.name());
    const double atol = atol_for(p.K);
    const std::vector<float> want = p.reference(false, false);
    for (bool bt : {false, true}) {
        std::vector<float> c = p.c0;
        matmul_raw(p.a.data(), p.lda, p.b(bt), p.ldb(bt), bt, c.data(), p.ldc, p.M, p.N, p.K);
        EXPECT_ALLCLOSE(c, want, 1e-5, atol) << "matmul_raw b_transposed=" << bt;
    }
    // PackedLinear: W = B [N,K] = [out, in]; x and y contiguous.
    std::vector<float> w(std::size_t(p.N) * p.K), x(std::size_t(p.M) * p.K);
    for (int j = 0; j < p.N; ++j)
        for (int k = 0; k < p.K; ++k)
            w[std::size_t(j) * p.K + k] = p.b_nk[std::size_t(j) * p.ldb_nk + k];
    for (int i = 0; i < p.M; ++i)
        for (int k = 0; k < p.K; ++k) x[std::size_t(i) * p.K + k] = p.a[std::size_t(i) * p.lda + k];
    std::vector<float> y_want(std::size_t(p.M) * p.N), y(std::size_t(p.M) * p.N, kSentinel);
    gemm_f32_ref(p.M, p.N, p.K, x.data(), p.K, w.data(), p.K, true, p.bias.data(), y_want.data(),
                 p.N, false);
    const PackedLinear lin(w.data(), p.bias.data(), p.N, p.K);
    lin.apply(x.data(), p.M, y.data());
    EXPECT_ALLCLOSE(y, y_want, 1e-5, atol) << "PackedLinear::apply";
}

TEST(Gemm, KernelsMatchReferenceOverOddShapes) {
    std::mt19937 rng(1234);
    for (int M : kSizes)
        for (int N : kSizes)
            for (int K : kSizes) check_kernels(Problem(M, N, K, rng));
}

TEST(Gemm, OpsMatchReferenceOverOddShapes) {
    std::mt19937 rng(99);
    for (int M : kSizes)
        for (int N : kSizes)
            for (int K : kSizes) check_ops(Problem(M, N, K, rng));
}

TEST(Gemm, DegenerateShapes) {
    std::mt19937 rng(5);
    for (int M : {0, 1, 5})
        for (int N : {0, 1, 9})
            for (int K : {0, 1, 7}) {
                check_kernels(Problem(M, N, K, rng));
                check_ops(Problem(M, N, K, rng));
            }
}

TEST(Gemm, ModelLayerShapes) {
    std::mt19937 rng(7);
    const int shapes[][3] = {{1, 8000, 256}, {37, 1024, 256}, {1, 1024, 256},  {2, 256, 1024},
                             {3, 8000, 256}, {64, 256, 1024}, {20, 8000, 256}, {5, 1000, 300}};
    for (const auto& s : shapes) {
        const Problem p(s[0], s[1], s[2], rng, 0);
        check_ops(p);
        SCOPED_TRACE(p.name());
        std::vector<float> packed(kernels::packed_b_size(p.K, p.N));
        kernels::pack_b_f32(p.K, p.N, p.b_nk.data(), p.ldb_nk, true, packed.data());
        std::vector<float> c = p.c0;
        kernels::gemm_f32_4x8_simd128(p.M, p.N, p.K, p.a.data(), p.lda, packed.data(),
                                      p.bias.data(), c.data(), p.ldc, false);
        EXPECT_ALLCLOSE(c, p.reference(true, false), 1e-5, atol_for(p.K));
    }
}

TEST(Gemm, AttentionHeadSlices) {
    // Q·Kᵀ and P·V on one head of [T, H*Dh] buffers: lda = ldb = H*Dh, K = Dh.
    std::mt19937 rng(11);
    const int H = 4, Dh = 64, D = H * Dh;
    for (int T : {1, 2, 3, 7, 20, 33}) {
        for (int S : {1, 5, 20, 64}) {
            const std::vector<float> q = random_vec(std::size_t(T) * D, rng);
            const std::vector<float> k = random_vec(std::size_t(S) * D, rng);
            const std::vector<float> v = random_vec(std::size_t(S) * D, rng);
            const int h = 2;
            std::vector<float> scores(std::size_t(T) * S), want(std::size_t(T) * S);
            matmul_raw(q.data() + h * Dh, D, k.data() + h * Dh, D, true, scores.data(), S, T, S,
                       Dh);
            gemm_f32_ref(T, S, Dh, q.data() + h * Dh, D, k.data() + h * Dh, D, true, nullptr,
                         want.data(), S, false);
            EXPECT_ALLCLOSE(scores, want, 1e-5, atol_for(Dh)) << "Q·Kᵀ T=" << T << " S=" << S;
            std::vector<float> out(std::size_t(T) * D, kSentinel), out_want = out;
            matmul_raw(scores.data(), S, v.data() + h * Dh, D, false, out.data() + h * Dh, D, T, Dh,
                       S);
            gemm_f32_ref(T, Dh, S, scores.data(), S, v.data() + h * Dh, D, false, nullptr,
                         out_want.data() + h * Dh, D, false);
            EXPECT_ALLCLOSE(out, out_want, 1e-5, 8 * atol_for(S)) << "P·V T=" << T << " S=" << S;
        }
    }
}

TEST(Gemm, PackedLayoutIsEightColumnPanels) {
    std::mt19937 rng(3);
    const Problem p(1, 19, 5, rng);
    std::vector<float> from_kn(kernels::packed_b_size(p.K, p.N), -1.0f), from_nk = from_kn;
    ASSERT_EQ(from_kn.size(), std::size_t(3 * 8 * 5));
    kernels::pack_b_f32(p.K, p.N, p.b_kn.data(), p.ldb_kn, false, from_kn.data());
    kernels::pack_b_f32(p.K, p.N, p.b_nk.data(), p.ldb_nk, true, from_nk.data());
    EXPECT_EQ(from_kn, from_nk);
    for (int j = 0; j < 24; ++j)
        for (int k = 0; k < p.K; ++k) {
            const float got = from_kn[std::size_t(j / 8) * 8 * p.K + std::size_t(k) * 8 + j % 8];
            EXPECT_EQ(got, j < p.N ? p.b_kn[std::size_t(k) * p.ldb_kn + j] : 0.0f) << j << "," << k;
        }
}

TEST(Gemm, MatWrappers) {
    std::mt19937 rng(8);
    const Problem p(6, 10, 17, rng, 0);
    const Mat a = xt::adapt(p.a, std::array<std::size_t, 2>{6, 17});
    const Mat b = xt::adapt(p.b_kn, std::array<std::size_t, 2>{17, 10});
    const Mat bt = xt::adapt(p.b_nk, std::array<std::size_t, 2>{10, 17});
    std::vector<float> want(60);
    gemm_f32_ref(6, 10, 17, p.a.data(), 17, p.b_kn.data(), 10, false, nullptr, want.data(), 10,
                 false);
    EXPECT_ALLCLOSE(matmul(a, b), want, 1e-5, atol_for(17));
    EXPECT_ALLCLOSE(matmul_nt(a, bt), want, 1e-5, atol_for(17));
    const PackedLinear lin(p.b_nk.data(), nullptr, 10, 17);
    EXPECT_ALLCLOSE(lin(a), want, 1e-5, atol_for(17));
}

TEST(Gemm, ComparisonCatchesWrongValues) {
    // The oracle must be able to fail: one perturbed element, a wrong layout, a missing bias.
    std::mt19937 rng(21);
    const Problem p(5, 17, 33, rng);
    const std::vector<float> want = p.reference(true, false);
    std::vector<float> packed(kernels::packed_b_size(p.K, p.N));
    kernels::pack_b_f32(p.K, p.N, p.b_kn.data(), p.ldb_kn, false, packed.data());
    std::vector<float> c = p.c0;
    kernels::gemm_f32_4x8_simd128(p.M, p.N, p.K, p.a.data(), p.lda, packed.data(), p.bias.data(),
                                  c.data(), p.ldc, false);
    ASSERT_TRUE(test::allclose(c, want, 1e-5, atol_for(p.K)));
    std::vector<float> wrong = c;
    wrong[std::size_t(4) * p.ldc + 16] += 1e-3f;
    EXPECT_FALSE(test::allclose(wrong, want, 1e-5, atol_for(p.K)));
    wrong = c;
    wrong[std::size_t(2) * p.ldc + p.N] = 0.0f;  // a write past N into the gap
    EXPECT_FALSE(test::allclose(wrong, want, 1e-5, atol_for(p.K)));
    c = p.c0;
    kernels::gemm_f32_4x8_simd128(p.M, p.N, p.K, p.a.data(), p.lda, packed.data(), nullptr,
                                  c.data(), p.ldc, false);
    EXPECT_FALSE(test::allclose(c, want, 1e-5, atol_for(p.K)));
    kernels::pack_b_f32(p.K, p.N, p.b_kn.data(), p.ldb_kn, true, packed.data());  // wrong layout
    c = p.c0;
    kernels::gemm_f32_4x8_simd128(p.M, p.N, p.K, p.a.data(), p.lda, packed.data(), p.bias.data(),
                                  c.data(), p.ldc, false);
    EXPECT_FALSE(test::allclose(c, want, 1e-5, atol_for(p.K)));
}

}  // namespace
}  // namespace heed
