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
    Reader(const ModelFile& f, const LoadOptions& options) : file_(f), options_(options) {}

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
        return fused_parts({name}, out, in);
    }
    /// Several [d, in] projections stacked into one [n*d, in] product (fused Q/K/V).
    PackedLinear fused(const std::string& prefix, const char* parts, std::size_t d,
                       std::size_t in) {
        std::vector<std::string> names;
        for (const char* p = parts; *p; ++p) names.push_back(prefix + "." + *p);
        return fused_parts(names, d, in);
    }
    /// The output layer [V, D] from `weight` and `bias` ([V]; null: zeros).
    PackedLinear output(const std::string& weight, std::size_t V, std::size_t D,
                        const std::vector<float>& bias) {
        return fused_parts({weight}, V, D, &bias, false);
    }
    void mark_used(const std::string& name) { used_.insert(name); }
    void finish() {
        // why: read by the translator, part of the format
        used_.insert("tokenizer.model");
        used_.insert("tokenizer.target.model");
        used_.insert("tokenizer.vocabulary");
        used_.insert("tokenizer.target.vocabulary");
        file_.check_all_used(used_);
    }

  private:
    /// Stacks `names` ([d, in] each, ".weight" and ".bias" unless `suffixed` is false) into
    /// one layer: int8 when every part is stored I8 and the options keep int8, else f32.
    PackedLinear fused_parts(const std::vector<std::string>& names, std::size_t d, std::size_t in,
                             const std::vector<float>* bias_in = nullptr, bool suffixed = true) {
        const auto weight = [&](const std::string& n) { return suffixed ? n + ".weight" : n; };
        bool int8 = options_.int8_kernel != LinearKernel::F32;
        for (const std::string& n : names)
            int8 = int8 && file_.has(weight(n)) && file_.info(weight(n)).dtype == DType::I8;
        std::vector<float> w, b, scales;
        std::vector<std::int8_t> q;
        for (const std::string& n : names) {
            if (int8) {
                used_.insert(weight(n));
                std::vector<std::int8_t> qp;
                std::vector<float> sp;
                file_.read_i8(weight(n), {d, in}, qp, sp);
                q.insert(q.end(), qp.begin(), qp.end());
                scales.insert(scales.end(), sp.begin(), sp.end());
            } else {
                std::vector<float> wp = read(weight(n), {d, in});
                w.insert(w.end(), wp.begin(), wp.end());
            }
            if (suffixed) {
                std::vector<float> bp = read(n + ".bias", {d});
                b.insert(b.end(), bp.begin(), bp.end());
            }
        }
        if (!suffixed) b = *bias_in;
        const int out = int(names.size() * d);
        return int8 ? PackedLinear(q.data(), scales.data(), b.data(), out, int(in),
                                   options_.int8_kernel)
                    : PackedLinear(w.data(), b.data(), out, int(in));
    }

    const ModelFile& file_;
    LoadOptions options_;
    std::set<std::string> used_;
};

std::vector<float> flat(const Mat& m) { return std::vector<float>(m.begin(), m.end()); }

}  // namespace

ModelWeights load_weights(const ModelFile& file, const ModelConfig& c, const LoadOptions& options) {
    const std::size_t D = c.d_model, F = c.ffn_dim, V = c.vocab_size, Vt = c.target_vocab(),
                      P = c.max_positions;
    Reader r(file, options);
    ModelWeights w;

    // embeddings: tied ones are the output layer's rows, held once
    std::vector<float> logits_bias(Vt, 0.0f);
    if (c.final_logits_bias) logits_bias = r.read("logits.bias", {Vt});
    switch (c.ties) {
        case EmbeddingTies::All:
            w.lm_head = r.output("embed.weight", V, D, logits_bias);
            break;
        case EmbeddingTies::Decoder:
            w.src_embed = r.read("src_embed.weight", {V, D});
            w.lm_head = r.output("lm_head.weight", Vt, D, logits_bias);
            break;
        case EmbeddingTies::SourceTarget:
            w.tgt_embed = r.read("embed.weight", {V, D});
            w.lm_head = r.output("lm_head.weight", Vt, D, logits_bias);
            break;
        case EmbeddingTies::None:
            w.src_embed = r.read("src_embed.weight", {V, D});
            w.tgt_embed = r.read("tgt_embed.weight", {Vt, D});
            w.lm_head = r.output("lm_head.weight", Vt, D, logits_bias);
            break;
    }
    if (c.positions == PositionKind::Sinusoidal) {
        w.enc_pos = flat(sinusoidal_positions(int(P), int(D)));  // why: dec_pos stays empty
    } else if (c.positions == PositionKind::Marian) {
        w.enc_pos = flat(marian_positions(int(P), int(D)));
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
        if (c.ssru_decoder()) {
            l.ssru.wf = r.fused(p + ".ssru", "wf", D, D);
        } else {
            l.self_attn.qkv = r.fused(p + ".self_attn", "qkv", D, D);
            l.self_attn.o = r.linear(p + ".self_attn.o", D, D);
        }
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
    if (c.embedding_norm) {
        w.encoder_emb_ln = r.layer_norm("encoder.emb_ln", D);
        w.decoder_emb_ln = r.layer_norm("decoder.emb_ln", D);
    }
    std::vector<std::string> shortlist_names;
    w.shortlists = read_shortlists(file, c.vocab_size, int(Vt), shortlist_names);
    for (const std::string& n : shortlist_names) r.mark_used(n);
    r.finish();
    return w;
}

void ModelWeights::source_embedding(int id, float* out) const {
    if (src_embed.empty()) return target_embedding(id, out);
    const std::size_t D = lm_head.in_features();
    std::copy(src_embed.begin() + id * D, src_embed.begin() + (id + 1) * D, out);
}

void ModelWeights::target_embedding(int id, float* out) const {
    if (tgt_embed.empty()) return lm_head.weight_row(id, out);
    const std::size_t D = lm_head.in_features();
    std::copy(tgt_embed.begin() + id * D, tgt_embed.begin() + (id + 1) * D, out);
}

const float* ModelWeights::encoder_position(int t) const {
    return enc_pos.data() + std::size_t(t) * lm_head.in_features();
}

const float* ModelWeights::decoder_position(int t) const {
    return (dec_pos.empty() ? enc_pos : dec_pos).data() + std::size_t(t) * lm_head.in_features();
}

std::size_t ModelWeights::resident_bytes() const {
    const auto floats = [](const std::vector<float>& v) { return v.size() * sizeof(float); };
    const auto norm = [&](const LayerNorm& n) { return floats(n.gamma) + floats(n.beta); };
    std::size_t n = floats(src_embed) + floats(tgt_embed) + floats(enc_pos) + floats(dec_pos) +
                    lm_head.resident_bytes() + norm(encoder_ln) + norm(decoder_ln) +
                    norm(encoder_emb_ln) + norm(decoder_emb_ln);
    for (const EncoderLayerWeights& l : encoder)
        n += norm(l.ln1) + norm(l.ln2) + l.self_attn.qkv.resident_bytes() +
             l.self_attn.o.resident_bytes() + l.ffn.fc1.resident_bytes() +
             l.ffn.fc2.resident_bytes();
    for (const DecoderLayerWeights& l : decoder)
        n += norm(l.ln1) + norm(l.ln2) + norm(l.ln3) + l.self_attn.qkv.resident_bytes() +
             l.self_attn.o.resident_bytes() + l.ssru.wf.resident_bytes() +
             l.cross_attn.q.resident_bytes() + l.cross_attn.kv.resident_bytes() +
             l.cross_attn.o.resident_bytes() + l.ffn.fc1.resident_bytes() +
             l.ffn.fc2.resident_bytes();
    return n;
}

std::size_t count_parameters(const ModelConfig& c) {
    const std::size_t D = c.d_model, F = c.ffn_dim, V = c.vocab_size, Vt = c.target_vocab();
    const std::size_t attn = 4 * (D * D + D), ffn = F * D + F + D * F + D, ln = 2 * D;
    const std::size_t ssru = 2 * D * D + D;  // W, W_f, b_f
    // the source (or shared) table, then the output's and the target's when they are their own
    std::size_t n = V * D + (c.ties == EmbeddingTies::All    ? 0
                             : c.ties == EmbeddingTies::None ? 2 * Vt * D
                                                             : Vt * D);
    if (c.final_logits_bias) n += Vt;
    if (c.positions == PositionKind::Learned) n += 2 * std::size_t(c.max_positions) * D;
    n += c.encoder_layers * (attn + ffn + 2 * ln);
    n += c.decoder_layers * ((c.ssru_decoder() ? ssru : attn) + attn + ffn + 3 * ln);
    if (c.pre_norm) n += 2 * ln;
    return n;
}

}  // namespace heed
