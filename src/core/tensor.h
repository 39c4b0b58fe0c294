// The one header that includes xtensor: fixed-rank aliases used across ops, model and decoding.
// Not a tensor library of its own; hot paths hand raw pointers to kernels/.
#pragma once

#include <cstddef>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "core/array.h"

namespace heed {

/// Owned row-major float tensors of fixed rank.
using Vec = xt::xtensor<float, 1>;
using Mat = xt::xtensor<float, 2>;
using Tensor3 = xt::xtensor<float, 3>;

/// A copy of a matrix as plain data (how tensors leave the engine).
inline Array to_array(const Mat& m) {
    return Array{{m.shape(0), m.shape(1)}, std::vector<float>(m.begin(), m.end())};
}

}  // namespace heed
