// The forward pass, in the order of the paper: embeddings + positions, then per layer
// self-attention, (cross-attention,) feed-forward, each wrapped in residual + LayerNorm
// (pre-norm: x + f(LN(x)); post-norm: LN(x + f(x))).
#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "ops/activation.h"
#include "ops/attention.h"

namespace heed {
namespace {

float* row(Mat& m, int r) { return m.data() + std::size_t(r) * m.shape(1); }

/// x += y, elementwise over n floats (the residual connection).
void add_into(float* x, const float* y, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) x[i] += y[i];
}

}  // namespace

// ---- state ----

DecoderState::DecoderState(const ModelConfig& c, int rows, int max_len)
    : rows_(rows), max_len_(max_len) {
    const std::size_t R = rows, D = c.d_model, F = c.ffn_dim;
    cache_.assign(c.decoder_layers, std::vector<float>(R * max_len * 2 * D));
    cache_tmp_.resize(R * max_len * 2 * D);
    x_ = Mat::from_shape({R, D});
    h_ = Mat::from_shape({R, D});
    qkv_ = Mat::from_shape({R, 3 * D});
    q_ = Mat::from_shape({R, D});
    attn_ = Mat::from_shape({R, D});
    proj_ = Mat::from_shape({R, D});
    ffn_ = Mat::from_shape({R, F});
    probs_.resize(std::size_t(std::max(max_len, c.max_positions)));
}

void DecoderState::reorder(const std::vector<int>& parents) {
    const std::size_t per_row = cache_.empty() ? 0 : cache_[0].size() / rows_;
    const std::size_t used = per_row / max_len_ * length_;  // why: only filled steps matter
    for (auto& layer : cache_) {
        for (int r = 0; r < rows_; ++r)
            std::memcpy(cache_tmp_.data() + r * per_row, layer.data() + parents[r] * per_row,
                        used * sizeof(float));
        layer.swap(cache_tmp_);
    }
}

// ---- model ----

Model::Model(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {}

const std::vector<float>& Model::target_embedding() const {
    return config_.tied_embeddings ? weights_.src_embed : weights_.tgt_embed;
}

Memory Model::encode(const std::vector<int>& src, EncoderTrace* trace) const {
    const ModelConfig& c = config_;
    const int S = int(src.size()), D = c.d_model, H = c.heads, Dh = c.head_dim(), F = c.ffn_dim;
    if (S == 0) throw Error("cannot encode an empty sequence");
    if (S > c.max_positions)
        throw Error("source has " + std::to_string(S) + " tokens; this model handles at most " +
                    std::to_string(c.max_positions));
    const float scale = 1.0f / std::sqrt(float(Dh));
    const float emb_scale = c.scale_embeddings ? std::sqrt(float(D)) : 1.0f;

    // embeddings + positions
    Mat x = Mat::from_shape({std::size_t(S), std::size_t(D)});  // [S, D]
    for (int s = 0; s < S; ++s) {
        if (src[s] < 0 || src[s] >= c.vocab_size) throw Error("source token id out of range");
        const float* e = weights_.src_embed.data() + std::size_t(src[s]) * D;
        const float* p = weights_.enc_pos.data() + std::size_t(s) * D;
        for (int d = 0; d < D; ++d) row(x, s)[d] = e[d] * emb_scale + p[d];
    }

    Mat h = Mat::from_shape({std::size_t(S), std::size_t(D)});      // [S, D]
    Mat qkv = Mat::from_shape({std::size_t(S), std::size_t(3 * D)});  // [S, 3D]
    Mat attn = Mat::from_shape({std::size_t(S), std::size_t(D)});   // [S, D]
    Mat proj = Mat::from_shape({std::size_t(S), std::size_t(D)});   // [S, D]
    Mat ffn = Mat::from_shape({std::size_t(S), std::size_t(F)});    // [S, F]
    std::vector<float> probs(std::size_t(S) * S);                   // [S, S]
    if (trace) {
        trace->self_attn.assign(std::size_t(c.encoder_layers) * H * S * S, 0.0f);
        trace->block_inputs.clear();
    }

    for (int l = 0; l < c.encoder_layers; ++l) {
        const EncoderLayerWeights& w = weights_.encoder[l];
        // self-attention
        {
            const float* in = x.data();
            if (c.pre_norm) {
                layer_norm(x.data(), S, D, w.ln1, c.layer_norm_eps, h.data());  // [S, D]
                in = h.data();
            }
            if (trace) trace->block_inputs.push_back(c.pre_norm ? h : x);
            w.self_attn.qkv.apply(in, S, qkv.data());  // [S, 3D] = Q | K | V
            for (int hd = 0; hd < H; ++hd) {
                const float* q = qkv.data() + hd * Dh;  // [S, Dh] strided by 3D
                attend_head(q, 3 * D, q + D, 3 * D, q + 2 * D, 3 * D, S, S, Dh, scale, nullptr,
                            -1, probs.data(), attn.data() + hd * Dh, D);  // [S, Dh] of [S, D]
                if (trace)
                    std::copy(probs.begin(), probs.end(),
                              trace->self_attn.begin() + (std::size_t(l) * H + hd) * S * S);
            }
            w.self_attn.o.apply(attn.data(), S, proj.data());  // [S, D]
            add_into(x.data(), proj.data(), x.size());
            if (!c.pre_norm) layer_norm(x.data(), S, D, w.ln1, c.layer_norm_eps, x.data());
        }
        // feed-forward
        {
            const float* in = x.data();
            if (c.pre_norm) {
                layer_norm(x.data(), S, D, w.ln2, c.layer_norm_eps, h.data());
                in = h.data();
            }
            w.ffn.fc1.apply(in, S, ffn.data());  // [S, F]
            activate(ffn.data(), ffn.size(), c.activation);
            w.ffn.fc2.apply(ffn.data(), S, proj.data());  // [S, D]
            add_into(x.data(), proj.data(), x.size());
            if (!c.pre_norm) layer_norm(x.data(), S, D, w.ln2, c.layer_norm_eps, x.data());
        }
    }
    if (c.pre_norm) layer_norm(x.data(), S, D, weights_.encoder_ln, c.layer_norm_eps, x.data());

    // cross-attention keys and values, once per sentence
    Memory m;
    m.length = S;
    m.cross_kv.reserve(c.decoder_layers);
    for (int l = 0; l < c.decoder_layers; ++l) {
        Mat kv = Mat::from_shape({std::size_t(S), std::size_t(2 * D)});  // [S, 2D] = K | V
        weights_.decoder[l].cross_attn.kv.apply(x.data(), S, kv.data());
        m.cross_kv.push_back(std::move(kv));
    }
    m.states = std::move(x);
    return m;
}

void Model::step(const std::vector<const Memory*>& memories, const std::vector<int>& tokens,
                 DecoderState& s, float* logits, StepAttention* trace) const {
    const ModelConfig& c = config_;
    const int R = s.rows_, D = c.d_model, H = c.heads, Dh = c.head_dim(), t = s.length_;
    if (int(tokens.size()) != R || int(memories.size()) != R)
        throw Error("decoder step: one token and one memory per row are required");
    if (t >= s.max_len_ || t >= c.max_positions) throw Error("decoder step: out of positions");
    const float scale = 1.0f / std::sqrt(float(Dh));
    const float emb_scale = c.scale_embeddings ? std::sqrt(float(D)) : 1.0f;
    const std::vector<float>& embed = target_embedding();
    if (trace) {
        trace->self.assign(R, std::vector<float>(std::size_t(c.decoder_layers) * H * (t + 1)));
        trace->cross.resize(R);
        for (int r = 0; r < R; ++r)
            trace->cross[r].assign(std::size_t(c.decoder_layers) * H * memories[r]->length, 0.f);
        trace->self_inputs.clear();
        trace->cross_inputs.clear();
    }

    // embeddings + position t
    for (int r = 0; r < R; ++r) {
        if (tokens[r] < 0 || tokens[r] >= c.vocab_size) throw Error("target id out of range");
        const float* e = embed.data() + std::size_t(tokens[r]) * D;
        const float* p = weights_.dec_pos.data() + std::size_t(t) * D;
        for (int d = 0; d < D; ++d) row(s.x_, r)[d] = e[d] * emb_scale + p[d];  // [R, D]
    }

    for (int l = 0; l < c.decoder_layers; ++l) {
        const DecoderLayerWeights& w = weights_.decoder[l];
        // masked self-attention over this row's past (KV cache): keys 0..t
        {
            const float* in = s.x_.data();
            if (c.pre_norm) {
                layer_norm(s.x_.data(), R, D, w.ln1, c.layer_norm_eps, s.h_.data());  // [R, D]
                in = s.h_.data();
            }
            if (trace && trace->want_inputs) trace->self_inputs.push_back(c.pre_norm ? s.h_ : s.x_);
            w.self_attn.qkv.apply(in, R, s.qkv_.data());  // [R, 3D]
            float* cache = s.cache_[l].data();
            const std::size_t per_row = std::size_t(s.max_len_) * 2 * D;
            for (int r = 0; r < R; ++r) {
                float* kv_r = cache + r * per_row;  // [max_len, 2D]
                std::memcpy(kv_r + std::size_t(t) * 2 * D, row(s.qkv_, r) + D,
                            2 * D * sizeof(float));  // append k_t | v_t
                for (int hd = 0; hd < H; ++hd) {
                    attend_head(row(s.qkv_, r) + hd * Dh, 3 * D, kv_r + hd * Dh, 2 * D,
                                kv_r + D + hd * Dh, 2 * D, 1, t + 1, Dh, scale, nullptr, -1,
                                s.probs_.data(), row(s.attn_, r) + hd * Dh, D);  // [1, Dh]
                    if (trace)
                        std::copy(s.probs_.begin(), s.probs_.begin() + t + 1,
                                  trace->self[r].begin() + (std::size_t(l) * H + hd) * (t + 1));
                }
            }
            w.self_attn.o.apply(s.attn_.data(), R, s.proj_.data());  // [R, D]
            add_into(s.x_.data(), s.proj_.data(), s.x_.size());
            if (!c.pre_norm) layer_norm(s.x_.data(), R, D, w.ln1, c.layer_norm_eps, s.x_.data());
        }
        // cross-attention over the encoder memory
        {
            const float* in = s.x_.data();
            if (c.pre_norm) {
                layer_norm(s.x_.data(), R, D, w.ln2, c.layer_norm_eps, s.h_.data());
                in = s.h_.data();
            }
            if (trace && trace->want_inputs) trace->cross_inputs.push_back(c.pre_norm ? s.h_ : s.x_);
            w.cross_attn.q.apply(in, R, s.q_.data());  // [R, D]
            for (int r = 0; r < R; ++r) {
                const Memory& m = *memories[r];
                const float* kv = m.cross_kv[l].data();  // [S, 2D]
                for (int hd = 0; hd < H; ++hd) {
                    attend_head(row(s.q_, r) + hd * Dh, D, kv + hd * Dh, 2 * D, kv + D + hd * Dh,
                                2 * D, 1, m.length, Dh, scale, nullptr, -1, s.probs_.data(),
                                row(s.attn_, r) + hd * Dh, D);
                    if (trace)
                        std::copy(s.probs_.begin(), s.probs_.begin() + m.length,
                                  trace->cross[r].begin() + (std::size_t(l) * H + hd) * m.length);
                }
            }
            w.cross_attn.o.apply(s.attn_.data(), R, s.proj_.data());  // [R, D]
            add_into(s.x_.data(), s.proj_.data(), s.x_.size());
            if (!c.pre_norm) layer_norm(s.x_.data(), R, D, w.ln2, c.layer_norm_eps, s.x_.data());
        }
        // feed-forward
        {
            const float* in = s.x_.data();
            if (c.pre_norm) {
                layer_norm(s.x_.data(), R, D, w.ln3, c.layer_norm_eps, s.h_.data());
                in = s.h_.data();
            }
            w.ffn.fc1.apply(in, R, s.ffn_.data());  // [R, F]
            activate(s.ffn_.data(), s.ffn_.size(), c.activation);
            w.ffn.fc2.apply(s.ffn_.data(), R, s.proj_.data());  // [R, D]
            add_into(s.x_.data(), s.proj_.data(), s.x_.size());
            if (!c.pre_norm) layer_norm(s.x_.data(), R, D, w.ln3, c.layer_norm_eps, s.x_.data());
        }
    }

    // output projection
    const float* out = s.x_.data();
    if (c.pre_norm) {
        layer_norm(s.x_.data(), R, D, weights_.decoder_ln, c.layer_norm_eps, s.h_.data());
        out = s.h_.data();
    }
    weights_.lm_head.apply(out, R, logits);  // [R, V]
    ++s.length_;
}

}  // namespace heed
