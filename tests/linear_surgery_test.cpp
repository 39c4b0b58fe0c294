// Linear attention as surgery: FAVOR+ against the softmax kernel it estimates
// (unbiasedness, error shrinking with r), elu + 1 against the plain normalised product
// φ(Q)φ(K)ᵀ V (the head, the lab's whole-matrix form and the encoder's recorded weights), the
// causal running sums against the non-causal formula on each prefix, the banded and gathering
// softmax paths against the full masked reference, the cost formulas against hand counts, and
// the translator (seeding, refusals, r = 4096 against exact attention).
#include "model/linear_surgery.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "model/attention_cost.h"
#include "model/model.h"
#include "ops/attention.h"
#include "ops/linear_head.h"
#include "ops/random_features.h"
#include "test_util.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace {

using heed::AttentionBlock;
using heed::LinearKind;
using heed::Mat;

Mat random_mat(int rows, int cols, std::uint32_t seed, float sd = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, sd);
    Mat m = Mat::from_shape({std::size_t(rows), std::size_t(cols)});
    for (float& x : m) x = n(rng);
    return m;
}

heed::RowsView view(const Mat& m) { return heed::columns(m, 0, int(m.shape(1))); }

/// One head's output through the linear path.
Mat linear_out(const Mat& q, const Mat& k, const Mat& v, LinearKind kind, const Mat* omega,
               float scale, bool causal, Mat* weights = nullptr) {
    heed::LinearHeadAttention a;
    a.q = view(q);
    a.k = view(k);
    a.v = view(v);
    a.kind = kind;
    a.omega = omega;
    a.scale = scale;
    a.causal = causal;
    std::vector<float> scratch(heed::linear_head_scratch(a));
    Mat out = Mat::from_shape({q.shape(0), v.shape(1)});
    if (weights) *weights = Mat::from_shape({q.shape(0), k.shape(0)});
    heed::linear_attend_head(a, scratch.data(), heed::out_columns(out, 0, int(v.shape(1))),
                             weights ? weights->data() : nullptr);
    return out;
}

double rel_error(const Mat& a, const Mat& b) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num += double(a.data()[i] - b.data()[i]) * (a.data()[i] - b.data()[i]);
        den += double(b.data()[i]) * b.data()[i];
    }
    return std::sqrt(num / den);
}

// ---- FAVOR+ against the softmax kernel -----------------------------------------------------

// Lemma 1 (Choromanski et al. 2021): E_ω[φ(q)ᵀφ(k)] = exp(qᵀk·scale). Over N independent
// seeds the sample mean must lie within 4 standard errors (from the sample variance) of it.
TEST(Favor, EstimatorIsUnbiased) {
    const int d = 16, r = 16, N = 4000;
    const float scale = 1.0f / std::sqrt(float(d));
    const Mat qk = random_mat(2, d, 7, 0.6f);  // row 0 = q, row 1 = k
    double dot = 0;
    for (int c = 0; c < d; ++c) dot += double(qk(0, c)) * qk(1, c);
    const double want = std::exp(dot * scale);
    for (bool orthogonal : {true, false}) {
        double sum = 0, sum2 = 0;
        std::vector<float> f(2 * r);
        for (int s = 0; s < N; ++s) {
            const Mat omega = heed::draw_favor_projection(r, d, 1000 + s, orthogonal);
            heed::favor_log_features(view(qk), omega, scale, f.data());
            heed::exp_features(f.data(), f.size(), r, 0.0f);  // no stabiliser: the raw estimate
            double est = 0;
            for (int i = 0; i < r; ++i) est += double(f[i]) * f[r + i];
            sum += est;
            sum2 += est * est;
        }
        const double mean = sum / N, var = (sum2 - N * mean * mean) / (N - 1);
        const double se = std::sqrt(var / N);
        EXPECT_NEAR(mean, want, 4 * se) << "orthogonal " << orthogonal << " se " << se;
        EXPECT_GT(se, 0.0);
    }
}

// The GEMM-backed log-features against their definition in double, over odd shapes.
TEST(Favor, LogFeaturesMatchTheirDefinition) {
    for (int n : {1, 2, 3, 5, 8, 17})
        for (int r : {1, 3, 4, 9, 16, 33})
            for (int d : {1, 2, 7, 8, 16}) {
                const Mat x = random_mat(n, d + 3, n * 100 + d);  // strided: d of d + 3 columns
                const Mat omega = heed::draw_favor_projection(r, d, r);
                std::vector<float> got(std::size_t(n) * r);
                heed::favor_log_features(heed::columns(x, 1, d), omega, 0.3f, got.data());
                std::vector<float> want(got.size());
                for (int i = 0; i < n; ++i)
                    for (int f = 0; f < r; ++f) {
                        double dot = 0, norm = 0;
                        for (int c = 0; c < d; ++c) {
                            dot += double(omega(f, c)) * x(i, 1 + c);
                            norm += double(x(i, 1 + c)) * x(i, 1 + c);
                        }
                        want[i * r + f] = float(std::sqrt(0.3) * dot - 0.3 * norm / 2);
                    }
                EXPECT_ALLCLOSE(got, want, 1e-4, 1e-5) << n << " " << r << " " << d;
            }
}

TEST(Favor, OrthogonalBlocksAreOrthogonal) {
    const int d = 8;
    const Mat w = heed::draw_favor_projection(20, d, 3);
    for (int b = 0; b < 20; b += d)
        for (int i = b; i < std::min(20, b + d); ++i)
            for (int j = b; j < i; ++j) {
                double dot = 0;
                for (int c = 0; c < d; ++c) dot += double(w(i, c)) * w(j, c);
                EXPECT_NEAR(dot, 0.0, 1e-4) << i << " " << j;
            }
    EXPECT_TRUE(heed::test::allclose(w, heed::draw_favor_projection(20, d, 3), 0.0, 0.0));
}

// The relative error of the attention output against exact softmax attention falls as r grows
// (about 1/√r): averaged over seeds, each step may not rise beyond noise (10 %), and r = 1024
// is at least 3 times better than r = 16.
TEST(Favor, OutputErrorShrinksWithFeatures) {
    const int L = 32, d = 16;
    const float scale = 1.0f / std::sqrt(float(d));
    // why: norms kept moderate; the estimator's relative variance grows like exp(‖q' + k'‖²)/r
    // (Choromanski et al. 2021 Lemma 2), so large norms need r far beyond 1024 to show 1/√r
    const Mat q = random_mat(L, d, 1, 0.5f), k = random_mat(L, d, 2, 0.5f);
    const Mat v = random_mat(L, d, 3);
    const Mat exact =
        heed::attention(q, k, v, heed::ScoreFunction::ScaledDot, heed::AttentionMask::none())
            .output;
    std::vector<double> errors;
    for (int r : {16, 64, 256, 1024}) {
        double e = 0;
        for (int s = 0; s < 8; ++s) {
            const Mat omega = heed::draw_favor_projection(r, d, 50 + s);
            e += rel_error(linear_out(q, k, v, LinearKind::Favor, &omega, scale, false), exact);
        }
        errors.push_back(e / 8);
    }
    for (std::size_t i = 1; i < errors.size(); ++i)
        EXPECT_LT(errors[i], errors[i - 1] * 1.1) << "r step " << i;
    EXPECT_LT(errors.back(), errors.front() / 3)
        << errors[0] << " " << errors[1] << " " << errors[2] << " " << errors[3];
}

// The stabiliser (per-query max, one max over the keys) cancels: weights and output equal the
// unstabilised formula, computed here in double from the raw log-features.
TEST(Favor, StabiliserKeepsTheEstimate) {
    const int Lq = 5, Lk = 9, d = 8, r = 32;
    const float scale = 0.7f;
    const Mat q = random_mat(Lq, d, 11, 2.0f), k = random_mat(Lk, d, 12, 2.0f);
    const Mat v = random_mat(Lk, d, 13);
    const Mat omega = heed::draw_favor_projection(r, d, 9);
    std::vector<float> fq(Lq * r), fk(Lk * r);
    heed::favor_log_features(view(q), omega, scale, fq.data());
    heed::favor_log_features(view(k), omega, scale, fk.data());
    Mat want = xt::zeros<float>({Lq, d}), want_w = xt::zeros<float>({Lq, Lk});
    for (int i = 0; i < Lq; ++i) {
        std::vector<double> w(Lk);
        double total = 0;
        for (int j = 0; j < Lk; ++j) {
            for (int f = 0; f < r; ++f) w[j] += std::exp(double(fq[i * r + f]) + fk[j * r + f]);
            total += w[j];
        }
        for (int j = 0; j < Lk; ++j) {
            want_w(i, j) = float(w[j] / total);
            for (int c = 0; c < d; ++c) want(i, c) += float(w[j] / total * v(j, c));
        }
    }
    Mat weights;
    const Mat got = linear_out(q, k, v, LinearKind::Favor, &omega, scale, false, &weights);
    EXPECT_ALLCLOSE(got, want, 1e-3, 1e-5);
    EXPECT_ALLCLOSE(weights, want_w, 1e-3, 1e-6);
}

/// elu + 1 linear attention written out plainly (Katharopoulos et al. 2020 §3.2, eq. 4 with
/// φ(x) = elu(x) + 1): the explicit [Lq, Lk] similarities φ(q_i)ᵀφ(k_j) (causal: keys j <= i,
/// others left 0), each row normalised to weights, times V; in double, no sums or features of
/// the library.
struct PlainLinear {
    Mat output, weights, scores;
};
PlainLinear plain_elu_attention(const Mat& q, const Mat& k, const Mat& v, bool causal) {
    const std::size_t Lq = q.shape(0), Lk = k.shape(0), Dk = q.shape(1), Dv = v.shape(1);
    auto phi = [](float x) { return x > 0 ? double(x) + 1.0 : std::exp(double(x)); };
    PlainLinear p{xt::zeros<float>({Lq, Dv}), xt::zeros<float>({Lq, Lk}),
                  xt::zeros<float>({Lq, Lk})};
    for (std::size_t i = 0; i < Lq; ++i) {
        std::vector<double> sim(Lk, 0.0);
        double total = 0;
        for (std::size_t j = 0; j < Lk; ++j) {
            for (std::size_t c = 0; c < Dk; ++c) sim[j] += phi(q(i, c)) * phi(k(j, c));
            if (causal && j > i) continue;
            p.scores(i, j) = float(sim[j]);
            total += sim[j];
        }
        for (std::size_t j = 0; j < Lk; ++j) {
            if (causal && j > i) continue;
            p.weights(i, j) = float(sim[j] / total);
            for (std::size_t c = 0; c < Dv; ++c) p.output(i, c) += float(sim[j] / total * v(j, c));
        }
    }
    return p;
}

// ---- elu + 1 and the causal path -----------------------------------------------------------

TEST(LinearHead, EluIsTheNormalisedFeatureProduct) {
    for (bool causal : {false, true})
        for (auto [Lq, Lk] : {std::pair{1, 1}, {3, 5}, {7, 7}, {9, 4}}) {
            const Mat q = random_mat(Lq, 6, 21), k = random_mat(Lk, 6, 22);
            const Mat v = random_mat(Lk, 5, 23);
            const PlainLinear want = plain_elu_attention(q, k, v, causal);
            Mat weights;
            const Mat got = linear_out(q, k, v, LinearKind::Elu, nullptr, 1.0f, causal, &weights);
            EXPECT_ALLCLOSE(got, want.output, 1e-4, 1e-6) << Lq << "x" << Lk << " " << causal;
            EXPECT_ALLCLOSE(weights, want.weights, 1e-4, 1e-6) << Lq << "x" << Lk;
            // the lab's whole-matrix form: the same head, and the similarities it shows
            const heed::AttentionResult lab = heed::linear_attention(q, k, v, causal);
            EXPECT_ALLCLOSE(lab.output, want.output, 1e-4, 1e-6) << Lq << "x" << Lk;
            EXPECT_ALLCLOSE(lab.weights, want.weights, 1e-4, 1e-6) << Lq << "x" << Lk;
            Mat shown = lab.scores;  // hidden keys are shown as -inf
            for (int i = 0; i < Lq; ++i)
                for (int j = i + 1; causal && j < Lk; ++j) {
                    EXPECT_EQ(shown(i, j), -INFINITY);
                    shown(i, j) = 0.0f;
                }
            EXPECT_ALLCLOSE(shown, want.scores, 1e-4, 1e-6) << Lq << "x" << Lk;
        }
}

// Running prefix sums (the RNN view) equal the non-causal formula over keys 0..i, row by row.
TEST(LinearHead, CausalPrefixSumsAreTheNonCausalFormulaOnEachPrefix) {
    const int L = 11, d = 8, r = 64;
    const Mat q = random_mat(L, d, 31), k = random_mat(L, d, 32), v = random_mat(L, d, 33);
    const Mat omega = heed::draw_favor_projection(r, d, 4);
    for (LinearKind kind : {LinearKind::Favor, LinearKind::Elu}) {
        const Mat causal = linear_out(q, k, v, kind, &omega, 0.35f, true);
        for (int i = 0; i < L; ++i) {
            const Mat qi = xt::view(q, xt::range(i, i + 1), xt::all());
            const Mat ki = xt::view(k, xt::range(0, i + 1), xt::all());
            const Mat vi = xt::view(v, xt::range(0, i + 1), xt::all());
            const Mat want = linear_out(qi, ki, vi, kind, &omega, 0.35f, false);
            EXPECT_TRUE(heed::test::allclose(causal.data() + i * d, want.data(), d, 1e-4, 1e-6))
                << "row " << i;
        }
    }
}

// The decoder's streaming state (one key at a time, the stabiliser rising with a rescale)
// gives the batch causal output.
TEST(LinearHead, StreamingStateEqualsTheBatchCausalPath) {
    const int L = 9, d = 8, r = 32;
    const Mat q = random_mat(L, d, 41, 1.5f), k = random_mat(L, d, 42, 1.5f);
    const Mat v = random_mat(L, d, 43);
    const Mat omega = heed::draw_favor_projection(r, d, 5);
    const Mat want = linear_out(q, k, v, LinearKind::Favor, &omega, 0.35f, true);
    std::vector<float> state(heed::linear_state_size(r, d)), f(r), out(d);
    heed::linear_state_reset(state.data(), r, d, -INFINITY);
    for (int t = 0; t < L; ++t) {
        heed::favor_log_features({k.data() + t * d, 1, d, d}, omega, 0.35f, f.data());
        heed::linear_state_add_log(state.data(), r, d, f.data(), v.data() + t * d);
        heed::favor_features({q.data() + t * d, 1, d, d}, omega, 0.35f, true, f.data());
        heed::linear_state_read(state.data(), r, d, f.data(), out.data());
        EXPECT_TRUE(heed::test::allclose(out.data(), want.data() + t * d, d, 1e-4, 1e-6))
            << "step " << t;
    }
}

// ---- the skipping softmax paths against the full masked reference --------------------------

TEST(SkippingAttention, BandAndGatherEqualTheMaskedFullPath) {
    for (int Lq : {1, 2, 3, 5, 8, 17})
        for (int Lk : {1, 2, 4, 7, 16, 33})
            for (int w : {0, 1, 3, 40}) {
                const int Dh = 7;
                const Mat q = random_mat(Lq, Dh, Lq), k = random_mat(Lk, Dh, 100 + Lk);
                const Mat v = random_mat(Lk, 5, 200 + Lk);
                heed::HeadAttention a;
                a.q = view(q);
                a.k = view(k);
                a.v = view(v);
                a.scale = 0.4f;
                const int first = Lq == 1 ? Lk / 2 + 1 : 0;  // a decoder step past the middle
                // reference: every score, then the blocked matrix
                xt::xtensor<std::uint8_t, 2> blocked = xt::zeros<std::uint8_t>({Lq, Lk});
                for (int i = 0; i < Lq; ++i)
                    for (int j = 0; j < Lk; ++j)
                        blocked(i, j) = std::abs(std::min(i + first, Lk - 1) - j) > w ||
                                        (i * 7 + j * 3) % 5 == 0;
                std::vector<float> p_ref(Lq * Lk), p_got(Lq * Lk);
                Mat ref = Mat::from_shape({std::size_t(Lq), 5}), got = ref;
                // the band alone
                xt::xtensor<std::uint8_t, 2> band = blocked;
                for (int i = 0; i < Lq; ++i)
                    for (int j = 0; j < Lk; ++j)
                        band(i, j) = std::abs(std::min(i + first, Lk - 1) - j) > w;
                a.mask.blocked = band.data();
                heed::attend_head(a, p_ref.data(), heed::out_columns(ref, 0, 5));
                a.mask = {};
                a.mask.window = w;
                a.mask.window_first = first;
                heed::attend_head(a, p_got.data(), heed::out_columns(got, 0, 5));
                EXPECT_ALLCLOSE(p_got, p_ref, 1e-5, 1e-6) << Lq << "x" << Lk << " w" << w;
                EXPECT_ALLCLOSE(got, ref, 1e-5, 1e-6) << Lq << "x" << Lk << " w" << w;
                // a sparse pattern: gathered against masked
                a.mask = {};
                a.mask.blocked = blocked.data();
                heed::attend_head(a, p_ref.data(), heed::out_columns(ref, 0, 5));
                a.mask.skip_blocked = true;
                heed::attend_head(a, p_got.data(), heed::out_columns(got, 0, 5));
                EXPECT_ALLCLOSE(p_got, p_ref, 1e-5, 1e-6) << Lq << "x" << Lk << " sparse";
                EXPECT_ALLCLOSE(got, ref, 1e-5, 1e-6) << Lq << "x" << Lk << " sparse";
            }
}

// ---- costs ---------------------------------------------------------------------------------

// H = 2, D = 8 (Dh = Dv = 4), one layer each, S = 3 source tokens, T = 2 steps, by hand.
TEST(AttentionCost, SmallCaseByHand) {
    heed::ModelConfig c;
    c.d_model = 8;
    c.heads = 2;
    c.encoder_layers = 1;
    c.decoder_layers = 1;
    auto costs = [&](heed::Interventions iv) { return heed::attention_costs(c, iv, 3, 2); };
    auto expect = [](const std::vector<heed::AttentionCost>& got,
                     std::vector<std::pair<double, double>> want) {
        ASSERT_EQ(got.size(), 3u);
        EXPECT_EQ(got[0].block, AttentionBlock::EncoderSelf);
        EXPECT_EQ(got[1].block, AttentionBlock::DecoderSelf);
        EXPECT_EQ(got[2].block, AttentionBlock::Cross);
        for (int i = 0; i < 3; ++i) {
            EXPECT_EQ(got[i].macs, want[i].first) << i;
            EXPECT_EQ(got[i].state_bytes, want[i].second) << i;
        }
    };
    // full: pairs 9, 3 (causal), 6; macs = 2·P·(4 + 4), bytes = 4·2·P
    expect(costs({}), {{144, 72}, {48, 24}, {96, 48}});
    // window 0: encoder pairs 3; cross steps 0, 1 see key 0, 1: 2 pairs
    heed::Interventions w;
    w.window = 0;
    expect(costs(w), {{48, 24}, {48, 24}, {32, 16}});
    // FAVOR+ r = 8: 2·[(Lq+Lk)·8·4 + (Lq+Lk)·8·5]; state 4·2·8·5 = 320
    heed::Interventions f;
    f.linear = {LinearKind::Favor, 8, 1};
    expect(
        costs(f),
        {{2 * (6 * 32 + 6 * 40), 320}, {2 * (4 * 32 + 4 * 40), 320}, {2 * (5 * 32 + 5 * 40), 320}});
    // elu + 1: r = Dh = 4, no projection: 2·(Lq+Lk)·4·5; state 4·2·4·5 = 160
    heed::Interventions e;
    e.linear = {LinearKind::Elu, 256, 1};
    expect(costs(e), {{240, 160}, {160, 160}, {200, 160}});
}

// ---- the model and the translator ----------------------------------------------------------

std::unique_ptr<heed::Translator> tiny(const std::string& name = "tiny") {
    return heed::Translator::load_file(HEED_MODELS_DIR "/tiny/" + name + ".heed");
}

const std::vector<std::string> kTexts = {
    "A simple text editor", "This package contains the development files.",
    "The program reads a configuration file and starts the server.", "Hello world",
    "Documentation for the Python bindings is included in this package."};

heed::TranslateOptions linear_options(LinearKind kind, int features, std::uint32_t seed) {
    heed::TranslateOptions o;
    o.interventions.linear = {kind, features, seed};
    o.max_length = 20;
    return o;
}

// The encoder's recorded weights with elu + 1 are the plain normalised product on the layer's
// own q, k, v.
TEST(LinearSurgery, EncoderEluWeightsAreTheNormalisedFeatureProduct) {
    auto p = heed::load_model_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    const std::vector<int> src = {50, 7, 123, 9, 250, 31, 64, 3};
    const int S = int(src.size()), D = p->model.config().d_model, H = p->model.config().heads;
    const int Dh = D / H;
    heed::Interventions iv;
    iv.linear.kind = LinearKind::Elu;
    heed::EncoderTrace trace;
    p->model.encode(src, &trace, &iv);
    const Mat qkv = p->model.weights().encoder[0].self_attn.qkv(trace.block_inputs[0]);
    for (int h = 0; h < H; ++h) {
        auto cols = [&](int begin) { return heed::to_mat(heed::columns(qkv, begin, Dh)); };
        const PlainLinear want =
            plain_elu_attention(cols(h * Dh), cols(D + h * Dh), cols(2 * D + h * Dh), false);
        EXPECT_TRUE(heed::test::allclose(trace.self_attn.data() + std::size_t(h) * S * S,
                                         want.weights.data(), std::size_t(S) * S, 1e-4, 1e-6))
            << "head " << h;
    }
}

TEST(LinearSurgery, SameSeedSameTranslationOtherSeedDiffers) {
    auto tr = tiny();
    int differ = 0;
    for (const std::string& text : kTexts) {
        const auto a = tr->translate({text}, linear_options(LinearKind::Favor, 8, 1)).at(0);
        const auto b = tr->translate({text}, linear_options(LinearKind::Favor, 8, 1)).at(0);
        const auto c = tr->translate({text}, linear_options(LinearKind::Favor, 8, 2)).at(0);
        EXPECT_EQ(a.target_ids, b.target_ids) << text;
        EXPECT_EQ(a.token_probs, b.token_probs) << text;
        differ += a.target_ids != c.target_ids;
    }
    EXPECT_GT(differ, 0) << "seeds 1 and 2 gave the same ids for every sentence";
}

std::size_t common_prefix(const std::vector<int>& a, const std::vector<int>& b) {
    std::size_t k = 0;
    while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
    return k;
}

// With many features FAVOR+ comes near the softmax on the trained weights, but the tiny models
// are sensitive (their greedy output is 20 repetitive tokens, and their q/k norms make the
// estimator's variance large), so whole translations rarely match token for token. What is
// asserted: the encoder states' relative error against exact attention falls from r = 64 to
// r = 4096 and is below 0.15 there (measured 0.060 and 0.100); summed over the sentences, the
// greedy ids share with the exact ones a prefix at least twice as long at r = 4096 as at r = 64,
// and at r = 4096 the first token is the exact one in at least 3 of 5 sentences. (Measured at seed
// 7: prefixes 4, 3, 5, 9, 10 of 20 for tiny and 8, 9, 0, 1, 8 for tiny-post; no sentence whole.)
TEST(LinearSurgery, ManyFeaturesComeNearExactAttention) {
    for (const std::string name : {"tiny", "tiny-post"}) {
        auto tr = tiny(name);
        auto p = heed::load_model_file(HEED_MODELS_DIR "/tiny/" + name + ".heed");
        const std::vector<int> src = {50, 7, 123, 9, 250, 31, 64, 3};
        const Mat exact_states = p->model.encode(src).states;
        std::vector<double> state_error;
        for (int r : {64, 4096}) {
            heed::Interventions iv;
            iv.linear = {LinearKind::Favor, r, 7};
            state_error.push_back(
                rel_error(p->model.encode(src, nullptr, &iv).states, exact_states));
        }
        EXPECT_LT(state_error[1], state_error[0]) << name;
        EXPECT_LT(state_error[1], 0.15) << name;

        heed::TranslateOptions exact;
        exact.max_length = 20;
        std::size_t prefix_64 = 0, prefix_4096 = 0;
        int first_ok = 0;
        for (const std::string& text : kTexts) {
            const auto want = tr->translate({text}, exact).at(0).target_ids;
            const auto few = tr->translate({text}, linear_options(LinearKind::Favor, 64, 7));
            const auto many = tr->translate({text}, linear_options(LinearKind::Favor, 4096, 7));
            prefix_64 += common_prefix(few.at(0).target_ids, want);
            const std::size_t k = common_prefix(many.at(0).target_ids, want);
            prefix_4096 += k;
            first_ok += k > 0;
        }
        EXPECT_GE(prefix_4096, 2 * prefix_64) << name;
        EXPECT_GE(first_ok, 3) << name;
        printf(
            "%s: encoder states rel. error r=64 %.4f, r=4096 %.4f; greedy common prefix "
            "summed over 5 sentences r=64 %zu, r=4096 %zu\n",
            name.c_str(), state_error[0], state_error[1], prefix_64, prefix_4096);
    }
}

// Beam search reorders the running sums with the rows; greedy and beam 1 agree, a beam runs.
TEST(LinearSurgery, BeamSearchRunsWithRunningSums) {
    auto tr = tiny();
    heed::TranslateOptions o = linear_options(LinearKind::Favor, 64, 3);
    o.return_attention = true;
    const auto g = tr->translate({kTexts[1]}, o).at(0);
    o.beam_size = 4;
    const auto b = tr->translate({kTexts[1]}, o).at(0);
    EXPECT_FALSE(b.target_ids.empty());
    // the implied weights of every view are rows summing to 1
    const auto& cross = g.attention.cross;
    const std::size_t S = g.source_ids.size();
    for (std::size_t i = 0; i < cross.data.size(); i += S) {
        float total = 0;
        for (std::size_t j = 0; j < S; ++j) total += cross.data[i + j];
        EXPECT_NEAR(total, 1.0f, 1e-4);
    }
}

// The decoder's implied self-attention weights (trace only) come from each key's features
// computed once and kept with its row (reordered with the beam): the count of computed feature
// rows grows as steps × heads, not as the square of the steps, and the weights equal the
// whole-key-set formula (one stabiliser over all keys) at every step.
TEST(LinearSurgery, DecoderTraceComputesEachKeysFeaturesOnce) {
    heed::ModelConfig c;
    c.d_model = 16;
    c.heads = 2;
    c.decoder_layers = 1;
    const int D = c.d_model, H = c.heads, Dh = c.head_dim(), T = 12, R = 2;
    for (LinearKind kind : {LinearKind::Favor, LinearKind::Elu}) {
        heed::LinearAttention lin;
        lin.kind = kind;
        lin.features = 32;
        lin.seed = 5;
        const float scale = 1.0f / std::sqrt(float(Dh));
        heed::LinearDecoder dec(c, lin, scale, R);
        const Mat omega = heed::favor_projection(lin, AttentionBlock::DecoderSelf, 0, Dh);
        const Mat qkv = random_mat(T * R, 3 * D, 11, 0.7f);  // per step and row: Q | K | V
        std::vector<std::vector<float>> kv(R, std::vector<float>(std::size_t(T) * 2 * D));
        std::vector<float> out(D), trace(std::size_t(H) * T);
        for (int t = 0; t < T; ++t) {
            if (t == 5) {  // a beam step: both rows continue row 1
                dec.reorder({1, 1});
                kv[0] = kv[1];
            }
            for (int r = 0; r < R; ++r) {
                const float* x = qkv.data() + std::size_t(t * R + r) * 3 * D;
                std::copy(x + D, x + 3 * D, kv[r].data() + std::size_t(t) * 2 * D);
                dec.self_step(0, r, x, out.data());
                dec.self_trace(0, r, x, kv[r].data(), t + 1, 2 * D, trace.data());
                for (int h = 0; h < H; ++h) {  // the reference: every key's features afresh
                    heed::LinearHeadAttention a = heed::linear_head_template(
                        lin, kind == LinearKind::Favor ? &omega : nullptr, scale);
                    a.q = {x + h * Dh, 1, Dh, 3 * D};
                    a.k = {kv[r].data() + h * Dh, t + 1, Dh, 2 * D};
                    a.v = a.k;
                    const int rf = heed::feature_count(a);
                    std::vector<float> qf(rf), kf(std::size_t(t + 1) * rf), want(t + 1);
                    heed::linear_query_features(a, qf.data());
                    heed::linear_key_features(a, kf.data(), nullptr);
                    heed::linear_implied_weights(a, qf.data(), kf.data(), want.data());
                    EXPECT_TRUE(heed::test::allclose(trace.data() + std::size_t(h) * (t + 1),
                                                     want.data(), std::size_t(t + 1), 1e-4, 1e-6))
                        << "step " << t << " row " << r << " head " << h;
                }
            }
        }
        // each key of each row and head once (the reorder copies features, it computes none)
        EXPECT_EQ(dec.key_features_computed(), std::size_t(T) * R * H);
    }
}

TEST(LinearSurgery, RefusedCombinationsNameTheField) {
    auto tr = tiny();
    heed::TranslateOptions o = linear_options(LinearKind::Favor, 0, 1);
    EXPECT_EQ(heed::test::error_of([&] { tr->translate({"Hello"}, o); }),
              "interventions.linear.features must be an integer in [1, 4096], got 0");
    o = linear_options(LinearKind::Favor, 64, 1);
    o.interventions.window = 2;
    EXPECT_NE(heed::test::error_of([&] { tr->translate({"Hello"}, o); }).find("window"),
              std::string::npos);
    o = linear_options(LinearKind::Elu, 64, 1);
    o.interventions.temperature = 2;
    EXPECT_NE(heed::test::error_of([&] { tr->translate({"Hello"}, o); }).find("temperature"),
              std::string::npos);
}

TEST(LinearSurgery, TranslationCarriesItsCosts) {
    auto tr = tiny();
    const auto t = tr->translate({kTexts[0]}, linear_options(LinearKind::None, 256, 1)).at(0);
    const heed::Interventions none;
    const auto parts = heed::load_model_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    const auto want = heed::attention_costs(parts->model.config(), none, int(t.source_ids.size()),
                                            int(t.target_ids.size()));
    ASSERT_EQ(t.costs.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t.costs[i].macs, want[i].macs);
}

}  // namespace
