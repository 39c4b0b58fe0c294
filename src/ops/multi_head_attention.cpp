// Multi-head attention built on attend_head: project, attend per head on column slices,
// concatenate, project. Cold path (allocates); it keeps every intermediate for the demo's
// explainer.
#include "ops/multi_head_attention.h"

#include <cmath>
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

}  // namespace

// MultiHead(Q, K, V) = Concat(head_1..head_H) W^O, head_h = Attention(Q W_h^Q, K W_h^K, V W_h^V)
// (Vaswani et al. 2017 §3.2.2), as torch.nn.MultiheadAttention computes it.
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

    // per-head attention: head h reads columns h*Dh.. of the packed projections (no copy)
    r.q_heads = Tensor3::from_shape({std::size_t(H), Lq, Dh});
    r.k_heads = Tensor3::from_shape({std::size_t(H), Lk, Dh});
    r.v_heads = Tensor3::from_shape({std::size_t(H), Lk, Dv});
    r.scores = Tensor3::from_shape({std::size_t(H), Lq, Lk});
    r.weights = Tensor3::from_shape({std::size_t(H), Lq, Lk});
    r.concat = xt::zeros<float>({Lq, std::size_t(H) * Dv});
    HeadAttention head;
    head.scale = score == ScoreFunction::ScaledDot ? float(1.0 / std::sqrt(double(Dh))) : 1.0f;
    head.mask.blocked = blocked.data();
    for (int h = 0; h < H; ++h) {
        head.q = columns(q, h * int(Dh), int(Dh));  // [Lq, Dh]
        head.k = columns(k, h * int(Dh), int(Dh));  // [Lk, Dh]
        head.v = columns(v, h * int(Dv), int(Dv));  // [Lk, Dv]
        if (Lq > 0 && Lk > 0) {                     // why: an empty head has no element to point at
            HeadRecorder record;
            record.masked = &r.scores(h, 0, 0);  // [Lq, Lk]
            attend_head(head, &r.weights(h, 0, 0), out_columns(r.concat, h * int(Dv), int(Dv)),
                        &record);
        }
        xt::view(r.q_heads, h) = to_mat(head.q);
        xt::view(r.k_heads, h) = to_mat(head.k);
        xt::view(r.v_heads, h) = to_mat(head.v);
    }

    // output projection
    r.output = w.o(r.concat);  // [Lq, D]
    return r;
}

}  // namespace heed
