// Single-head attention: score functions, masks, masked softmax, weighted sum of values.
// Shapes are checked here; the products go through ops/matmul (and so to the SIMD kernels).
#include "ops/attention.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
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

// Scores e_ij = qᵀk, optionally scaled by `scale`.
// Source: seed 002 (Pitié, 4C16 handout) s_ij = q_iᵀ k_j / √d_k; seed 003 §3 (Vaswani et al.
// 2017); the unscaled form is seed 003 §2 "simplified: e_i = qᵀ k_i" (Luong et al. 2015).
Mat dot_scores(const Mat& q, const Mat& k, float scale) {
    Mat s = matmul_nt(q, k);  // [Lq, Lk]
    if (scale != 1.0f) s *= scale;
    return s;
}

// Scores e_ij = q_iᵀ W k_j with W [Dq, Dk].
// Source: seed 003 §2 "Multiplicative/Luong attention, general form" (Luong et al. 2015).
Mat general_scores(const Mat& q, const Mat& k, const AttentionParams& p) {
    Mat qw = matmul(q, p.w);  // [Lq, Dk]
    return matmul_nt(qw, k);  // [Lq, Lk]
}

// Scores e_ij = vᵀ tanh(W q_i + U k_j), W [Da, Dq], U [Da, Dk], v [Da].
// Source: seed 003 §1 "Additive/Bahdanau attention" (Bahdanau et al. 2015).
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

// Masks. Source: seed 001 (Lawrence) "mask matrix ... making a lower triangular matrix" for
// causal decoding; seed 003 "masks for varying sequence lengths and causal attention" (padding)
// and "Local Attention: restricts attention to a local neighborhood"; seed 002 "limiting the
// attention window to a local neighbourhood".
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

// Softmax over the keys, w_ij = exp(e_ij) / Σ_j' exp(e_ij').
// Source: seed 003 "α_i = exp(e_i) / Σ_j exp(e_j)"; seed 002 step 2. Masked entries (-inf)
// get weight exactly 0 (seed 001: "a mask ... makes the attention weights 0").
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

// Attention(Q, K, V) = softmax(score(Q, K)) V.
// Source: seed 002 "Attention(Q,K,V) = softmax(QKᵀ/√d_k) V" and "output_i = Σ_j w_ij v_j";
// seed 003 "c = Σ_i α_i v_i".
AttentionResult attention(const Mat& q, const Mat& k, const Mat& v, ScoreFunction score,
                          const AttentionMask& mask, const AttentionParams* params) {
    require(k.shape(0) == v.shape(0), "k has " + std::to_string(k.shape(0)) + " rows but v has " +
                                          std::to_string(v.shape(0)) +
                                          "; keys and values must pair up");
    check_score_inputs(q, k, score, params);
    const int Lq = int(q.shape(0)), Lk = int(k.shape(0));
    const auto blocked = mask_matrix(mask, Lq, Lk);  // validates before any arithmetic

    AttentionResult r;
    if (Lq == 0 || Lk == 0) {  // why: keep empty shapes away from the GEMM kernels
        r.scores = Mat::from_shape({std::size_t(Lq), std::size_t(Lk)});
        r.weights = xt::zeros<float>({std::size_t(Lq), std::size_t(Lk)});
        r.output = xt::zeros<float>({std::size_t(Lq), v.shape(1)});
        return r;
    }
    switch (score) {
        case ScoreFunction::Dot:
            r.scores = dot_scores(q, k, 1.0f);
            break;
        case ScoreFunction::ScaledDot:
            r.scores = dot_scores(q, k, float(1.0 / std::sqrt(double(k.shape(1)))));
            break;
        case ScoreFunction::General:
            r.scores = general_scores(q, k, *params);
            break;
        case ScoreFunction::Additive:
            r.scores = additive_scores(q, k, *params);
            break;
    }
    r.scores = xt::where(xt::equal(blocked, std::uint8_t(1)), kNegInf, r.scores);  // [Lq, Lk]

    r.weights = r.scores;  // [Lq, Lk]
    for (int i = 0; i < Lq; ++i) masked_softmax_row(r.weights.data() + std::size_t(i) * Lk, Lk);

    r.output = v.shape(1) > 0 ? matmul(r.weights, v)  // [Lq, Dv]
                              : Mat(xt::zeros<float>({std::size_t(Lq), std::size_t(0)}));
    return r;
}

// One head of scaled dot-product attention on strided slices (the model's hot path).
// Source: seed 002 softmax(QKᵀ/√d_k)V; per-head slicing as in seed 000/003 split_heads.
void attend_head(const float* q, int ldq, const float* k, int ldk, const float* v, int ldv, int Lq,
                 int Lk, int Dh, float scale, const std::uint8_t* key_padding, int causal_offset,
                 float* probs, float* out, int ldo) noexcept {
    if (Lq <= 0) return;
    if (Lk <= 0) {
        for (int i = 0; i < Lq; ++i)
            for (int d = 0; d < Dh; ++d) out[std::size_t(i) * ldo + d] = 0.0f;
        return;
    }
    matmul_raw(q, ldq, k, ldk, /*b_transposed=*/true, probs, Lk, Lq, Lk, Dh);  // [Lq, Lk] QKᵀ
    for (int i = 0; i < Lq; ++i) {
        float* row = probs + std::size_t(i) * Lk;
        for (int j = 0; j < Lk; ++j) {
            const bool blocked =
                (key_padding && key_padding[j]) || (causal_offset >= 0 && j > i + causal_offset);
            row[j] = blocked ? kNegInf : row[j] * scale;
        }
        masked_softmax_row(row, Lk);
    }
    matmul_raw(probs, Lk, v, ldv, /*b_transposed=*/false, out, ldo, Lq, Dh, Lk);  // [Lq, Dh]
}

}  // namespace heed
