// Typed weights of the encoder-decoder Transformer, filled once by the loader from the file's
// named tensors (a missing or mis-shaped tensor is reported by name). No look-ups at run time.
#pragma once

#include <vector>

#include "model/config.h"
#include "model/shortlist.h"
#include "ops/layer_norm.h"
#include "ops/packed_linear.h"

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

/// The simpler simple recurrent unit (Kim et al. 2019 §3.2) in place of decoder
/// self-attention: x·W and x·W_f + b_f in one [2D, D] product (W's bias part is zero).
struct SsruWeights {
    PackedLinear wf;  ///< x·[W; W_f]ᵀ + [0; b_f] -> [.., 2D] = candidate | forget-gate logits
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
    SelfAttentionWeights self_attn;  ///< empty when the decoder is an SSRU one
    SsruWeights ssru;                ///< empty unless the decoder is an SSRU one
    CrossAttentionWeights cross_attn;
    FeedForwardWeights ffn;
};

struct ModelWeights {
    /// Token embeddings [V, D] / [Vt, D], row look-up. An empty `tgt_embed` is tied to the
    /// output: the rows of `lm_head` are read (one table in memory, int8 when the file stores it
    /// so); an empty `src_embed` is tied to the target's.
    std::vector<float> src_embed, tgt_embed;
    /// Positions [P, D] (sinusoidal or learned); `dec_pos` is empty when it equals `enc_pos`.
    std::vector<float> enc_pos, dec_pos;
    PackedLinear lm_head;  ///< [V, D] output projection (+ final logits bias)
    std::vector<EncoderLayerWeights> encoder;
    std::vector<DecoderLayerWeights> decoder;
    LayerNorm encoder_ln, decoder_ln;          ///< final norms (pre-norm models only)
    LayerNorm encoder_emb_ln, decoder_emb_ln;  ///< norms on the embeddings (`embedding_norm`)
    /// Output shortlists by target language (optional tensors; usually empty).
    std::map<std::string, Shortlist> shortlists;

    /// Row `id` of the source / target embedding table into out[D].
    void source_embedding(int id, float* out) const;
    void target_embedding(int id, float* out) const;
    /// Position t's encoding of the encoder / decoder ([D]).
    const float* encoder_position(int t) const;
    const float* decoder_position(int t) const;
    /// Bytes held for all weights (what a loaded model keeps resident).
    std::size_t resident_bytes() const;
};

/// How the loader computes with the file's weights: Int8 (the default) keeps I8 tensors
/// int8 in memory and multiplies them as such; F32 widens them to f32 at load (the reference
/// it is compared with). F16/F32 tensors are always f32.
struct LoadOptions {
    LinearKernel int8_kernel = LinearKernel::Int8;
};

/// Reads every tensor the config needs, checks shapes, packs the GEMM weights, and rejects
/// unknown tensors. Throws heed::Error naming the offending tensor.
ModelWeights load_weights(const ModelFile& file, const ModelConfig& config,
                          const LoadOptions& options = {});

/// Number of learned parameters the config implies (embeddings counted once when tied).
std::size_t count_parameters(const ModelConfig& config);

}  // namespace heed
