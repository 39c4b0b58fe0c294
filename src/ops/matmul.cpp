// Matrix products over raw strided buffers and xtensor containers: shape plumbing and the
// choice of kernel path. The arithmetic lives in kernels/gemm.
#include "ops/matmul.h"

#include <cstddef>

#include "kernels/gemm.h"

namespace heed {
namespace {

/// Per-thread scratch for packing activations; grows to the largest shape seen, then stays.
float* scratch(std::size_t n) {
    thread_local std::vector<float> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

// why (bench/gemm_bench, V8 and native): packing B on every call pays off only from a few
// dozen rows of A; below that the in-place paths (rows of B dotted with rows of A for [N,K],
// B's rows stepped through by the register tiles for [K,N]) are as fast or faster. A [K,N]
// operand is packed only when it is also large, where in-place reads start to miss cache.
constexpr int kPackMinRows = 32;
constexpr std::size_t kPackMinFloatsNN = 16 * 1024;

}  // namespace

void matmul_raw(const float* a, int lda, const float* b, int ldb, bool b_transposed, float* c,
                int ldc, int M, int N, int K) noexcept {
    if (M <= 0 || N <= 0) return;
    if (b_transposed) {
        if (M < kPackMinRows || N < kernels::kGemmNr) {
            kernels::gemm_f32_nt_dot_simd128(M, N, K, a, lda, b, ldb, nullptr, c, ldc, false);
            return;
        }
    } else if (M < kPackMinRows || std::size_t(K) * N <= kPackMinFloatsNN) {
        // only a partial last panel of B is copied (K*8 floats of scratch)
        float* tail = scratch(std::size_t(K) * kernels::kGemmNr);
        kernels::gemm_f32_nn_simd128(M, N, K, a, lda, b, ldb, nullptr, c, ldc, false, tail);
        return;
    }
    float* packed = scratch(kernels::packed_b_size(K, N));
    kernels::pack_b_f32(K, N, b, ldb, b_transposed, packed);
    kernels::gemm_f32_4x8_simd128(M, N, K, a, lda, packed, nullptr, c, ldc, false);
}

Mat matmul(const Mat& a, const Mat& b) {
    Mat c = Mat::from_shape({a.shape(0), b.shape(1)});
    matmul_raw(a.data(), int(a.shape(1)), b.data(), int(b.shape(1)), false, c.data(),
               int(b.shape(1)), int(a.shape(0)), int(b.shape(1)), int(a.shape(1)));
    return c;
}

Mat matmul_nt(const Mat& a, const Mat& b) {
    Mat c = Mat::from_shape({a.shape(0), b.shape(0)});
    matmul_raw(a.data(), int(a.shape(1)), b.data(), int(b.shape(1)), true, c.data(),
               int(b.shape(0)), int(a.shape(0)), int(b.shape(0)), int(a.shape(1)));
    return c;
}

}  // namespace heed
