// relu and gelu (erf) through the SIMD row kernels; swish (x * sigmoid(x)) scalar.
#include "ops/activation.h"

#include <cmath>

#include "kernels/rowwise.h"

namespace heed {

void activate(float* x, std::size_t n, Activation act) noexcept {
    switch (act) {
        case Activation::Relu:
            kernels::relu_f32(x, n);
            break;
        case Activation::Gelu:
            kernels::gelu_f32(x, n);
            break;
        case Activation::Swish:
            for (std::size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
            break;
    }
}

}  // namespace heed
