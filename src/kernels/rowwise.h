// Row kernels of the transformer block: log-softmax, argmax, layer normalisation, relu and gelu
// over contiguous floats, each with its scalar reference. Raw pointers only: no allocation, no
// xtensor, no masking or scaling policy (callers in ops/ own those).
#pragma once

#include <cstddef>

namespace heed::kernels {

/// y[i] = x[i] - max x - log Σ exp(x - max x) (log-softmax) over `n` >= 1 values with at
/// least one finite one, in place allowed: the decoder's log-probabilities, without storing
/// the exponentials. SIMD128.
void log_softmax_row_f32(const float* x, int n, float* y) noexcept;
/// Scalar reference for log_softmax_row_f32 (std::exp, double sum).
void log_softmax_row_f32_ref(const float* x, int n, float* y);

/// log_softmax_row_f32 in stages, so that the exponentials of one long row can be computed on
/// several threads (decoding/greedy.cpp), the same bits as the one pass:
/// m = max_f32(x, n); exp_minus_f32 on any split of [0, n) on multiples of 4;
/// lse = log_sum_exp_f32(x, n, m, e); then y = x - lse (subtract_f32).
float max_f32(const float* x, int n) noexcept;
/// e[i] = exp(x[i] - m) for the whole vectors of [0, n) (n rounded down to a multiple of 4).
void exp_minus_f32(const float* x, int n, float m, float* e) noexcept;
/// m + log of (e's whole vectors summed in log_softmax_row_f32's order, then the tail's
/// exp(x - m)).
float log_sum_exp_f32(const float* x, int n, float m, const float* e) noexcept;
/// y[i] = x[i] - s; in place allowed.
void subtract_f32(const float* x, int n, float s, float* y) noexcept;

/// The index std::max_element(x, x + n) gives: the first of the largest of `n` >= 1 values.
/// SIMD128 (one pass for the maximum, one to find it; a row with NaN takes the scalar path).
int argmax_f32(const float* x, int n) noexcept;

/// The first index i in [begin, end) with x[i] > threshold (a NaN never is), or `end`: the scan
/// of a top-n search for a value that beats its current last. SIMD128, four values a compare.
std::size_t next_above_f32(const float* x, std::size_t begin, std::size_t end,
                           float threshold) noexcept;

/// y = (x - mean) / sqrt(var + eps) * gamma + beta over `d` values (biased variance, two
/// passes, as nn.LayerNorm). `gamma`/`beta` ([d]) may be null for 1 / 0. `y` may alias `x`.
void layer_norm_row_f32(const float* x, int d, const float* gamma, const float* beta, float eps,
                        float* y) noexcept;
/// Scalar reference for layer_norm_row_f32 (double accumulation).
void layer_norm_row_f32_ref(const float* x, int d, const float* gamma, const float* beta, float eps,
                            float* y);

/// x[i] = max(x[i], 0) in place (NaN -> 0, like the reference).
void relu_f32(float* x, std::size_t n) noexcept;
/// Scalar reference for relu_f32.
void relu_f32_ref(float* x, std::size_t n);

/// x[i] = x[i]/2 · (1 + erf(x[i]/√2)) in place: exact (erf) GELU, PyTorch's default, with erf
/// from a rational approximation (|error| < 2e-7).
void gelu_f32(float* x, std::size_t n) noexcept;
/// Scalar reference for gelu_f32 (std::erf).
void gelu_f32_ref(float* x, std::size_t n);

}  // namespace heed::kernels
