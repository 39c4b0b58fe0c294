// Linear attention inside the model's forward pass: projections per block and layer, the
// encoder's heads, the decoder's running and per-sentence sums.
#include "model/linear_surgery.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/model.h"

namespace heed {

Mat favor_projection(const LinearAttention& linear, AttentionBlock block, int layer, int Dh) {
    if (linear.kind != LinearKind::Favor) return Mat();
    const std::uint64_t salt = splitmix64(std::uint64_t(block) * 1000003u + std::uint64_t(layer));
    return draw_favor_projection(linear.features, Dh, splitmix64(linear.seed) ^ salt);
}

LinearHeadAttention linear_head_template(const LinearAttention& linear, const Mat* omega,
                                         float scale) {
    LinearHeadAttention a;
    a.kind = linear.kind;
    a.omega = omega;
    a.scale = scale;
    return a;
}

void linear_attend_heads(const LinearHeadAttention& all, int heads, std::vector<float>& scratch,
                         const RowsSpan& out, float* trace) {
    const int Dh = all.q.cols / heads, Dv = all.v.cols / heads;
    const std::size_t n = std::size_t(out.rows) * all.k.rows;  // Lq * Lk
    LinearHeadAttention head = all;
    for (int h = 0; h < heads; ++h) {
        head.q = columns(all.q, h * Dh, Dh);  // [Lq, Dh]
        head.k = columns(all.k, h * Dh, Dh);  // [Lk, Dh]
        head.v = columns(all.v, h * Dv, Dv);  // [Lk, Dv]
        scratch.resize(std::max(scratch.size(), linear_head_scratch(head)));
        linear_attend_head(head, scratch.data(), out_columns(out, h * Dv, Dv),
                           trace ? trace + h * n : nullptr);
    }
}

// ---- decoder -------------------------------------------------------------------------------

/// One sentence's cross-attention sums per layer and head, and its key features (trace).
struct LinearDecoder::CrossSums {
    const Memory* memory = nullptr;
    std::vector<std::vector<float>> state;  ///< per layer [H, per_head]
    std::vector<std::vector<float>> keys;   ///< per layer [H, S, r] key features
};

LinearDecoder::LinearDecoder(const ModelConfig& c, const LinearAttention& linear, float scale,
                             int rows)
    : heads_(c.heads),
      dh_(c.head_dim()),
      layers_(c.decoder_layers),
      rows_(rows),
      linear_(linear),
      scale_(scale) {
    r_ = linear.kind == LinearKind::Favor ? linear.features : dh_;
    for (int l = 0; l < layers_; ++l) {
        self_omega_.push_back(favor_projection(linear, AttentionBlock::DecoderSelf, l, dh_));
        cross_omega_.push_back(favor_projection(linear, AttentionBlock::Cross, l, dh_));
    }
    per_head_ = linear_state_size(r_, dh_);
    const float start = linear.kind == LinearKind::Favor ? -INFINITY : 0.0f;
    self_.assign(layers_, std::vector<float>(std::size_t(rows) * heads_ * per_head_));
    for (auto& layer : self_)
        for (std::size_t i = 0; i < std::size_t(rows) * heads_; ++i)
            linear_state_reset(layer.data() + i * per_head_, r_, dh_, start);
    self_tmp_.resize(std::size_t(rows) * heads_ * per_head_);
    feat_.resize(std::size_t(r_));
}

LinearDecoder::~LinearDecoder() = default;

LinearHeadAttention LinearDecoder::head(AttentionBlock block, int layer) const {
    const Mat* omega = nullptr;
    if (linear_.kind == LinearKind::Favor)
        omega = block == AttentionBlock::Cross ? &cross_omega_[layer] : &self_omega_[layer];
    return linear_head_template(linear_, omega, scale_);
}

void LinearDecoder::self_step(int layer, int row, const float* qkv, float* out) {
    const int D = heads_ * dh_;
    LinearHeadAttention a = head(AttentionBlock::DecoderSelf, layer);
    for (int h = 0; h < heads_; ++h) {
        float* state = self_[layer].data() + (std::size_t(row) * heads_ + h) * per_head_;
        const float* v = qkv + 2 * D + h * dh_;
        a.k = {qkv + D + h * dh_, 1, dh_, 3 * D};  // [1, Dh] k_t
        if (a.kind == LinearKind::Favor) {
            favor_log_features(a.k, *a.omega, a.scale, feat_.data());
            linear_state_add_log(state, r_, dh_, feat_.data(), v);
        } else {
            elu_features(a.k, feat_.data());
            linear_state_add(state, r_, dh_, feat_.data(), v);
        }
        a.q = {qkv + h * dh_, 1, dh_, 3 * D};  // [1, Dh] q_t
        linear_query_features(a, feat_.data());
        linear_state_read(state, r_, dh_, feat_.data(), out + h * dh_);
    }
}

void LinearDecoder::self_trace(int layer, int row, const float* q, const float* keys, int count,
                               int stride, float* trace) {
    LinearHeadAttention a = head(AttentionBlock::DecoderSelf, layer);
    if (lineage_.empty()) {
        lineage_.assign(rows_, {});
        trace_features_.assign(layers_, {});
        trace_shift_.assign(layers_, {});
    }
    std::vector<int>& lineage = lineage_[row];
    const int t = count - 1;                               // this step
    if (int(lineage.size()) == t) lineage.push_back(row);  // why: the first layer of the step
    if (int(lineage.size()) != count) {
        // why: a trace that skipped earlier steps has no kept features: every key afresh
        for (int h = 0; h < heads_; ++h) {
            a.q = {q + h * dh_, 1, dh_, heads_ * dh_};   // [1, Dh]
            a.k = {keys + h * dh_, count, dh_, stride};  // [t+1, Dh]
            a.v = a.k;                                   // unused: only the weights are wanted
            scratch_.resize(std::size_t(1 + count) * r_);
            linear_query_features(a, scratch_.data());
            linear_key_features(a, scratch_.data() + r_, nullptr);
            key_features_computed_ += std::size_t(count);
            linear_implied_weights(a, scratch_.data(), scratch_.data() + r_,
                                   trace + std::size_t(h) * count);
        }
        return;
    }
    std::vector<std::vector<float>>& features = trace_features_[layer];
    std::vector<std::vector<float>>& shifts = trace_shift_[layer];
    while (int(features.size()) <= t) {
        features.emplace_back(std::size_t(rows_) * heads_ * r_);  // [R, H, r]
        shifts.emplace_back(std::size_t(rows_) * heads_);         // [R, H]
    }
    // this step's key, each head's features once
    for (int h = 0; h < heads_; ++h) {
        a.k = {keys + std::size_t(t) * stride + h * dh_, 1, dh_, stride};        // [1, Dh]
        float* phi = features[t].data() + (std::size_t(row) * heads_ + h) * r_;  // [r]
        float shift = 0.0f;
        if (a.kind == LinearKind::Favor) {
            favor_log_features(a.k, *a.omega, a.scale, phi);
            shift = max_of(phi, std::size_t(r_));
            exp_features(phi, std::size_t(r_), r_, shift);
        } else {
            elu_features(a.k, phi);
        }
        shifts[t][std::size_t(row) * heads_ + h] = shift;
        ++key_features_computed_;
    }
    // why: w_j ∝ φ(q)ᵀφ(k_j)·exp(shift_j − max shift): one common factor, as one global shift
    for (int h = 0; h < heads_; ++h) {
        a.q = {q + h * dh_, 1, dh_, heads_ * dh_};  // [1, Dh]
        linear_query_features(a, feat_.data());
        float top = -INFINITY;
        for (int j = 0; j < count; ++j)
            top = std::max(top, shifts[j][std::size_t(lineage[j]) * heads_ + h]);
        float* w = trace + std::size_t(h) * count;  // [t+1]
        float total = 0;
        for (int j = 0; j < count; ++j) {
            const std::size_t slot = std::size_t(lineage[j]) * heads_ + h;
            const float* phi = features[j].data() + slot * r_;
            float dot = 0;
            for (int f = 0; f < r_; ++f) dot += feat_[f] * phi[f];
            w[j] = dot * std::exp(shifts[j][slot] - top);
            total += w[j];
        }
        const float inv = total > 0 ? 1.0f / total : 0.0f;
        for (int j = 0; j < count; ++j) w[j] *= inv;
    }
}

const LinearDecoder::CrossSums& LinearDecoder::cross_sums(const Memory& m, bool want_keys) {
    CrossSums* found = nullptr;
    for (const auto& c : cross_)
        if (c->memory == &m) found = c.get();
    if (found && (!want_keys || !found->keys.empty())) return *found;
    if (!found) {
        cross_.push_back(std::make_unique<CrossSums>());
        found = cross_.back().get();
        found->memory = &m;
    }
    // why: the sums are kept always; the key features ([H, S, r] per layer) only for a trace
    const bool sums = found->state.empty();
    const int D = heads_ * dh_, S = m.length;
    for (int l = 0; l < layers_; ++l) {
        std::vector<float> state(sums ? std::size_t(heads_) * per_head_ : 0);
        std::vector<float> keys(std::size_t(heads_) * S * r_);
        LinearHeadAttention a = head(AttentionBlock::Cross, l);
        const float* kv = m.cross_kv[l].data();  // [S, 2D] = K | V
        for (int h = 0; h < heads_; ++h) {
            a.k = {kv + h * dh_, S, dh_, 2 * D};      // [S, Dh]
            a.v = {kv + D + h * dh_, S, dh_, 2 * D};  // [S, Dh]
            linear_key_features(a, keys.data() + std::size_t(h) * S * r_,
                                sums ? state.data() + std::size_t(h) * per_head_ : nullptr);
        }
        if (sums) found->state.push_back(std::move(state));
        if (want_keys) found->keys.push_back(std::move(keys));
    }
    return *found;
}

void LinearDecoder::cross_step(int layer, const Memory& m, const float* q, float* out,
                               float* trace) {
    const CrossSums& sums = cross_sums(m, trace != nullptr);
    const int S = m.length;
    LinearHeadAttention a = head(AttentionBlock::Cross, layer);
    for (int h = 0; h < heads_; ++h) {
        a.q = {q + h * dh_, 1, dh_, heads_ * dh_};  // [1, Dh]
        linear_query_features(a, feat_.data());
        linear_state_read(sums.state[layer].data() + std::size_t(h) * per_head_, r_, dh_,
                          feat_.data(), out + h * dh_);
        if (trace) {
            a.k = {nullptr, S, dh_, dh_};  // only its row count is read
            linear_implied_weights(a, feat_.data(),
                                   sums.keys[layer].data() + std::size_t(h) * S * r_,
                                   trace + std::size_t(h) * S);
        }
    }
}

void LinearDecoder::reorder(const std::vector<int>& parents) {
    const std::size_t per_row = std::size_t(heads_) * per_head_;
    for (auto& layer : self_) {
        for (int r = 0; r < rows_; ++r)
            std::memcpy(self_tmp_.data() + r * per_row, layer.data() + parents[r] * per_row,
                        per_row * sizeof(float));
        layer.swap(self_tmp_);
    }
    if (!lineage_.empty()) {  // why: the features stay where they are; only the rows' paths move
        std::vector<std::vector<int>> next(rows_);
        for (int r = 0; r < rows_; ++r) next[r] = lineage_[parents[r]];
        lineage_.swap(next);
    }
}

}  // namespace heed
