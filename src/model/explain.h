// The one-head explainer: every intermediate of one attention head of the real model on a
// given (source, target) pair, recomputed teacher-forced. Cold path for the demo; not used
// by translation.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "model/model.h"

namespace heed {

enum class AttentionBlock { EncoderSelf, DecoderSelf, Cross };

/// Lq/Lk query/key lengths, D model dim, Dh head dim.
struct HeadExplanation {
    int dk = 0;
    Mat xq, xkv;              ///< block inputs after their LayerNorm: [Lq, D], [Lk, D]
    Mat q, k, v;              ///< this head's projections [Lq, Dh], [Lk, Dh], [Lk, Dh]
    Mat scores;               ///< Q·Kᵀ [Lq, Lk]
    Mat scaled;               ///< Q·Kᵀ/√dk [Lq, Lk]
    Mat mask;                 ///< 1 where blocked (causal), else 0 [Lq, Lk]
    Mat weights;              ///< softmax(masked scaled) [Lq, Lk]
    Mat weights_unscaled;     ///< softmax(masked scores), for comparison [Lq, Lk]
    Mat output;               ///< weights·V [Lq, Dh]
    Mat concat;               ///< all heads' outputs [Lq, D]
    Mat projected;            ///< concat·Woᵀ + bo [Lq, D]
};

/// `source` includes EOS; `target` are the emitted target ids (the decoder inputs are the
/// start token followed by target[0..T-2]). Throws heed::Error for a bad layer/head.
HeadExplanation explain_head(const Model& model, const std::vector<int>& source,
                             const std::vector<int>& target, AttentionBlock block, int layer,
                             int head);

}  // namespace heed
