// Element-wise activations of the feed-forward block, applied in place.
#pragma once

#include <cstddef>

namespace heed {

/// The feed-forward block's non-linearity (Vaswani et al. 2017 §3.3 uses ReLU).
enum class Activation { Relu, Gelu, Swish };

/// x[i] = act(x[i]) for i < n. Gelu is the exact erf form (PyTorch's default "gelu").
void activate(float* x, std::size_t n, Activation act) noexcept;

}  // namespace heed
