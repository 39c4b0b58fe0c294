// Linear attention (Katharopoulos et al. 2020, "Transformers are RNNs") with the feature map
// φ(x) = elu(x) + 1, non-causal and causal, for comparison with softmax attention in the demo.
// Not used by the translation model.
#pragma once

#include "core/tensor.h"
#include "ops/attention.h"

namespace heed {

/// φ(x) = elu(x) + 1 element-wise (x + 1 for x > 0, exp(x) otherwise); always positive.
Mat elu_feature_map(const Mat& x);

/// out_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ_j φ(k_j) over q [Lq, Dk], k [Lk, Dk], v [Lk, Dv],
/// computed in linear time through the key/value summaries; with `causal` the sums run over
/// j <= i only (a running prefix, the RNN view). Also returns, for display, the implied weights
/// w_ij = φ(q_i)ᵀφ(k_j) / Σ_j' φ(q_i)ᵀφ(k_j') ([Lq, Lk], rows sum to 1) and as `scores` the
/// unnormalised similarities φ(q_i)ᵀφ(k_j) (causally hidden entries = -inf); there is no
/// softmax. Throws heed::Error on mismatched shapes.
AttentionResult linear_attention(const Mat& q, const Mat& k, const Mat& v, bool causal);

}  // namespace heed
