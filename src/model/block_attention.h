// One attention block of the forward pass under a call's interventions (attention surgery):
// scaled dot-product attention (Vaswani et al. 2017 §3.2.1) with the call's temperature and
// window or sparse keys, or linear attention in place of the softmax (linear_surgery.h), then
// the ablated heads. Model::encode and Model::step call attend() and never branch on surgery.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"
#include "model/config.h"
#include "model/explanation.h"
#include "model/interventions.h"
#include "model/linear_surgery.h"
#include "ops/attention.h"

namespace heed {

struct Memory;

/// One attend(): the H heads of (block, layer) for some query rows.
struct AttendCall {
    AttendCall(AttentionBlock block, int layer, RowsView q, RowsView k, RowsView v, RowsSpan out,
               float* weights)
        : block(block), layer(layer), q(q), k(k), v(v), out(out), weights(weights) {}

    AttentionBlock block = AttentionBlock::EncoderSelf;
    int layer = 0;
    /// q [Lq, H*Dh], k [Lk, H*Dh], v [Lk, H*Dh]. Decoder self-attention: q views the row's
    /// fused Q | K | V projection [3D], whose K | V the caller has appended to the cache that k
    /// and v view (linear attention folds them into its sums).
    RowsView q, k, v;
    int position = 0;                ///< the first query's position (encoder 0, a step's t)
    int row = 0;                     ///< decoder: which row (its linear-attention sums)
    const Memory* memory = nullptr;  ///< cross-attention: the row's memory (its linear sums)
    RowsSpan out;                    ///< [Lq, H*Dh]: the heads' outputs, ablations applied
    float* weights = nullptr;        ///< [H, Lq, Lk] the attention weights (null: none)
};

/// The attention of one encode() call or of one decoder state's steps: it keeps what the
/// surgery needs between calls (FAVOR+ projections, sparse patterns, the decoder's linear
/// sums) and a scratch buffer, so a decoder step does not allocate.
class BlockAttention {
  public:
    /// `rows`: the decoder's rows (their linear sums); `scratch`: the most weights one head
    /// writes (Lq·Lk).
    BlockAttention(const ModelConfig& config, int rows, std::size_t scratch);
    ~BlockAttention();
    /// Surgery for every later attend() (null: none); must outlive their use.
    void set_interventions(const Interventions* interventions);
    const Interventions& interventions() const { return *iv_; }

    void attend(const AttendCall& call);
    /// Beam re-selection of the decoder's rows: new row r continues old row parents[r].
    void reorder(const std::vector<int>& parents);

  private:
    void softmax(const AttendCall& call);
    void linear(const AttendCall& call);
    void ablate(const AttendCall& call) const;
    /// The window or sparse keys of `call` on `mask` (a sparse pattern is built into `pattern`).
    void mask_keys(const AttendCall& call, HeadMask& mask);

    const ModelConfig& c_;
    const Interventions* iv_;
    int rows_;
    float scale_;  ///< 1/√Dh times the temperature
    std::vector<float> probs_, linear_scratch_;
    std::vector<std::uint8_t> pattern_;  ///< the sparse keys of the last attend() that asked
    int pattern_for_ = -1;               ///< encoder: the length pattern_ was built for
    std::vector<Mat> encoder_omega_;     ///< FAVOR+ projections per encoder layer
    std::unique_ptr<LinearDecoder> decoder_sums_;  ///< the decoder's, at its first step
};

}  // namespace heed
