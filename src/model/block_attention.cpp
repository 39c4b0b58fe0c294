// One attention block under a call's interventions (block_attention.h).
#include "model/block_attention.h"

#include <cmath>

#include "model/model.h"

namespace heed {
namespace {

const Interventions kNone;

}  // namespace

BlockAttention::BlockAttention(const ModelConfig& config, int rows, std::size_t scratch)
    : c_(config), iv_(&kNone), rows_(rows), probs_(scratch * std::size_t(config.heads)) {
    set_interventions(nullptr);
}

BlockAttention::~BlockAttention() = default;

void BlockAttention::set_interventions(const Interventions* interventions) {
    iv_ = interventions ? interventions : &kNone;
    scale_ = iv_->temperature / std::sqrt(float(c_.head_dim()));
    decoder_sums_.reset();
    encoder_omega_.clear();
    pattern_for_ = -1;
}

void BlockAttention::attend(const AttendCall& call) {
    if (iv_->linear.enabled())
        linear(call);
    else
        softmax(call);
    ablate(call);
}

void BlockAttention::reorder(const std::vector<int>& parents) {
    if (decoder_sums_) decoder_sums_->reorder(parents);
}

void BlockAttention::softmax(const AttendCall& a) {
    HeadAttention heads;
    heads.q = a.q;
    heads.k = a.k;
    heads.v = a.v;
    heads.scale = scale_;
    // why: decoder self-attention sees keys 0..t only, its own past, so it needs no mask
    if (a.block != AttentionBlock::DecoderSelf) mask_keys(a, heads.mask);
    const std::size_t need = std::size_t(c_.heads) * a.q.rows * std::size_t(a.k.rows);
    if (probs_.size() < need) probs_.resize(need);  // why: only an encoder longer than before
    attend_heads(heads, c_.heads, probs_.data(), a.out, a.weights);
}

void BlockAttention::mask_keys(const AttendCall& a, HeadMask& mask) {
    const Interventions& iv = *iv_;
    if (iv.sparse.enabled) {
        if (a.block == AttentionBlock::Cross) {
            // why: a cold path (surgery only), so a step's row pattern is built per step
            pattern_ = key_mask(iv, a.position, a.q.rows, a.k.rows, true);  // [1, S]
            pattern_for_ = -1;
        } else if (pattern_for_ != a.k.rows) {
            pattern_ = key_mask(iv, 0, a.q.rows, a.k.rows);  // [S, S], once per sentence
            pattern_for_ = a.k.rows;
        }
        mask.blocked = pattern_.data();
        mask.skip_blocked = true;
    } else if (iv.window >= 0) {
        mask.window = iv.window;
        mask.window_first = a.position;
    }
}

void BlockAttention::linear(const AttendCall& a) {
    const int H = c_.heads, D = c_.d_model;
    if (a.block == AttentionBlock::EncoderSelf) {
        while (int(encoder_omega_.size()) <= a.layer)
            encoder_omega_.push_back(favor_projection(iv_->linear, AttentionBlock::EncoderSelf,
                                                      int(encoder_omega_.size()), D / H));
        LinearHeadAttention all =
            linear_head_template(iv_->linear, &encoder_omega_[std::size_t(a.layer)], scale_);
        all.q = a.q;
        all.k = a.k;
        all.v = a.v;
        linear_attend_heads(all, H, linear_scratch_, a.out, a.weights);
        return;
    }
    if (!decoder_sums_)
        decoder_sums_ = std::make_unique<LinearDecoder>(c_, iv_->linear, scale_, rows_);
    if (a.block == AttentionBlock::Cross) {
        decoder_sums_->cross_step(a.layer, *a.memory, a.q.data, a.out.data, a.weights);
        return;
    }
    // the RNN view: the sums replace the cache (kept for traces)
    decoder_sums_->self_step(a.layer, a.row, a.q.data, a.out.data);
    if (a.weights)
        decoder_sums_->self_trace(a.layer, a.row, a.q.data, a.k.data, a.k.rows, a.k.stride,
                                  a.weights);
}

void BlockAttention::ablate(const AttendCall& a) const {
    const int H = c_.heads, Dh = a.out.cols / H;
    for (const HeadAblation& ab : iv_->ablations) {
        if (ab.block != a.block || ab.layer != a.layer) continue;
        for (int r = 0; r < a.out.rows; ++r) {
            float* o = a.out.data + std::size_t(r) * a.out.stride;
            for (int d = 0; d < Dh; ++d) {
                float mean = 0.0f;
                if (ab.mean && H > 1) {
                    for (int h = 0; h < H; ++h)
                        if (h != ab.head) mean += o[h * Dh + d];
                    mean /= float(H - 1);
                }
                o[ab.head * Dh + d] = ab.mean ? mean : 0.0f;
            }
        }
    }
}

}  // namespace heed
