// The attention lab's façade: the ops/ primitives (four score functions, masks, linear
// attention, sinusoidal positions) over plain arrays, for the bindings. Not the model
// (translator.h); the arithmetic is ops/attention's attend_head, as in the forward pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/array.h"
#include "ops/attention_kinds.h"

namespace heed {

/// Most rows and columns of any lab matrix (and the positions' length and d_model): the
/// weights [Lq, Lk] then stay within 64 MB.
constexpr std::size_t kLabMaxSize = 4096;
/// Largest |offset| and |window| of a lab mask: positions plus an offset stay far from int
/// overflow, and every distinct mask of a kLabMaxSize matrix stays reachable.
constexpr int kLabMaskInt = 1 << 24;

/// A mask description in plain data (ops/attention.h AttentionMask).
struct LabMask {
    MaskKind kind = MaskKind::None;
    int window = 0;                         ///< LocalWindow half-width
    int offset = 0;                         ///< causal / local diagonal offset
    std::vector<std::uint8_t> key_padding;  ///< [Lk], 1 = blocked; empty = none
    std::vector<std::uint8_t> blocked;      ///< [Lq*Lk], 1 = blocked (Custom only)
};

/// One attention call: q [Lq, Dq], k [Lk, Dk], v [Lk, Dv]; w, u, a only for General
/// (w [Dq, Dk]) and Additive (w [Da, Dq], u [Da, Dk], a = the vector v [Da]).
struct LabInputs {
    Array q, k, v;
    ScoreFunction score = ScoreFunction::ScaledDot;
    LabMask mask;
    Array w, u, a;
};

/// output [Lq, Dv], weights [Lq, Lk], scores [Lq, Lk] (masked entries -inf).
struct LabResult {
    Array output, weights, scores;
};

/// Attention(Q, K, V) with the chosen score function and mask. Throws heed::Error.
LabResult lab_attention(const LabInputs& in);
/// Linear attention (Katharopoulos et al. 2020 §3.2) of q, k, v. Throws heed::Error.
LabResult lab_linear_attention(const Array& q, const Array& k, const Array& v, bool causal);

/// Sinusoidal positions [L, D] (Vaswani et al. 2017 §3.5) and their cosine similarity [L, L].
struct LabPositions {
    Array positions, similarity;
};
/// The similarity costs L²·D: it is computed only when `with_similarity` (else left empty).
/// Throws heed::Error beyond kLabMaxSize.
LabPositions lab_positions(int length, int d_model, bool with_similarity);

}  // namespace heed
