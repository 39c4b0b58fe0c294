// Control pieces belong to the model, never to the user's text or to the output: a target-language
// token ("<2de>"), "<s>", "</s>" or "<pad>" typed into a sentence (at its start, middle or end)
// is spelt out of ordinary pieces, the decoder never emits a start or control piece other than
// </s>, and a forced prefix that would make it do so is refused with a message saying why.
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "decoding/search.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocabulary.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace heed {
namespace {

using test::error_of;

const std::vector<std::string> kControlStrings = {"<2de>", "<2fr>", "<2en>",
                                                  "<s>",   "</s>",  "<pad>"};

/// The sentence with `control` typed at its start, in its middle and at its end.
std::vector<std::string> typed_in(const std::string& control) {
    return {control + " This package contains the development files.",
            "Please read " + control + " the manual.", "A simple text editor " + control};
}

/// The ids of the control strings' pieces (the model's own: never text, never output but </s>).
std::vector<int> owned_ids(const Vocabulary& t) {
    std::vector<int> ids;
    for (const std::string& c : kControlStrings) ids.push_back(t.piece_to_id(c));
    std::sort(ids.begin(), ids.end());
    return ids;
}

const LoadedModel& multi() {
    static const std::unique_ptr<LoadedModel> m = load_model_file(HEED_MODELS_DIR "/multi.heed");
    return *m;
}

TEST(ControlPieces, TheTargetTokensAreUserDefinedPiecesOfTheSentencePieceModel) {
    // why: the premise of the tests below: the raw tokenizer matches "<2de>" as one piece
    const Tokenizer raw = Tokenizer::from_bytes(test::read_text(HEED_TEST_DATA "/spm_multi.model"));
    const int id = raw.piece_to_id("<2de>");
    const std::vector<int> typed = raw.encode("<2de> Hello");
    EXPECT_EQ(std::count(typed.begin(), typed.end(), id), 1);
    EXPECT_FALSE(raw.is_control(id));
    Tokenizer t = raw;
    t.make_control({id});
    EXPECT_TRUE(t.is_control(id));
    const std::vector<int> ids = t.encode("<2de> Hello");
    EXPECT_EQ(std::count(ids.begin(), ids.end(), id), 0);
    EXPECT_EQ(t.decode(ids), "<2de> Hello");  // spelt out, so nothing is lost
    EXPECT_EQ(t.decode({id}), "");            // a control piece decodes to nothing
}

TEST(ControlPieces, TypedAtStartMiddleAndEndTheyNeverBecomeControlIds) {
    const LoadedModel& m = multi();
    const std::vector<int> controls = owned_ids(m.tokenizer);
    ASSERT_EQ(controls.size(), kControlStrings.size());
    for (const std::string& control : kControlStrings)
        for (const std::string& text : typed_in(control)) {
            const std::vector<int> ids = m.tokenizer.encode(text);
            for (int id : ids)
                EXPECT_FALSE(std::binary_search(controls.begin(), controls.end(), id))
                    << text << ": piece '" << m.tokenizer.piece(id) << "' is a control piece";
            EXPECT_EQ(m.tokenizer.decode(ids), text);
        }
}

TEST(ControlPieces, TheTranslationOfTypedControlStringsHoldsNoControlPiece) {
    auto tr = Translator::load_file(HEED_MODELS_DIR "/multi.heed");
    const LoadedModel& m = multi();
    const std::vector<int> owned = owned_ids(m.tokenizer);
    const auto is_owned = [&](int id) {
        return std::binary_search(owned.begin(), owned.end(), id) || m.tokenizer.is_control(id);
    };
    for (const char* to : {"en", "de", "fr"})
        for (const std::string& control : kControlStrings) {
            TranslateOptions o;
            o.to = to;
            o.max_length = 24;
            o.return_attention = true;
            for (const Translation& t : tr->translate(typed_in(control), o)) {
                EXPECT_EQ(t.to, to);
                for (std::size_t i = 0; i < t.source_ids.size(); ++i)
                    EXPECT_TRUE(i + 1 == t.source_ids.size() || !is_owned(t.source_ids[i]))
                        << t.source_tokens[i];
                for (std::size_t i = 0; i < t.target_ids.size(); ++i) {
                    const bool last_eos = i + 1 == t.target_ids.size() && t.target_ids[i] == 3;
                    EXPECT_TRUE(last_eos || !is_owned(t.target_ids[i]))
                        << control << " -> " << to << ": emitted '" << t.target_tokens[i] << "'";
                }
                for (const StepTrace& step : t.attention.steps)
                    for (const Candidate& c : step.top)
                        EXPECT_TRUE(c.id == 3 || !is_owned(c.id)) << c.piece;
            }
        }
}

TEST(ControlPieces, TheSearchNeverTakesABannedPieceEvenItsFavourite) {
    auto m = load_model_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    const std::vector<int> src = m->tokenizer.encode("A simple text editor");
    std::vector<int> ids = src;
    ids.push_back(m->model.config().eos_id);
    const Memory memory = m->model.encode(ids);
    SearchOptions so;
    so.max_length = 12;
    so.return_attention = true;
    for (int beam : {1, 3}) {
        so.beam_size = beam;
        so.banned = nullptr;
        const Hypothesis free = beam == 1 ? greedy_search(m->model, {&memory}, so)[0]
                                          : beam_search(m->model, memory, so);
        ASSERT_FALSE(free.tokens.empty());
        const std::vector<int> banned = {free.tokens[0]};  // the piece it takes first
        so.banned = &banned;
        const Hypothesis h = beam == 1 ? greedy_search(m->model, {&memory}, so)[0]
                                       : beam_search(m->model, memory, so);
        EXPECT_EQ(std::count(h.tokens.begin(), h.tokens.end(), banned[0]), 0) << "beam " << beam;
        for (const StepRecord& r : h.steps)
            EXPECT_EQ(std::count(r.top_ids.begin(), r.top_ids.end(), banned[0]), 0);
    }
}

TEST(ControlPieces, AForcedPrefixCannotHoldAControlPieceOrStartWithTheEnd) {
    auto tr = Translator::load_file(HEED_MODELS_DIR "/multi.heed");
    const LoadedModel& m = multi();
    TranslateOptions o;
    o.to = "de";
    o.forced_prefix = {m.tokenizer.piece_to_id("<2de>")};
    std::string e = error_of([&] { tr->translate({"A simple text editor"}, o); });
    EXPECT_NE(e.find("forcedPrefix[0] = 4 is the control piece '<2de>'"), std::string::npos) << e;
    o.forced_prefix = {m.tokenizer.bos_id()};
    e = error_of([&] { tr->translate({"A simple text editor"}, o); });
    EXPECT_NE(e.find("control piece '<s>'"), std::string::npos) << e;
    o.forced_prefix = {3};
    e = error_of([&] { tr->translate({"A simple text editor"}, o); });
    EXPECT_NE(e.find("forcedPrefix[0] = 3 is </s>: a translation that ends before its first"),
              std::string::npos)
        << e;
    const Translation free = tr->translate({"A simple text editor"}, TranslateOptions{})[0];
    o.forced_prefix = {free.target_ids[0], 3, free.target_ids[0]};
    e = error_of([&] { tr->translate({"A simple text editor"}, o); });
    EXPECT_NE(e.find("forcedPrefix[1] = 3 is </s>, which ends the translation"), std::string::npos)
        << e;
    o.forced_prefix = {free.target_ids[0], 3};  // "what if it ended here": allowed
    const Translation ended = tr->translate({"A simple text editor"}, o)[0];
    EXPECT_EQ(ended.target_ids, o.forced_prefix);
}

TEST(ControlPieces, AHugeTargetLanguageIsCutInTheMessage) {
    auto tr = Translator::load_file(HEED_MODELS_DIR "/multi.heed");
    TranslateOptions o;
    o.to = std::string(1 << 20, 'x');
    const std::string e = error_of([&] { tr->translate({"A simple text editor"}, o); });
    EXPECT_LT(e.size(), 300u) << e.substr(0, 300);
    EXPECT_NE(e.find("(1048576 bytes)"), std::string::npos) << e.substr(0, 300);
}

}  // namespace
}  // namespace heed
