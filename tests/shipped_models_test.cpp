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

}  // namespace
