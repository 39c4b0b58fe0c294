// int8-weight GEMM kernels: the weights stay int8 (per-row scales, as the model file stores
// them) and are packed into 4-row panels; activations are quantised per row to int16, so the
// inner product is exact integer arithmetic (SIMD128 i32x4.dot_i16x8_s). A scalar reference,
// and for comparison an f32 kernel that widens the int8 weights on the fly. Raw pointers and
// dims only: no allocation, no xtensor, no threads. Shapes and scratch live in ops/matmul.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heed::kernels {

// Shared conventions. W is [N, K] (PyTorch [out, in]) with one f32 scale per row:
// W[n, k] = q[n, k] * w_scale[n]. C[M, N] (ldc) = A[M, K] · Wᵀ + bias. `bias` ([N]) may be
// null. `w_scales` must be readable for packed_rows_i8(N) entries (zero past N).

/// Rows of W in one packed panel, and K values per block (one 8-byte load per panel row).
constexpr int kI8PanelRows = 4;
constexpr int kI8Block = 8;
/// K values whose int32 sum cannot overflow: |q_a| ≤ 32767, |q_w| ≤ 127, so one output's
/// 512 products sum to at most 512 · 32767 · 127 < 2^31 (its four lanes added included).
/// Longer K is summed in f32, one exact integer chunk of this many values at a time.
constexpr int kI8Chunk = 512;

/// K rounded up to a whole block (the packed and quantised row length).
int padded_k_i8(int K) noexcept;
/// N rounded up to whole panels.
int packed_rows_i8(int N) noexcept;
/// Bytes of W packed: packed_rows_i8(N) · padded_k_i8(K).
std::size_t packed_i8_size(int N, int K) noexcept;

/// Packs W ([N, K] int8, row stride ldw) into `packed`: panel p holds rows 4p..4p+3, stored
/// per block of 8 k as 4 rows × 8 bytes; zero past N and past K.
void pack_i8(int N, int K, const std::int8_t* w, int ldw, std::int8_t* packed) noexcept;

/// Row n of a packed W, as K int8 values.
void unpack_row_i8(int N, int K, const std::int8_t* packed, int n, std::int8_t* out) noexcept;

/// Quantises rows of A ([M, K] f32, lda) to int16: scale = max|a| / 32767 (1 for a zero row),
/// q = round-half-even(a / scale). Writes padded_k_i8(K) values per row (zeros past K) at
/// row stride `ldq`, and one scale per row. SIMD128; the same bits as quantise_rows_i16_ref
/// for finite inputs.
void quantise_rows_i16(int M, int K, const float* a, int lda, std::int16_t* q, int ldq,
                       float* scales) noexcept;
/// Scalar reference of quantise_rows_i16.
void quantise_rows_i16_ref(int M, int K, const float* a, int lda, std::int16_t* q, int ldq,
                           float* scales) noexcept;

/// Scalar reference of gemm_i16i8_simd128, bit for bit: per chunk of kI8Chunk k the exact
/// integer dot, added as float to the row's sum; then C = sum · (a_scale · w_scale) + bias.
void gemm_i16i8_ref(int M, int N, int K, const std::int16_t* qa, int ldq, const float* a_scales,
                    const std::int8_t* packed_w, const float* w_scales, const float* bias, float* c,
                    int ldc) noexcept;

/// C = dequantised(A_q) · Wᵀ + bias with int16 × int8 products (i32x4.dot_i16x8_s): register
/// tiles of 2 rows × 1 panel (M ≥ 2) or 1 row × 2 panels (the decode step, M = 1).
void gemm_i16i8_simd128(int M, int N, int K, const std::int16_t* qa, int ldq, const float* a_scales,
                        const std::int8_t* packed_w, const float* w_scales, const float* bias,
                        float* c, int ldc) noexcept;

/// The alternative measured against it: f32 activations times int8 weights widened to f32 on
/// the fly (no activation rounding), C = A · (q · w_scale)ᵀ + bias, one row at a time.
void gemm_f32i8_simd128(int M, int N, int K, const float* a, int lda, const std::int8_t* packed_w,
                        const float* w_scales, const float* bias, float* c, int ldc) noexcept;

}  // namespace heed::kernels
