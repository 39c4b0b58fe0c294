// The counting formulas of attention_cost.h, written once.
#include "model/attention_cost.h"

#include <algorithm>
#include <cstdint>

namespace heed {
namespace {

/// Visible pairs of encoder self-attention (cross = false) or of T cross-attention steps.
double visible_pairs(const Interventions& iv, int Lq, int Lk, bool cross) {
    if (iv.sparse.enabled) {
        double n = 0;
        for (int i = 0; i < Lq; ++i)
            for (std::uint8_t b : key_mask(iv, i, 1, Lk, cross)) n += b == 0;
        return n;
    }
    if (iv.window < 0) return double(Lq) * Lk;
    double n = 0;
    for (int i = 0; i < Lq; ++i) {
        const int centre = std::min(i, Lk - 1);
        n += std::min(Lk - 1, centre + iv.window) - std::max(0, centre - iv.window) + 1;
    }
    return n;
}

}  // namespace

std::vector<AttentionCost> attention_costs(const ModelConfig& c, const Interventions& iv, int S,
                                           int T) {
    const double H = c.heads, Dh = c.head_dim(), Dv = c.head_dim();
    const LinearAttention& lin = iv.linear;
    const double r = lin.kind == LinearKind::Favor ? lin.features : Dh;
    const double project = lin.kind == LinearKind::Favor ? r * Dh : 0.0;
    const auto cost = [&](AttentionBlock block, int layer, double Lq, double Lk, double pairs) {
        AttentionCost a{block, layer, 0, 0};
        if (lin.enabled()) {
            a.macs = H * ((Lq + Lk) * project + (Lk + Lq) * r * (Dv + 1));
            a.state_bytes = 4 * H * r * (Dv + 1);
        } else {
            a.macs = H * pairs * (Dh + Dv);
            a.state_bytes = 4 * H * pairs;
        }
        return a;
    };
    std::vector<AttentionCost> out;
    const double enc = lin.enabled() ? 0 : visible_pairs(iv, S, S, false);
    for (int l = 0; l < c.encoder_layers; ++l)
        out.push_back(cost(AttentionBlock::EncoderSelf, l, S, S, enc));
    const double self = double(T) * (T + 1) / 2;  // causal: step t sees t + 1 keys
    const double cross = lin.enabled() || T == 0 ? 0 : visible_pairs(iv, T, S, true);
    for (int l = 0; l < c.decoder_layers; ++l) {
        // why: an SSRU decoder (Kim et al. 2019) has no self-attention: nothing to count there
        if (c.ssru_decoder())
            out.push_back(AttentionCost{AttentionBlock::DecoderSelf, l, 0, 0});
        else
            out.push_back(cost(AttentionBlock::DecoderSelf, l, T, T, self));
        out.push_back(cost(AttentionBlock::Cross, l, T, S, cross));
    }
    return out;
}

}  // namespace heed
