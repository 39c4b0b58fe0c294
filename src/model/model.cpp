// The forward pass, in the order of the paper (Vaswani et al. 2017 §3.1, figure 1): embeddings
// + positions, then per layer self-attention, (cross-attention,) feed-forward, each one
// sublayer(x, norm, f): pre-norm x + f(LN(x)), post-norm LN(x + f(x)).
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
void embed(const float* token, const float* position, float scale, int D, float* out) {
    for (int d = 0; d < D; ++d) out[d] = token[d] * scale + (position ? position[d] : 0.0f);
}

const Interventions kNone;

/// The softmax scale of every head, times the intervention's temperature factor.
float head_scale(const ModelConfig& c, const Interventions& iv) {
    return iv.temperature / std::sqrt(float(c.head_dim()));
}

/// Sets the window or sparse pattern of encoder self- or cross-attention on `mask`: a window
/// alone is a band (only its pairs computed); a sparse pattern is the key_mask() rows, whose
/// visible pairs alone are computed. `pattern` must outlive the mask's use.
void mask_keys(const Interventions& iv, int first, const std::vector<std::uint8_t>& pattern,
               HeadMask& mask) {
    if (iv.sparse.enabled) {
        mask.blocked = pattern.data();
        mask.skip_blocked = true;
    } else if (iv.window >= 0) {
        mask.window = iv.window;
        mask.window_first = first;
    }
}

/// Applies the ablations of (block, layer) to the H heads' outputs `out` [rows, H*Dh]. Zero:
/// the head's columns become 0; mean: the mean of the other heads' columns.
void ablate(const Interventions& iv, AttentionBlock block, int layer, int H, const RowsSpan& out) {
    const int Dh = out.cols / H;
    for (const HeadAblation& a : iv.ablations) {
        if (a.block != block || a.layer != layer) continue;
        for (int r = 0; r < out.rows; ++r) {
            float* o = out.data + std::size_t(r) * out.stride;
            for (int d = 0; d < Dh; ++d) {
                float mean = 0.0f;
                if (a.mean && H > 1) {
                    for (int h = 0; h < H; ++h)
                        if (h != a.head) mean += o[h * Dh + d];
                    mean /= float(H - 1);
                }
                o[a.head * Dh + d] = a.mean ? mean : 0.0f;
            }
        }
    }
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
    token_.resize(D);
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
    if (linear_) linear_->reorder(parents);
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
    const float emb_scale = c.scale_embeddings ? std::sqrt(float(D)) : 1.0f;
    const auto rows = [S](int cols) {
        return Mat::from_shape({std::size_t(S), std::size_t(cols)});
    };

    // embeddings + positions
    Mat x = rows(D);  // [S, D]
    std::vector<float> token(D);
    for (int s = 0; s < S; ++s) {
        if (src[s] < 0 || src[s] >= c.vocab_size) throw Error("source token id out of range");
        weights_.source_embedding(src[s], token.data());
        embed(token.data(), iv.no_positions ? nullptr : weights_.encoder_position(s), emb_scale, D,
              row(x, s));
    }

    Mat h = rows(D), proj = rows(D), qkv = rows(3 * D), attn = rows(D), ffn = rows(F);
    std::vector<float> probs(std::size_t(S) * S);  // [S, S]
    const Sublayer sublayer(c, h, proj);
    HeadAttention self;               // Q | K | V of the fused [S, 3D] projection, all heads
    self.q = columns(qkv, 0, D);      // [S, H*Dh]
    self.k = columns(qkv, D, D);      // [S, H*Dh]
    self.v = columns(qkv, 2 * D, D);  // [S, H*Dh]
    self.scale = head_scale(c, iv);
    const std::vector<std::uint8_t> sparse =
        iv.sparse.enabled ? key_mask(iv, 0, S, S) : std::vector<std::uint8_t>();  // [S, S]
    mask_keys(iv, 0, sparse, self.mask);
    std::vector<Mat> omega;  // per layer [r, Dh]: FAVOR+ projections of this call
    for (int l = 0; iv.linear.enabled() && l < c.encoder_layers; ++l)
        omega.push_back(favor_projection(iv.linear, AttentionBlock::EncoderSelf, l, D / H));
    std::vector<float> linear_scratch;
    if (trace) {
        trace->self_attn.assign(std::size_t(c.encoder_layers) * H * S * S, 0.0f);
        trace->block_inputs.clear();
    }

    for (int l = 0; l < c.encoder_layers; ++l) {
        const EncoderLayerWeights& w = weights_.encoder[l];
        // self-attention
        sublayer(x, w.ln1, [&](const Mat& in, Mat& out) {
            if (trace) trace->block_inputs.push_back(in);                 // [S, D]
            w.self_attn.qkv.apply(in.data(), S, qkv.data());              // [S, 3D]
            float* weights = trace ? trace->self_attn.data() + std::size_t(l) * H * S * S : nullptr;
            if (iv.linear.enabled()) {  // φ(q)ᵀφ(k) in place of the softmax (linear_surgery.h)
                LinearHeadAttention all = linear_head_template(iv.linear, &omega[l], self.scale);
                all.q = self.q;
                all.k = self.k;
                all.v = self.v;
                linear_attend_heads(all, H, linear_scratch, out_columns(attn, 0, D), weights);
            } else {
                attend_heads(self, H, probs.data(), out_columns(attn, 0, D), weights);  // [S, D]
            }
            ablate(iv, AttentionBlock::EncoderSelf, l, H, out_columns(attn, 0, D));  // [S, D]
            w.self_attn.o.apply(attn.data(), S, out.data());  // [S, D]
        });
        // feed-forward
        sublayer(x, w.ln2, [&](const Mat& in, Mat& out) {
            feed_forward(w.ffn, c.activation, in, ffn, out);  // [S, D]
        });
    }
    if (c.pre_norm) layer_norm(x.data(), S, D, weights_.encoder_ln, c.layer_norm_eps, x.data());

    // cross-attention keys and values, once per sentence
    Memory m;
    m.length = S;
    m.cross_kv.reserve(c.decoder_layers);
    for (int l = 0; l < c.decoder_layers; ++l) {
        Mat kv = rows(2 * D);  // [S, 2D] = K | V
        weights_.decoder[l].cross_attn.kv.apply(x.data(), S, kv.data());
        m.cross_kv.push_back(std::move(kv));
    }
    m.states = std::move(x);  // [S, D]
    return m;
}

OutputLayer Model::output_layer(std::vector<int> ids) const {
    for (int id : ids)
        if (id < 0 || id >= config_.vocab_size) throw Error("output layer: id out of range");
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
    const Interventions& iv = s.interventions_ ? *s.interventions_ : kNone;
    const float scale = head_scale(c, iv);
    const float emb_scale = c.scale_embeddings ? std::sqrt(float(D)) : 1.0f;
    if (iv.linear.enabled() && !s.linear_)
        s.linear_ = std::make_unique<LinearDecoder>(c, iv.linear, scale, R);
    const bool keep_inputs = trace && trace->want_inputs;
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
        weights_.target_embedding(tokens[r], s.token_.data());
        embed(s.token_.data(), iv.no_positions ? nullptr : weights_.decoder_position(t), emb_scale,
              D, row(s.x_, r));  // [R, D]
    }

    const Sublayer sublayer(c, s.h_, s.proj_);
    for (int l = 0; l < c.decoder_layers; ++l) {
        const DecoderLayerWeights& w = weights_.decoder[l];
        // masked self-attention over this row's past (KV cache): keys 0..t, so no mask is needed
        sublayer(s.x_, w.ln1, [&](const Mat& in, Mat& out) {
            if (keep_inputs) trace->self_inputs.push_back(in);   // [R, D]
            w.self_attn.qkv.apply(in.data(), R, s.qkv_.data());  // [R, 3D]
            const std::size_t per_row = std::size_t(s.max_len_) * 2 * D;
            for (int r = 0; r < R; ++r) {
                float* kv = s.cache_[l].data() + r * per_row;  // [max_len, 2D] = K | V
                std::memcpy(kv + std::size_t(t) * 2 * D, row(s.qkv_, r) + D,
                            2 * D * sizeof(float));  // append k_t | v_t
                float* weights =
                    trace ? trace->self[r].data() + std::size_t(l) * H * (t + 1) : nullptr;
                if (s.linear_) {  // the RNN view: the sums replace the cache (kept for traces)
                    s.linear_->self_step(l, r, row(s.qkv_, r), row(s.attn_, r));  // [1, D]
                    if (weights)
                        s.linear_->self_trace(l, r, row(s.qkv_, r), kv, t + 1, 2 * D, weights);
                    continue;
                }
                HeadAttention self;
                self.q = {row(s.qkv_, r), 1, D, 3 * D};  // [1, H*Dh]
                self.k = {kv, t + 1, D, 2 * D};          // [t+1, H*Dh]
                self.v = {kv + D, t + 1, D, 2 * D};      // [t+1, H*Dh]
                self.scale = scale;
                attend_heads(self, H, s.probs_.data(), {row(s.attn_, r), 1, D, D},  // [1, D]
                             weights);
            }
            ablate(iv, AttentionBlock::DecoderSelf, l, H, out_columns(s.attn_, 0, D));  // [R, D]
            w.self_attn.o.apply(s.attn_.data(), R, out.data());  // [R, D]
        });
        // cross-attention over the encoder memory
        sublayer(s.x_, w.ln2, [&](const Mat& in, Mat& out) {
            if (keep_inputs) trace->cross_inputs.push_back(in);  // [R, D]
            w.cross_attn.q.apply(in.data(), R, s.q_.data());     // [R, D]
            for (int r = 0; r < R; ++r) {
                const Memory& m = *memories[r];
                const float* kv = m.cross_kv[l].data();  // [S, 2D] = K | V
                float* weights =
                    trace ? trace->cross[r].data() + std::size_t(l) * H * m.length : nullptr;
                if (s.linear_) {  // sums over the source, built once per sentence
                    s.linear_->cross_step(l, m, row(s.q_, r), row(s.attn_, r), weights);
                    continue;
                }
                HeadAttention cross;
                cross.q = {row(s.q_, r), 1, D, D};       // [1, H*Dh]
                cross.k = {kv, m.length, D, 2 * D};      // [S, H*Dh]
                cross.v = {kv + D, m.length, D, 2 * D};  // [S, H*Dh]
                cross.scale = scale;
                // why: a cold path (surgery only), so this row's pattern is built per step
                const std::vector<std::uint8_t> sparse =
                    iv.sparse.enabled ? key_mask(iv, t, 1, m.length, true)
                                      : std::vector<std::uint8_t>();  // [1, S]
                mask_keys(iv, t, sparse, cross.mask);
                attend_heads(cross, H, s.probs_.data(), {row(s.attn_, r), 1, D, D},  // [1, D]
                             weights);
            }
            ablate(iv, AttentionBlock::Cross, l, H, out_columns(s.attn_, 0, D));  // [R, D]
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
