// relu, gelu (erf), swish (x * sigmoid(x)).
#include "ops/activation.h"

#include <cmath>

namespace heed {

void activate(float* x, std::size_t n, Activation act) {
    switch (act) {
        case Activation::Relu:
            for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0 ? x[i] : 0.0f;
            break;
        case Activation::Gelu:
            for (std::size_t i = 0; i < n; ++i)
                x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
            break;
        case Activation::Swish:
            for (std::size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
            break;
    }
}

}  // namespace heed
