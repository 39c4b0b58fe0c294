// ModelConfig <-> JSON, with a clear error for every missing, mistyped or inconsistent field.
#include "model/config.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace heed {
namespace {

using nlohmann::json;

template <class T>
void read_field(const json& j, const char* key, T& out) {
    if (!j.contains(key)) return;  // why: optional fields keep their defaults
    try {
        out = j.at(key).get<T>();
    } catch (const json::exception&) {
        throw Error(std::string("model config: field '") + key + "' has the wrong type");
    }
}

void require_positive(int v, const char* key) {
    if (v <= 0) throw Error(std::string("model config: '") + key + "' must be positive");
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
    for (const char* key : {"d_model", "heads", "ffn_dim", "encoder_layers", "decoder_layers",
                            "vocab_size"})
        if (!j.contains(key)) throw Error(std::string("model config: missing field '") + key + "'");
    read_field(j, "d_model", c.d_model);
    read_field(j, "heads", c.heads);
    read_field(j, "ffn_dim", c.ffn_dim);
    read_field(j, "encoder_layers", c.encoder_layers);
    read_field(j, "decoder_layers", c.decoder_layers);
    read_field(j, "vocab_size", c.vocab_size);
    read_field(j, "pre_norm", c.pre_norm);
    read_field(j, "max_positions", c.max_positions);
    read_field(j, "tied_embeddings", c.tied_embeddings);
    read_field(j, "scale_embeddings", c.scale_embeddings);
    read_field(j, "final_logits_bias", c.final_logits_bias);
    read_field(j, "layer_norm_eps", c.layer_norm_eps);
    read_field(j, "pad_id", c.pad_id);
    read_field(j, "unk_id", c.unk_id);
    read_field(j, "bos_id", c.bos_id);
    read_field(j, "eos_id", c.eos_id);
    read_field(j, "decoder_start_id", c.decoder_start_id);
    std::string act = "relu", pos = "sinusoidal";
    read_field(j, "activation", act);
    read_field(j, "positions", pos);
    if (act == "relu") c.activation = Activation::Relu;
    else if (act == "gelu") c.activation = Activation::Gelu;
    else if (act == "swish" || act == "silu") c.activation = Activation::Swish;
    else throw Error("model config: unknown activation '" + act + "' (relu, gelu, swish)");
    if (pos == "sinusoidal") c.positions = PositionKind::Sinusoidal;
    else if (pos == "learned") c.positions = PositionKind::Learned;
    else throw Error("model config: unknown positions '" + pos + "' (sinusoidal, learned)");

    require_positive(c.d_model, "d_model");
    require_positive(c.heads, "heads");
    require_positive(c.ffn_dim, "ffn_dim");
    require_positive(c.encoder_layers, "encoder_layers");
    require_positive(c.decoder_layers, "decoder_layers");
    require_positive(c.vocab_size, "vocab_size");
    require_positive(c.max_positions, "max_positions");
    if (c.d_model % c.heads != 0) throw Error("model config: d_model must be divisible by heads");
    if (c.d_model > 8192 || c.ffn_dim > 65536 || c.vocab_size > 1000000 ||
        c.encoder_layers > 64 || c.decoder_layers > 64 || c.max_positions > 65536)
        throw Error("model config: dimensions are implausibly large");
    for (int id : {c.pad_id, c.eos_id, c.decoder_start_id})
        if (id < 0 || id >= c.vocab_size)
            throw Error("model config: a special token id is outside the vocabulary");
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
              {"positions", positions == PositionKind::Sinusoidal ? "sinusoidal" : "learned"},
              {"max_positions", max_positions},
              {"tied_embeddings", tied_embeddings},
              {"scale_embeddings", scale_embeddings},
              {"final_logits_bias", final_logits_bias},
              {"layer_norm_eps", layer_norm_eps},
              {"pad_id", pad_id},
              {"unk_id", unk_id},
              {"bos_id", bos_id},
              {"eos_id", eos_id},
              {"decoder_start_id", decoder_start_id}};
    return j.dump();
}

}  // namespace heed
