// Tests for ops/multi_head_attention against nn.MultiheadAttention goldens (self, cross,
// padding, attn_mask, kdim != D, a fully masked row), and attend_head run per head on the
// packed projections as the model's forward pass does. Single-head forms: attention_test.cpp.
#include "ops/multi_head_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attention_goldens.h"
#include "ops/attention.h"
#include "ops/matmul.h"
#include "ops/packed_linear.h"
#include "test_util.h"

namespace heed {
namespace {

using namespace test;  // the golden readers and EXPECT_REF's comparison

// ---- golden loading and comparison (the shared readers: attention_goldens.h) --------------

ErrorRecord* const g_errors = add_error_record("multi_head_attention_test");
#define EXPECT_REF(got, want) EXPECT_TRUE(close_to_ref(got, want, *g_errors))

PackedLinear linear(const json& c, const char* w, const char* b) {
    const Mat wm = to_mat(c[w]);
    std::vector<float> bias = c[b].get<std::vector<float>>();
    return PackedLinear(wm.data(), bias.data(), int(wm.shape(0)), int(wm.shape(1)));
}

MultiHeadAttentionWeights weights_of(const json& c) {
    return {linear(c, "wq", "bq"), linear(c, "wk", "bk"), linear(c, "wv", "bv"),
            linear(c, "wo", "bo"), c["heads"].get<int>()};
}

// ---- nn.MultiheadAttention goldens --------------------------------------------------------

TEST(MultiHeadGolden, MatchesTorchWithEveryIntermediate) {
    const json& cases = goldens()["mha"];
    ASSERT_GE(cases.size(), 6u);
    for (const json& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>() + " (" + c["source"].get<std::string>() + ")");
        const MultiHeadResult r =
            multi_head_attention(to_mat(c["x_q"]), to_mat(c["x_kv"]), weights_of(c),
                                 to_mask(c["mask"]), to_score(c["score"].get<std::string>()));
        EXPECT_REF(r.q_heads, to_t3(c["q_heads"]));
        EXPECT_REF(r.k_heads, to_t3(c["k_heads"]));
        EXPECT_REF(r.v_heads, to_t3(c["v_heads"]));
        EXPECT_REF(r.scores, to_t3(c["scores"]));
        EXPECT_REF(r.weights, to_t3(c["weights"]));
        EXPECT_REF(r.concat, to_mat(c["concat"]));
        EXPECT_REF(r.output, to_mat(c["output"]));
    }
}

// The fully masked row: torch gives NaN; Heed's contract gives zero weights, so the row's
// output is the output projection's bias.
TEST(MultiHeadGolden, FullyMaskedRowIsTheOutputBias) {
    for (const json& c : goldens()["mha"]) {
        if (c["name"] != "cross_fully_masked_row") continue;
        const MultiHeadResult r = multi_head_attention(to_mat(c["x_q"]), to_mat(c["x_kv"]),
                                                       weights_of(c), to_mask(c["mask"]));
        const std::vector<float> bo = c["bo"].get<std::vector<float>>();
        for (std::size_t d = 0; d < bo.size(); ++d) EXPECT_FLOAT_EQ(r.output(1, d), bo[d]);
        EXPECT_TRUE(xt::all(xt::equal(xt::view(r.weights, xt::all(), 1), 0.f)));
        EXPECT_TRUE(xt::all(xt::isfinite(r.output)));
        return;
    }
    FAIL() << "golden case cross_fully_masked_row missing";
}

// The model's hot path: project once into packed [L, H*Dh] rows, then attend_head per head on
// strided slices, writing each head's output straight into its columns of the concat buffer.
TEST(MultiHeadGolden, AttendHeadOnPackedProjectionsMatchesTorch) {
    int checked = 0;
    for (const json& c : goldens()["mha"]) {
        const std::string kind = c["mask"]["kind"].get<std::string>();
        if (kind == "custom" || c["mask"]["causal_offset"].get<int>() != 0) continue;
        SCOPED_TRACE(c["name"].get<std::string>());
        const MultiHeadAttentionWeights w = weights_of(c);
        const Mat xq = to_mat(c["x_q"]), xkv = to_mat(c["x_kv"]);
        const int H = w.heads, Lq = int(xq.shape(0)), Lk = int(xkv.shape(0));
        const int HD = w.q.out_features(), Dh = HD / H;
        std::vector<float> q(std::size_t(Lq) * HD), k(std::size_t(Lk) * HD),
            v(std::size_t(Lk) * HD), probs(std::size_t(H) * Lq * Lk), concat(q.size());
        w.q.apply(xq.data(), Lq, q.data());   // [Lq, H*Dh]
        w.k.apply(xkv.data(), Lk, k.data());  // [Lk, H*Dh]
        w.v.apply(xkv.data(), Lk, v.data());  // [Lk, H*Dh]
        const auto pad = c["mask"]["key_padding"].get<std::vector<std::uint8_t>>();
        const float scale = c["score"] == "dot" ? 1.f : 1.f / std::sqrt(float(Dh));
        for (int h = 0; h < H; ++h) {
            HeadAttention head;
            head.q = {q.data() + h * Dh, Lq, Dh, HD};
            head.k = {k.data() + h * Dh, Lk, Dh, HD};
            head.v = {v.data() + h * Dh, Lk, Dh, HD};
            head.scale = scale;
            head.mask.key_padding = pad.empty() ? nullptr : pad.data();
            head.mask.causal = kind == "causal";
            attend_head(head, probs.data() + std::size_t(h) * Lq * Lk,
                        {concat.data() + h * Dh, Lq, Dh, HD});
        }
        Tensor3 p = Tensor3::from_shape({std::size_t(H), std::size_t(Lq), std::size_t(Lk)});
        std::copy(probs.begin(), probs.end(), p.begin());
        Mat cat = Mat::from_shape({std::size_t(Lq), std::size_t(HD)});
        std::copy(concat.begin(), concat.end(), cat.begin());
        EXPECT_REF(p, to_t3(c["weights"]));
        EXPECT_REF(cat, to_mat(c["concat"]));
        EXPECT_REF(w.o(cat), to_mat(c["output"]));
        ++checked;
    }
    EXPECT_GE(checked, 4);
}

// ---- worked examples ----------------------------------------------------------------------

// As Keras' MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3): per-head Dv != Dh. The
// result must equal running single-head attention on each head's slice and concatenating
// (Vaswani et al. 2017 §3.2.2, "Concat(head_1, ..., head_h) W^O").
TEST(WorkedExamples, TwoHeadsKeyDim2ValueDim3) {
    const int L = 5, D = 4, H = 2, Dh = 2, Dv = 3;
    auto filled = [](int rows, int cols, float phase) {
        Mat m = Mat::from_shape({std::size_t(rows), std::size_t(cols)});
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) m(r, c) = std::sin(phase + 0.7f * r + 1.3f * c);
        return m;
    };
    const Mat wq = filled(H * Dh, D, 0.1f), wk = filled(H * Dh, D, 0.2f);
    const Mat wv = filled(H * Dv, D, 0.3f), wo = filled(D, H * Dv, 0.4f);
    const std::vector<float> bq(H * Dh, 0.05f), bk(H * Dh, -0.02f), bv(H * Dv, 0.1f), bo(D, 0.3f);
    const MultiHeadAttentionWeights w{PackedLinear(wq.data(), bq.data(), H * Dh, D),
                                      PackedLinear(wk.data(), bk.data(), H * Dh, D),
                                      PackedLinear(wv.data(), bv.data(), H * Dv, D),
                                      PackedLinear(wo.data(), bo.data(), D, H * Dv), H};
    const Mat x = filled(L, D, 1.0f);
    const MultiHeadResult r = multi_head_attention(x, x, w, AttentionMask::causal());
    ASSERT_EQ(r.v_heads.shape(2), std::size_t(Dv));
    ASSERT_EQ(r.concat.shape(1), std::size_t(H * Dv));

    const Mat q = matmul_nt(x, wq) + xt::adapt(bq, {std::size_t(H * Dh)});
    const Mat k = matmul_nt(x, wk) + xt::adapt(bk, {std::size_t(H * Dh)});
    const Mat v = matmul_nt(x, wv) + xt::adapt(bv, {std::size_t(H * Dv)});
    Mat concat = Mat::from_shape({std::size_t(L), std::size_t(H * Dv)});
    for (int h = 0; h < H; ++h) {
        const Mat qh = xt::view(q, xt::all(), xt::range(h * Dh, (h + 1) * Dh));
        const Mat kh = xt::view(k, xt::all(), xt::range(h * Dh, (h + 1) * Dh));
        const Mat vh = xt::view(v, xt::all(), xt::range(h * Dv, (h + 1) * Dv));
        const AttentionResult a =
            attention(qh, kh, vh, ScoreFunction::ScaledDot, AttentionMask::causal());
        EXPECT_ALLCLOSE(xt::eval(xt::view(r.weights, h)), a.weights, 1e-6, 1e-6);
        xt::view(concat, xt::all(), xt::range(h * Dv, (h + 1) * Dv)) = a.output;
    }
    EXPECT_ALLCLOSE(r.concat, concat, 1e-5, 1e-6);
    const Mat out = matmul_nt(concat, wo) + xt::adapt(bo, {std::size_t(D)});
    EXPECT_ALLCLOSE(r.output, out, 1e-5, 1e-6);
}

// ---- validation ---------------------------------------------------------------------------

TEST(MultiHeadErrors, ShapesAreChecked) {
    const json& c = goldens()["mha"][0];
    MultiHeadAttentionWeights w = weights_of(c);
    const Mat x = to_mat(c["x_q"]);  // [7, 12]
    const Mat x10 = xt::ones<float>({7, 10});
    EXPECT_NE(error_of([&] { multi_head_attention(x10, x, w, {}); }).find("x_q is [7, 10]"),
              std::string::npos);
    EXPECT_NE(error_of([&] { multi_head_attention(x, x10, w, {}); }).find("x_kv is [7, 10]"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  multi_head_attention(x, x, w, {}, ScoreFunction::Additive);
              }).find("only Dot and ScaledDot"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  multi_head_attention(x, x, w, AttentionMask::padding({0, 1}));
              }).find("key_padding has 2 entries"),
              std::string::npos);
    w.heads = 5;
    EXPECT_NE(error_of([&] { multi_head_attention(x, x, w, {}); }).find("divide into 5 heads"),
              std::string::npos);
    w.heads = 0;
    EXPECT_NE(error_of([&] { multi_head_attention(x, x, w, {}); }).find("heads must be positive"),
              std::string::npos);
}

}  // namespace
}  // namespace heed
