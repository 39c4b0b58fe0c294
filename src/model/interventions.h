// Attention surgery: how one call changes the trained model's attention, applied inside the
// forward pass (encoder and decoder step alike). Plain data; empty = the model as trained.
// Not the search or the API (translator/ maps options onto this).
#pragma once

#include <vector>

#include "model/explanation.h"

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

struct Interventions {
    /// Multiplies every softmax's scale 1/√Dh (Vaswani et al. 2017 §3.2.1): > 1 sharpens the
    /// weights, < 1 flattens them. Must be finite and > 0.
    float temperature = 1.0f;
    /// Local attention of radius `window` (keys with |i - j| > window blocked) in encoder
    /// self-attention and in cross-attention (query position = decoding step); -1: none.
    /// Decoder self-attention stays causal.
    int window = -1;
    /// Drops the sinusoidal positions (§3.5): the encoder becomes permutation-equivariant.
    bool no_positions = false;
    std::vector<HeadAblation> ablations;

    bool empty() const {
        return temperature == 1.0f && window < 0 && !no_positions && ablations.empty();
    }
};

}  // namespace heed
