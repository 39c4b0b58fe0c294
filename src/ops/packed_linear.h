// The linear layer y = x·Wᵀ + b with W packed once at load, in one of two formats: f32 panels
// (kernels/gemm.h), or int8 panels with per-row scales kept as the model file stores them
// (kernels/gemm_i8.h), computed without widening W to f32 in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace heed {

/// How a PackedLinear holds W and multiplies by it.
enum class LinearKernel {
    F32,        ///< f32 panels, the 4×8 f32 micro-kernel
    Int8,       ///< int8 panels; activations rounded to int16 per row; int32 dot products
    Int8Widen,  ///< int8 panels widened to f32 on the fly (no activation rounding; slower)
};

/// A linear layer with W stored [out, in] (PyTorch layout).
class PackedLinear {
  public:
    PackedLinear() = default;
    /// f32: copies and packs `w` ([out, in], row-major); `bias` ([out]) may be null.
    PackedLinear(const float* w, const float* bias, int out_features, int in_features);
    /// int8: W = q · scales[row] ([out, in] int8, [out] scales), as the model file stores it;
    /// `kernel` is LinearKernel::Int8 or Int8Widen. `bias` ([out]) may be null.
    PackedLinear(const std::int8_t* q, const float* scales, const float* bias, int out_features,
                 int in_features, LinearKernel kernel = LinearKernel::Int8);

    int in_features() const { return in_; }
    int out_features() const { return out_; }
    LinearKernel kernel() const { return kernel_; }

    /// y[rows, out] = x[rows, in]·Wᵀ + b. `y` must not alias `x`. Allocates only per-thread
    /// scratch that grows to the largest shape seen. Large products share their output
    /// columns out over current_pool() (core/thread_pool.h), bit for bit as on one thread.
    void apply(const float* x, int rows, float* y) const noexcept;
    /// Convenience form for tests and cold paths (allocates the result).
    Mat operator()(const Mat& x) const;

    /// Row j of W (dequantised when int8): the embedding look-up of a tied output layer, so
    /// the table is held once.
    void weight_row(int j, float* out) const;
    /// The layer of rows `ids` of this one, in that order, same format (the shortlist's
    /// output layer). Every id must be in 0..out_features()-1.
    PackedLinear select_rows(const std::vector<int>& ids) const;
    /// Bytes held for W, scales and bias.
    std::size_t resident_bytes() const;

  private:
    int in_ = 0, out_ = 0;
    LinearKernel kernel_ = LinearKernel::F32;
    std::vector<float> packed_;           // F32: kernel panel layout of Wᵀ
    std::vector<std::int8_t> packed_i8_;  // Int8*: 4-row int8 panels
    std::vector<float> scales_;           // Int8*: per row, zero-padded to whole panels
    std::vector<float> bias_;             // [out] (zeros when the layer has none)
};

}  // namespace heed
