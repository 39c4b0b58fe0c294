// What attention costs for one sentence: multiply-adds and bytes of attention state per block
// and layer, for the variant the call's interventions chose. Counting only; nothing is run.
#pragma once

#include <vector>

#include "model/config.h"
#include "model/explanation.h"
#include "model/interventions.h"

namespace heed {

/// The attention arithmetic of one block and layer (all heads), for one sentence.
///
/// Softmax variants (full, window, sparse), with P = the number of visible (query, key) pairs
/// (full encoder: S²; window w: Σ_i |{j : |i − j| <= w}|; sparse: the zeros of key_mask();
/// decoder self: T(T+1)/2, none for an SSRU decoder; cross: T·S or its window/sparse count):
///   macs  = H · P · (Dh + Dv)       (scores q·k, then weights·V)
///   state = 4 · H · P bytes         (the attention weights)
/// Linear variants with r features (FAVOR+: r = features; elu + 1: r = Dh), Lq queries over
/// Lk keys (encoder: S over S; cross: T over S, sums once per sentence; decoder: T over T,
/// one key added and one query read per step):
///   macs  = H · [(Lq + Lk) · r · Dh  (FAVOR+ only: the projections ωᵀx)
///                + Lk · r · (Dv + 1)  (S += φ(k)vᵀ, z += φ(k))
///                + Lq · r · (Dv + 1)] (φ(q)ᵀS, φ(q)ᵀz)
///   state = 4 · H · r · (Dv + 1) bytes (S and z per head)
/// Not counted: the q/k/v/o projections (the same for every variant), exp and divisions, the
/// K|V cache (kept by every variant for the trace), and the implied weights a trace asks for.
struct AttentionCost {
    AttentionBlock block = AttentionBlock::EncoderSelf;
    int layer = 0;
    double macs = 0;         ///< multiply-adds
    double state_bytes = 0;  ///< bytes of attention state (weights, or linear sums)
};

/// One entry per encoder layer (EncoderSelf), then per decoder layer DecoderSelf and Cross,
/// for a source of S tokens and T decoder steps (one decoder row: the returned hypothesis).
std::vector<AttentionCost> attention_costs(const ModelConfig& config, const Interventions& iv,
                                           int S, int T);

}  // namespace heed
