// Beam search's two ways of ending (SearchOptions::rules), on a model whose next-token
// probabilities are a table written by hand: every sublayer adds zero, so a step's
// log-probabilities depend on the previous token alone (a bigram model), and each expected
// translation and score below is worked out from the table in the comments.
#include <cmath>
#include <string>
#include <vector>

#include "decoding/search.h"
#include "model/model.h"
#include "model/model_file.h"
#include "model/model_file_writer.h"
#include "model/weights.h"
#include "test_util.h"

namespace heed {
namespace {

// ids: 0 <pad>, 1 <unk>, 2 <s> (the start), 3 </s>, 4 a, 5 b, 6 c
constexpr int kStart = 2, kEos = 3, kA = 4, kB = 5, kC = 6, kV = 7;
constexpr int kD = 2 * kV;  // why: token i's embedding is e_2i - e_2i+1 (mean 0, variance 1/V)

/// P(next | previous): each row's listed probabilities sum to 1; an unlisted piece gets
/// logit -40 (e^-40 ≈ 4e-18: nothing, next to 1, in float).
struct Bigram {
    int previous;
    std::vector<std::pair<int, float>> next;
};
const std::vector<Bigram> kTable = {
    {kStart, {{kA, 0.5f}, {kEos, 0.3f}, {kB, 0.2f}}},
    {kA, {{kC, 0.7f}, {kEos, 0.3f}}},
    {kB, {{kEos, 1.0f}}},
    {kC, {{kEos, 1.0f}}},
};

/// The table as a one-layer post-norm model: the decoder's input is token i's embedding
/// u_i = e_2i - e_2i+1, every attention and feed-forward output is zero, so the state after
/// the layer's three LayerNorms is LN(u_i) = sqrt(V) u_i (up to epsilon), and the output row
/// of piece v holds log P(v | i) / (2 sqrt(V)) at 2i and its negation at 2i+1.
Model bigram_model() {
    ModelConfig c;
    c.d_model = kD;
    c.heads = 1;
    c.ffn_dim = 2;
    c.encoder_layers = 1;
    c.decoder_layers = 1;
    c.vocab_size = kV;
    c.pre_norm = false;
    c.positions = PositionKind::Learned;  // why: all zeros, so no step differs from another
    c.max_positions = 8;
    c.ties = EmbeddingTies::None;
    c.scale_embeddings = false;
    c.layer_norm_eps = 1e-6f;
    c.decoder_start_id = kStart;

    const std::size_t V = kV, D = kD;
    ModelFileWriter w;
    w.metadata("format", "heed");
    w.metadata("heed.version", ModelFile::kVersion);
    w.metadata("heed.config", c.to_json());
    const auto zeros = [&w](const std::string& name, std::vector<std::size_t> shape) {
        std::size_t n = 1;
        for (std::size_t s : shape) n *= s;
        w.f32(name, shape, std::vector<float>(n, 0.0f));
    };
    const auto linear = [&](const std::string& name, std::size_t out, std::size_t in) {
        zeros(name + ".weight", {out, in});
        zeros(name + ".bias", {out});
    };
    const auto norm = [&](const std::string& name) {
        w.f32(name + ".weight", {D}, std::vector<float>(D, 1.0f));
        zeros(name + ".bias", {D});
    };
    std::vector<float> embed(V * D, 0.0f), head(V * D, 0.0f);
    for (std::size_t i = 0; i < V; ++i) {
        embed[i * D + 2 * i] = 1.0f;
        embed[i * D + 2 * i + 1] = -1.0f;
    }
    const float half = 0.5f / std::sqrt(float(V));
    for (const Bigram& row : kTable) {
        const std::size_t i = std::size_t(row.previous);
        for (std::size_t v = 0; v < V; ++v) {
            float logit = -40.0f;
            for (const auto& [id, p] : row.next)
                if (std::size_t(id) == v) logit = std::log(p);
            head[v * D + 2 * i] = logit * half;
            head[v * D + 2 * i + 1] = -logit * half;
        }
    }
    zeros("src_embed.weight", {V, D});
    w.f32("tgt_embed.weight", {V, D}, embed);
    w.f32("lm_head.weight", {V, D}, head);
    zeros("encoder.pos.weight", {8, D});
    zeros("decoder.pos.weight", {8, D});
    norm("encoder.0.ln1");
    norm("encoder.0.ln2");
    for (const char* p : {"q", "k", "v", "o"})
        linear(std::string("encoder.0.self_attn.") + p, D, D);
    linear("encoder.0.ffn.fc1", 2, D);
    linear("encoder.0.ffn.fc2", D, 2);
    norm("decoder.0.ln1");
    norm("decoder.0.ln2");
    norm("decoder.0.ln3");
    for (const char* p : {"q", "k", "v", "o"}) {
        linear(std::string("decoder.0.self_attn.") + p, D, D);
        linear(std::string("decoder.0.cross_attn.") + p, D, D);
    }
    linear("decoder.0.ffn.fc1", 2, D);
    linear("decoder.0.ffn.fc2", D, 2);
    const std::vector<std::uint8_t> bytes = w.finish();
    const ModelFile file = ModelFile::parse(bytes.data(), bytes.size());
    return Model(c, load_weights(file, c));
}

const Model& model() {
    static const Model m = bigram_model();
    return m;
}

Hypothesis search(SearchRules rules, int beam, int max_length, bool record = false) {
    static const Memory memory = model().encode({kA, kEos});  // why: the source plays no part
    SearchOptions o;
    o.rules = rules;
    o.beam_size = beam;
    o.max_length = max_length;
    o.return_attention = record;
    return beam_search(model(), memory, o);
}

const float kLogA = std::log(0.5f), kLogB = std::log(0.2f), kLogAC = std::log(0.7f);

TEST(BeamRules, TheModelIsTheTable) {
    // greedy reads the table back: <s> -> a (0.5), a -> c (0.7), c -> </s> (1)
    const Memory memory = model().encode({kA, kEos});
    SearchOptions o;
    o.max_length = 6;
    const Hypothesis h = greedy_search(model(), {&memory}, o)[0];
    EXPECT_EQ(h.tokens, (std::vector<int>{kA, kC, kEos}));
    ASSERT_EQ(h.logprobs.size(), 3u);
    EXPECT_NEAR(h.logprobs[0], kLogA, 1e-4);
    EXPECT_NEAR(h.logprobs[1], kLogAC, 1e-4);
    EXPECT_NEAR(h.logprobs[2], 0.0f, 1e-4);
}

TEST(BeamRules, MarianNarrowsTheBeamByOnePerFinishedHypothesis) {
    // K = 3. Step 0, from <s>: a (ln .5), </s> (ln .3), b (ln .2); </s> ends (score ln .3 / 1
    // = -1.204): width 2. Step 1: a c (ln .35 = -1.050), b </s> (ln .2 = -1.609; ends, score
    // -0.805), a </s> (ln .15) falls outside the 2: width 1. Step 2: a c </s> (ln .35; ends,
    // -1.050 / 3 = -0.350): width 0, the search ends. The best score / length: a c </s>.
    const Hypothesis h = search(SearchRules::Marian, 3, 8, true);
    EXPECT_EQ(h.tokens, (std::vector<int>{kA, kC, kEos}));
    EXPECT_NEAR(h.score, (kLogA + kLogAC) / 3.0f, 1e-4);
    ASSERT_EQ(h.beam.size(), 3u);
    std::vector<int> width, finished;
    for (const std::vector<BeamNode>& step : h.beam) {
        width.push_back(int(step.size()));
        int f = 0;
        for (const BeamNode& n : step) f += n.finished;
        finished.push_back(f);
    }
    EXPECT_EQ(width, (std::vector<int>{3, 2, 1}));
    EXPECT_EQ(finished, (std::vector<int>{1, 1, 1}));
    EXPECT_EQ(h.beam[1][1].token, kEos);  // b </s>
    EXPECT_EQ(h.beam[0][h.beam[1][1].parent].token, kB);
    // the winner's path through the tree, and one step record per token
    ASSERT_GE(h.beam_node, 0);
    EXPECT_EQ(h.beam[2][std::size_t(h.beam_node)].token, kEos);
    EXPECT_EQ(h.steps.size(), 3u);
    EXPECT_FALSE(h.steps[2].cross_attn.empty());
}

TEST(BeamRules, HeedKeepsKLiveHypothesesUntilKHaveEnded) {
    // The same table, K = 2. Step 0: of the 4 best, </s> ends (-1.204) and a, b go on. Step 1:
    // a c goes on, b </s> ends (ln .2 / 2 = -0.805): two have ended, the search stops before
    // a c </s> (-0.350), which Marian's rule (K = 2: width 1 after step 0) finds.
    const Hypothesis heed = search(SearchRules::Heed, 2, 8);
    EXPECT_EQ(heed.tokens, (std::vector<int>{kB, kEos}));
    EXPECT_NEAR(heed.score, kLogB / 2.0f, 1e-4);
    const Hypothesis marian = search(SearchRules::Marian, 2, 8);
    EXPECT_EQ(marian.tokens, (std::vector<int>{kA, kC, kEos}));
    EXPECT_NEAR(marian.score, (kLogA + kLogAC) / 3.0f, 1e-4);
}

TEST(BeamRules, MarianEndsLiveHypothesesAtTheLengthLimit) {
    // max_length 2, K = 3: step 1 keeps a c (live) and b </s> (-0.805); at the limit a c ends
    // as it stands, its score ln .35 / 2 = -0.525, and wins without </s>.
    const Hypothesis h = search(SearchRules::Marian, 3, 2);
    EXPECT_EQ(h.tokens, (std::vector<int>{kA, kC}));
    EXPECT_NEAR(h.score, (kLogA + kLogAC) / 2.0f, 1e-4);
    // max_length 1: a (ln .5 / 1) beats </s> (ln .3 / 1)
    EXPECT_EQ(search(SearchRules::Marian, 3, 1).tokens, (std::vector<int>{kA}));
}

TEST(BeamRules, MarianWithOneRowIsGreedy) {
    const Hypothesis h = search(SearchRules::Marian, 1, 8);
    EXPECT_EQ(h.tokens, (std::vector<int>{kA, kC, kEos}));
    EXPECT_NEAR(h.score, (kLogA + kLogAC) / 3.0f, 1e-4);
}

}  // namespace
}  // namespace heed
