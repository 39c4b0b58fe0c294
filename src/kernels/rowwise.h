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

/// The index std::max_element(x, x + n) gives: the first of the largest of `n` >= 1 values.
/// SIMD128 (one pass for the maximum, one to find it; a row with NaN takes the scalar path).
int argmax_f32(const float* x, int n) noexcept;

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
