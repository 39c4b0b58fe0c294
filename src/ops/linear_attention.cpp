// Linear attention: the output via key/value summaries (O(L·Dk·Dv)), and separately the
// quadratic [Lq, Lk] weights it implies, which only the demo asks for.
#include "ops/linear_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "ops/matmul.h"
#include "ops/random_features.h"

namespace heed {

// φ(x) = elu(x) + 1 (Katharopoulos et al. 2020 §3.2.1, eq. 7): positive, so the implied
// weights are too, and attention costs O(L) instead of O(L²). The one definition is
// elu_features() (random_features.h), which the model's linear-attention surgery runs too.
Mat elu_feature_map(const Mat& x) {
    Mat out = Mat::from_shape(x.shape());  // [rows, cols]
    if (x.size()) elu_features(columns(x, 0, int(x.shape(1))), out.data());
    return out;
}

// Source: Katharopoulos et al. 2020, eq. (5)-(6) (non-causal) and eq. (8)-(10) (causal:
// S_i = Σ_{j<=i} φ(k_j) v_jᵀ, z_i = Σ_{j<=i} φ(k_j), out_i = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i).
AttentionResult linear_attention(const Mat& q, const Mat& k, const Mat& v, bool causal) {
    if (q.shape(1) != k.shape(1) || k.shape(0) != v.shape(0))
        throw Error("linear_attention: need q [Lq, Dk], k [Lk, Dk], v [Lk, Dv], got q [" +
                    std::to_string(q.shape(0)) + ", " + std::to_string(q.shape(1)) + "], k [" +
                    std::to_string(k.shape(0)) + ", " + std::to_string(k.shape(1)) + "], v [" +
                    std::to_string(v.shape(0)) + ", " + std::to_string(v.shape(1)) + "]");
    const std::size_t Lq = q.shape(0), Lk = k.shape(0), Dk = q.shape(1), Dv = v.shape(1);
    const Mat fq = elu_feature_map(q);  // [Lq, Dk]
    const Mat fk = elu_feature_map(k);  // [Lk, Dk]

    AttentionResult r;
    r.output = xt::zeros<float>({Lq, Dv});
    Mat s = xt::zeros<float>({Dk, Dv});  // Σ φ(k_j) v_jᵀ over the visible keys
    Vec z = xt::zeros<float>({Dk});      // Σ φ(k_j)
    std::size_t added = 0;               // keys folded into s and z so far
    for (std::size_t i = 0; i < Lq && Lk > 0; ++i) {
        const std::size_t visible = causal ? std::min(i + 1, Lk) : Lk;
        for (; added < visible; ++added)
            for (std::size_t a = 0; a < Dk; ++a) {
                z(a) += fk(added, a);
                for (std::size_t c = 0; c < Dv; ++c) s(a, c) += fk(added, a) * v(added, c);
            }
        float den = 0;
        for (std::size_t a = 0; a < Dk; ++a) den += fq(i, a) * z(a);
        for (std::size_t c = 0; c < Dv; ++c) {
            float num = 0;
            for (std::size_t a = 0; a < Dk; ++a) num += fq(i, a) * s(a, c);
            r.output(i, c) = num / den;  // den > 0: φ is positive and at least one key is seen
        }
    }

    // the implied weights, for display only
    r.scores = Lq && Lk ? matmul_nt(fq, fk) : Mat(xt::zeros<float>({Lq, Lk}));  // [Lq, Lk]
    r.weights = xt::zeros<float>({Lq, Lk});
    for (std::size_t i = 0; i < Lq; ++i) {
        float total = 0;
        for (std::size_t j = 0; j < Lk; ++j) {
            if (causal && j > i) {
                r.scores(i, j) = -std::numeric_limits<float>::infinity();
                continue;
            }
            total += r.scores(i, j);
        }
        for (std::size_t j = 0; j < Lk; ++j)
            if (!(causal && j > i)) r.weights(i, j) = r.scores(i, j) / total;
    }
    return r;
}

}  // namespace heed
