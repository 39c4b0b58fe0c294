// What the one-head explainer returns: every intermediate of one attention head, as plain data
// (the translator's façade hands it on unchanged). Not the computation (explain.h).
#pragma once

#include <string>

#include "core/array.h"

namespace heed {

/// Which attention block of the model an explanation is about.
enum class AttentionBlock { EncoderSelf, DecoderSelf, Cross };

/// A block's name wherever it is written out: traces, costs, the JavaScript API.
inline const char* block_name(AttentionBlock block) {
    static const char* const kNames[] = {"encoder", "decoder", "cross"};
    return kNames[int(block)];
}

/// One head of one block to explain, and the token that started the decoder (-1: the config's
/// decoder_start_id; for a model with several directions, the target language's token).
struct HeadQuery {
    AttentionBlock block = AttentionBlock::EncoderSelf;
    int layer = 0;
    int head = 0;
    int start_id = -1;
};

/// Lq/Lk query/key lengths, D model dim, Dh head dim.
struct HeadExplanation {
    int dk = 0;
    std::string start_token;  ///< the decoder's first input piece (labels decoder-side keys)
    Array xq, xkv;            ///< block inputs after their LayerNorm: [Lq, D], [Lk, D]
    Array q, k, v;            ///< this head's projections [Lq, Dh], [Lk, Dh], [Lk, Dh]
    Array scores;             ///< Q·Kᵀ [Lq, Lk]
    Array scaled;             ///< Q·Kᵀ/√dk [Lq, Lk]
    Array mask;               ///< 1 where blocked (causal), else 0 [Lq, Lk]
    Array weights;            ///< softmax(masked scaled) [Lq, Lk]
    Array weights_unscaled;   ///< softmax(masked scores), for comparison [Lq, Lk]
    Array output;             ///< weights·V [Lq, Dh]
    Array concat;             ///< all heads' outputs [Lq, D]
    Array projected;          ///< concat·Woᵀ + bo [Lq, D]
    /// ‖f(x_j)‖ = ‖v_j·Woᵀ restricted to this head's columns‖, without bo [Lk]: the size of
    /// what key j adds to the output per unit of weight (Kobayashi et al. 2020 §3)
    Array value_norms;
};

}  // namespace heed
