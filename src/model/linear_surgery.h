// Linear attention as surgery on the trained weights (Interventions::linear): the FAVOR+
// projections of a call, every head of an encoder block at once, and the decoder's state in the
// RNN view (running sums per row for self-attention, sums over the source once per sentence for
// cross-attention). Not the feature maps or the per-head math (ops/linear_head.h).
#pragma once

#include <memory>
#include <vector>

#include "core/tensor.h"
#include "model/config.h"
#include "model/interventions.h"
#include "ops/attention.h"
#include "ops/linear_head.h"

namespace heed {

struct Memory;

/// ω [r, Dh] of (block, layer): drawn from the intervention's seed mixed with both, so a call
/// is reproducible and blocks and layers draw independently. Empty for elu + 1.
Mat favor_projection(const LinearAttention& linear, AttentionBlock block, int layer, int Dh);

/// The per-head problem template of a block: kind, ω (null for elu) and scale.
LinearHeadAttention linear_head_template(const LinearAttention& linear, const Mat* omega,
                                         float scale);

/// Every head of one non-causal block (encoder self-attention) through its sums: `all` views
/// the packed [L, H*Dh] projections; `trace` [H, Lq, Lk] (null: none) receives the implied
/// weights. `scratch` grows as needed.
void linear_attend_heads(const LinearHeadAttention& all, int heads, std::vector<float>& scratch,
                         const RowsSpan& out, float* trace = nullptr);

/// The decoder's linear-attention state: per layer, row and head the running (S, z, stabiliser)
/// of self-attention (Katharopoulos et al. 2020 §3.4: the KV cache becomes the sums), and per
/// sentence the cross-attention sums over its source, built at the first step that needs them
/// (with the source's key features [H, S, r] only when a trace asks for the implied weights).
class LinearDecoder {
  public:
    LinearDecoder(const ModelConfig& config, const LinearAttention& linear, float scale, int rows);
    ~LinearDecoder();

    /// Self-attention of `row` at one step: folds k_t, v_t (from qkv [3D] = Q | K | V) into the
    /// running sums, writes the H heads' outputs to out [D]. Does not allocate.
    void self_step(int layer, int row, const float* qkv, float* out);
    /// The implied self-attention weights [H, t+1] of `row`'s query q [D] over its cached keys
    /// `keys` ([t+1] rows of `stride` floats), for the trace only. Each key's features are
    /// computed once and kept (a beam reorder moves only the rows' paths to them), so a step
    /// costs O(t·r) per head, not O(t·r·Dh).
    void self_trace(int layer, int row, const float* q, const float* keys, int count, int stride,
                    float* trace);
    /// How many (key, head) feature rows self_trace() has computed so far (a test's count).
    std::size_t key_features_computed() const { return key_features_computed_; }
    /// Cross-attention of query q [D] over `memory`'s layer `layer` keys and values: out [D],
    /// trace [H, S] (null: none).
    void cross_step(int layer, const Memory& memory, const float* q, float* out, float* trace);
    /// Beam re-selection: new row r continues old row parents[r].
    void reorder(const std::vector<int>& parents);

  private:
    struct CrossSums;
    const CrossSums& cross_sums(const Memory& memory, bool want_keys);
    LinearHeadAttention head(AttentionBlock block, int layer) const;

    int heads_, dh_, r_, layers_, rows_;
    LinearAttention linear_;
    float scale_;
    std::vector<Mat> self_omega_, cross_omega_;      ///< per layer [r, Dh] (FAVOR+ only)
    std::size_t per_head_;                           ///< linear_state_size(r, Dh)
    std::vector<std::vector<float>> self_;           ///< per layer [R, H, per_head]
    std::vector<float> self_tmp_, feat_;             ///< reorder copy; one row's features [r]
    std::vector<std::unique_ptr<CrossSums>> cross_;  ///< one per sentence seen
    /// The trace's key features: per layer and step, each row's key of that step φ(k) [R, H, r],
    /// exponentiated with the key's own stabiliser (shift [R, H]); stored once per key, so a
    /// beam reorder copies only `lineage_`.
    std::vector<std::vector<std::vector<float>>> trace_features_, trace_shift_;
    /// Per row, the row that held its key of each step so far (reordered with the beam).
    std::vector<std::vector<int>> lineage_;
    std::vector<float> scratch_;  ///< a trace without its earlier steps' features (fallback)
    std::size_t key_features_computed_ = 0;
};

}  // namespace heed
