// The forward pass, in the order of the paper (Vaswani et al. 2017 §3.1, figure 1): embeddings
// + positions (a LayerNorm on them when the config asks), then per layer self-attention,
// (cross-attention,) feed-forward, each one sublayer(x, norm, f): pre-norm x + f(LN(x)),
// post-norm LN(x + f(x)).
#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "model/block_attention.h"
#include "ops/activation.h"
#include "ops/attention.h"

namespace heed {
namespace {

float* row(Mat& m, int r) { return m.data() + std::size_t(r) * m.shape(1); }

/// The residual connection around each sublayer (Vaswani et al. 2017 §3.1 and §5.4):
/// post-norm x = LN(x + f(x)) as in the paper, pre-norm x = x + f(LN(x)) (Xiong et al. 2020).
/// `f(in, out)` reads in [R, D] and writes out [R, D]; `normed` and `delta` are [R, D] scratch.
class Sublayer {
  public:
    Sublayer(const ModelConfig& c, Mat& normed, Mat& delta)
        : pre_norm_(c.pre_norm), eps_(c.layer_norm_eps), normed_(normed), delta_(delta) {}

    template <class F>
    void operator()(Mat& x, const LayerNorm& norm, F&& f) const {
        const int R = int(x.shape(0)), D = int(x.shape(1));
        if (pre_norm_) layer_norm(x.data(), R, D, norm, eps_, normed_.data());  // [R, D]
        f(pre_norm_ ? normed_ : x, delta_);                                     // [R, D]
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] += delta_.data()[i];
        if (!pre_norm_) layer_norm(x.data(), R, D, norm, eps_, x.data());
    }

  private:
    bool pre_norm_;
    float eps_;
    Mat& normed_;
    Mat& delta_;
};

/// x·W1 → activation → ·W2 (Vaswani et al. 2017 §3.3); `hidden` is [R, F] scratch.
void feed_forward(const FeedForwardWeights& w, Activation act, const Mat& in, Mat& hidden,
                  Mat& out) {
    const int R = int(in.shape(0));
    w.fc1.apply(in.data(), R, hidden.data());  // [R, F]
    activate(hidden.data(), std::size_t(R) * hidden.shape(1), act);
    w.fc2.apply(hidden.data(), R, out.data());  // [R, D]
}

/// Token embeddings scaled by √D when the config says so (§3.4), plus positions (§3.5).
/// `position` may be null: no positional encoding (Interventions::no_positions).
void embed(const ModelConfig& c, const float* token, const float* position, float* out) {
    const int D = c.d_model;
    const float scale = c.scale_embeddings ? std::sqrt(float(D)) : 1.0f;
    for (int d = 0; d < D; ++d) out[d] = token[d] * scale + (position ? position[d] : 0.0f);
}

/// The encoder's output with every decoder layer's cross-attention keys and values, computed
/// once per sentence (§3.2.3: queries from the decoder, keys and values from the encoder).
Memory memory_of(Mat states, const ModelWeights& w) {
    const int S = int(states.shape(0)), D = int(states.shape(1));
    Memory m;
    m.length = S;
    for (const DecoderLayerWeights& layer : w.decoder) {
        Mat kv = Mat::from_shape({std::size_t(S), std::size_t(2 * D)});  // [S, 2D] = K | V
        layer.cross_attn.kv.apply(states.data(), S, kv.data());
        m.cross_kv.push_back(std::move(kv));
    }
    m.states = std::move(states);  // [S, D]
    return m;
}

/// Sizes a step's attention trace: self [R] -> [L][H][t+1], cross [R] -> [L][H][S_r].
void start_trace(const ModelConfig& c, const std::vector<const Memory*>& memories, int t,
                 StepAttention& trace) {
    const std::size_t R = memories.size(), LH = std::size_t(c.decoder_layers) * c.heads;
    trace.self.assign(R, std::vector<float>(LH * (t + 1)));
    trace.cross.resize(R);
    for (std::size_t r = 0; r < R; ++r) trace.cross[r].assign(LH * memories[r]->length, 0.f);
    trace.self_inputs.clear();
    trace.cross_inputs.clear();
    if (c.ssru_decoder())
        trace.forget.assign(R, std::vector<float>(std::size_t(c.decoder_layers) * c.d_model));
    else
        trace.forget.clear();
}

/// The simpler simple recurrent unit (Kim et al. 2019 §3.2) for R rows, one step:
/// f_t = σ(W_f x_t + b_f), c_t = f_t ⊙ c_{t−1} + (1 − f_t) ⊙ W x_t, output ReLU(c_t).
/// `wx` is [R, 2D] = W x_t | W_f x_t + b_f; `cell` [R, D] holds c_{t−1} and becomes c_t;
/// `forget` (null: not recorded) gets f_t per row at `forget[r] + offset`.
void ssru_step(const float* wx, int R, int D, float* cell, float* out,
               std::vector<std::vector<float>>* forget, std::size_t offset) {
    for (int r = 0; r < R; ++r) {
        const float* x = wx + std::size_t(r) * 2 * D;  // [2D]
        float* c = cell + std::size_t(r) * D;          // [D]
        float* o = out + std::size_t(r) * D;           // [D]
        for (int d = 0; d < D; ++d) {
            const float f = 1.0f / (1.0f + std::exp(-x[D + d]));
            c[d] = f * c[d] + (1.0f - f) * x[d];
            o[d] = std::max(c[d], 0.0f);
            if (forget) (*forget)[std::size_t(r)][offset + d] = f;
        }
    }
}

const Interventions kNone;

}  // namespace

// ---- state ----

DecoderState::DecoderState(const ModelConfig& c, int rows, int max_len)
    : rows_(rows), max_len_(max_len) {
    const std::size_t R = rows, D = c.d_model, F = c.ffn_dim;
    if (c.ssru_decoder()) {  // why: a recurrent state of D per row replaces the growing cache
        cell_.assign(c.decoder_layers, std::vector<float>(R * D, 0.0f));
        cache_tmp_.resize(R * D);
    } else {
        cache_.assign(c.decoder_layers, std::vector<float>(R * max_len * 2 * D));
        cache_tmp_.resize(R * max_len * 2 * D);
    }
    x_ = Mat::from_shape({R, D});
    h_ = Mat::from_shape({R, D});
    qkv_ = Mat::from_shape({R, 3 * D});
    q_ = Mat::from_shape({R, D});
    attn_ = Mat::from_shape({R, D});
    proj_ = Mat::from_shape({R, D});
    ffn_ = Mat::from_shape({R, F});
    token_.resize(D);
    attention_ =
        std::make_unique<BlockAttention>(c, rows, std::size_t(std::max(max_len, c.max_positions)));
}

DecoderState::~DecoderState() = default;

void DecoderState::set_interventions(const Interventions* interventions) {
    attention_->set_interventions(interventions);
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
    for (auto& layer : cell_) {
        const std::size_t D = layer.size() / rows_;
        for (int r = 0; r < rows_; ++r)
            std::memcpy(cache_tmp_.data() + r * D, layer.data() + parents[r] * D,
                        D * sizeof(float));
        layer.swap(cache_tmp_);
    }
    attention_->reorder(parents);
}

// ---- model ----

Model::Model(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {}

Memory Model::encode(const std::vector<int>& src, EncoderTrace* trace,
                     const Interventions* interventions) const {
    const ModelConfig& c = config_;
    const Interventions& iv = interventions ? *interventions : kNone;
    const int S = int(src.size()), D = c.d_model, H = c.heads, F = c.ffn_dim;
    if (S == 0) throw Error("cannot encode an empty sequence");
    if (S > c.max_positions)
        throw Error("source has " + std::to_string(S) + " tokens; this model handles at most " +
                    std::to_string(c.max_positions));
    const auto rows = [S](int cols) {
        return Mat::from_shape({std::size_t(S), std::size_t(cols)});
    };
    Mat x = rows(D);  // [S, D] embeddings + positions
    std::vector<float> token(D);
    for (int s = 0; s < S; ++s) {
        if (src[s] < 0 || src[s] >= c.vocab_size) throw Error("source token id out of range");
        weights_.source_embedding(src[s], token.data());
        embed(c, token.data(), iv.no_positions ? nullptr : weights_.encoder_position(s), row(x, s));
    }
    if (c.embedding_norm)  // LN(embeddings + positions), Marian's transformer-postprocess-emb n
        layer_norm(x.data(), S, D, weights_.encoder_emb_ln, c.layer_norm_eps, x.data());  // [S, D]

    Mat h = rows(D), proj = rows(D), qkv = rows(3 * D), attn = rows(D), ffn = rows(F);
    const Sublayer sublayer(c, h, proj);
    BlockAttention attention(c, 1, std::size_t(S) * S);
    attention.set_interventions(interventions);
    if (trace) {
        trace->self_attn.assign(std::size_t(c.encoder_layers) * H * S * S, 0.0f);
        trace->block_inputs.clear();
    }

    for (int l = 0; l < c.encoder_layers; ++l) {
        const EncoderLayerWeights& w = weights_.encoder[l];
        // self-attention
        sublayer(x, w.ln1, [&](const Mat& in, Mat& out) {
            if (trace) trace->block_inputs.push_back(in);     // [S, D]
            w.self_attn.qkv.apply(in.data(), S, qkv.data());  // [S, 3D] = Q | K | V
            attention.attend(
                {AttentionBlock::EncoderSelf, l, columns(qkv, 0, D),  // Q [S, D]
                 columns(qkv, D, D), columns(qkv, 2 * D, D),          // K, V [S, D]
                 out_columns(attn, 0, D),                             // [S, D]
                 trace ? trace->self_attn.data() + std::size_t(l) * H * S * S : nullptr});
            w.self_attn.o.apply(attn.data(), S, out.data());  // [S, D]
        });
        // feed-forward
        sublayer(x, w.ln2, [&](const Mat& in, Mat& out) {
            feed_forward(w.ffn, c.activation, in, ffn, out);  // [S, D]
        });
    }
    if (c.pre_norm) layer_norm(x.data(), S, D, weights_.encoder_ln, c.layer_norm_eps, x.data());

    return memory_of(std::move(x), weights_);
}

OutputLayer Model::output_layer(std::vector<int> ids) const {
    for (int id : ids)
        if (id < 0 || id >= config_.target_vocab()) throw Error("output layer: id out of range");
    OutputLayer out;
    out.layer = weights_.lm_head.select_rows(ids);
    out.ids = std::move(ids);
    return out;
}

void Model::step(const std::vector<const Memory*>& memories, const std::vector<int>& tokens,
                 DecoderState& s, float* logits, StepAttention* trace,
                 const OutputLayer* output) const {
    const ModelConfig& c = config_;
    const int R = s.rows_, D = c.d_model, H = c.heads, t = s.length_;
    if (int(tokens.size()) != R || int(memories.size()) != R)
        throw Error("decoder step: one token and one memory per row are required");
    if (t >= s.max_len_ || t >= c.max_positions) throw Error("decoder step: out of positions");
    const Interventions& iv = s.attention_->interventions();
    const bool keep_inputs = trace && trace->want_inputs;
    if (trace) start_trace(c, memories, t, *trace);
    for (int r = 0; r < R; ++r) {  // embeddings + position t
        if (tokens[r] < 0 || tokens[r] >= c.target_vocab()) throw Error("target id out of range");
        if (c.zero_start && t == 0)  // why: Marian's decoder starts from a zero vector
            std::fill(s.token_.begin(), s.token_.end(), 0.0f);
        else
            weights_.target_embedding(tokens[r], s.token_.data());
        embed(c, s.token_.data(), iv.no_positions ? nullptr : weights_.decoder_position(t),
              row(s.x_, r));  // [R, D]
    }
    if (c.embedding_norm)  // as the encoder's, SSRU decoders included
        layer_norm(s.x_.data(), R, D, weights_.decoder_emb_ln, c.layer_norm_eps,
                   s.x_.data());  // [R, D]

    const Sublayer sublayer(c, s.h_, s.proj_);
    for (int l = 0; l < c.decoder_layers; ++l) {
        const DecoderLayerWeights& w = weights_.decoder[l];
        if (c.ssru_decoder()) {
            // recurrence: the SSRU cell in place of self-attention (Kim et al. 2019 §3.2)
            sublayer(s.x_, w.ln1, [&](const Mat& in, Mat& out) {
                if (keep_inputs) trace->self_inputs.push_back(in);  // [R, D]
                w.ssru.wf.apply(in.data(), R, s.qkv_.data());       // [R, 2D] = Wx | W_f x + b_f
                ssru_step(s.qkv_.data(), R, D, s.cell_[l].data(), out.data(),
                          trace ? &trace->forget : nullptr, std::size_t(l) * D);  // [R, D]
            });
        } else {
            // masked self-attention over this row's past (KV cache): keys 0..t, so no mask is
            // needed
            sublayer(s.x_, w.ln1, [&](const Mat& in, Mat& out) {
                if (keep_inputs) trace->self_inputs.push_back(in);   // [R, D]
                w.self_attn.qkv.apply(in.data(), R, s.qkv_.data());  // [R, 3D] = Q | K | V
                const std::size_t per_row = std::size_t(s.max_len_) * 2 * D;
                for (int r = 0; r < R; ++r) {
                    float* kv = s.cache_[l].data() + r * per_row;  // [max_len, 2D] = K | V
                    std::memcpy(kv + std::size_t(t) * 2 * D, row(s.qkv_, r) + D,
                                2 * D * sizeof(float));  // append k_t | v_t
                    AttendCall self(
                        AttentionBlock::DecoderSelf, l, {row(s.qkv_, r), 1, D, 3 * D},  // Q [1, D]
                        {kv, t + 1, D, 2 * D},       // K [t+1, D]
                        {kv + D, t + 1, D, 2 * D},   // V [t+1, D]
                        {row(s.attn_, r), 1, D, D},  // [1, D]
                        trace ? trace->self[r].data() + std::size_t(l) * H * (t + 1) : nullptr);
                    self.row = r;
                    self.position = t;
                    s.attention_->attend(self);
                }
                w.self_attn.o.apply(s.attn_.data(), R, out.data());  // [R, D]
            });
        }
        // cross-attention over the encoder memory
        sublayer(s.x_, w.ln2, [&](const Mat& in, Mat& out) {
            if (keep_inputs) trace->cross_inputs.push_back(in);  // [R, D]
            w.cross_attn.q.apply(in.data(), R, s.q_.data());     // [R, D]
            for (int r = 0; r < R; ++r) {
                const Memory& m = *memories[r];
                const float* kv = m.cross_kv[l].data();  // [S, 2D] = K | V
                AttendCall cross(
                    AttentionBlock::Cross, l, {row(s.q_, r), 1, D, D},  // Q [1, D]
                    {kv, m.length, D, 2 * D},                           // K [S, D]
                    {kv + D, m.length, D, 2 * D},                       // V [S, D]
                    {row(s.attn_, r), 1, D, D},                         // [1, D]
                    trace ? trace->cross[r].data() + std::size_t(l) * H * m.length : nullptr);
                cross.row = r;
                cross.position = t;
                cross.memory = &m;
                s.attention_->attend(cross);
            }
            w.cross_attn.o.apply(s.attn_.data(), R, out.data());  // [R, D]
        });
        // feed-forward
        sublayer(s.x_, w.ln3, [&](const Mat& in, Mat& out) {
            feed_forward(w.ffn, c.activation, in, s.ffn_, out);  // [R, D]
        });
    }

    // output projection
    const float* out = s.x_.data();
    if (c.pre_norm) {
        layer_norm(s.x_.data(), R, D, weights_.decoder_ln, c.layer_norm_eps, s.h_.data());
        out = s.h_.data();
    }
    (output ? output->layer : weights_.lm_head).apply(out, R, logits);  // [R, V or shortlist]
    ++s.length_;
}

}  // namespace heed
