// Multi-head attention built from ops/attention: project, split into heads, attend, concatenate,
// project. Cold path (allocates); it keeps every intermediate for the demo's explainer.
#include "ops/multi_head_attention.h"

#include <string>

#include "core/error.h"

namespace heed {
namespace {

void require(bool ok, const std::string& message) {
    if (!ok) throw Error("multi_head_attention: " + message);
}

std::string dims(std::size_t a, std::size_t b) {
    return "[" + std::to_string(a) + ", " + std::to_string(b) + "]";
}

/// Columns [h*n, (h+1)*n) of `m`, evaluated (a head's slice of a packed [L, H*n] matrix).
Mat head_slice(const Mat& m, int h, std::size_t n) {
    return xt::view(m, xt::all(), xt::range(std::size_t(h) * n, std::size_t(h + 1) * n));
}

}  // namespace

// Source: seed 003 §5 "MultiHead(Q,K,V) = Concat(head_1..head_h) W^O, head_i =
// Attention(Q W_i^Q, K W_i^K, V W_i^V)"; seed 000 (split_heads: view [L, H, depth]);
// seed 001 "run attention N times in parallel ... concat the results"; nn.MultiheadAttention.
MultiHeadResult multi_head_attention(const Mat& x_q, const Mat& x_kv,
                                     const MultiHeadAttentionWeights& w, const AttentionMask& mask,
                                     ScoreFunction score) {
    const int H = w.heads;
    require(H > 0, "heads must be positive, got " + std::to_string(H));
    require(score == ScoreFunction::Dot || score == ScoreFunction::ScaledDot,
            "only Dot and ScaledDot scores are supported per head (General and Additive need "
            "per-head parameters; use attention() directly)");
    require(x_q.shape(1) == std::size_t(w.q.in_features()),
            "x_q is " + dims(x_q.shape(0), x_q.shape(1)) + " but the q projection expects " +
                std::to_string(w.q.in_features()) + " input features");
    require(x_kv.shape(1) == std::size_t(w.k.in_features()) &&
                x_kv.shape(1) == std::size_t(w.v.in_features()),
            "x_kv is " + dims(x_kv.shape(0), x_kv.shape(1)) + " but the k/v projections expect " +
                std::to_string(w.k.in_features()) + "/" + std::to_string(w.v.in_features()) +
                " input features");
    require(w.q.out_features() == w.k.out_features(),
            "q and k projections must have the same width, got " +
                std::to_string(w.q.out_features()) + " and " + std::to_string(w.k.out_features()));
    require(w.q.out_features() % H == 0 && w.v.out_features() % H == 0,
            "projection widths " + std::to_string(w.q.out_features()) + " (q/k) and " +
                std::to_string(w.v.out_features()) + " (v) must divide into " + std::to_string(H) +
                " heads");
    require(w.o.in_features() == w.v.out_features(),
            "the output projection expects " + std::to_string(w.o.in_features()) +
                " features but the heads concatenate to " + std::to_string(w.v.out_features()));

    const std::size_t Lq = x_q.shape(0), Lk = x_kv.shape(0);
    const std::size_t Dh = std::size_t(w.q.out_features() / H);
    const std::size_t Dv = std::size_t(w.v.out_features() / H);
    const auto blocked = mask_matrix(mask, int(Lq), int(Lk));  // validate once, before work

    MultiHeadResult r;
    // projections
    const Mat q = w.q(x_q);   // [Lq, H*Dh]
    const Mat k = w.k(x_kv);  // [Lk, H*Dh]
    const Mat v = w.v(x_kv);  // [Lk, H*Dv]

    // per-head attention
    r.q_heads = Tensor3::from_shape({std::size_t(H), Lq, Dh});
    r.k_heads = Tensor3::from_shape({std::size_t(H), Lk, Dh});
    r.v_heads = Tensor3::from_shape({std::size_t(H), Lk, Dv});
    r.scores = Tensor3::from_shape({std::size_t(H), Lq, Lk});
    r.weights = Tensor3::from_shape({std::size_t(H), Lq, Lk});
    r.concat = Mat::from_shape({Lq, std::size_t(H) * Dv});
    const AttentionMask same = AttentionMask::blocked(blocked);
    for (int h = 0; h < H; ++h) {
        const Mat qh = head_slice(q, h, Dh);  // [Lq, Dh]
        const Mat kh = head_slice(k, h, Dh);  // [Lk, Dh]
        const Mat vh = head_slice(v, h, Dv);  // [Lk, Dv]
        const AttentionResult a = attention(qh, kh, vh, score, same);
        xt::view(r.q_heads, h) = qh;
        xt::view(r.k_heads, h) = kh;
        xt::view(r.v_heads, h) = vh;
        xt::view(r.scores, h) = a.scores;                                           // [Lq, Lk]
        xt::view(r.weights, h) = a.weights;                                         // [Lq, Lk]
        xt::view(r.concat, xt::all(), xt::range(h * Dv, (h + 1) * Dv)) = a.output;  // [Lq, Dv]
    }

    // output projection
    r.output = w.o(r.concat);  // [Lq, D]
    return r;
}

}  // namespace heed
