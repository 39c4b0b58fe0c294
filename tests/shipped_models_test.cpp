// Regression test of the shipped models: each loads and translates a fixed set of sentences to
// the committed expected outputs (tests/data/shipped_expected.json, written by
// models/goldens/make_shipped_expected.sh from the engine when a model is (re)trained); a case of a
// model with several directions names its target language ("to"). Also the size budget: each
// model the demo lists (models/models.json) at most 16 MB, all of them at most 40 MB.
#include <nlohmann/json.hpp>
#include <set>

#include "test_util.h"
#include "translator/translator.h"

namespace {

using nlohmann::json;

heed::TranslateOptions options_for(const json& c, int beam) {
    heed::TranslateOptions o;
    o.beam_size = beam;
    o.to = c.value("to", "");
    return o;
}

TEST(ShippedModels, FitTheSizeBudget) {
    const json listed = json::parse(heed::test::read_text(HEED_MODELS_DIR "/models.json"));
    std::set<std::string> files;
    for (const json& entry : listed) files.insert(entry.at("file").get<std::string>());
    std::size_t total = 0;
    for (const std::string& file : files) {
        const std::size_t size = heed::test::read_text(HEED_MODELS_DIR "/" + file).size();
        // why: issue #22 lets a model grow to 20 MB when its curves show it needs the capacity
        EXPECT_LE(size, 20u * 1000 * 1000) << file << " is over the 20 MB budget of one model";
        total += size;
    }
    EXPECT_LE(total, 40u * 1000 * 1000) << "the shipped models are over the 40 MB budget";
}

TEST(ShippedModels, TranslateTheFixedSentencesAsCommitted) {
    const json expected =
        json::parse(heed::test::read_text(HEED_TEST_DATA "/shipped_expected.json"));
    ASSERT_GE(expected.size(), 2u);  // en-fr and en-de at least
    for (const auto& [name, cases] : expected.items()) {
        auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/" + name + ".heed");
        for (const json& c : cases) {
            // why: one sentence per call, as the CLI that wrote the expectations does (--no-split)
            const std::string source = c["source"];
            const std::string where = name + " → " + c.value("to", "") + ": " + source;
            EXPECT_EQ(tr->translate({source}, options_for(c, 1)).at(0).text,
                      c["greedy"].get<std::string>())
                << where;
            EXPECT_EQ(tr->translate({source}, options_for(c, 4)).at(0).text,
                      c["beam4"].get<std::string>())
                << where;
        }
    }
}

// Text in other scripts makes the four-way model write byte-fallback pieces; whatever it
// writes must be whole UTF-8 characters: no U+FFFD (an invalid byte's stand-in) in any output.
TEST(ShippedModels, OutputInOtherScriptsIsValidUtf8) {
    auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/multi.heed");
    const std::string replacement = "\xEF\xBF\xBD";
    for (const std::string source :
         {"Ελληνικά είναι ωραία.", "東京は日本の首都です。",
          "The symbol ∑ means sum and ≠ means not equal.",
          "The word for it in Greek is λόγος, in Russian слово.", "I love 🍕 and ☕ every day."}) {
        for (const std::string to : {"de", "fr"}) {
            for (int beam : {1, 4}) {
                heed::TranslateOptions o;
                o.beam_size = beam;
                o.to = to;
                const std::string text = tr->translate({source}, o).at(0).text;
                EXPECT_EQ(text.find(replacement), std::string::npos)
                    << source << " → " << to << ", beam " << beam << ": " << text;
            }
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
        for (const json& c : cases) {
            const heed::TranslateOptions greedy = options_for(c, 1);
            const heed::Translation a =
                int8->translate({c["source"].get<std::string>()}, greedy).at(0);
            const heed::Translation b =
                wide->translate({c["source"].get<std::string>()}, greedy).at(0);
            EXPECT_EQ(a.target_ids, b.target_ids) << name << ": " << c["source"];
            for (std::size_t i = 0; i < std::min(a.token_probs.size(), b.token_probs.size()); ++i)
                EXPECT_NEAR(a.token_probs[i], b.token_probs[i], 1e-3)
                    << name << ": " << c["source"];
        }
    }
}

}  // namespace
