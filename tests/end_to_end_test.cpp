// End-to-end numerics against PyTorch: the tiny committed models must reproduce the goldens
// of models/goldens/make_tiny_model.py (source ids, teacher-forced logits, every attention matrix,
// exact greedy and beam token ids).
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "decoding/search.h"
#include "model/model.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace {

using nlohmann::json;

const json& goldens() {
    static const json g = json::parse(heed::test::read_text(HEED_TEST_DATA "/tiny_goldens.json"));
    return g;
}

std::unique_ptr<heed::Translator> load(const std::string& name) {
    return heed::Translator::load_file(HEED_MODELS_DIR "/tiny/" + name + ".heed");
}

/// The model and tokenizer behind the façade (translator/loaded_model.h), for internals tests.
std::unique_ptr<heed::LoadedModel> parts(const std::string& name) {
    return heed::load_model_file(HEED_MODELS_DIR "/tiny/" + name + ".heed");
}

std::vector<float> concat(const json& per_layer) {
    std::vector<float> out;
    for (const json& layer : per_layer)
        for (float x : layer) out.push_back(x);
    return out;
}

class EndToEnd : public ::testing::TestWithParam<std::string> {};

TEST_P(EndToEnd, SourceIdsMatchSentencePiece) {
    auto tr = parts(GetParam());
    for (const json& c : goldens()[GetParam()]["cases"]) {
        std::vector<int> ids = tr->tokenizer.encode(c["text"].get<std::string>());
        ids.push_back(tr->model.config().eos_id);
        EXPECT_EQ(ids, c["source_ids"].get<std::vector<int>>()) << c["text"];
    }
}

TEST_P(EndToEnd, TeacherForcedLogitsMatchPyTorch) {
    auto tr = parts(GetParam());
    const heed::Model& m = tr->model;
    const int V = m.config().vocab_size;
    int checked = 0;
    for (const json& c : goldens()[GetParam()]["cases"]) {
        std::vector<float> want = c["teacher_logits"].get<std::vector<float>>();
        if (want.empty()) continue;
        std::vector<int> target = c["greedy_ids"].get<std::vector<int>>();
        heed::Memory mem = m.encode(c["source_ids"].get<std::vector<int>>());
        heed::DecoderState state(m.config(), 1, int(target.size()));
        std::vector<float> got(target.size() * V);
        int prev = m.config().decoder_start_id;
        for (std::size_t t = 0; t < target.size(); ++t) {
            m.step({&mem}, {prev}, state, got.data() + t * V);
            prev = target[t];
        }
        float scale = 0;
        for (float x : want) scale = std::max(scale, std::fabs(x));
        EXPECT_ALLCLOSE(got, want, 1e-4, 1e-4 * scale);
        ++checked;
    }
    EXPECT_EQ(checked, 2);
}

TEST_P(EndToEnd, GreedyIdsAndAttentionMatchPyTorch) {
    auto tr = load(GetParam());
    const json& g = goldens()[GetParam()];
    heed::TranslateOptions o;
    o.max_length = g["max_length"];
    o.return_attention = true;
    for (const json& c : g["cases"]) {
        heed::Translation t = tr->translate({c["text"].get<std::string>()}, o).at(0);
        ASSERT_EQ(t.target_ids, c["greedy_ids"].get<std::vector<int>>()) << c["text"];
        const json& a = c["attention"];
        EXPECT_ALLCLOSE(t.attention.encoder_self.data, concat(a["encoder"]), 1e-4, 1e-6);
        EXPECT_ALLCLOSE(t.attention.decoder_self.data, concat(a["decoder_self"]), 1e-4, 1e-6);
        EXPECT_ALLCLOSE(t.attention.cross.data, concat(a["cross"]), 1e-4, 1e-6);
        EXPECT_EQ(t.attention.steps.size(), t.target_ids.size());
    }
}

TEST_P(EndToEnd, BatchedGreedyEqualsOneAtATime) {
    auto tr = load(GetParam());
    const json& g = goldens()[GetParam()];
    heed::TranslateOptions o;
    o.max_length = g["max_length"];
    std::vector<std::string> texts;
    for (const json& c : g["cases"]) texts.push_back(c["text"]);
    std::vector<heed::Translation> batch = tr->translate(texts, o);
    for (std::size_t i = 0; i < texts.size(); ++i)
        EXPECT_EQ(batch[i].target_ids, g["cases"][i]["greedy_ids"].get<std::vector<int>>());
}

TEST_P(EndToEnd, BeamIdsAndScoreMatchPyTorch) {
    auto tr = load(GetParam());
    const json& g = goldens()[GetParam()];
    heed::TranslateOptions o;
    o.max_length = g["max_length"];
    o.beam_size = g["beam"];
    o.length_penalty = g["length_penalty"];
    for (const json& c : g["cases"]) {
        heed::Translation t = tr->translate({c["text"].get<std::string>()}, o).at(0);
        EXPECT_EQ(t.target_ids, c["beam_ids"].get<std::vector<int>>()) << c["text"];
        EXPECT_NEAR(t.score, c["beam_score"].get<float>(), 1e-4);
    }
}

TEST_P(EndToEnd, StepCallbackSeesEveryStepAndCanAbort) {
    auto tr = load(GetParam());
    const json& c = goldens()[GetParam()]["cases"][0];
    heed::TranslateOptions o;
    o.max_length = 20;
    o.return_attention = true;
    std::vector<int> seen;
    heed::Translation full = tr->translate_one(c["text"], o, [&](const heed::StepEvent& e) {
        seen.push_back(e.step);
        EXPECT_EQ(int(e.target_ids.size()), e.step + 1);
        EXPECT_EQ(e.decoder_self.shape[2], std::size_t(e.step + 1));  // this step's row only
        EXPECT_EQ(e.encoder_self != nullptr, e.step == 0);            // sent once
        return true;
    });
    EXPECT_EQ(int(seen.size()), int(full.target_ids.size()));
    int calls = 0;
    heed::Translation cut =
        tr->translate_one(c["text"], o, [&](const heed::StepEvent&) { return ++calls < 3; });
    EXPECT_EQ(cut.target_ids.size(), 3u);
}

// The rows the step events carry, put together, are the final trace (greedy, and beam search
// where the best hypothesis of the last step is the one chosen).
TEST_P(EndToEnd, StepEventsAddUpToTheFinalTrace) {
    auto tr = load(GetParam());
    for (int beam : {1, 3}) {
        const json& c = goldens()[GetParam()]["cases"][0];
        heed::TranslateOptions o;
        o.max_length = 12;
        o.beam_size = beam;
        o.return_attention = true;
        std::vector<heed::StepEvent> events;
        std::vector<float> encoder_self;
        heed::Translation full = tr->translate_one(c["text"], o, [&](const heed::StepEvent& e) {
            heed::StepEvent copy = e;
            if (e.encoder_self) encoder_self = e.encoder_self->data;
            copy.encoder_self = nullptr;
            events.push_back(std::move(copy));
            return true;
        });
        const heed::AttentionTrace& a = full.attention;
        EXPECT_EQ(encoder_self, a.encoder_self.data);
        const std::size_t L = a.cross.shape[0], H = a.cross.shape[1], T = a.cross.shape[2],
                          S = a.cross.shape[3];
        // beam: the last event is the last step's best live hypothesis, not always the winner
        const std::size_t n = std::min(events.size(), T);
        std::size_t compared = 0;
        for (std::size_t t = 0; t < n; ++t) {
            const heed::StepEvent& e = events[t];
            if (beam > 1 && std::vector<int>(full.target_ids.begin(),
                                             full.target_ids.begin() + t + 1) != e.target_ids)
                continue;  // why: a hypothesis that did not win
            ++compared;
            for (std::size_t lh = 0; lh < L * H; ++lh) {
                for (std::size_t s = 0; s < S; ++s)
                    EXPECT_EQ(e.cross.data[lh * S + s], a.cross.data[(lh * T + t) * S + s]);
                for (std::size_t k = 0; k <= t; ++k)
                    EXPECT_EQ(e.decoder_self.data[lh * (t + 1) + k],
                              a.decoder_self.data[(lh * T + t) * T + k]);
            }
        }
        if (beam == 1) {
            EXPECT_EQ(events.size(), T);
            EXPECT_EQ(compared, T);
        }
        EXPECT_GT(compared, 0u) << "beam " << beam;
    }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, EndToEnd, ::testing::Values("tiny", "tiny-post"));

TEST(TranslatorErrors, BadTextGivesClearMessages) {
    auto tr = load("tiny");
    heed::TranslateOptions o;
    auto message = [&](const std::string& text) {
        try {
            tr->translate({text}, o);
        } catch (const heed::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("").find("empty text"), std::string::npos);
    EXPECT_NE(message("  \t \n").find("empty text"), std::string::npos);
    EXPECT_NE(message("abc \xff\xfe def").find("not valid UTF-8"), std::string::npos);
    EXPECT_NE(message("over\xc0\xaflong").find("not valid UTF-8"), std::string::npos);
    std::string long_text;
    for (int i = 0; i < 400; ++i) long_text += "word ";
    EXPECT_NE(message(long_text).find("too long"), std::string::npos);
    EXPECT_NE(message(std::string(30000, 'a')).find("too long"), std::string::npos);
}

TEST(TranslatorErrors, BadOptionsAreRejected) {
    auto tr = load("tiny");
    heed::TranslateOptions o;
    o.beam_size = 0;
    EXPECT_THROW(tr->translate({"hello"}, o), heed::Error);
    o.beam_size = 1;
    o.max_length = -1;
    EXPECT_THROW(tr->translate({"hello"}, o), heed::Error);
    o.max_length = 0;
    o.length_penalty = std::nanf("");
    EXPECT_THROW(tr->translate({"hello"}, o), heed::Error);
}

TEST(TranslatorErrors, BadModelFilesAreRejected) {
    EXPECT_THROW(heed::Translator::load_file("/nonexistent/model.heed"), heed::Error);
    std::string bytes = heed::test::read_text(HEED_MODELS_DIR "/tiny/tiny.heed");
    for (std::size_t cut : {std::size_t(0), std::size_t(7), bytes.size() / 2, bytes.size() - 1})
        EXPECT_THROW(
            heed::Translator::load(reinterpret_cast<const std::uint8_t*>(bytes.data()), cut),
            heed::Error)
            << "truncated at " << cut;
}

TEST(Explain, HeadMatchesTheTrace) {
    auto tr = load("tiny");
    heed::TranslateOptions o;
    o.max_length = 20;
    o.return_attention = true;
    heed::Translation t = tr->translate({"A simple text editor"}, o).at(0);
    const std::size_t S = t.source_ids.size(), T = t.target_ids.size();
    const int H = parts("tiny")->model.config().heads;
    for (int layer = 0; layer < 2; ++layer) {
        for (int head = 0; head < H; ++head) {
            heed::HeadExplanation e = tr->explain_head(t.source_ids, t.target_ids,
                                                       heed::AttentionBlock::Cross, layer, head);
            const float* want = t.attention.cross.data.data() + (layer * H + head) * T * S;
            EXPECT_TRUE(heed::test::allclose(e.weights.data.data(), want, T * S, 1e-4, 1e-6));
            heed::HeadExplanation d = tr->explain_head(
                t.source_ids, t.target_ids, heed::AttentionBlock::DecoderSelf, layer, head);
            const float* want_self =
                t.attention.decoder_self.data.data() + (layer * H + head) * T * T;
            EXPECT_TRUE(heed::test::allclose(d.weights.data.data(), want_self, T * T, 1e-4, 1e-6));
            heed::HeadExplanation s = tr->explain_head(
                t.source_ids, t.target_ids, heed::AttentionBlock::EncoderSelf, layer, head);
            const float* want_enc =
                t.attention.encoder_self.data.data() + (layer * H + head) * S * S;
            EXPECT_TRUE(heed::test::allclose(s.weights.data.data(), want_enc, S * S, 1e-4, 1e-6));
        }
    }
    EXPECT_THROW(tr->explain_head(t.source_ids, t.target_ids, heed::AttentionBlock::Cross, 5, 0),
                 heed::Error);
}

}  // namespace
