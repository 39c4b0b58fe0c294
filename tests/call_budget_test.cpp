// One call's budget (translator/call_budget.h), the same for a CLI text and an npm call: at most
// 256 texts, 20,000 bytes per text, 65,536 bytes and 1,024 sentences in all, each refused with a
// message naming the limit before any sentence is translated; at the limit itself it passes.
#include "translator/call_budget.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "test_util.h"

namespace heed {
namespace {

using test::error_of;

/// `n` short sentences in one text ("Ab cd. Ab cd. ..."), each 7 bytes with its space.
std::string sentences(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += i ? " Ab cd." : "Ab cd.";
    return s;
}

TEST(CallBudget, TheLimitsAreTheDocumentedOnes) {
    EXPECT_EQ(kCallLimits.text_bytes, 20000u);
    EXPECT_EQ(kCallLimits.texts, 256u);
    EXPECT_EQ(kCallLimits.bytes, 65536u);
    EXPECT_EQ(kCallLimits.sentences, 1024u);
}

TEST(CallBudget, ATextOverTwentyThousandBytesIsRefusedWhateverItsSentences) {
    const std::string at_limit = std::string(19999, 'a') + ".";
    EXPECT_EQ(split_call({at_limit}, true).size(), 1u);
    // a paragraph of short sentences: each would pass alone, the text does not
    const std::string paragraph = sentences(2900);  // 20,299 bytes
    const std::string e = error_of([&] { split_call({paragraph}, true); });
    EXPECT_NE(e.find("text is too long (20299 bytes; at most 20000)"), std::string::npos) << e;
    const std::string in_batch = error_of([&] { split_call({"A b.", paragraph}, false); });
    EXPECT_NE(in_batch.find("text 2 is too long"), std::string::npos) << in_batch;
}

TEST(CallBudget, TooManyTextsBytesOrSentencesAreRefused) {
    std::string e = error_of([&] { split_call(std::vector<std::string>(257, "A b."), true); });
    EXPECT_NE(e.find("at most 256 texts (got 257)"), std::string::npos) << e;
    const std::vector<std::string> big(4, std::string(16385, 'a'));  // 65,540 bytes
    e = error_of([&] { split_call(big, true); });
    EXPECT_NE(e.find("at most 65536 bytes of text (got 65540)"), std::string::npos) << e;
    const std::vector<std::string> many(2, sentences(513));  // 1,026 sentences
    e = error_of([&] { split_call(many, true); });
    EXPECT_NE(e.find("at most 1024 sentences (got 1026)"), std::string::npos) << e;
    EXPECT_EQ(split_call(many, false).size(), 2u);  // unsplit: two sequences
    const std::vector<std::string> at_limit(2, sentences(512));
    const auto spans = split_call(at_limit, true);
    EXPECT_EQ(spans[0].size() + spans[1].size(), 1024u);
}

TEST(CallBudget, ABlankTextIsOneSpanAndASentenceKeepsItsOwnSpan) {
    const auto spans = split_call({"", "   ", "  One sentence  "}, true);
    for (const auto& s : spans) EXPECT_EQ(s.size(), 1u);
    EXPECT_EQ(spans[1][0].end, 3u);  // blank: the text whole, for the engine's message
    EXPECT_EQ(spans[2][0].begin, 2u);
    EXPECT_EQ(spans[2][0].end, 14u);
}

}  // namespace
}  // namespace heed
