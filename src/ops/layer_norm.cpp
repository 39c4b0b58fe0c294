// Layer normalisation, two-pass (mean, then variance) in float like PyTorch's CPU kernel.
#include "ops/layer_norm.h"

#include <cmath>
#include <cstddef>

namespace heed {

void layer_norm(const float* x, int rows, int d, const LayerNorm& ln, float eps, float* out) {
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + std::size_t(r) * d;
        float* yr = out + std::size_t(r) * d;
        double mean = 0;
        for (int i = 0; i < d; ++i) mean += xr[i];
        mean /= d;
        double var = 0;
        for (int i = 0; i < d; ++i) var += (xr[i] - mean) * (xr[i] - mean);
        var /= d;  // why: biased variance, as nn.LayerNorm
        const float inv = float(1.0 / std::sqrt(var + eps));
        const float m = float(mean);
        for (int i = 0; i < d; ++i) yr[i] = (xr[i] - m) * inv * ln.gamma[i] + ln.beta[i];
    }
}

}  // namespace heed
