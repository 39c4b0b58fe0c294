// Matrix products over xtensor containers and raw strided buffers (the linear layer with
// weights packed at load is ops/packed_linear.h).
// The arithmetic lives in kernels/ (SIMD GEMM); this layer only shapes and dispatches.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace heed {

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
