// Multi-head attention: per-head Q/K/V projections, attention per head, concatenation and the
// output projection (as nn.MultiheadAttention), keeping every intermediate (tested against
// PyTorch). Runs the same per-head routine (attend_head) as the model's fused forward pass.
#pragma once

#include "core/tensor.h"
#include "ops/attention.h"
#include "ops/matmul.h"
#include "ops/packed_linear.h"

namespace heed {

// Axis letters: H heads, Lq query length, Lk key/value length, D model dim (q/k projections
// give H*Dh columns, the v projection H*Dv), Dh = D / H.

/// The four projections of one attention block, each y = x·Wᵀ + b with W [out, in]:
/// q: Dq_in -> H*Dh, k: Dkv_in -> H*Dh, v: Dkv_in -> H*Dv, o: H*Dv -> D_out.
struct MultiHeadAttentionWeights {
    PackedLinear q, k, v, o;
    int heads = 1;
};

/// Output and intermediates of one multi-head attention call.
struct MultiHeadResult {
    Mat output;       ///< [Lq, D] after the output projection
    Tensor3 weights;  ///< [H, Lq, Lk] per-head softmax weights (0 rows where fully masked)
    Tensor3 scores;   ///< [H, Lq, Lk] per-head pre-softmax scores, masked = -inf
    Tensor3 q_heads;  ///< [H, Lq, Dh] projected queries, head h = columns h*Dh..(h+1)*Dh-1
    Tensor3 k_heads;  ///< [H, Lk, Dh] projected keys
    Tensor3 v_heads;  ///< [H, Lk, Dv] projected values
    Mat concat;       ///< [Lq, H*Dv] heads' outputs side by side, before the output projection
};

/// MultiHead(Xq, Xkv) = Concat(head_1..head_H)·Woᵀ + bo, head_h = Attention(Xq Wq_h, Xkv Wk_h,
/// Xkv Wv_h). Self-attention passes the same matrix twice. `score` must be Dot or ScaledDot
/// (scale 1/√Dh); the mask applies to every head. Throws heed::Error on mismatched shapes.
MultiHeadResult multi_head_attention(const Mat& x_q, const Mat& x_kv,
                                     const MultiHeadAttentionWeights& weights,
                                     const AttentionMask& mask,
                                     ScoreFunction score = ScoreFunction::ScaledDot);

}  // namespace heed
