// Attention surgery inside the forward pass (model/interventions.h), on the tiny models:
// a local window against the attention op's own local mask (mask_matrix), the temperature
// against its definition (softmax of the scaled scores), no positions against permutation
// equivariance, head ablation against what it may and may not change.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "model/model.h"
#include "ops/attention.h"
#include "test_util.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace {

using heed::AttentionBlock;
using heed::Interventions;
using heed::Mat;

const std::vector<int> kSource = {50, 7, 123, 9, 250, 31, 64, 3};  // EOS last

std::unique_ptr<heed::LoadedModel> parts(const std::string& name) {
    return heed::load_model_file(HEED_MODELS_DIR "/tiny/" + name + ".heed");
}

class Interventions_ : public ::testing::TestWithParam<std::string> {};

/// Runs the encoder with `iv` and checks that every head's layer-0 weights are the attention
/// op's (ScaledDot) on the same q, k, v under `mask`.
void expect_layer0_is_the_op(const heed::Model& m, const Interventions& iv,
                             const heed::AttentionMask& mask) {
    const int S = int(kSource.size()), D = m.config().d_model, H = m.config().heads;
    const int Dh = D / H;
    heed::EncoderTrace trace;
    m.encode(kSource, &trace, &iv);
    const Mat qkv = m.weights().encoder[0].self_attn.qkv(trace.block_inputs[0]);  // [S, 3D]
    for (int h = 0; h < H; ++h) {
        auto cols = [&](int begin) { return heed::to_mat(heed::columns(qkv, begin, Dh)); };
        const heed::AttentionResult want =
            heed::attention(cols(h * Dh), cols(D + h * Dh), cols(2 * D + h * Dh),
                            heed::ScoreFunction::ScaledDot, mask);
        EXPECT_TRUE(heed::test::allclose(trace.self_attn.data() + std::size_t(h) * S * S,
                                         want.weights.data(), std::size_t(S) * S, 1e-4, 1e-6))
            << "head " << h;
    }
}

TEST_P(Interventions_, NoneChangesNothing) {
    auto p = parts(GetParam());
    const Interventions none;
    const heed::Memory a = p->model.encode(kSource);
    const heed::Memory b = p->model.encode(kSource, nullptr, &none);
    EXPECT_TRUE(heed::test::allclose(a.states, b.states, 0.0, 0.0));
}

// Layer 0's weights with window w are exactly the attention op's, given the same q, k, v and
// AttentionMask::local(w).
TEST_P(Interventions_, WindowIsTheLocalMaskOfTheAttentionOp) {
    auto p = parts(GetParam());
    for (int w : {0, 1, 2}) {
        SCOPED_TRACE("window " + std::to_string(w));
        Interventions iv;
        iv.window = w;
        expect_layer0_is_the_op(p->model, iv, heed::AttentionMask::local(w));
    }
}

TEST_P(Interventions_, WindowCoveringTheSentenceChangesNothing) {
    auto p = parts(GetParam());
    Interventions iv;
    iv.window = int(kSource.size());
    EXPECT_TRUE(heed::test::allclose(p->model.encode(kSource).states,
                                     p->model.encode(kSource, nullptr, &iv).states, 0.0, 0.0));
}

// Cross-attention with window w: at step t only source positions |t - j| <= w get weight.
TEST_P(Interventions_, CrossWindowFollowsTheDecodingStep) {
    auto p = parts(GetParam());
    const heed::Model& m = p->model;
    const heed::ModelConfig& c = m.config();
    Interventions iv;
    iv.window = 1;
    const heed::Memory mem = m.encode(kSource, nullptr, &iv);
    heed::DecoderState state(c, 1, 4);
    state.set_interventions(&iv);
    std::vector<float> logits(c.vocab_size);
    int token = c.decoder_start_id;
    const int S = mem.length;
    for (int t = 0; t < 4; ++t) {
        heed::StepAttention trace;
        m.step({&mem}, {token}, state, logits.data(), &trace);
        for (int lh = 0; lh < c.decoder_layers * c.heads; ++lh) {
            const float* row = trace.cross[0].data() + std::size_t(lh) * S;
            float inside = 0;
            for (int j = 0; j < S; ++j) {
                if (std::abs(t - j) > 1) {
                    EXPECT_EQ(row[j], 0.0f) << "t " << t << " j " << j;
                } else {
                    inside += row[j];
                }
            }
            EXPECT_NEAR(inside, 1.0f, 1e-5);
        }
        token = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
}

// The first layer's inputs do not depend on the temperature, so its weights must be
// softmax(f · scores/√Dh) = softmax(f · log w₁) row by row, w₁ the weights at factor 1.
TEST_P(Interventions_, TemperatureMultipliesTheSoftmaxScale) {
    auto p = parts(GetParam());
    const int S = int(kSource.size()), H = p->model.config().heads;
    heed::EncoderTrace plain, hot;
    p->model.encode(kSource, &plain);
    Interventions iv;
    iv.temperature = 2.5f;
    p->model.encode(kSource, &hot, &iv);
    for (int r = 0; r < H * S; ++r) {
        const float* w1 = plain.self_attn.data() + std::size_t(r) * S;
        std::vector<double> want(S);
        double sum = 0;
        for (int j = 0; j < S; ++j) sum += want[j] = std::pow(double(w1[j]), 2.5);
        for (double& x : want) x /= sum;
        for (int j = 0; j < S; ++j)
            EXPECT_NEAR(hot.self_attn[std::size_t(r) * S + j], want[j], 1e-5) << r << "," << j;
    }
}

// Without positions the encoder is permutation-equivariant: shuffling the source permutes
// its output rows (Vaswani et al. 2017 §3.5 is what breaks this symmetry).
TEST_P(Interventions_, NoPositionsMakesTheEncoderPermutationEquivariant) {
    auto p = parts(GetParam());
    std::vector<int> order(kSource.size());
    std::iota(order.begin(), order.end(), 0);
    std::reverse(order.begin(), order.end());
    std::rotate(order.begin(), order.begin() + 3, order.end());
    std::vector<int> shuffled;
    for (int i : order) shuffled.push_back(kSource[std::size_t(i)]);
    auto permuted_rows_match = [&](const Interventions* iv) {
        const Mat a = p->model.encode(kSource, nullptr, iv).states;
        const Mat b = p->model.encode(shuffled, nullptr, iv).states;
        double worst = 0;
        for (std::size_t i = 0; i < order.size(); ++i)
            for (std::size_t d = 0; d < a.shape(1); ++d)
                worst = std::max(worst, double(std::abs(b(i, d) - a(order[i], d))));
        return worst;
    };
    Interventions iv;
    iv.no_positions = true;
    EXPECT_LT(permuted_rows_match(&iv), 1e-4);
    EXPECT_GT(permuted_rows_match(nullptr), 1e-2);  // with positions the symmetry is broken
}

// Ablating head h of encoder layer l keeps every attention weight up to layer l (what it looks
// at is still recorded) and changes the output; zero and mean ablation differ.
TEST_P(Interventions_, AblationChangesTheOutputNotTheWeightsBeforeIt) {
    auto p = parts(GetParam());
    const int S = int(kSource.size()), H = p->model.config().heads;
    const int L = p->model.config().encoder_layers;
    heed::EncoderTrace plain, zeroed, meaned;
    const heed::Memory a = p->model.encode(kSource, &plain);
    Interventions zero, mean;
    zero.ablations.push_back({AttentionBlock::EncoderSelf, 0, 1, false});
    mean.ablations.push_back({AttentionBlock::EncoderSelf, 0, 1, true});
    const heed::Memory b = p->model.encode(kSource, &zeroed, &zero);
    const heed::Memory c = p->model.encode(kSource, &meaned, &mean);
    const std::size_t layer0 = std::size_t(H) * S * S;
    EXPECT_TRUE(
        heed::test::allclose(plain.self_attn.data(), zeroed.self_attn.data(), layer0, 0.0, 0.0));
    EXPECT_FALSE(heed::test::allclose(a.states, b.states, 1e-3, 1e-4));
    EXPECT_FALSE(heed::test::allclose(b.states, c.states, 1e-3, 1e-4));
    if (L > 1) {  // the next layer sees the changed residual stream
        EXPECT_FALSE(heed::test::allclose(plain.self_attn.data() + layer0,
                                          zeroed.self_attn.data() + layer0, layer0, 1e-4, 1e-6));
    }
}

// The sparse pattern without random blocks is exactly its definition: the window, the global
// keys (first and last), and global queries (first and last position) that see every key.
TEST(SparsePattern, MaskIsTheDefinition) {
    Interventions iv;
    iv.window = 1;
    iv.sparse.enabled = true;
    const int L = 9;
    const std::vector<std::uint8_t> m = heed::key_mask(iv, 0, L, L);
    for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j) {
            const bool seen = std::abs(i - j) <= 1 || j == 0 || j == L - 1 || i == 0 || i == L - 1;
            EXPECT_EQ(m[std::size_t(i) * L + j], seen ? 0 : 1) << i << "," << j;
        }
}

// Random blocks are reproducible from the seed, differ between seeds, and a one-query mask (a
// decoder step) is the same row as the whole matrix's.
TEST(SparsePattern, RandomBlocksAreSeededAndRowConsistent) {
    Interventions iv;
    iv.window = 0;
    iv.sparse = {true, 2, 3, 7};
    const int L = 40;
    const std::vector<std::uint8_t> a = heed::key_mask(iv, 0, L, L);
    EXPECT_EQ(a, heed::key_mask(iv, 0, L, L));
    for (int t = 0; t < L; ++t) {
        const std::vector<std::uint8_t> row = heed::key_mask(iv, t, 1, L);
        EXPECT_TRUE(std::equal(row.begin(), row.end(), a.begin() + std::size_t(t) * L)) << t;
    }
    std::size_t extra = 0;  // keys seen beyond the window and the global tokens
    for (int i = 1; i < L - 1; ++i)
        for (int j = 1; j < L - 1; ++j) extra += i != j && !a[std::size_t(i) * L + j];
    EXPECT_GT(extra, std::size_t(L));  // each query block sees up to 2 more blocks of 3 keys
    iv.sparse.seed = 8;
    EXPECT_NE(a, heed::key_mask(iv, 0, L, L));
}

// The encoder runs the pattern as the attention op runs the same blocked matrix.
TEST_P(Interventions_, SparsePatternIsTheAttentionOpsBlockedMask) {
    auto p = parts(GetParam());
    const std::size_t S = kSource.size();
    Interventions iv;
    iv.window = 0;
    iv.sparse = {true, 1, 2, 3};
    const std::vector<std::uint8_t> mask = heed::key_mask(iv, 0, int(S), int(S));
    xt::xtensor<std::uint8_t, 2> blocked = xt::zeros<std::uint8_t>({S, S});
    std::copy(mask.begin(), mask.end(), blocked.begin());
    expect_layer0_is_the_op(p->model, iv, heed::AttentionMask::blocked(blocked));
}

// Against PyTorch, surgery done its own way (models/goldens/make_surgery_goldens.py: zeroed
// position table, scaled query projection, nn.Transformer's src_mask / memory_mask, zeroed
// out-projection columns): the engine's greedy ids are the same.
TEST_P(Interventions_, GreedyIdsMatchPyTorchSurgery) {
    const nlohmann::json g =
        nlohmann::json::parse(heed::test::read_text(HEED_TEST_DATA "/surgery_goldens.json"));
    auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/tiny/" + GetParam() + ".heed");
    auto with = [](auto&& set) {
        heed::TranslateOptions o;
        set(o.interventions);
        return o;
    };
    const std::vector<std::pair<std::string, heed::TranslateOptions>> variants = {
        {"none", heed::TranslateOptions{}},
        {"no_positions", with([](Interventions& iv) { iv.no_positions = true; })},
        {"temperature_2", with([](Interventions& iv) { iv.temperature = 2.0f; })},
        {"window_1", with([](Interventions& iv) { iv.window = 1; })},
        {"ablate_enc_0_1", with([](Interventions& iv) {
             iv.ablations = {{AttentionBlock::EncoderSelf, 0, 1}};
         })},
        {"ablate_cross_0_0", with([](Interventions& iv) {
             iv.ablations = {{AttentionBlock::Cross, 0, 0}};
         })},
        {"ablate_dec_0_1", with([](Interventions& iv) {
             iv.ablations = {{AttentionBlock::DecoderSelf, 0, 1}};
         })},
    };
    for (const nlohmann::json& c : g["models"][GetParam()]) {
        for (auto [name, o] : variants) {
            o.max_length = g["max_length"];
            const auto t = tr->translate({c["text"].get<std::string>()}, o).at(0);
            EXPECT_EQ(t.target_ids, c[name].get<std::vector<int>>()) << c["text"] << " " << name;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, Interventions_, ::testing::Values("tiny", "tiny-post"));

}  // namespace
