// The model's hyper-parameters as stored in the file's "heed.config" JSON, validated once.
// Covers our own models and Marian/OPUS-MT-style ones; not the weights (see weights.h).
#pragma once

#include <string>

#include "ops/activation.h"  // Activation

namespace heed {

enum class PositionKind { Sinusoidal, Learned };

/// The largest configuration a model file may ask for; from_json refuses anything bigger,
/// naming the field and its limit, before a single weight is allocated. why: a config is
/// untrusted input, and these bound the memory and time of loading and of one translation.
struct ModelLimits {
    static constexpr int d_model = 4096;
    static constexpr int heads = 64;
    static constexpr int ffn_dim = 16384;
    static constexpr int encoder_layers = 32;
    static constexpr int decoder_layers = 32;
    static constexpr int vocab_size = 262144;
    static constexpr int max_positions = 4096;
};

/// Encoder-decoder Transformer configuration.
struct ModelConfig {
    int d_model = 256;   ///< D, model width
    int heads = 4;       ///< H; head dim Dh = D / H
    int ffn_dim = 1024;  ///< F, feed-forward inner width
    int encoder_layers = 4;
    int decoder_layers = 1;
    int vocab_size = 8000;  ///< V, shared source/target vocabulary
    bool pre_norm = true;   ///< LayerNorm before each block (and a final one) vs after
    Activation activation = Activation::Relu;
    PositionKind positions = PositionKind::Sinusoidal;
    int max_positions = 256;         ///< longest sequence the positions cover
    bool tied_embeddings = true;     ///< source, target and output embeddings are one matrix
    bool scale_embeddings = true;    ///< multiply embeddings by sqrt(D)
    bool final_logits_bias = false;  ///< a [V] bias added to the logits
    float layer_norm_eps = 1e-5f;
    int pad_id = 0, unk_id = 1, bos_id = 2, eos_id = 3;
    int decoder_start_id = 2;  ///< first decoder input token

    int head_dim() const { return d_model / heads; }

    /// Parses and validates the JSON text; throws heed::Error naming the bad field.
    static ModelConfig from_json(const std::string& json_text);
    /// The config back as JSON text (for `heed info` and the JS side).
    std::string to_json() const;
};

}  // namespace heed
