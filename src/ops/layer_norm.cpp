// Layer normalisation of each row through the SIMD row kernel (two passes, as nn.LayerNorm).
#include "ops/layer_norm.h"

#include <cstddef>

#include "kernels/rowwise.h"

namespace heed {

void layer_norm(const float* x, int rows, int d, const LayerNorm& ln, float eps,
                float* out) noexcept {
    for (int r = 0; r < rows; ++r)
        kernels::layer_norm_row_f32(x + std::size_t(r) * d, d, ln.gamma.data(), ln.beta.data(), eps,
                                    out + std::size_t(r) * d);
}

}  // namespace heed
