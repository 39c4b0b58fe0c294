// f32 GEMM kernels: a scalar reference, B packing into 8-column panels, the 4x8 SIMD128
// micro-kernel (XNNPACK shape) and unpacked paths for small M. Raw pointers and dims only:
// no allocation, no xtensor, no threads. Shape checks and scratch buffers live in ops/matmul.
#pragma once

#include <cstddef>

namespace heed::kernels {

// Shared conventions. Matrices are row-major with a leading dimension (elements between rows).
// C[M,N] (ldc) = A[M,K] (lda) · B + bias, where B is [K,N] (ldb), or, when `b_transposed`,
// [N,K] (ldb) read transposed. `bias` ([N]) may be null. With `accumulate` the product is
// added to what C already holds. Only C[i, j] for i < M, j < N is written. C must not alias
// A or B.

/// Width of one packed B panel (the micro-kernel's N register tile).
constexpr int kGemmNr = 8;
/// Rows of the micro-kernel's M register tile.
constexpr int kGemmMr = 4;

/// Scalar reference GEMM (float accumulation in k order, bias first): the oracle for tests
/// and the baseline of the benchmark.
void gemm_f32_ref(int M, int N, int K, const float* a, int lda, const float* b, int ldb,
                  bool b_transposed, const float* bias, float* c, int ldc,
                  bool accumulate) noexcept;

/// Floats needed to hold B[K,N] packed: ceil(N/8) panels of K rows by 8 columns.
std::size_t packed_b_size(int K, int N) noexcept;

/// Packs B ([K,N], or [N,K] when `b_transposed`) into `packed` (packed_b_size(K, N) floats):
/// panel p holds columns 8p..8p+7, one row of 8 per k, zero-filled past N.
void pack_b_f32(int K, int N, const float* b, int ldb, bool b_transposed, float* packed) noexcept;

/// C = A · packed B (+ bias) (+ C): the 4x8 register-tiled SIMD128 micro-kernel with explicit
/// M and N tails. Rows M % 4 and all of M = 1..3 (the decode step) run the small-M path: up
/// to two panels per pass, B streamed once front to back. `packed_b` comes from pack_b_f32.
void gemm_f32_4x8_simd128(int M, int N, int K, const float* a, int lda, const float* packed_b,
                          const float* bias, float* c, int ldc, bool accumulate) noexcept;

/// C = A · B with B [K,N] read in place (no packing): the same register tiles as the packed
/// kernel, stepping B rows by `ldb`. Meant for small M or small B (attention's P·V); the last
/// partial panel is copied into `tail` (K*8 floats of caller scratch, untouched when N % 8 == 0).
void gemm_f32_nn_simd128(int M, int N, int K, const float* a, int lda, const float* b, int ldb,
                         const float* bias, float* c, int ldc, bool accumulate,
                         float* tail) noexcept;

/// C = A · Bᵀ with B [N,K] read in place as rows dotted with rows of A (no packing). Meant for
/// small M or tiny N (attention's Q·Kᵀ in the decode step).
void gemm_f32_nt_dot_simd128(int M, int N, int K, const float* a, int lda, const float* b, int ldb,
                             const float* bias, float* c, int ldc, bool accumulate) noexcept;

}  // namespace heed::kernels
