// The attention lab over plain arrays: converts to matrices, calls ops/, converts back.
#include "translator/attention_lab.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/tensor.h"
#include "ops/attention.h"
#include "ops/linear_head.h"
#include "ops/positional_encoding.h"

namespace heed {
namespace {

/// A [rows, cols] array as a matrix (a [n] array becomes [n]'s vector via vec()), each side at
/// most kLabMaxSize.
Mat mat(const Array& a, const char* name) {
    if (a.shape.size() != 2 || a.data.size() != a.shape[0] * a.shape[1])
        throw Error(std::string(name) + " must be a [rows, cols] matrix");
    // why: the weights are [Lq, Lk]; 50,000 rows would ask for 10 GB
    if (a.shape[0] > kLabMaxSize || a.shape[1] > kLabMaxSize)
        throw Error(std::string(name) + " is [" + std::to_string(a.shape[0]) + ", " +
                    std::to_string(a.shape[1]) + "]: the lab takes at most " +
                    std::to_string(kLabMaxSize) + " rows and columns");
    Mat m = Mat::from_shape({a.shape[0], a.shape[1]});  // [rows, cols]
    std::copy(a.data.begin(), a.data.end(), m.begin());
    return m;
}

AttentionMask mask_of(const LabMask& in, std::size_t Lq, std::size_t Lk) {
    for (const auto& [name, value] : {std::pair{"offset", in.offset}, {"window", in.window}})
        if (value < -kLabMaskInt || value > kLabMaskInt)
            throw Error(std::string("mask.") + name + " must be an integer in -" +
                        std::to_string(kLabMaskInt) + ".." + std::to_string(kLabMaskInt) +
                        ", got " + std::to_string(value));
    AttentionMask m;
    m.kind = in.kind;
    m.window = in.window;
    m.causal_offset = in.offset;
    m.key_padding = in.key_padding;
    if (in.kind == MaskKind::Custom) {
        if (in.blocked.size() != Lq * Lk) throw Error("the custom mask needs Lq*Lk flags");
        m.custom = xt::xtensor<std::uint8_t, 2>::from_shape({Lq, Lk});  // [Lq, Lk]
        std::copy(in.blocked.begin(), in.blocked.end(), m.custom.begin());
    }
    return m;
}

LabResult result_of(const AttentionResult& r) {
    return {to_array(r.output), to_array(r.weights), to_array(r.scores)};
}

}  // namespace

LabResult lab_attention(const LabInputs& in) {
    const Mat q = mat(in.q, "q"), k = mat(in.k, "k"), v = mat(in.v, "v");
    AttentionParams p;
    if (!in.w.data.empty()) p.w = mat(in.w, "params.w");
    if (!in.u.data.empty()) p.u = mat(in.u, "params.u");
    p.v = Vec::from_shape({in.a.data.size()});  // [Da]
    std::copy(in.a.data.begin(), in.a.data.end(), p.v.begin());
    return result_of(attention(q, k, v, in.score, mask_of(in.mask, q.shape(0), k.shape(0)), &p));
}

LabResult lab_linear_attention(const Array& q, const Array& k, const Array& v, bool causal) {
    return result_of(linear_attention(mat(q, "q"), mat(k, "k"), mat(v, "v"), causal));
}

LabPositions lab_positions(int length, int d_model, bool with_similarity) {
    if (std::size_t(std::max(length, 0)) > kLabMaxSize ||
        std::size_t(std::max(d_model, 0)) > kLabMaxSize)
        throw Error("sinusoidal positions: length and d_model must be at most " +
                    std::to_string(kLabMaxSize));
    const Mat pe = sinusoidal_positions(length, d_model);  // [L, D]
    LabPositions out{to_array(pe), {}};
    if (with_similarity) out.similarity = to_array(position_similarity(pe));  // [L, L]
    return out;
}

}  // namespace heed
