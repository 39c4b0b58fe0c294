// The model's hyper-parameters as stored in the file's "heed.config" JSON, validated once.
// Covers our own models and Marian/OPUS-MT-style ones; not the weights (see weights.h).
#pragma once

#include <string>

#include "ops/activation.h"  // Activation

namespace heed {

/// Sinusoidal: Vaswani et al.'s interleaved sin/cos; Learned: a table in the file; Marian:
/// Marian's sinusoids ([sin | cos] halves, frequencies 10000^(-i/(D/2-1))), computed at load.
enum class PositionKind { Sinusoidal, Learned, Marian };

/// What the decoder's first sublayer is: masked self-attention (Vaswani et al. 2017 §3.2.3),
/// or the simpler simple recurrent unit of Kim et al. 2019 ("From Research to Production and
/// Back: Ludicrously Fast Neural Machine Translation", §3.2), as Firefox's models use.
enum class DecoderSelf { Attention, Ssru };

/// Which embedding tables are one matrix. All: source, target and output (`embed.weight`);
/// Decoder: target and output (`lm_head.weight`), the source its own (`src_embed.weight`);
/// SourceTarget: source and target (`embed.weight`), the output its own; None: three tables.
enum class EmbeddingTies { All, Decoder, SourceTarget, None };

/// What the search may not choose, and how a shortlist is taken. Heed: no control piece but
/// </s>, no byte sequence that is not UTF-8, the shortlist as listed. Marian (models read
/// through src/marian/): as Marian's beam search, only <unk> (its `allow-unk` false), and the
/// shortlist padded to a multiple of 8 ids as Marian's selection pads it.
enum class SearchRules { Heed, Marian };

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
    int vocab_size = 8000;      ///< V, the source vocabulary (and the target's when shared)
    int target_vocab_size = 0;  ///< the target vocabulary when separate (0: `vocab_size`)
    bool pre_norm = true;       ///< LayerNorm before each block (and a final one) vs after
    Activation activation = Activation::Relu;
    PositionKind positions = PositionKind::Sinusoidal;
    int max_positions = 256;                  ///< longest sequence the positions cover
    EmbeddingTies ties = EmbeddingTies::All;  ///< JSON "embedding_ties" (or "tied_embeddings")
    DecoderSelf decoder_self = DecoderSelf::Attention;  ///< JSON "decoder_self"
    bool zero_start = false;  ///< the decoder's first input is a zero vector, not a token (Marian)
    bool scale_embeddings = true;    ///< multiply embeddings by sqrt(D)
    bool final_logits_bias = false;  ///< a [V] bias added to the logits
    /// A LayerNorm on the embeddings (after the positions are added), `encoder.emb_ln` and
    /// `decoder.emb_ln`: Marian's `transformer-postprocess-emb: n`.
    bool embedding_norm = false;
    SearchRules search_rules = SearchRules::Heed;  ///< JSON "search_rules": "heed" or "marian"
    float layer_norm_eps = 1e-5f;
    int pad_id = 0, unk_id = 1, bos_id = 2, eos_id = 3;
    int decoder_start_id = 2;  ///< first decoder input token

    int head_dim() const { return d_model / heads; }
    /// Vt, the size of the target vocabulary (the logits, every target id).
    int target_vocab() const { return target_vocab_size ? target_vocab_size : vocab_size; }
    bool ssru_decoder() const { return decoder_self == DecoderSelf::Ssru; }

    /// Parses and validates the JSON text; throws heed::Error naming the bad field.
    static ModelConfig from_json(const std::string& json_text);
    /// The config back as JSON text (for `heed info` and the JS side).
    std::string to_json() const;
};

}  // namespace heed
