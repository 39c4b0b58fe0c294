// Single-head attention: score functions, masks, masked softmax, weighted sum of values.
// Shapes are checked here; the products go through ops/matmul (and so to the SIMD kernels).
#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/thread_pool.h"
#include "ops/matmul.h"

namespace heed {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::string shape_str(const Mat& m) {
    return "[" + std::to_string(m.shape(0)) + ", " + std::to_string(m.shape(1)) + "]";
}

void require(bool ok, const std::string& message) {
    if (!ok) throw Error("attention: " + message);
}

// Throws unless q, k and params fit `score`; run before any arithmetic.
void check_score_inputs(const Mat& q, const Mat& k, ScoreFunction score, const AttentionParams* p) {
    require(q.shape(1) > 0 && k.shape(1) > 0, "query and key dims must be positive, got q " +
                                                  shape_str(q) + " and k " + shape_str(k));
    switch (score) {
        case ScoreFunction::Dot:
        case ScoreFunction::ScaledDot:
            require(q.shape(1) == k.shape(1),
                    "dot-product scores need equal query and key dims, got q " + shape_str(q) +
                        " and k " + shape_str(k));
            break;
        case ScoreFunction::General:
            require(p != nullptr, "ScoreFunction::General needs AttentionParams with w [Dq, Dk]");
            require(p->w.shape(0) == q.shape(1) && p->w.shape(1) == k.shape(1),
                    "General needs w of shape [Dq, Dk] = [" + std::to_string(q.shape(1)) + ", " +
                        std::to_string(k.shape(1)) + "], got " + shape_str(p->w));
            break;
        case ScoreFunction::Additive: {
            require(p != nullptr, "ScoreFunction::Additive needs AttentionParams w, u, v");
            const std::size_t Da = p->v.size();
            require(Da > 0, "Additive needs a non-empty v [Da]");
            require(p->w.shape(0) == Da && p->w.shape(1) == q.shape(1),
                    "Additive needs w of shape [Da, Dq] = [" + std::to_string(Da) + ", " +
                        std::to_string(q.shape(1)) + "], got " + shape_str(p->w));
            require(p->u.shape(0) == Da && p->u.shape(1) == k.shape(1),
                    "Additive needs u of shape [Da, Dk] = [" + std::to_string(Da) + ", " +
                        std::to_string(k.shape(1)) + "], got " + shape_str(p->u));
            break;
        }
    }
}

// Scores e_ij = q_iᵀ W k_j with W [Dq, Dk] (Luong et al. 2015 §3.1, "general"): the dot product
// of the transformed queries q_i W with the keys.
Mat general_queries(const Mat& q, const AttentionParams& p) {
    return matmul(q, p.w);  // [Lq, Dk]
}

// Scores e_ij = vᵀ tanh(W q_i + U k_j), W [Da, Dq], U [Da, Dk], v [Da].
// (Bahdanau et al. 2015 §3.1 and appendix A.1.2, the alignment model a(s, h).)
Mat additive_scores(const Mat& q, const Mat& k, const AttentionParams& p) {
    const std::size_t Da = p.v.size();
    const Mat wq = matmul_nt(q, p.w);  // [Lq, Da] rows are W q_i
    const Mat uk = matmul_nt(k, p.u);  // [Lk, Da] rows are U k_j
    const std::size_t Lq = q.shape(0), Lk = k.shape(0);
    Mat s = Mat::from_shape({Lq, Lk});
    for (std::size_t i = 0; i < Lq; ++i)
        for (std::size_t j = 0; j < Lk; ++j) {
            float e = 0;
            for (std::size_t a = 0; a < Da; ++a) e += p.v(a) * std::tanh(wq(i, a) + uk(j, a));
            s(i, j) = e;
        }
    return s;
}

}  // namespace

AttentionMask AttentionMask::none() { return AttentionMask{}; }

AttentionMask AttentionMask::causal(int offset) {
    AttentionMask m;
    m.kind = MaskKind::Causal;
    m.causal_offset = offset;
    return m;
}

AttentionMask AttentionMask::padding(std::vector<std::uint8_t> key_padding) {
    AttentionMask m;
    m.kind = MaskKind::KeyPadding;
    m.key_padding = std::move(key_padding);
    return m;
}

AttentionMask AttentionMask::local(int window) {
    AttentionMask m;
    m.kind = MaskKind::LocalWindow;
    m.window = window;
    return m;
}

AttentionMask AttentionMask::blocked(xt::xtensor<std::uint8_t, 2> blocked) {
    AttentionMask m;
    m.kind = MaskKind::Custom;
    m.custom = std::move(blocked);
    return m;
}

// Masks: causal as the decoder's masked self-attention (Vaswani et al. 2017 §3.2.3), key
// padding for batches of unequal length, and a local window (Luong et al. 2015 §3.2, local
// attention with a window [p - D, p + D]).
xt::xtensor<std::uint8_t, 2> mask_matrix(const AttentionMask& mask, int Lq, int Lk) {
    require(Lq >= 0 && Lk >= 0, "negative sequence length");
    xt::xtensor<std::uint8_t, 2> b = xt::zeros<std::uint8_t>({std::size_t(Lq), std::size_t(Lk)});
    switch (mask.kind) {
        case MaskKind::None:
        case MaskKind::KeyPadding:
            break;
        case MaskKind::Causal:
            for (int i = 0; i < Lq; ++i)
                for (int j = 0; j < Lk; ++j) b(i, j) = j > i + mask.causal_offset;
            break;
        case MaskKind::LocalWindow:
            require(mask.window >= 0,
                    "local window must be >= 0, got " + std::to_string(mask.window));
            for (int i = 0; i < Lq; ++i)
                for (int j = 0; j < Lk; ++j)
                    b(i, j) = std::abs(i + mask.causal_offset - j) > mask.window;
            break;
        case MaskKind::Custom:
            require(
                mask.custom.shape(0) == std::size_t(Lq) && mask.custom.shape(1) == std::size_t(Lk),
                "custom mask has shape [" + std::to_string(mask.custom.shape(0)) + ", " +
                    std::to_string(mask.custom.shape(1)) + "] but the scores are [" +
                    std::to_string(Lq) + ", " + std::to_string(Lk) + "]");
            for (int i = 0; i < Lq; ++i)
                for (int j = 0; j < Lk; ++j) b(i, j) = mask.custom(i, j) != 0;
            break;
    }
    if (mask.kind == MaskKind::KeyPadding || !mask.key_padding.empty()) {
        require(mask.key_padding.size() == std::size_t(Lk),
                "key_padding has " + std::to_string(mask.key_padding.size()) +
                    " entries but there are " + std::to_string(Lk) + " keys");
        for (int j = 0; j < Lk; ++j)
            if (mask.key_padding[j])
                for (int i = 0; i < Lq; ++i) b(i, j) = 1;
    }
    return b;
}

// Softmax over the keys, w_ij = exp(e_ij) / Σ_j' exp(e_ij') (Bahdanau et al. 2015 eq. 6;
// Vaswani et al. 2017 eq. 1). Masked entries (-inf) get weight exactly 0.
void masked_softmax_row(float* row, int n) noexcept {
    float mx = kNegInf;
    for (int j = 0; j < n; ++j) mx = row[j] > mx ? row[j] : mx;
    if (mx == kNegInf) {  // why: every key blocked; exp(-inf - -inf) would be NaN
        for (int j = 0; j < n; ++j) row[j] = 0.0f;
        return;
    }
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) {
        row[j] = std::exp(row[j] - mx);  // subtracting the max keeps exp() in range
        sum += row[j];
    }
    const float inv = 1.0f / sum;
    for (int j = 0; j < n; ++j) row[j] *= inv;
}

RowsView columns(const RowsView& v, int begin, int n) {
    return {v.data + begin, v.rows, n, v.stride};
}

RowsSpan out_columns(const RowsSpan& s, int begin, int n) {
    return {s.data + begin, s.rows, n, s.stride};
}

RowsView columns(const Mat& m, int begin, int n) {
    return {m.data() + begin, int(m.shape(0)), n, int(m.shape(1))};
}

RowsSpan out_columns(Mat& m, int begin, int n) {
    return {m.data() + begin, int(m.shape(0)), n, int(m.shape(1))};
}

Mat to_mat(const RowsView& v) {
    Mat out = Mat::from_shape({std::size_t(v.rows), std::size_t(v.cols)});  // [rows, cols]
    for (int r = 0; r < v.rows; ++r)
        std::copy(v.data + std::size_t(r) * v.stride, v.data + std::size_t(r) * v.stride + v.cols,
                  out.data() + std::size_t(r) * v.cols);
    return out;
}

namespace {

/// The skipping path of attend_head(): row by row, only keys in the row's band (or all keys)
/// that no mask blocks get a score and a product with V; everything else has weight 0.
/// Local attention (Luong et al. 2015 §3.2; Beltagy et al. 2020 §3.1) in O(Lq·w·Dh).
void attend_visible_rows(const HeadAttention& a, float* probs, const RowsSpan& out) noexcept {
    const int Lq = out.rows, Lk = a.v.rows, Dv = a.v.cols, Dh = a.q.cols;
    const HeadMask& m = a.mask;
    const bool gather = m.blocked && m.skip_blocked;
    for (int i = 0; i < Lq; ++i) {
        int lo = 0, hi = Lk - 1;
        if (m.window >= 0) {
            const int centre = std::min(i + m.window_first, Lk - 1);
            lo = std::max(0, centre - m.window);
            hi = std::min(Lk - 1, centre + m.window);
        }
        if (m.causal) hi = std::min(hi, i + m.offset);
        float* row = probs + std::size_t(i) * Lk;
        float* o = out.data + std::size_t(i) * out.stride;
        std::fill_n(row, Lk, 0.0f);
        std::fill_n(o, Dv, 0.0f);
        if (hi < lo) continue;
        const int n = hi - lo + 1;
        const float* qi = a.q.data + std::size_t(i) * a.q.stride;
        if (!gather && !m.key_padding && !a.given_scores) {
            // a contiguous band: two one-row products over its n keys
            matmul_raw(qi, a.q.stride, a.k.data + std::size_t(lo) * a.k.stride, a.k.stride,
                       /*b_transposed=*/true, row + lo, Lk, 1, n, Dh);  // [1, n]
            for (int j = lo; j <= hi; ++j) row[j] *= a.scale;
            masked_softmax_row(row + lo, n);
            matmul_raw(row + lo, Lk, a.v.data + std::size_t(lo) * a.v.stride, a.v.stride,
                       /*b_transposed=*/false, o, out.stride, 1, Dv, n);  // [1, Dv]
            continue;
        }
        // why: blocked keys get neither a score nor an exp, so the cost is the visible pairs'
        const auto visible = [&](int j) {
            return !(m.key_padding && m.key_padding[j]) &&
                   !(gather && m.blocked[std::size_t(i) * Lk + j]);
        };
        float mx = kNegInf;
        for (int j = lo; j <= hi; ++j) {
            if (!visible(j)) continue;
            float e;
            if (a.given_scores) {
                e = a.given_scores[std::size_t(i) * Lk + j];
            } else {
                const float* kj = a.k.data + std::size_t(j) * a.k.stride;
                float dot = 0.0f;
                for (int d = 0; d < Dh; ++d) dot += qi[d] * kj[d];
                e = dot * a.scale;
            }
            row[j] = e;
            mx = std::max(mx, e);
        }
        if (mx == kNegInf) continue;  // every key blocked: zero weights, zero output
        float sum = 0.0f;
        for (int j = lo; j <= hi; ++j)
            if (visible(j)) sum += row[j] = std::exp(row[j] - mx);
        const float inv = 1.0f / sum;
        for (int j = lo; j <= hi; ++j) {
            if (!visible(j)) continue;
            const float w = row[j] *= inv;
            const float* vj = a.v.data + std::size_t(j) * a.v.stride;
            for (int c = 0; c < Dv; ++c) o[c] += w * vj[c];
        }
    }
}

}  // namespace

// One head of Attention(Q, K, V) = softmax(QKᵀ/√d_k)·V (Vaswani et al. 2017 §3.2.1) on
// strided slices, so a head of a packed [L, H*Dh] projection needs no copy (§3.2.2).
void attend_head(const HeadAttention& a, float* probs, const RowsSpan& out,
                 const HeadRecorder* record) noexcept {
    const int Lq = out.rows, Lk = a.v.rows, Dv = a.v.cols;
    if (Lq <= 0) return;
    if (Lk <= 0) {
        for (int i = 0; i < Lq; ++i) std::fill_n(out.data + std::size_t(i) * out.stride, Dv, 0.0f);
        return;
    }
    if (!record && (a.mask.window >= 0 || (a.mask.blocked && a.mask.skip_blocked))) {
        attend_visible_rows(a, probs, out);
        return;
    }
    if (a.given_scores) {
        std::copy(a.given_scores, a.given_scores + std::size_t(Lq) * Lk, probs);  // [Lq, Lk]
    } else {
        matmul_raw(a.q.data, a.q.stride, a.k.data, a.k.stride, /*b_transposed=*/true, probs, Lk, Lq,
                   Lk, a.q.cols);  // [Lq, Lk] QKᵀ
    }
    const HeadMask& m = a.mask;
    const float scale = a.given_scores ? 1.0f : a.scale;
    for (int i = 0; i < Lq; ++i) {
        float* row = probs + std::size_t(i) * Lk;
        for (int j = 0; j < Lk; ++j) {
            const bool blocked =
                (m.key_padding && m.key_padding[j]) || (m.causal && j > i + m.offset) ||
                (m.blocked && m.blocked[std::size_t(i) * Lk + j]) ||
                (m.window >= 0 && std::abs(std::min(i + m.window_first, Lk - 1) - j) > m.window);
            const float e = scale == 1.0f ? row[j] : row[j] * scale;
            if (record && record->scores) record->scores[std::size_t(i) * Lk + j] = e;
            row[j] = blocked ? kNegInf : e;
        }
        if (record && record->masked)
            std::copy(row, row + Lk, record->masked + std::size_t(i) * Lk);
        masked_softmax_row(row, Lk);
    }
    matmul_raw(probs, Lk, a.v.data, a.v.stride, /*b_transposed=*/false, out.data, out.stride, Lq,
               Dv, Lk);  // [Lq, Dv]
}

void attend_heads(const HeadAttention& all, int heads, float* probs, const RowsSpan& out,
                  float* trace) noexcept {
    const int Dh = all.q.cols / heads, Dv = all.v.cols / heads;
    const std::size_t n = std::size_t(out.rows) * all.v.rows;  // Lq * Lk
    // why: each head reads and writes only its own columns and its own [Lq, Lk] of `probs`, so
    // sharing heads out over the current pool changes no bit (an encoder's heads are its
    // largest one-thread work; a decoder step's stay below the sharing threshold)
    const double work = double(n) * (Dh + Dv) * heads;
    parallel_ranges(heads, 1, work, [&](int h0, int h1) {
        HeadAttention head = all;
        for (int h = h0; h < h1; ++h) {
            head.q = columns(all.q, h * Dh, Dh);  // [Lq, Dh]
            head.k = columns(all.k, h * Dh, Dh);  // [Lk, Dh]
            head.v = columns(all.v, h * Dv, Dv);  // [Lk, Dv]
            float* p = probs + std::size_t(h) * n;
            attend_head(head, p, out_columns(out, h * Dv, Dv));
            if (trace) std::copy(p, p + n, trace + h * n);
        }
    });
}

// The lab's Attention(Q, K, V) with any score function: dot and general scores are a dot
// product (general on transformed queries), additive scores are given to the same routine.
AttentionResult attention(const Mat& q, const Mat& k, const Mat& v, ScoreFunction score,
                          const AttentionMask& mask, const AttentionParams* params) {
    require(k.shape(0) == v.shape(0), "k has " + std::to_string(k.shape(0)) + " rows but v has " +
                                          std::to_string(v.shape(0)) +
                                          "; keys and values must pair up");
    check_score_inputs(q, k, score, params);
    const int Lq = int(q.shape(0)), Lk = int(k.shape(0)), Dv = int(v.shape(1));
    const auto blocked = mask_matrix(mask, Lq, Lk);  // validates before any arithmetic

    AttentionResult r;
    r.output = xt::zeros<float>({std::size_t(Lq), std::size_t(Dv)});  // [Lq, Dv]
    if (Lq == 0 || Lk == 0) {  // why: keep empty shapes away from the GEMM kernels
        r.scores = Mat::from_shape({std::size_t(Lq), std::size_t(Lk)});
        r.weights = xt::zeros<float>({std::size_t(Lq), std::size_t(Lk)});
        return r;
    }
    r.scores = Mat::from_shape({std::size_t(Lq), std::size_t(Lk)});   // [Lq, Lk]
    r.weights = Mat::from_shape({std::size_t(Lq), std::size_t(Lk)});  // [Lq, Lk]
    Mat queries;                                                      // [Lq, Dk] for General
    Mat given;                                                        // [Lq, Lk] for Additive
    HeadAttention head;
    head.q = columns(q, 0, int(q.shape(1)));
    head.k = columns(k, 0, int(k.shape(1)));
    head.v = columns(v, 0, Dv);
    head.mask.blocked = blocked.data();
    switch (score) {
        case ScoreFunction::Dot:
            break;
        case ScoreFunction::ScaledDot:
            head.scale = float(1.0 / std::sqrt(double(k.shape(1))));
            break;
        case ScoreFunction::General:
            queries = general_queries(q, *params);
            head.q = columns(queries, 0, int(queries.shape(1)));
            break;
        case ScoreFunction::Additive:
            given = additive_scores(q, k, *params);
            head.given_scores = given.data();
            break;
    }
    HeadRecorder record;
    record.masked = r.scores.data();
    attend_head(head, r.weights.data(), out_columns(r.output, 0, Dv), &record);
    return r;
}

}  // namespace heed
