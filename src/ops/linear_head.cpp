// Linear attention of one head through key/value sums: O((Lq + Lk)·r·Dv) instead of
// O(Lq·Lk·Dv); the quadratic implied weights are computed only when a trace asks for them.
#include "ops/linear_head.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/matmul.h"

namespace heed {

int feature_count(const LinearHeadAttention& a) {
    return a.kind == LinearKind::Favor ? int(a.omega->shape(0)) : a.q.cols;
}

std::size_t linear_state_size(int r, int dv) { return std::size_t(r) * (dv + 1) + 1; }

void linear_state_reset(float* state, int r, int dv, float shift) noexcept {
    std::fill_n(state, std::size_t(r) * (dv + 1), 0.0f);
    state[std::size_t(r) * (dv + 1)] = shift;
}

// Katharopoulos et al. 2020 eq. (6): S = Σ_j φ(k_j) v_jᵀ, z = Σ_j φ(k_j); causally (§3.4,
// eq. 8–10) the same sums grow one key per step: the KV cache becomes (S, z).
void linear_state_add(float* state, int r, int dv, const float* phi_k, const float* v) noexcept {
    float* s = state;                        // [r, Dv]
    float* z = state + std::size_t(r) * dv;  // [r]
    for (int f = 0; f < r; ++f) {
        const float p = phi_k[f];
        z[f] += p;
        float* sf = s + std::size_t(f) * dv;
        for (int c = 0; c < dv; ++c) sf[c] += p * v[c];
    }
}

void linear_state_add_log(float* state, int r, int dv, float* log_phi_k, const float* v) noexcept {
    float& shift = state[std::size_t(r) * (dv + 1)];
    const float m = max_of(log_phi_k, std::size_t(r));
    if (m > shift) {
        // why: keys added earlier carry exp(−old); rescaling gives them exp(−new) like this one
        const float factor = std::isinf(shift) ? 0.0f : std::exp(shift - m);
        for (std::size_t i = 0; i < std::size_t(r) * (dv + 1); ++i) state[i] *= factor;
        shift = m;
    }
    exp_features(log_phi_k, std::size_t(r), r, shift);
    linear_state_add(state, r, dv, log_phi_k, v);
}

void linear_state_read(const float* state, int r, int dv, const float* phi_q, float* out) noexcept {
    const float* s = state;
    const float* z = state + std::size_t(r) * dv;
    float den = 0;
    for (int f = 0; f < r; ++f) den += phi_q[f] * z[f];
    if (!(den > 0) || !std::isfinite(den)) {  // why: underflow or no key: no weight anywhere
        std::fill_n(out, dv, 0.0f);
        return;
    }
    std::fill_n(out, dv, 0.0f);
    for (int f = 0; f < r; ++f) {
        const float p = phi_q[f];
        const float* sf = s + std::size_t(f) * dv;
        for (int c = 0; c < dv; ++c) out[c] += p * sf[c];
    }
    const float inv = 1.0f / den;
    for (int c = 0; c < dv; ++c) out[c] *= inv;
}

std::size_t linear_head_scratch(const LinearHeadAttention& a) {
    const int r = feature_count(a);
    return std::size_t(a.q.rows + a.k.rows) * r + linear_state_size(r, a.v.cols);
}

void linear_query_features(const LinearHeadAttention& a, float* qf) noexcept {
    if (a.kind == LinearKind::Favor)
        favor_features(a.q, *a.omega, a.scale, /*per_row=*/true, qf);
    else
        elu_features(a.q, qf);
}

void linear_key_features(const LinearHeadAttention& a, float* kf, float* state) noexcept {
    const int r = feature_count(a), dv = a.v.cols;
    const float shift = a.kind == LinearKind::Favor
                            ? favor_features(a.k, *a.omega, a.scale, /*per_row=*/false, kf)
                            : (elu_features(a.k, kf), 0.0f);
    if (!state) return;
    linear_state_reset(state, r, dv, shift);
    for (int j = 0; j < a.k.rows; ++j)
        linear_state_add(state, r, dv, kf + std::size_t(j) * r,
                         a.v.data + std::size_t(j) * a.v.stride);
}

void linear_implied_weights(const LinearHeadAttention& a, const float* qf, const float* kf,
                            float* probs) noexcept {
    const int r = feature_count(a), Lq = a.q.rows, Lk = a.k.rows;
    if (Lq <= 0 || Lk <= 0) return;
    matmul_raw(qf, r, kf, r, /*b_transposed=*/true, probs, Lk, Lq, Lk, r);  // [Lq, Lk]
    for (int i = 0; i < Lq; ++i) {
        float* row = probs + std::size_t(i) * Lk;
        const int visible = a.causal ? std::clamp(i + a.offset + 1, 0, Lk) : Lk;
        std::fill(row + visible, row + Lk, 0.0f);
        float total = 0;
        for (int j = 0; j < visible; ++j) total += row[j];
        const float inv = total > 0 ? 1.0f / total : 0.0f;
        for (int j = 0; j < visible; ++j) row[j] *= inv;
    }
}

void linear_attend_head(const LinearHeadAttention& a, float* scratch, const RowsSpan& out,
                        float* probs) noexcept {
    const int r = feature_count(a), Lq = out.rows, Lk = a.k.rows, dv = a.v.cols;
    float* qf = scratch;                      // [Lq, r]
    float* kf = qf + std::size_t(Lq) * r;     // [Lk, r]
    float* state = kf + std::size_t(Lk) * r;  // S | z | shift
    linear_query_features(a, qf);
    if (a.causal) {
        linear_key_features(a, kf, nullptr);
        // why: kf already carries one shift for all keys, so prefix sums need no rescaling
        linear_state_reset(state, r, dv, 0.0f);
        int added = 0;
        for (int i = 0; i < Lq; ++i) {
            const int visible = std::clamp(i + a.offset + 1, 0, Lk);
            for (; added < visible; ++added)
                linear_state_add(state, r, dv, kf + std::size_t(added) * r,
                                 a.v.data + std::size_t(added) * a.v.stride);
            linear_state_read(state, r, dv, qf + std::size_t(i) * r,
                              out.data + std::size_t(i) * out.stride);
        }
    } else {
        linear_key_features(a, kf, state);
        for (int i = 0; i < Lq; ++i)
            linear_state_read(state, r, dv, qf + std::size_t(i) * r,
                              out.data + std::size_t(i) * out.stride);
    }
    if (probs) linear_implied_weights(a, qf, kf, probs);
}

AttentionResult linear_attention(const Mat& q, const Mat& k, const Mat& v, bool causal) {
    if (q.shape(1) != k.shape(1) || k.shape(0) != v.shape(0))
        throw Error("linear_attention: need q [Lq, Dk], k [Lk, Dk], v [Lk, Dv], got q [" +
                    std::to_string(q.shape(0)) + ", " + std::to_string(q.shape(1)) + "], k [" +
                    std::to_string(k.shape(0)) + ", " + std::to_string(k.shape(1)) + "], v [" +
                    std::to_string(v.shape(0)) + ", " + std::to_string(v.shape(1)) + "]");
    const int Lq = int(q.shape(0)), Lk = int(k.shape(0)), Dk = int(q.shape(1));
    const int Dv = int(v.shape(1));
    LinearHeadAttention a;
    a.q = columns(q, 0, Dk);
    a.k = columns(k, 0, Dk);
    a.v = columns(v, 0, Dv);
    a.kind = LinearKind::Elu;
    a.causal = causal;
    AttentionResult res;
    res.output = Mat::from_shape({q.shape(0), v.shape(1)});   // [Lq, Dv]
    res.weights = Mat::from_shape({q.shape(0), k.shape(0)});  // [Lq, Lk]
    res.scores = Mat::from_shape({q.shape(0), k.shape(0)});   // [Lq, Lk]
    std::vector<float> scratch(linear_head_scratch(a));
    linear_attend_head(a, scratch.data(), out_columns(res.output, 0, Dv), res.weights.data());
    // the scores from the features the head left in scratch: qf [Lq, r], then kf [Lk, r]
    const int r = feature_count(a);
    const float* qf = scratch.data();
    matmul_raw(qf, r, qf + std::size_t(Lq) * r, r, /*b_transposed=*/true, res.scores.data(), Lk, Lq,
               Lk, r);
    if (causal)
        for (int i = 0; i < Lq; ++i)
            for (int j = i + 1; j < Lk; ++j)
                res.scores(i, j) = -std::numeric_limits<float>::infinity();
    return res;
}

}  // namespace heed
