// Matrix products over xtensor containers and raw strided buffers, plus the packed linear layer.
// The arithmetic lives in kernels/ (SIMD GEMM); this layer only shapes and dispatches.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace heed {

/// A linear layer y = x·Wᵀ + b with W stored [out, in] (PyTorch layout), packed once at load
/// into the GEMM micro-kernel's panel layout.
class PackedLinear {
public:
    PackedLinear() = default;
    /// Copies and packs `w` ([out, in], row-major); `bias` ([out]) may be null.
    PackedLinear(const float* w, const float* bias, int out_features, int in_features);

    int in_features() const { return in_; }
    int out_features() const { return out_; }

    /// y[rows, out] = x[rows, in]·Wᵀ + b. `y` must not alias `x`. Does not allocate.
    void apply(const float* x, int rows, float* y) const noexcept;
    /// Convenience form for tests and cold paths (allocates the result).
    Mat operator()(const Mat& x) const;

private:
    int in_ = 0, out_ = 0;
    std::vector<float> packed_;  // kernel panel layout of Wᵀ
    std::vector<float> bias_;    // [out] (zeros when the layer has none)
};

/// c[M,N] = a[M,K]·b where b is [K,N] (or [N,K] read transposed when `b_transposed`).
/// Leading dimensions allow strided head slices. Large products pack B into a per-thread
/// scratch buffer that grows to the largest shape seen, then never allocates again.
void matmul_raw(const float* a, int lda, const float* b, int ldb, bool b_transposed, float* c,
                int ldc, int M, int N, int K) noexcept;

/// [M,K]·[K,N] -> [M,N]
Mat matmul(const Mat& a, const Mat& b);
/// [M,K]·[N,K]ᵀ -> [M,N]
Mat matmul_nt(const Mat& a, const Mat& b);

}  // namespace heed
