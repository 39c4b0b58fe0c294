// Tests for ops/attention, ops/positional_encoding and linear_attention (ops/linear_head.h):
// PyTorch goldens (models/goldens/make_attention_goldens.py), worked examples of masking and
// self-attention, masks and errors.
// Multi-head attention is tested in multi_head_attention_test.cpp.
#include "ops/attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>
#include <xtensor/xio.hpp>

#include "attention_goldens.h"
#include "ops/linear_head.h"
#include "ops/matmul.h"
#include "ops/positional_encoding.h"
#include "test_util.h"

namespace heed {
namespace {

using namespace test;  // the golden readers and EXPECT_REF's comparison
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- golden loading and comparison (the shared readers: attention_goldens.h) --------------

/// The case called `name` in one section of the golden file.
const json& case_named(const char* section, const std::string& name) {
    for (const json& c : goldens()[section])
        if (c["name"] == name) return c;
    throw std::runtime_error(std::string("no golden case ") + section + "/" + name);
}

ErrorRecord* const g_errors = add_error_record("attention_test");
#define EXPECT_REF(got, want) EXPECT_TRUE(close_to_ref(got, want, *g_errors))

bool all_finite(const Mat& m) {
    return std::all_of(m.begin(), m.end(), [](float x) { return std::isfinite(x); });
}

// ---- PyTorch goldens ----------------------------------------------------------------------

TEST(AttentionGolden, EveryScoreFunctionAndMaskMatchesTorch) {
    const json& cases = goldens()["attention"];
    ASSERT_GE(cases.size(), 12u);
    for (const json& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        AttentionParams p;
        if (c.contains("params")) {
            const json& jp = c["params"];
            p.w = to_mat(jp["w"]);
            if (jp.contains("u")) p.u = to_mat(jp["u"]);
            if (jp.contains("v")) p.v = to_vec(jp["v"]);
        }
        const AttentionResult r =
            attention(to_mat(c["q"]), to_mat(c["k"]), to_mat(c["v"]),
                      to_score(c["score"].get<std::string>()), to_mask(c["mask"]), &p);
        EXPECT_REF(r.scores, to_mat(c["scores"]));
        EXPECT_REF(r.weights, to_mat(c["weights"]));
        EXPECT_REF(r.output, to_mat(c["output"]));
        EXPECT_TRUE(all_finite(r.weights) && all_finite(r.output));
    }
}

// attend_head on strided slices (as in a packed [L, H*Dh] row) against the same goldens,
// wherever the golden's mask is one attend_head can express (causal offset >= 0, padding).
TEST(AttentionGolden, AttendHeadOnStridedSlicesMatchesTorch) {
    int checked = 0;
    for (const json& c : goldens()["attention"]) {
        const std::string kind = c["mask"]["kind"].get<std::string>();
        const int offset = c["mask"]["causal_offset"].get<int>();
        if (c["score"] != "scaled_dot" || kind == "custom" || kind == "local_window" ||
            (kind == "causal" && offset < 0))
            continue;
        SCOPED_TRACE(c["name"].get<std::string>());
        const Mat q = to_mat(c["q"]), k = to_mat(c["k"]), v = to_mat(c["v"]);
        const int Lq = int(q.shape(0)), Lk = int(k.shape(0)), Dh = int(q.shape(1));
        if (int(v.shape(1)) != Dh) continue;  // one head: v has the head dim too
        // Place q, k, v as head 1 of 3 inside wider rows, with junk around them.
        const int ld = 3 * Dh + 1;
        std::vector<float> qb(std::size_t(Lq) * ld, 99.f), kb(std::size_t(Lk) * ld, -99.f),
            vb(std::size_t(Lk) * ld, 7.f), ob(std::size_t(Lq) * ld, 5.f);
        for (int i = 0; i < Lq; ++i)
            for (int d = 0; d < Dh; ++d) qb[std::size_t(i) * ld + Dh + d] = q(i, d);
        for (int j = 0; j < Lk; ++j)
            for (int d = 0; d < Dh; ++d) {
                kb[std::size_t(j) * ld + Dh + d] = k(j, d);
                vb[std::size_t(j) * ld + Dh + d] = v(j, d);
            }
        const auto pad = c["mask"]["key_padding"].get<std::vector<std::uint8_t>>();
        std::vector<float> probs(std::size_t(Lq) * Lk, -1.f);
        HeadAttention head;
        head.q = {qb.data() + Dh, Lq, Dh, ld};
        head.k = {kb.data() + Dh, Lk, Dh, ld};
        head.v = {vb.data() + Dh, Lk, Dh, ld};
        head.scale = 1.0f / std::sqrt(float(Dh));
        head.mask.key_padding = pad.empty() ? nullptr : pad.data();
        head.mask.causal = kind == "causal";
        head.mask.offset = offset;
        attend_head(head, probs.data(), {ob.data() + Dh, Lq, Dh, ld});
        Mat w = Mat::from_shape({std::size_t(Lq), std::size_t(Lk)});
        std::copy(probs.begin(), probs.end(), w.begin());
        Mat out = Mat::from_shape({std::size_t(Lq), std::size_t(Dh)});
        for (int i = 0; i < Lq; ++i)
            for (int d = 0; d < Dh; ++d) out(i, d) = ob[std::size_t(i) * ld + Dh + d];
        EXPECT_REF(w, to_mat(c["weights"]));
        EXPECT_REF(out, to_mat(c["output"]));
        for (int i = 0; i < Lq; ++i) {  // the columns around the head were not touched
            EXPECT_EQ(ob[std::size_t(i) * ld + Dh - 1], 5.f);
            EXPECT_EQ(ob[std::size_t(i) * ld + 2 * Dh], 5.f);
        }
        ++checked;
    }
    EXPECT_GE(checked, 4);
}

TEST(PositionalGolden, SinusoidalAndSimilarityMatchTorch) {
    for (const json& c : goldens()["positions"]) {
        const int L = c["length"].get<int>(), D = c["d_model"].get<int>();
        SCOPED_TRACE("L=" + std::to_string(L) + " D=" + std::to_string(D));
        const Mat pe = sinusoidal_positions(L, D);
        EXPECT_REF(pe, to_mat(c["pe"]));
        EXPECT_REF(position_similarity(pe), to_mat(c["similarity"]));
    }
}

TEST(LinearAttentionGolden, NonCausalAndCausalMatchTorch) {
    for (const json& c : goldens()["linear"]) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const Mat v = to_mat(c["v"]);
        const AttentionResult r =
            linear_attention(to_mat(c["q"]), to_mat(c["k"]), v, c["causal"].get<bool>());
        EXPECT_REF(r.output, to_mat(c["output"]));
        EXPECT_REF(r.weights, to_mat(c["weights"]));
        EXPECT_REF(r.scores, to_mat(c["scores"]));
        // the displayed weights are exactly the ones the linear-time output implies
        EXPECT_ALLCLOSE(matmul(r.weights, v), r.output, 1e-5, 1e-6);
        EXPECT_ALLCLOSE(xt::eval(xt::sum(r.weights, {1})),
                        xt::eval(xt::ones<float>({r.weights.shape(0)})), 1e-6, 1e-6);
    }
}

// ---- a worked causal mask: ['attention', 'is', 'cool'] (Vaswani et al. 2017 §3.2.3) --------

// Causal softmax weights given row by row: 'attention' -> attention (1.0);
// 'is' -> attention (0.6), is (0.4); 'cool' -> attention (0.2), is (0.5), cool (0.3). Its
// unnormalised matrix is only pictured, so we take scores whose softmax is those rows
// (e = ln w, any constant per row would do) and put large junk above the diagonal, which the
// causal mask must hide: with Q = I, K = Sᵀ the dot scores QKᵀ are exactly S.
TEST(WorkedExamples, CausalWeightsOfAttentionIsCool) {
    const float junk = 9.f;
    const Mat s = {{0.f, junk, junk},
                   {std::log(0.6f), std::log(0.4f), junk},
                   {std::log(0.2f), std::log(0.5f), std::log(0.3f)}};
    const Mat q = xt::eye<float>(3);
    const Mat k = xt::transpose(s);
    // values: a small "See / that / cat" embedding table
    const Mat v = {{0.2f, 0.4f, 0.3f}, {0.8f, 0.22f, 0.3f}, {0.3f, 0.65f, 0.11f}};
    const AttentionResult r = attention(q, k, v, ScoreFunction::Dot, AttentionMask::causal());

    const Mat printed = {{1.0f, 0.f, 0.f}, {0.6f, 0.4f, 0.f}, {0.2f, 0.5f, 0.3f}};
    EXPECT_ALLCLOSE(r.weights, printed, 1e-6, 1e-6);
    // "a lower triangular matrix": future entries are -inf before the softmax, 0 after
    EXPECT_TRUE(std::isinf(r.scores(0, 1)) && std::isinf(r.scores(0, 2)) &&
                std::isinf(r.scores(1, 2)));
    EXPECT_EQ(r.weights(0, 1), 0.f);
    // "in this masked case, the first row of the Values is actually unchanged"
    EXPECT_ALLCLOSE(xt::eval(xt::row(r.output, 0)), xt::eval(xt::row(v, 0)), 1e-6, 1e-7);
    // "the first row of the weights dotted with the first column of the Values"
    EXPECT_NEAR(r.output(2, 0), 0.2f * 0.2f + 0.5f * 0.8f + 0.3f * 0.3f, 1e-6);
    // Without the mask the junk would dominate: the mask is doing the work.
    const AttentionResult open = attention(q, k, v, ScoreFunction::Dot, AttentionMask::none());
    EXPECT_GT(open.weights(0, 1), 0.4f);
}

// ---- numpy self-attention on four words (Vaswani et al. 2017 §3.2.1, step by step) --------

// Four words (word_3 = word_1 + word_2), d = 3, dK = dQ = dV = 2, query/key/value = word @ W,
// weights = softmax(scores / √dK), attention = Σ weights · values; the golden file carries
// fixed W and that procedure run in numpy by models/goldens/make_attention_goldens.py.
TEST(WorkedExamples, NumpySelfAttention) {
    const json& e = goldens()["seed_002_numpy"];
    const Mat words = to_mat(e["words"]);
    const Mat queries = matmul(words, to_mat(e["W_Q"]));  // [4, 2]
    const Mat keys = matmul(words, to_mat(e["W_K"]));     // [4, 2]
    const Mat values = matmul(words, to_mat(e["W_V"]));   // [4, 2]
    const AttentionResult r =
        attention(queries, keys, values, ScoreFunction::ScaledDot, AttentionMask::none());
    EXPECT_REF(r.weights, to_mat(e["weights"]));
    EXPECT_REF(r.output, to_mat(e["attention"]));  // row 0 is word 1's attention
    const Mat raw = attention(queries, keys, values, ScoreFunction::Dot, {}).scores;
    EXPECT_REF(raw, to_mat(e["scores"]));
    EXPECT_ALLCLOSE(r.scores, xt::eval(raw / std::sqrt(2.0f)), 1e-6, 1e-6);
    // word_3 = word_1 + word_2, so every query scores key 3 as key 1 + key 2
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(raw(i, 2), raw(i, 0) + raw(i, 1), 1e-5);
}

// Attention is a set operation: shuffling keys and values together leaves the output
// unchanged (hence positional encodings, Vaswani et al. 2017 §3.5).
TEST(WorkedExamples, KeyValueOrderDoesNotMatter) {
    const json& c = case_named("attention", "cross_dot");
    const Mat q = to_mat(c["q"]), k = to_mat(c["k"]), v = to_mat(c["v"]);
    const Mat kr = xt::flip(k, 0), vr = xt::flip(v, 0);
    const AttentionResult a = attention(q, k, v, ScoreFunction::ScaledDot, {});
    const AttentionResult b = attention(q, kr, vr, ScoreFunction::ScaledDot, {});
    EXPECT_ALLCLOSE(a.output, b.output, 1e-5, 1e-6);
    EXPECT_ALLCLOSE(a.weights, xt::eval(xt::flip(b.weights, 1)), 1e-6, 1e-7);
}

// Sinusoidal positions (Vaswani et al. 2017 §3.5): PE(i)ᵀPE(j) is large when i ≈ j and
// smaller when far apart, for nearby positions.
TEST(WorkedExamples, NearbyPositionsAreMoreSimilar) {
    const Mat sim = position_similarity(sinusoidal_positions(40, 16));
    for (int i = 0; i < 40; ++i) EXPECT_NEAR(sim(i, i), 1.0f, 1e-6);
    EXPECT_ALLCLOSE(sim, xt::eval(xt::transpose(sim)), 0, 1e-6);
    for (int i = 0; i + 3 < 40; ++i) {
        EXPECT_GT(sim(i, i + 1), sim(i, i + 2));
        EXPECT_GT(sim(i, i + 2), sim(i, i + 3));
    }
    const Mat pe = sinusoidal_positions(3, 4);  // ω_0 = 1, ω_1 = 1/100 (d = 4)
    EXPECT_FLOAT_EQ(pe(2, 0), std::sin(2.0f));
    EXPECT_FLOAT_EQ(pe(2, 1), std::cos(2.0f));
    EXPECT_FLOAT_EQ(pe(2, 2), std::sin(0.02f));
    EXPECT_FLOAT_EQ(pe(2, 3), std::cos(0.02f));
}

// ---- the additive -1e9 mask convention (as in many implementations) ------------------------

// Masking by adding mask * -1e9 to the logits: On rows with a visible key that is the
// same as our -inf; on a fully masked row it yields uniform weights where we give zeros.
TEST(WorkedExamples, AdditiveMaskConventionAgreesExceptOnDeadRows) {
    const json& c = case_named("attention", "cross_custom_fully_masked_row");
    const Mat q = to_mat(c["q"]), k = to_mat(c["k"]), v = to_mat(c["v"]);
    const AttentionMask mask = to_mask(c["mask"]);
    const Mat blocked = xt::cast<float>(mask_matrix(mask, 5, 7));
    Mat logits = matmul_nt(q, k) / std::sqrt(float(k.shape(1))) + blocked * -1e9f;
    for (std::size_t i = 0; i < logits.shape(0); ++i)
        masked_softmax_row(logits.data() + i * logits.shape(1), int(logits.shape(1)));
    const AttentionResult r = attention(q, k, v, ScoreFunction::ScaledDot, mask);
    for (std::size_t i = 0; i < 5; ++i) {
        const bool dead = xt::all(xt::equal(xt::row(blocked, i), 1.f));
        for (std::size_t j = 0; j < 7; ++j)
            EXPECT_NEAR(r.weights(i, j), dead ? 0.f : logits(i, j), 1e-6);
        if (dead) {
            EXPECT_NEAR(logits(i, 0), 1.f / 7, 1e-6);
        }
    }
}

// ---- masks ------------------------------------------------------------------------------

TEST(AttentionMask, MatricesFollowTheirDefinitions) {
    using B = xt::xtensor<std::uint8_t, 2>;
    EXPECT_EQ(mask_matrix(AttentionMask::none(), 2, 3), B({{0, 0, 0}, {0, 0, 0}}));
    EXPECT_EQ(mask_matrix(AttentionMask::causal(), 3, 3), B({{0, 1, 1}, {0, 0, 1}, {0, 0, 0}}));
    // one new query over 4 cached keys (incremental decoding) sees them all with offset 3
    EXPECT_EQ(mask_matrix(AttentionMask::causal(3), 1, 4), B({{0, 0, 0, 0}}));
    EXPECT_EQ(mask_matrix(AttentionMask::causal(1), 2, 4), B({{0, 0, 1, 1}, {0, 0, 0, 1}}));
    EXPECT_EQ(mask_matrix(AttentionMask::padding({0, 1, 0}), 2, 3), B({{0, 1, 0}, {0, 1, 0}}));
    EXPECT_EQ(mask_matrix(AttentionMask::local(1), 4, 4),
              B({{0, 0, 1, 1}, {0, 0, 0, 1}, {1, 0, 0, 0}, {1, 1, 0, 0}}));
    EXPECT_EQ(mask_matrix(AttentionMask::local(0), 2, 3), B({{0, 1, 1}, {1, 0, 1}}));
    EXPECT_EQ(mask_matrix(AttentionMask::blocked(B({{1, 0}, {0, 1}})), 2, 2), B({{1, 0}, {0, 1}}));
    AttentionMask both = AttentionMask::causal();  // padding applies on top of any kind
    both.key_padding = {1, 0, 0};
    EXPECT_EQ(mask_matrix(both, 3, 3), B({{1, 1, 1}, {1, 0, 1}, {1, 0, 0}}));
}

TEST(AttentionMask, FullyMaskedRowsGiveZerosNotNaN) {
    const Mat q = {{1.f, 2.f}, {3.f, -1.f}}, k = {{0.5f, 1.f}, {2.f, 0.f}, {1.f, 1.f}};
    const Mat v = {{1.f}, {2.f}, {3.f}};
    for (ScoreFunction s : {ScoreFunction::Dot, ScoreFunction::ScaledDot}) {
        const AttentionResult r = attention(q, k, v, s, AttentionMask::padding({1, 1, 1}));
        EXPECT_EQ(r.weights, xt::zeros<float>({2, 3}));
        EXPECT_EQ(r.output, xt::zeros<float>({2, 1}));
        EXPECT_TRUE(xt::all(xt::equal(r.scores, -kInf)));
    }
    // row 0 dead (offset -1), row 1 alive
    const AttentionResult r = attention(q, k, v, ScoreFunction::Dot, AttentionMask::causal(-1));
    EXPECT_EQ(r.output(0, 0), 0.f);
    EXPECT_NEAR(r.weights(1, 0), 1.f, 1e-7);
    EXPECT_NEAR(r.output(1, 0), 1.f, 1e-6);

    std::vector<float> probs(6, -1.f), out(2, -1.f);
    const std::uint8_t pad[3] = {1, 1, 1};
    HeadAttention head;
    head.q = {q.data(), 2, 1, 2};
    head.k = {k.data(), 3, 1, 2};
    head.v = {v.data(), 3, 1, 1};
    head.mask.key_padding = pad;
    attend_head(head, probs.data(), {out.data(), 2, 1, 1});
    for (float p : probs) EXPECT_EQ(p, 0.f);
    for (float o : out) EXPECT_EQ(o, 0.f);
}

TEST(AttentionMask, RowsOfWeightsSumToOne) {
    const json& c = case_named("attention", "self_scaled_dot");
    const Mat x = to_mat(c["q"]);
    for (const AttentionMask& m :
         {AttentionMask::none(), AttentionMask::causal(), AttentionMask::local(2),
          AttentionMask::padding({0, 1, 0, 0, 1, 1, 0})}) {
        const AttentionResult r = attention(x, x, x, ScoreFunction::ScaledDot, m);
        EXPECT_ALLCLOSE(xt::eval(xt::sum(r.weights, {1})), xt::eval(xt::ones<float>({7})), 1e-6,
                        1e-6);
        const auto blocked = mask_matrix(m, 7, 7);
        for (std::size_t i = 0; i < 7; ++i)
            for (std::size_t j = 0; j < 7; ++j)
                if (blocked(i, j)) {
                    EXPECT_EQ(r.weights(i, j), 0.f);
                }
    }
}

// ---- validation ---------------------------------------------------------------------------

TEST(AttentionErrors, ShapesAndParametersAreChecked) {
    const Mat q = xt::ones<float>({2, 4}), k = xt::ones<float>({3, 4}), v = xt::ones<float>({3, 5});
    const Mat k6 = xt::ones<float>({3, 6});
    using S = ScoreFunction;
    EXPECT_NE(error_of([&] { attention(q, k6, v, S::Dot, {}); }).find("equal query and key"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  attention(q, k, xt::ones<float>({4, 5}), S::Dot, {});
              }).find("k has 3 rows but v has 4"),
              std::string::npos);
    EXPECT_NE(error_of([&] { attention(q, k6, v, S::General, {}); }).find("needs AttentionParams"),
              std::string::npos);
    AttentionParams g;
    g.w = xt::ones<float>({4, 5});
    EXPECT_NE(error_of([&] { attention(q, k6, v, S::General, {}, &g); }).find("[4, 6]"),
              std::string::npos);
    AttentionParams a;
    a.w = xt::ones<float>({8, 4});
    a.u = xt::ones<float>({8, 5});
    a.v = xt::ones<float>({8});
    EXPECT_NE(error_of([&] { attention(q, k6, v, S::Additive, {}, &a); }).find("u of shape"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  attention(q, k, v, S::Dot, AttentionMask::padding({0, 1}));
              }).find("key_padding has 2 entries but there are 3 keys"),
              std::string::npos);
    EXPECT_NE(
        error_of([&] {
            attention(q, k, v, S::Dot, AttentionMask::blocked(xt::zeros<std::uint8_t>({3, 3})));
        }).find("custom mask has shape [3, 3]"),
        std::string::npos);
    EXPECT_NE(error_of([&] {
                  attention(q, k, v, S::Dot, AttentionMask::local(-1));
              }).find("local window"),
              std::string::npos);
    EXPECT_NE(error_of([&] { linear_attention(q, k6, v, false); }).find("linear_attention"),
              std::string::npos);
    EXPECT_NE(error_of([&] { sinusoidal_positions(3, 0); }).find("d_model >= 1"),
              std::string::npos);
    // a good Additive call with Dq != Dk goes through
    a.u = xt::ones<float>({8, 6});
    EXPECT_EQ(attention(q, k6, v, S::Additive, {}, &a).output.shape(1), 5u);
}

}  // namespace
}  // namespace heed
