// The packed linear layer: packing at load, the choice of kernel, row look-up and selection.
#include "ops/packed_linear.h"

#include <cstddef>

#include "core/thread_pool.h"
#include "kernels/gemm.h"
#include "kernels/gemm_i8.h"

namespace heed {
namespace {

/// Per-thread scratch for int16 activations; grows to the largest shape seen, then stays.
std::int16_t* scratch_i16(std::size_t n) {
    thread_local std::vector<std::int16_t> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

float* scratch_scales(std::size_t n) {
    thread_local std::vector<float> buf;
    if (buf.size() < n) buf.resize(n);
    return buf.data();
}

std::vector<float> bias_or_zeros(const float* bias, int n) {
    return bias ? std::vector<float>(bias, bias + n) : std::vector<float>(std::size_t(n), 0.0f);
}

}  // namespace

PackedLinear::PackedLinear(const float* w, const float* bias, int out_features, int in_features)
    : in_(in_features),
      out_(out_features),
      kernel_(LinearKernel::F32),
      packed_(kernels::packed_b_size(in_features, out_features)),
      bias_(bias_or_zeros(bias, out_features)) {
    // W is [out, in] = B transposed for y = x·Wᵀ.
    kernels::pack_b_f32(in_, out_, w, in_, /*b_transposed=*/true, packed_.data());
}

PackedLinear::PackedLinear(const std::int8_t* q, const float* scales, const float* bias,
                           int out_features, int in_features, LinearKernel kernel)
    : in_(in_features),
      out_(out_features),
      kernel_(kernel),
      packed_i8_(kernels::packed_i8_size(out_features, in_features)),
      scales_(std::size_t(kernels::packed_rows_i8(out_features)), 0.0f),
      bias_(bias_or_zeros(bias, out_features)) {
    kernels::pack_i8(out_, in_, q, in_, packed_i8_.data());
    std::copy(scales, scales + out_, scales_.begin());
}

void PackedLinear::apply(const float* x, int rows, float* y) const noexcept {
    if (rows <= 0) return;
    // why: every output column is computed on its own in the same k order whatever the block
    // it lands in, so sharing columns out over the current pool changes no bit of y. Blocks
    // start on multiples of 8: whole f32 panels (8 columns) and whole int8 panels (4 rows).
    const double work = double(rows) * out_ * in_;
    switch (kernel_) {
        case LinearKernel::F32:
            parallel_ranges(out_, kernels::kGemmNr, work, [&](int j0, int j1) {
                // panel j0/8 starts at 8·in·(j0/8) = j0·in
                kernels::gemm_f32_4x8_simd128(rows, j1 - j0, in_, x, in_,
                                              packed_.data() + std::size_t(j0) * in_,
                                              bias_.data() + j0, y + j0, out_,
                                              /*accumulate=*/false);
            });
            return;
        case LinearKernel::Int8: {
            const int ldq = kernels::padded_k_i8(in_);
            std::int16_t* q = scratch_i16(std::size_t(rows) * ldq);
            float* a_scales = scratch_scales(std::size_t(rows));
            kernels::quantise_rows_i16(rows, in_, x, in_, q, ldq, a_scales);
            parallel_ranges(out_, kernels::kGemmNr, work, [&](int j0, int j1) {
                // panel j0/4 starts at 4·ldq·(j0/4) = j0·ldq
                kernels::gemm_i16i8_simd128(rows, j1 - j0, in_, q, ldq, a_scales,
                                            packed_i8_.data() + std::size_t(j0) * ldq,
                                            scales_.data() + j0, bias_.data() + j0, y + j0, out_);
            });
            return;
        }
        case LinearKernel::Int8Widen: {
            const int ldq = kernels::padded_k_i8(in_);
            parallel_ranges(out_, kernels::kGemmNr, work, [&](int j0, int j1) {
                kernels::gemm_f32i8_simd128(rows, j1 - j0, in_, x, in_,
                                            packed_i8_.data() + std::size_t(j0) * ldq,
                                            scales_.data() + j0, bias_.data() + j0, y + j0, out_);
            });
            return;
        }
    }
}

Mat PackedLinear::operator()(const Mat& x) const {
    Mat y = Mat::from_shape({x.shape(0), std::size_t(out_)});
    apply(x.data(), int(x.shape(0)), y.data());
    return y;
}

void PackedLinear::weight_row(int j, float* out) const {
    if (kernel_ == LinearKernel::F32) {
        // panel j/8 holds rows 8p..8p+7 of W as its columns, one group of 8 per k
        const float* panel =
            packed_.data() + std::size_t(j / kernels::kGemmNr) * kernels::kGemmNr * in_;
        for (int k = 0; k < in_; ++k)
            out[k] = panel[std::size_t(k) * kernels::kGemmNr + j % kernels::kGemmNr];
        return;
    }
    thread_local std::vector<std::int8_t> q;
    if (q.size() < std::size_t(in_)) q.resize(in_);
    kernels::unpack_row_i8(out_, in_, packed_i8_.data(), j, q.data());
    for (int k = 0; k < in_; ++k) out[k] = float(q[k]) * scales_[j];
}

PackedLinear PackedLinear::select_rows(const std::vector<int>& ids) const {
    const int n = int(ids.size());
    std::vector<float> bias(ids.size());
    for (int i = 0; i < n; ++i) bias[i] = bias_[ids[i]];
    if (kernel_ == LinearKernel::F32) {
        std::vector<float> w(std::size_t(n) * in_);
        for (int i = 0; i < n; ++i) weight_row(ids[i], w.data() + std::size_t(i) * in_);
        return PackedLinear(w.data(), bias.data(), n, in_);
    }
    std::vector<std::int8_t> q(std::size_t(n) * in_);
    std::vector<float> scales(ids.size());
    for (int i = 0; i < n; ++i) {
        kernels::unpack_row_i8(out_, in_, packed_i8_.data(), ids[i],
                               q.data() + std::size_t(i) * in_);
        scales[i] = scales_[ids[i]];
    }
    return PackedLinear(q.data(), scales.data(), bias.data(), n, in_, kernel_);
}

std::size_t PackedLinear::resident_bytes() const {
    return packed_.size() * sizeof(float) + packed_i8_.size() + scales_.size() * sizeof(float) +
           bias_.size() * sizeof(float);
}

}  // namespace heed
