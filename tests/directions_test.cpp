// Directions: a model with several targets starts the decoder with the token of the target
// asked for (models/FORMAT.md, "Directions"), exactly as PyTorch's greedy decoder does with the
// same weights (tests/data/multi_goldens.json from models/goldens/make_multi_fixture.py), and
// refuses a target or a heed.languages entry it cannot honour with a message naming it.
#include "translator/directions.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocabulary.h"
#include "translator/translator.h"

namespace {

using nlohmann::json;

const json& goldens() {
    static const json g = json::parse(heed::test::read_text(HEED_TEST_DATA "/multi_goldens.json"));
    return g;
}

std::unique_ptr<heed::Translator> load(const std::string& name) {
    return heed::Translator::load_file(HEED_MODELS_DIR "/tiny/" + name + ".heed");
}

TEST(Directions, EachTargetMatchesPyTorchGreedy) {
    auto tr = load("tiny-multi");
    EXPECT_EQ(tr->directions(), (std::vector<std::string>{"en-fr", "en-de"}));
    for (const json& c : goldens()["cases"]) {
        for (const char* lang : {"fr", "de"}) {
            heed::TranslateOptions o;
            o.max_length = goldens()["max_length"];
            o.to = lang;
            const auto out = tr->translate({c["text"].get<std::string>()}, o)[0];
            EXPECT_EQ(out.target_ids, c[lang].get<std::vector<int>>()) << c["text"] << " " << lang;
            o.beam_size = 1;
            EXPECT_EQ(tr->translate_one(c["text"].get<std::string>(), o).target_ids,
                      c[lang].get<std::vector<int>>());
        }
    }
}

TEST(Directions, NoTargetMeansTheFirstDirection) {
    auto tr = load("tiny-multi");
    heed::TranslateOptions o;
    o.max_length = goldens()["max_length"];
    const json& c = goldens()["cases"][0];
    EXPECT_EQ(tr->translate({c["text"].get<std::string>()}, o)[0].target_ids,
              c["fr"].get<std::vector<int>>());
}

// The explainer re-runs the decoder from the same target token: its cross-attention weights are
// the translation's own, for a target that is not the default (with the default's start token
// they would differ, since the decoder's first input differs).
TEST(Directions, TheExplainerStartsFromTheTranslationsTarget) {
    auto tr = load("tiny-multi");
    heed::TranslateOptions o;
    o.max_length = goldens()["max_length"];
    o.return_attention = true;
    o.to = "de";
    const heed::Translation t = tr->translate({"A simple text editor"}, o).at(0);
    EXPECT_EQ(t.to, "de");
    EXPECT_EQ(tr->translate({"A simple text editor"}, heed::TranslateOptions{}).at(0).to, "fr");
    const std::size_t S = t.source_ids.size(), T = t.target_ids.size();
    const float* want = t.attention.cross.data.data();  // layer 0, head 0: [T, S]
    const heed::HeadExplanation e =
        tr->explain_head(t.source_ids, t.target_ids, heed::AttentionBlock::Cross, 0, 0, t.to);
    EXPECT_TRUE(heed::test::allclose(e.weights.data.data(), want, T * S, 1e-4, 1e-6));
    const heed::HeadExplanation wrong =
        tr->explain_head(t.source_ids, t.target_ids, heed::AttentionBlock::Cross, 0, 0, "fr");
    EXPECT_FALSE(heed::test::allclose(wrong.weights.data.data(), want, T * S, 1e-4, 1e-6));
}

TEST(Directions, SingleDirectionModelsNameTheirPair) {
    auto tr = load("tiny");
    EXPECT_EQ(tr->directions(), (std::vector<std::string>{"en-fr"}));
    heed::TranslateOptions o;
    o.to = "fr";
    EXPECT_NO_THROW(tr->translate({"A simple text editor"}, o));
}

TEST(Directions, UnknownTargetIsRefusedNamingTheDirections) {
    auto tr = load("tiny-multi");
    heed::TranslateOptions o;
    o.to = "es";
    const std::string msg = heed::test::error_of([&] { tr->translate({"hello"}, o); });
    EXPECT_NE(msg.find("cannot translate into 'es' (its directions: en-fr, en-de)"),
              std::string::npos)
        << msg;
}

TEST(Directions, MalformedLanguagesAreRefusedNamingTheField) {
    const heed::Vocabulary tok(
        heed::Tokenizer::from_bytes(heed::test::read_text(HEED_TEST_DATA "/spm_multi.model")));
    auto error = [&](const std::string& j) {
        return heed::test::error_of([&] { heed::Directions::parse(j, tok, 2); });
    };
    EXPECT_NE(error("[1]").find("not a JSON object"), std::string::npos);
    EXPECT_NE(error(R"({"source": "en"})").find("'target' must be a string"), std::string::npos);
    EXPECT_NE(error(R"({"directions": [], "target_tokens": {}})").find("non-empty array"),
              std::string::npos);
    EXPECT_NE(error(R"({"directions": ["ende"], "target_tokens": {}})").find("'ende'"),
              std::string::npos);
    EXPECT_NE(error(R"({"directions": ["en-de"], "target_tokens": {}})").find("'de'"),
              std::string::npos);
    EXPECT_NE(error(R"({"directions": ["en-de"], "target_tokens": {"de": "<2xx>"}})")
                  .find("'<2xx>' of 'de' is not a piece"),
              std::string::npos);
    const heed::Directions ok = heed::Directions::parse(
        R"({"directions": ["en-de", "de-en"], "target_tokens": {"de": "<2de>", "en": "<2en>"}})",
        tok, 2);
    EXPECT_EQ(ok.start_id("de"), tok.piece_to_id("<2de>"));
    EXPECT_EQ(ok.start_id("en"), tok.piece_to_id("<2en>"));
    EXPECT_EQ(ok.start_id(""), tok.piece_to_id("<2de>"));
}

}  // namespace
