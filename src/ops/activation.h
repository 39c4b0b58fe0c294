// Element-wise activations of the feed-forward block, applied in place.
#pragma once

#include <cstddef>

#include "model/config.h"

namespace heed {

/// x[i] = act(x[i]) for i < n. Gelu is the exact erf form (PyTorch's default "gelu").
void activate(float* x, std::size_t n, Activation act) noexcept;

}  // namespace heed
