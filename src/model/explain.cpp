// Recomputes one head step by step from the block's LayerNorm'd inputs, using the same
// packed weights as the forward pass (so the numbers are the model's own).
#include "model/explain.h"

#include <cmath>
#include <limits>

#include "core/error.h"
#include "ops/matmul.h"

namespace heed {
namespace {

Mat columns(const Mat& m, std::size_t begin, std::size_t n) {
    Mat out = Mat::from_shape({m.shape(0), n});
    for (std::size_t r = 0; r < m.shape(0); ++r)
        for (std::size_t j = 0; j < n; ++j) out(r, j) = m(r, begin + j);
    return out;
}

/// Row softmax with blocked entries excluded; a fully blocked row becomes all zeros.
Mat masked_softmax(const Mat& s, const Mat& mask) {
    Mat w = xt::zeros<float>(s.shape());
    for (std::size_t i = 0; i < s.shape(0); ++i) {
        float mx = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < s.shape(1); ++j)
            if (mask(i, j) == 0) mx = std::max(mx, s(i, j));
        if (!std::isfinite(mx)) continue;
        double sum = 0;
        for (std::size_t j = 0; j < s.shape(1); ++j)
            if (mask(i, j) == 0) sum += std::exp(double(s(i, j) - mx));
        for (std::size_t j = 0; j < s.shape(1); ++j)
            if (mask(i, j) == 0) w(i, j) = float(std::exp(double(s(i, j) - mx)) / sum);
    }
    return w;
}

Mat stack_rows(const std::vector<Mat>& rows) {
    Mat out = Mat::from_shape({rows.size(), rows.empty() ? 0 : rows[0].shape(1)});
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t j = 0; j < out.shape(1); ++j) out(r, j) = rows[r](0, j);
    return out;
}

}  // namespace

HeadExplanation explain_head(const Model& model, const std::vector<int>& source,
                             const std::vector<int>& target, AttentionBlock block, int layer,
                             int head) {
    const ModelConfig& c = model.config();
    const std::size_t D = c.d_model, Dh = c.head_dim();
    const int layers = block == AttentionBlock::EncoderSelf ? c.encoder_layers : c.decoder_layers;
    if (layer < 0 || layer >= layers)
        throw Error("explain: layer " + std::to_string(layer) + " does not exist (0.." +
                    std::to_string(layers - 1) + ")");
    if (head < 0 || head >= c.heads)
        throw Error("explain: head " + std::to_string(head) + " does not exist (0.." +
                    std::to_string(c.heads - 1) + ")");
    if (block != AttentionBlock::EncoderSelf && target.empty())
        throw Error("explain: decoder attention needs at least one target token");

    EncoderTrace enc_trace;
    Memory memory = model.encode(source, &enc_trace);
    HeadExplanation e;
    e.dk = int(Dh);
    Mat kv_full;   // [Lk, 2D] (cross) or the [L, 3D] fused projection (self)
    Mat q_full;    // [Lq, D or 3D]
    bool causal = false;
    if (block == AttentionBlock::EncoderSelf) {
        e.xq = e.xkv = enc_trace.block_inputs[layer];
        q_full = model.weights().encoder[layer].self_attn.qkv(e.xq);  // [S, 3D]
    } else {
        // teacher-forced decoder run, keeping each step's LayerNorm'd block inputs
        const int T = int(target.size());
        DecoderState state(c, 1, T);
        std::vector<float> logits(c.vocab_size);
        std::vector<Mat> self_rows, cross_rows;
        StepAttention trace;
        trace.want_inputs = true;
        int prev = c.decoder_start_id;
        for (int t = 0; t < T; ++t) {
            model.step({&memory}, {prev}, state, logits.data(), &trace);
            self_rows.push_back(trace.self_inputs[layer]);
            cross_rows.push_back(trace.cross_inputs[layer]);
            prev = target[t];
        }
        const DecoderLayerWeights& w = model.weights().decoder[layer];
        if (block == AttentionBlock::DecoderSelf) {
            e.xq = e.xkv = stack_rows(self_rows);
            q_full = w.self_attn.qkv(e.xq);  // [T, 3D]
            causal = true;
        } else {
            e.xq = stack_rows(cross_rows);
            e.xkv = memory.states;
            q_full = w.cross_attn.q(e.xq);   // [T, D]
            kv_full = memory.cross_kv[layer];  // [S, 2D]
        }
    }
    const bool self = block != AttentionBlock::Cross;
    const std::size_t Lq = e.xq.shape(0), Lk = e.xkv.shape(0);
    auto head_q = [&](int h) { return columns(q_full, h * Dh, Dh); };
    auto head_k = [&](int h) { return self ? columns(q_full, D + h * Dh, Dh)
                                           : columns(kv_full, h * Dh, Dh); };
    auto head_v = [&](int h) { return self ? columns(q_full, 2 * D + h * Dh, Dh)
                                           : columns(kv_full, D + h * Dh, Dh); };
    e.mask = xt::zeros<float>({Lq, Lk});
    if (causal)
        for (std::size_t i = 0; i < Lq; ++i)
            for (std::size_t j = i + 1; j < Lk; ++j) e.mask(i, j) = 1;

    e.concat = Mat::from_shape({Lq, D});
    const float inv_sqrt = 1.0f / std::sqrt(float(Dh));
    for (int h = 0; h < c.heads; ++h) {
        Mat q = head_q(h), k = head_k(h), v = head_v(h);  // [Lq, Dh], [Lk, Dh], [Lk, Dh]
        Mat scores = matmul_nt(q, k);                      // [Lq, Lk]
        Mat scaled = scores * inv_sqrt;
        Mat weights = masked_softmax(scaled, e.mask);
        Mat out = matmul(weights, v);                      // [Lq, Dh]
        xt::view(e.concat, xt::all(), xt::range(h * Dh, (h + 1) * Dh)) = out;
        if (h == head) {
            e.q = q;
            e.k = k;
            e.v = v;
            e.scores = scores;
            e.scaled = scaled;
            e.weights = weights;
            e.weights_unscaled = masked_softmax(scores, e.mask);
            e.output = out;
        }
    }
    const PackedLinear& o = block == AttentionBlock::EncoderSelf
                                ? model.weights().encoder[layer].self_attn.o
                            : block == AttentionBlock::DecoderSelf
                                ? model.weights().decoder[layer].self_attn.o
                                : model.weights().decoder[layer].cross_attn.o;
    e.projected = o(e.concat);
    return e;
}

}  // namespace heed
