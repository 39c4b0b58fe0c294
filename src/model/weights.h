// Typed weights of the encoder-decoder Transformer, filled once by the loader from the file's
// named tensors (a missing or mis-shaped tensor is reported by name). No look-ups at run time.
#pragma once

#include <vector>

#include "model/config.h"
#include "ops/layer_norm.h"
#include "ops/matmul.h"

namespace heed {

class ModelFile;

/// Self-attention projections with Q, K, V fused into one [3D, D] product.
struct SelfAttentionWeights {
    PackedLinear qkv;  ///< x·[Wq;Wk;Wv]ᵀ + [bq;bk;bv] -> [.., 3D]
    PackedLinear o;    ///< output projection [D, D]
};

/// Cross-attention: Q from the decoder, K and V (fused, [2D, D]) from the encoder output.
struct CrossAttentionWeights {
    PackedLinear q;
    PackedLinear kv;
    PackedLinear o;
};

struct FeedForwardWeights {
    PackedLinear fc1;  ///< [F, D]
    PackedLinear fc2;  ///< [D, F]
};

struct EncoderLayerWeights {
    LayerNorm ln1, ln2;
    SelfAttentionWeights self_attn;
    FeedForwardWeights ffn;
};

struct DecoderLayerWeights {
    LayerNorm ln1, ln2, ln3;
    SelfAttentionWeights self_attn;
    CrossAttentionWeights cross_attn;
    FeedForwardWeights ffn;
};

struct ModelWeights {
    std::vector<float> src_embed;  ///< [V, D] source embedding table (row look-up)
    std::vector<float> tgt_embed;  ///< [V, D] target embedding table (same data when tied)
    std::vector<float> enc_pos, dec_pos;  ///< [P, D] positions (sinusoidal or learned)
    PackedLinear lm_head;          ///< [V, D] output projection (+ final logits bias)
    std::vector<EncoderLayerWeights> encoder;
    std::vector<DecoderLayerWeights> decoder;
    LayerNorm encoder_ln, decoder_ln;  ///< final norms (pre-norm models only)
};

/// Reads every tensor the config needs, checks shapes, packs the GEMM weights, and rejects
/// unknown tensors. Throws heed::Error naming the offending tensor.
ModelWeights load_weights(const ModelFile& file, const ModelConfig& config);

/// Number of learned parameters the config implies (embeddings counted once when tied).
std::size_t count_parameters(const ModelConfig& config);

}  // namespace heed
