// Loader: file tensors -> typed, packed weights. Every name it consumes is recorded so that
// leftovers are reported as unknown tensors.
#include "model/weights.h"

#include <cmath>
#include <set>
#include <string>

#include "core/error.h"
#include "model/model_file.h"
#include "ops/positional_encoding.h"

namespace heed {
namespace {

using Shape = std::vector<std::size_t>;

class Reader {
public:
    Reader(const ModelFile& f) : file_(f) {}

    std::vector<float> read(const std::string& name, Shape shape) {
        used_.insert(name);
        std::vector<float> v = file_.read_f32(name, shape);
        // why: one NaN or Inf weight silently turns every translation into an empty line
        for (std::size_t i = 0; i < v.size(); ++i)
            if (!std::isfinite(v[i]))
                throw Error("tensor '" + name + "' has a non-finite value (" +
                            std::to_string(v[i]) + ") at element " + std::to_string(i));
        return v;
    }
    bool has(const std::string& name) const { return file_.has(name); }

    LayerNorm layer_norm(const std::string& name, std::size_t d) {
        return LayerNorm{read(name + ".weight", {d}), read(name + ".bias", {d})};
    }
    PackedLinear linear(const std::string& name, std::size_t out, std::size_t in) {
        std::vector<float> w = read(name + ".weight", {out, in});
        std::vector<float> b = read(name + ".bias", {out});
        return PackedLinear(w.data(), b.data(), int(out), int(in));
    }
    /// Several [d, in] projections stacked into one [n*d, in] product (fused Q/K/V).
    PackedLinear fused(const std::string& prefix, const char* parts, std::size_t d,
                       std::size_t in) {
        std::vector<float> w, b;
        for (const char* p = parts; *p; ++p) {
            std::string name = prefix + "." + *p;
            std::vector<float> wp = read(name + ".weight", {d, in});
            std::vector<float> bp = read(name + ".bias", {d});
            w.insert(w.end(), wp.begin(), wp.end());
            b.insert(b.end(), bp.begin(), bp.end());
        }
        return PackedLinear(w.data(), b.data(), int(b.size()), int(in));
    }
    void finish() {
        used_.insert("tokenizer.model");  // why: read by the translator, part of the format
        file_.check_all_used(used_);
    }

private:
    const ModelFile& file_;
    std::set<std::string> used_;
};

std::vector<float> flat(const Mat& m) { return std::vector<float>(m.begin(), m.end()); }

}  // namespace

ModelWeights load_weights(const ModelFile& file, const ModelConfig& c) {
    const std::size_t D = c.d_model, F = c.ffn_dim, V = c.vocab_size, P = c.max_positions;
    Reader r(file);
    ModelWeights w;

    // embeddings
    if (c.tied_embeddings) {
        w.src_embed = r.read("embed.weight", {V, D});
        w.tgt_embed = w.src_embed;
    } else {
        w.src_embed = r.read("src_embed.weight", {V, D});
        w.tgt_embed = r.read("tgt_embed.weight", {V, D});
    }
    std::vector<float> logits_bias(V, 0.0f);
    if (c.final_logits_bias) logits_bias = r.read("logits.bias", {V});
    if (c.tied_embeddings) {
        w.lm_head = PackedLinear(w.tgt_embed.data(), logits_bias.data(), int(V), int(D));
    } else {
        std::vector<float> head = r.read("lm_head.weight", {V, D});
        w.lm_head = PackedLinear(head.data(), logits_bias.data(), int(V), int(D));
    }
    if (c.positions == PositionKind::Sinusoidal) {
        w.enc_pos = flat(sinusoidal_positions(int(P), int(D)));
        w.dec_pos = w.enc_pos;
    } else {
        w.enc_pos = r.read("encoder.pos.weight", {P, D});
        w.dec_pos = r.read("decoder.pos.weight", {P, D});
    }

    // encoder
    for (int i = 0; i < c.encoder_layers; ++i) {
        const std::string p = "encoder." + std::to_string(i);
        EncoderLayerWeights l;
        l.ln1 = r.layer_norm(p + ".ln1", D);
        l.ln2 = r.layer_norm(p + ".ln2", D);
        l.self_attn.qkv = r.fused(p + ".self_attn", "qkv", D, D);
        l.self_attn.o = r.linear(p + ".self_attn.o", D, D);
        l.ffn.fc1 = r.linear(p + ".ffn.fc1", F, D);
        l.ffn.fc2 = r.linear(p + ".ffn.fc2", D, F);
        w.encoder.push_back(std::move(l));
    }

    // decoder
    for (int i = 0; i < c.decoder_layers; ++i) {
        const std::string p = "decoder." + std::to_string(i);
        DecoderLayerWeights l;
        l.ln1 = r.layer_norm(p + ".ln1", D);
        l.ln2 = r.layer_norm(p + ".ln2", D);
        l.ln3 = r.layer_norm(p + ".ln3", D);
        l.self_attn.qkv = r.fused(p + ".self_attn", "qkv", D, D);
        l.self_attn.o = r.linear(p + ".self_attn.o", D, D);
        l.cross_attn.q = r.linear(p + ".cross_attn.q", D, D);
        l.cross_attn.kv = r.fused(p + ".cross_attn", "kv", D, D);
        l.cross_attn.o = r.linear(p + ".cross_attn.o", D, D);
        l.ffn.fc1 = r.linear(p + ".ffn.fc1", F, D);
        l.ffn.fc2 = r.linear(p + ".ffn.fc2", D, F);
        w.decoder.push_back(std::move(l));
    }
    if (c.pre_norm) {
        w.encoder_ln = r.layer_norm("encoder.ln", D);
        w.decoder_ln = r.layer_norm("decoder.ln", D);
    }
    r.finish();
    return w;
}

std::size_t count_parameters(const ModelConfig& c) {
    const std::size_t D = c.d_model, F = c.ffn_dim, V = c.vocab_size;
    const std::size_t attn = 4 * (D * D + D), ffn = F * D + F + D * F + D, ln = 2 * D;
    std::size_t n = c.tied_embeddings ? V * D : 3 * V * D;
    if (c.final_logits_bias) n += V;
    if (c.positions == PositionKind::Learned) n += 2 * std::size_t(c.max_positions) * D;
    n += c.encoder_layers * (attn + ffn + 2 * ln);
    n += c.decoder_layers * (2 * attn + ffn + 3 * ln);
    if (c.pre_norm) n += 2 * ln;
    return n;
}

}  // namespace heed
