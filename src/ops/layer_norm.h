// Layer normalisation over the last axis (Ba et al. 2016): y = (x - mean) / sqrt(var + eps) * g +
// b. Rows of a contiguous [rows, D] buffer; no allocation.
#pragma once

#include <vector>

namespace heed {

/// The learned gain and bias of one LayerNorm, each [D].
struct LayerNorm {
    std::vector<float> gamma, beta;
};

/// out[r] = LN(x[r]) for each of `rows` rows of width `d`. `out` may alias `x`.
void layer_norm(const float* x, int rows, int d, const LayerNorm& ln, float eps,
                float* out) noexcept;

}  // namespace heed
