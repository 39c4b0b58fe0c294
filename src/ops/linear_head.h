// One head of kernelised (linear) attention: features of the queries and keys
// (random_features.h), the key/value sums S = Σ φ(k_j) v_jᵀ and z = Σ φ(k_j), and
// out_i = φ(q_i)ᵀS / φ(q_i)ᵀz. The one routine behind the model's linear-attention surgery and
// the attention lab's elu + 1 op (linear_attention()). Not softmax attention (attention.h).
#pragma once

#include <cstddef>

#include "core/tensor.h"
#include "ops/attention.h"
#include "ops/random_features.h"

namespace heed {

/// One head's problem: Attention(Q, K, V) with exp(scale·qᵀk) replaced by φ(q)ᵀφ(k)
/// (Katharopoulos et al. 2020 §3.2, eq. 4–6; Choromanski et al. 2021 §3 for FAVOR+).
/// `kind` is Favor or Elu, never None.
struct LinearHeadAttention {
    RowsView q, k, v;  ///< [Lq, Dh], [Lk, Dh], [Lk, Dv]
    LinearKind kind = LinearKind::Favor;
    const Mat* omega = nullptr;  ///< FAVOR+: [r, Dh] from draw_favor_projection()
    float scale = 1.0f;          ///< FAVOR+: the softmax scale (temperature/√Dh) it estimates
    bool causal = false;         ///< query i sees keys j <= i + offset only
    int offset = 0;              ///< see `causal`
};

/// r: FAVOR+'s feature count, or Dh for elu + 1.
int feature_count(const LinearHeadAttention& a);

// ---- the RNN view: one head's running state -----------------------------------------------
// Layout of a state buffer: S [r, Dv], then z [r], then the key stabiliser (1 float).

/// Floats in one head's state for r features and Dv value dims.
std::size_t linear_state_size(int r, int dv);
/// Empty sums; `shift` is FAVOR+'s key stabiliser to start from (-inf: none yet; 0 for elu).
void linear_state_reset(float* state, int r, int dv, float shift) noexcept;
/// Adds one key: S += φ(k)vᵀ, z += φ(k), with φ(k) [r] already exponentiated (or elu's).
void linear_state_add(float* state, int r, int dv, const float* phi_k, const float* v) noexcept;
/// Adds one FAVOR+ key from its log-features [r] (overwritten with φ(k)): when its largest
/// log-feature exceeds the stabiliser, S and z are first rescaled by exp(old − new), so every
/// key in the sums keeps the same shift (what a global max over all keys gives at once).
void linear_state_add_log(float* state, int r, int dv, float* log_phi_k, const float* v) noexcept;
/// out [Dv] = φ(q)ᵀS / φ(q)ᵀz; zeros when the denominator underflows to 0 (or no key yet).
void linear_state_read(const float* state, int r, int dv, const float* phi_q, float* out) noexcept;

// ---- a whole head at once ------------------------------------------------------------------

/// Scratch floats linear_attend_head() needs: (Lq + Lk)·r + state.
std::size_t linear_head_scratch(const LinearHeadAttention& a);

/// Query features [Lq, r] into `qf` (FAVOR+: stabilised per row).
void linear_query_features(const LinearHeadAttention& a, float* qf) noexcept;
/// Key features [Lk, r] into `kf` (FAVOR+: one stabiliser for all keys), and, when `state`
/// is not null, every key folded into it (the non-causal sums: cross-attention's, once).
void linear_key_features(const LinearHeadAttention& a, float* kf, float* state) noexcept;
/// The implied weights w_ij = φ(q_i)ᵀφ(k_j) / Σ_j' φ(q_i)ᵀφ(k_j') over visible keys (causal:
/// j <= i + offset, others 0) into probs [Lq, Lk], from qf [Lq, r] and kf [Lk, r]. Display
/// only: quadratic, and not counted as the variant's cost.
void linear_implied_weights(const LinearHeadAttention& a, const float* qf, const float* kf,
                            float* probs) noexcept;

/// Runs one head: `out` [Lq, Dv] receives the attention output through the sums (causal:
/// running prefix sums), `probs` (null: not wanted) the implied weights [Lq, Lk]. `scratch`
/// holds linear_head_scratch(a) floats; on return it begins with the query features [Lq, r]
/// and then the key features [Lk, r]. Does not allocate.
void linear_attend_head(const LinearHeadAttention& a, float* scratch, const RowsSpan& out,
                        float* probs = nullptr) noexcept;

// ---- the attention lab's whole-matrix form -------------------------------------------------

/// elu + 1 linear attention of q [Lq, Dk], k [Lk, Dk], v [Lk, Dv] through linear_attend_head()
/// (causal: query i sees keys j <= i): `output` [Lq, Dv], `weights` the implied weights
/// [Lq, Lk] (rows sum to 1), and as `scores` the unnormalised similarities φ(q_i)ᵀφ(k_j)
/// (causally hidden entries -inf); there is no softmax. Throws heed::Error on mismatched shapes.
AttentionResult linear_attention(const Mat& q, const Mat& k, const Mat& v, bool causal);

}  // namespace heed
