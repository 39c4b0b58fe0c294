// ModelConfig <-> JSON, with a clear error for every missing, mistyped or inconsistent field.
#include "model/config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace heed {
namespace {

using nlohmann::json;

std::string field_error(const char* key, const std::string& what) {
    return std::string("model config: field '") + key + "' " + what;
}

template <class T>
void read_field(const json& j, const char* key, T& out) {
    if (!j.contains(key)) return;  // why: optional fields keep their defaults
    try {
        out = j.at(key).get<T>();
    } catch (const json::exception&) {
        throw Error(field_error(key, "has the wrong type"));
    }
}

/// An integer field in [lo, hi] (lo >= 0). why: nlohmann's get<int>() casts floats (UB when
/// out of range) and wraps large integers, so the JSON kind and the range are checked first.
void read_int(const json& j, const char* key, int& out, int lo, int hi) {
    if (!j.contains(key)) return;
    const json& v = j.at(key);
    const std::string range = " (" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
    if (!v.is_number_integer())
        throw Error(field_error(key, "must be an integer" + range + ", got " + v.dump()));
    const bool in_range = v.is_number_unsigned()
                              ? v.get<std::uint64_t>() >= std::uint64_t(lo) &&
                                    v.get<std::uint64_t>() <= std::uint64_t(hi)
                              : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
    if (!in_range) throw Error(field_error(key, "is " + v.dump() + ", outside the limit" + range));
    out = int(v.get<std::int64_t>());
}

/// layer_norm_eps: a finite number > 0 and < 1 (it divides in every layer norm).
void read_epsilon(const json& j, const char* key, float& out) {
    if (!j.contains(key)) return;
    const json& v = j.at(key);
    const double x = v.is_number() ? v.get<double>() : std::nan("");
    // why: checked again as a float, since 1e-50 is positive but rounds to 0.0f
    if (!std::isfinite(x) || x <= 0 || x >= 1 || float(x) <= 0.0f)
        throw Error(field_error(key, "must be a finite number > 0 and < 1, got " + v.dump()));
    out = float(x);
}

void check_special_id(int id, const char* key, int vocab_size) {
    if (id < 0 || id >= vocab_size)
        throw Error(field_error(key, "is " + std::to_string(id) + ", not an id of the " +
                                         std::to_string(vocab_size) + "-piece vocabulary"));
}

}  // namespace

ModelConfig ModelConfig::from_json(const std::string& text) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw Error(std::string("model config is not valid JSON: ") + e.what());
    }
    if (!j.is_object()) throw Error("model config is not a JSON object");
    ModelConfig c;
    for (const char* key :
         {"d_model", "heads", "ffn_dim", "encoder_layers", "decoder_layers", "vocab_size"})
        if (!j.contains(key)) throw Error(std::string("model config: missing field '") + key + "'");
    read_int(j, "d_model", c.d_model, 1, ModelLimits::d_model);
    read_int(j, "heads", c.heads, 1, ModelLimits::heads);
    read_int(j, "ffn_dim", c.ffn_dim, 1, ModelLimits::ffn_dim);
    read_int(j, "encoder_layers", c.encoder_layers, 1, ModelLimits::encoder_layers);
    read_int(j, "decoder_layers", c.decoder_layers, 1, ModelLimits::decoder_layers);
    read_int(j, "vocab_size", c.vocab_size, 1, ModelLimits::vocab_size);
    read_field(j, "pre_norm", c.pre_norm);
    read_int(j, "max_positions", c.max_positions, 1, ModelLimits::max_positions);
    read_int(j, "target_vocab_size", c.target_vocab_size, 0, ModelLimits::vocab_size);
    bool tied = true;
    read_field(j, "tied_embeddings", tied);
    c.ties = tied ? EmbeddingTies::All : EmbeddingTies::None;
    read_field(j, "zero_start", c.zero_start);
    read_field(j, "scale_embeddings", c.scale_embeddings);
    read_field(j, "final_logits_bias", c.final_logits_bias);
    read_field(j, "embedding_norm", c.embedding_norm);
    read_epsilon(j, "layer_norm_eps", c.layer_norm_eps);
    read_int(j, "pad_id", c.pad_id, 0, ModelLimits::vocab_size - 1);
    read_int(j, "unk_id", c.unk_id, 0, ModelLimits::vocab_size - 1);
    read_int(j, "bos_id", c.bos_id, 0, ModelLimits::vocab_size - 1);
    read_int(j, "eos_id", c.eos_id, 0, ModelLimits::vocab_size - 1);
    read_int(j, "decoder_start_id", c.decoder_start_id, 0, ModelLimits::vocab_size - 1);
    std::string act = "relu", pos = "sinusoidal", ties, self = "attention", rules = "heed";
    read_field(j, "activation", act);
    read_field(j, "positions", pos);
    read_field(j, "embedding_ties", ties);
    read_field(j, "decoder_self", self);
    read_field(j, "search_rules", rules);
    if (act == "relu")
        c.activation = Activation::Relu;
    else if (act == "gelu")
        c.activation = Activation::Gelu;
    else if (act == "swish" || act == "silu")
        c.activation = Activation::Swish;
    else
        throw Error("model config: unknown activation '" + act + "' (relu, gelu, swish)");
    if (pos == "sinusoidal")
        c.positions = PositionKind::Sinusoidal;
    else if (pos == "learned")
        c.positions = PositionKind::Learned;
    else if (pos == "marian")
        c.positions = PositionKind::Marian;
    else
        throw Error("model config: unknown positions '" + pos + "' (sinusoidal, learned, marian)");
    if (c.positions == PositionKind::Marian && (c.d_model % 2 || c.d_model < 4))
        throw Error("model config: Marian's positions need an even d_model of at least 4, got " +
                    std::to_string(c.d_model));
    if (ties.empty())
        ;  // why: "tied_embeddings" (true or false) already chose All or None
    else if (ties == "all")
        c.ties = EmbeddingTies::All;
    else if (ties == "decoder")
        c.ties = EmbeddingTies::Decoder;
    else if (ties == "source_target")
        c.ties = EmbeddingTies::SourceTarget;
    else if (ties == "none")
        c.ties = EmbeddingTies::None;
    else
        throw Error("model config: unknown embedding_ties '" + ties +
                    "' (all, decoder, source_target, none)");
    if (self == "attention")
        c.decoder_self = DecoderSelf::Attention;
    else if (self == "ssru")
        c.decoder_self = DecoderSelf::Ssru;
    else
        throw Error("model config: unknown decoder_self '" + self + "' (attention, ssru)");
    if (rules == "heed")
        c.search_rules = SearchRules::Heed;
    else if (rules == "marian")
        c.search_rules = SearchRules::Marian;
    else
        throw Error("model config: unknown search_rules '" + rules + "' (heed, marian)");
    if (c.target_vocab() != c.vocab_size &&
        (c.ties == EmbeddingTies::All || c.ties == EmbeddingTies::SourceTarget))
        throw Error("model config: separate vocabularies (vocab_size " +
                    std::to_string(c.vocab_size) + ", target_vocab_size " +
                    std::to_string(c.target_vocab()) + ") cannot share one embedding table");

    if (c.d_model % c.heads != 0)
        throw Error("model config: d_model " + std::to_string(c.d_model) +
                    " is not divisible by heads " + std::to_string(c.heads));
    // why: ids shared by both sides must be ids of both vocabularies
    const int both = std::min(c.vocab_size, c.target_vocab());
    check_special_id(c.pad_id, "pad_id", both);
    check_special_id(c.unk_id, "unk_id", both);
    check_special_id(c.bos_id, "bos_id", both);
    check_special_id(c.eos_id, "eos_id", both);
    check_special_id(c.decoder_start_id, "decoder_start_id", c.target_vocab());
    return c;
}

std::string ModelConfig::to_json() const {
    json j = {{"d_model", d_model},
              {"heads", heads},
              {"ffn_dim", ffn_dim},
              {"encoder_layers", encoder_layers},
              {"decoder_layers", decoder_layers},
              {"vocab_size", vocab_size},
              {"pre_norm", pre_norm},
              {"activation", activation == Activation::Relu   ? "relu"
                             : activation == Activation::Gelu ? "gelu"
                                                              : "swish"},
              {"target_vocab_size", target_vocab()},
              {"positions", positions == PositionKind::Sinusoidal ? "sinusoidal"
                            : positions == PositionKind::Learned  ? "learned"
                                                                  : "marian"},
              {"max_positions", max_positions},
              {"tied_embeddings", ties == EmbeddingTies::All},
              {"embedding_ties", ties == EmbeddingTies::All       ? "all"
                                 : ties == EmbeddingTies::Decoder ? "decoder"
                                 : ties == EmbeddingTies::None    ? "none"
                                                                  : "source_target"},
              {"decoder_self", decoder_self == DecoderSelf::Ssru ? "ssru" : "attention"},
              {"zero_start", zero_start},
              {"scale_embeddings", scale_embeddings},
              {"final_logits_bias", final_logits_bias},
              {"embedding_norm", embedding_norm},
              {"search_rules", search_rules == SearchRules::Marian ? "marian" : "heed"},
              {"layer_norm_eps", layer_norm_eps},
              {"pad_id", pad_id},
              {"unk_id", unk_id},
              {"bos_id", bos_id},
              {"eos_id", eos_id},
              {"decoder_start_id", decoder_start_id}};
    return j.dump();
}

}  // namespace heed
