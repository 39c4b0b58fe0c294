// The one-head explainer: reruns the block's projections and the forward pass's own attention
// routine on the LayerNorm'd inputs the forward pass recorded, keeping every intermediate.
#include "model/explain.h"

#include <cmath>

#include "core/error.h"
#include "ops/attention.h"

namespace heed {
namespace {

Mat stack_rows(const std::vector<Mat>& rows) {
    Mat out = Mat::from_shape({rows.size(), rows.empty() ? 0 : rows[0].shape(1)});  // [T, D]
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t j = 0; j < out.shape(1); ++j) out(r, j) = rows[r](0, j);
    return out;
}

/// The block's LayerNorm'd inputs and packed projections, as the forward pass computed them.
struct BlockInputs {
    Mat xq, xkv;  ///< [Lq, D], [Lk, D]
    Mat q_full;   ///< [Lq, 3D] fused Q | K | V (self) or [Lq, D] queries (cross)
    Mat kv_full;  ///< [Lk, 2D] K | V of the memory (cross only)
    bool cross = false, causal = false;
};

BlockInputs block_inputs(const Model& model, const std::vector<int>& source,
                         const std::vector<int>& target, const HeadQuery& query) {
    const ModelConfig& c = model.config();
    const AttentionBlock block = query.block;
    const int layer = query.layer;
    BlockInputs b;
    if (block == AttentionBlock::EncoderSelf) {
        EncoderTrace trace;
        model.encode(source, &trace);
        b.xq = b.xkv = trace.block_inputs[layer];                       // [S, D]
        b.q_full = model.weights().encoder[layer].self_attn.qkv(b.xq);  // [S, 3D]
        return b;
    }
    // teacher-forced decoder run, keeping each step's LayerNorm'd block inputs
    const Memory memory = model.encode(source);
    const int T = int(target.size());
    DecoderState state(c, 1, T);
    std::vector<float> logits(c.target_vocab());
    std::vector<Mat> self_rows, cross_rows;
    StepAttention trace;
    trace.want_inputs = true;
    int prev = query.start_id >= 0 ? query.start_id : c.decoder_start_id;
    for (int t = 0; t < T; ++t) {
        model.step({&memory}, {prev}, state, logits.data(), &trace);
        self_rows.push_back(trace.self_inputs[layer]);    // [1, D]
        cross_rows.push_back(trace.cross_inputs[layer]);  // [1, D]
        prev = target[t];
    }
    const DecoderLayerWeights& w = model.weights().decoder[layer];
    if (block == AttentionBlock::DecoderSelf) {
        if (c.ssru_decoder())
            throw Error(
                "explain: this model's decoder has no self-attention to explain (an SSRU "
                "cell takes its place: its forget gates are in the trace)");
        b.xq = b.xkv = stack_rows(self_rows);  // [T, D]
        b.q_full = w.self_attn.qkv(b.xq);      // [T, 3D]
        b.causal = true;
    } else {
        b.xq = stack_rows(cross_rows);       // [T, D]
        b.xkv = memory.states;               // [S, D]
        b.q_full = w.cross_attn.q(b.xq);     // [T, D]
        b.kv_full = memory.cross_kv[layer];  // [S, 2D]
        b.cross = true;
    }
    return b;
}

/// ‖f_h(x_j)‖ per key j (Kobayashi et al. 2020 §3): head h's value vector v_j carried through
/// its slice of the output projection, f_h(x_j) = v_j·W_Oᵀ[h*Dh.., :]. The output bias is left
/// out: it is added once after the heads' sum, not per key.
Array value_norms(const PackedLinear& o, const Mat& v, int head) {
    const std::size_t Lk = v.shape(0), Dh = v.shape(1), D = std::size_t(o.in_features());
    // why: the model's own projection on a row holding only this head's slice; the extra zero
    // row gives the bias to subtract (an int8 kernel rounds a zero row to exactly zero)
    Mat padded = Mat::from_shape({Lk + 1, D});  // [Lk + 1, D]
    padded.fill(0.0f);
    for (std::size_t j = 0; j < Lk; ++j)
        for (std::size_t d = 0; d < Dh; ++d) padded(j, head * Dh + d) = v(j, d);
    const Mat y = o(padded);  // [Lk + 1, D]
    Array norms{{Lk}, std::vector<float>(Lk)};
    for (std::size_t j = 0; j < Lk; ++j) {
        double sum = 0;
        for (std::size_t r = 0; r < y.shape(1); ++r) {
            const double f = double(y(j, r)) - double(y(Lk, r));
            sum += f * f;
        }
        norms.data[j] = float(std::sqrt(sum));
    }
    return norms;
}

}  // namespace

// The explainer runs the forward pass's own per-head routine (attend_heads / attend_head) on
// the block's inputs and keeps the intermediates the forward pass throws away.
HeadExplanation explain_head(const Model& model, const std::vector<int>& source,
                             const std::vector<int>& target, const HeadQuery& query) {
    const ModelConfig& c = model.config();
    const AttentionBlock block = query.block;
    const int layer = query.layer, head = query.head;
    const int D = c.d_model, H = c.heads, Dh = c.head_dim();
    const int layers = block == AttentionBlock::EncoderSelf ? c.encoder_layers : c.decoder_layers;
    if (layer < 0 || layer >= layers)
        throw Error("explain: layer " + std::to_string(layer) + " does not exist (0.." +
                    std::to_string(layers - 1) + ")");
    if (head < 0 || head >= H)
        throw Error("explain: head " + std::to_string(head) + " does not exist (0.." +
                    std::to_string(H - 1) + ")");
    if (block != AttentionBlock::EncoderSelf && target.empty())
        throw Error("explain: decoder attention needs at least one target token");

    const BlockInputs in = block_inputs(model, source, target, query);
    const int Lq = int(in.xq.shape(0)), Lk = int(in.xkv.shape(0));
    HeadAttention all;                 // every head, as the forward pass runs them
    all.q = columns(in.q_full, 0, D);  // [Lq, H*Dh]
    all.k = in.cross ? columns(in.kv_full, 0, D) : columns(in.q_full, D, D);      // [Lk, H*Dh]
    all.v = in.cross ? columns(in.kv_full, D, D) : columns(in.q_full, 2 * D, D);  // [Lk, H*Dh]
    all.scale = 1.0f / std::sqrt(float(Dh));
    all.mask.causal = in.causal;

    const auto square = [&] { return Mat::from_shape({std::size_t(Lq), std::size_t(Lk)}); };
    const auto blocked =
        mask_matrix(in.causal ? AttentionMask::causal() : AttentionMask::none(), Lq, Lk);
    std::vector<float> probs(std::size_t(H) * Lq * Lk);               // [H, Lq, Lk]
    Mat concat = Mat::from_shape({std::size_t(Lq), std::size_t(D)});  // [Lq, D]
    attend_heads(all, H, probs.data(), out_columns(concat, 0, D));

    // the chosen head again, keeping its intermediates
    HeadAttention one = all;
    one.q = columns(all.q, head * Dh, Dh);  // [Lq, Dh]
    one.k = columns(all.k, head * Dh, Dh);  // [Lk, Dh]
    one.v = columns(all.v, head * Dh, Dh);  // [Lk, Dh]
    Mat scaled = square(), weights = square();
    Mat output = Mat::from_shape({std::size_t(Lq), std::size_t(Dh)});  // [Lq, Dh]
    HeadRecorder record;
    record.scores = scaled.data();  // Q·Kᵀ/√dk [Lq, Lk]
    attend_head(one, weights.data(), out_columns(output, 0, Dh), &record);
    // the same head unscaled, to show what the 1/√dk of §3.2.1 is for
    one.scale = 1.0f;
    Mat scores = square(), weights_unscaled = square();
    Mat unused = Mat::from_shape({std::size_t(Lq), std::size_t(Dh)});
    record.scores = scores.data();  // Q·Kᵀ [Lq, Lk]
    attend_head(one, weights_unscaled.data(), out_columns(unused, 0, Dh), &record);

    const PackedLinear& o =
        block == AttentionBlock::EncoderSelf   ? model.weights().encoder[layer].self_attn.o
        : block == AttentionBlock::DecoderSelf ? model.weights().decoder[layer].self_attn.o
                                               : model.weights().decoder[layer].cross_attn.o;
    HeadExplanation e;
    e.dk = Dh;
    e.xq = to_array(in.xq);
    e.xkv = to_array(in.xkv);
    e.q = to_array(to_mat(one.q));
    e.k = to_array(to_mat(one.k));
    e.v = to_array(to_mat(one.v));
    e.scores = to_array(scores);
    e.scaled = to_array(scaled);
    e.mask = to_array(Mat(xt::cast<float>(blocked)));  // [Lq, Lk]
    e.weights = to_array(weights);
    e.weights_unscaled = to_array(weights_unscaled);
    e.output = to_array(output);
    e.concat = to_array(concat);
    e.projected = to_array(o(concat));                    // [Lq, D]
    e.value_norms = value_norms(o, to_mat(one.v), head);  // [Lk]
    return e;
}

}  // namespace heed
