// The one header that includes xtensor: fixed-rank aliases used across ops, model and decoding.
// Not a tensor library of its own; hot paths hand raw pointers to kernels/.
#pragma once

#include <cstddef>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

namespace heed {

/// Owned row-major float tensors of fixed rank.
using Vec = xt::xtensor<float, 1>;
using Mat = xt::xtensor<float, 2>;
using Tensor3 = xt::xtensor<float, 3>;
using Tensor4 = xt::xtensor<float, 4>;

/// Non-owning row-major views over a float buffer (e.g. the weight blob).
using MatView = decltype(xt::adapt(static_cast<const float*>(nullptr), std::size_t{0},
                                   xt::no_ownership(), std::array<std::size_t, 2>{}));
using VecView = decltype(xt::adapt(static_cast<const float*>(nullptr), std::size_t{0},
                                   xt::no_ownership(), std::array<std::size_t, 1>{}));

/// Wraps `rows*cols` floats at `data` as a read-only [rows, cols] view.
inline MatView mat_view(const float* data, std::size_t rows, std::size_t cols) {
    return xt::adapt(static_cast<const float*>(data), rows * cols, xt::no_ownership(), std::array<std::size_t, 2>{rows, cols});
}

/// Wraps `n` floats at `data` as a read-only [n] view.
inline VecView vec_view(const float* data, std::size_t n) {
    return xt::adapt(static_cast<const float*>(data), n, xt::no_ownership(), std::array<std::size_t, 1>{n});
}

}  // namespace heed
