// Regression test of the shipped models: each loads and translates a fixed set of sentences to
// the committed expected outputs (tests/data/shipped_expected.json, written by
// models/make_shipped_expected.sh from the engine when a model is (re)trained).
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "translator/translator.h"

namespace {

using nlohmann::json;

TEST(ShippedModels, TranslateTheFixedSentencesAsCommitted) {
    const json expected =
        json::parse(heed::test::read_text(HEED_TEST_DATA "/shipped_expected.json"));
    ASSERT_GE(expected.size(), 2u);  // en-fr and en-de at least
    for (const auto& [name, cases] : expected.items()) {
        auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/" + name + ".heed");
        EXPECT_LE(heed::test::read_text(HEED_MODELS_DIR "/" + name + ".heed").size(),
                  10u * 1000 * 1000)
            << name << " is over the 10 MB budget";
        std::vector<std::string> texts;
        for (const json& c : cases) texts.push_back(c["source"]);
        heed::TranslateOptions greedy;
        heed::TranslateOptions beam;
        beam.beam_size = 4;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            // why: one sentence per call, as the CLI that wrote the expectations does
            EXPECT_EQ(tr->translate({texts[i]}, greedy).at(0).text, cases[i]["greedy"].get<std::string>()) << name << ": " << texts[i];
            EXPECT_EQ(tr->translate({texts[i]}, beam).at(0).text,
                      cases[i]["beam4"].get<std::string>())
                << name << ": " << texts[i];
        }
    }
}

// int8 compute (the default) against the f32 reference on the same int8 file: the same
// translations of the fixed sentences, token probabilities within 1e-3, and the weights held
// in memory at most 1.3× the file (f32 widening holds about 4×).
TEST(ShippedModels, Int8ComputeMatchesF32AndStaysSmall) {
    const json expected =
        json::parse(heed::test::read_text(HEED_TEST_DATA "/shipped_expected.json"));
    for (const auto& [name, cases] : expected.items()) {
        const std::string path = HEED_MODELS_DIR "/" + name + ".heed";
        heed::LoadSettings f32;
        f32.int8 = false;
        auto int8 = heed::Translator::load_file(path);
        auto wide = heed::Translator::load_file(path, f32);
        const std::size_t file = heed::test::read_text(path).size();
        EXPECT_TRUE(int8->int8_weights());
        EXPECT_FALSE(wide->int8_weights());
        EXPECT_LE(double(int8->weight_bytes()), 1.3 * double(file)) << name;
        EXPECT_GT(double(wide->weight_bytes()), 3.0 * double(file)) << name;
        heed::TranslateOptions greedy;
        for (const json& c : cases) {
            const heed::Translation a = int8->translate({c["source"].get<std::string>()}, greedy).at(0);
            const heed::Translation b = wide->translate({c["source"].get<std::string>()}, greedy).at(0);
            EXPECT_EQ(a.target_ids, b.target_ids) << name << ": " << c["source"];
            for (std::size_t i = 0; i < std::min(a.token_probs.size(), b.token_probs.size()); ++i)
                EXPECT_NEAR(a.token_probs[i], b.token_probs[i], 1e-3) << name << ": " << c["source"];
        }
    }
}

}  // namespace
