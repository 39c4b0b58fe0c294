// Attention surgery: how one call changes the trained model's attention, applied inside the
// forward pass (encoder and decoder step alike). Plain data; empty = the model as trained.
// Not the search or the API (translator/ maps options onto this).
#pragma once

#include <cstdint>
#include <vector>

#include "model/explanation.h"
#include "ops/attention_kinds.h"  // LinearKind

namespace heed {

/// One head switched off (Michel et al. 2019, "Are Sixteen Heads Really Better than One?").
struct HeadAblation {
    AttentionBlock block = AttentionBlock::EncoderSelf;
    int layer = 0;
    int head = 0;
    /// false: the head's output is zeroed; true: replaced by the mean of the other heads'
    /// outputs in that layer (mean ablation). Its attention weights are still recorded.
    bool mean = false;
};

/// Longformer/BigBird-style sparse attention (Beltagy et al. 2020 §3.1; Zaheer et al. 2020 §2):
/// the local window, plus global tokens (the first and the last key — `</s>` — are seen by every
/// query, and the first and last query positions see every key), plus `random_blocks` random key
/// blocks of `block` positions for each block of query positions, drawn from `seed`.
struct SparsePattern {
    bool enabled = false;
    int random_blocks = 0;
    int block = 4;
    std::uint32_t seed = 1;
};

/// Linear attention as surgery on the trained weights (model/linear_surgery.h): every block —
/// encoder self-, decoder self- (causal, through running sums) and cross-attention — computes
/// φ(q)ᵀφ(k) instead of exp(scale·qᵀk). Favor: FAVOR+ positive orthogonal random features
/// (Choromanski et al. 2021 §3, Lemma 1) estimating the softmax kernel with the model's scale
/// (temperature included), `features` = r, ω drawn from `seed` per block and layer and shared by
/// the layer's heads. Elu: φ = elu + 1 on q and k (Katharopoulos et al. 2020 §3.2), r = Dh; it
/// has no scale, so a temperature other than 1 is refused with it. A window or sparse pattern
/// together with linear attention is refused; head ablation and no_positions still apply.
struct LinearAttention {
    LinearKind kind = LinearKind::None;
    int features = 256;  ///< FAVOR+'s r, 1..4096 (checked for every kind; elu uses r = Dh)
    std::uint32_t seed = 1;

    bool enabled() const { return kind != LinearKind::None; }
};

struct Interventions {
    /// Multiplies every softmax's scale 1/√Dh (Vaswani et al. 2017 §3.2.1): > 1 sharpens the
    /// weights, < 1 flattens them. Must be finite and > 0.
    float temperature = 1.0f;
    /// Local attention of radius `window` (keys with |i - j| > window blocked) in encoder
    /// self-attention and in cross-attention (query position = decoding step, at most the last
    /// source position); -1: none.
    /// Decoder self-attention stays causal.
    int window = -1;
    /// Drops the sinusoidal positions (§3.5): the encoder becomes permutation-equivariant.
    bool no_positions = false;
    std::vector<HeadAblation> ablations;
    /// With a window (0 when `window` is -1), global tokens and random blocks; encoder self- and
    /// cross-attention only, as the window.
    SparsePattern sparse;
    /// Kernelised attention in place of the softmax (all three blocks).
    LinearAttention linear;

    /// True when encoder self- and cross-attention get a mask (window or sparse pattern).
    bool masks_keys() const { return window >= 0 || sparse.enabled; }
};

/// The [Lq, Lk] mask (1 = blocked) of the window and sparse pattern for queries at positions
/// first .. first + Lq - 1 over keys 0 .. Lk - 1. `cross`: the queries are decoding steps, whose
/// window centre stops at the last source key, and none of them is a global query. Empty when
/// !iv.masks_keys().
std::vector<std::uint8_t> key_mask(const Interventions& iv, int first, int Lq, int Lk,
                                   bool cross = false);

}  // namespace heed
