// split_sentences: the boundaries it finds, the ones it must not, and that spans plus gaps
// rebuild the text exactly.
#include "translator/sentence_splitter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace heed {
namespace {

std::vector<std::string> sentences(const std::string& text) {
    std::vector<std::string> out;
    for (const TextSpan& s : split_sentences(text))
        out.push_back(text.substr(s.begin, s.end - s.begin));
    return out;
}

using V = std::vector<std::string>;

TEST(SentenceSplitter, OneSentenceIsOneSpanWithoutItsSurroundingSpace) {
    EXPECT_EQ(sentences("  Where is the train station?  "), V{"Where is the train station?"});
    EXPECT_EQ(sentences("no final stop"), V{"no final stop"});
}

TEST(SentenceSplitter, EmptyAndBlankTextGiveNoSentences) {
    EXPECT_TRUE(split_sentences("").empty());
    EXPECT_TRUE(split_sentences(" \t\n\r\n \xC2\xA0").empty());
}

TEST(SentenceSplitter, FullStopsQuestionAndExclamationMarks) {
    EXPECT_EQ(sentences("I would like a coffee. Where is the station? Thank you!"),
              (V{"I would like a coffee.", "Where is the station?", "Thank you!"}));
    EXPECT_EQ(sentences("Wirklich?! Ja... Gut."), (V{"Wirklich?!", "Ja...", "Gut."}));
    EXPECT_EQ(sentences("Quoi\xE2\x80\xAF? Bien s\xC3\xBBr."),
              (V{"Quoi\xE2\x80\xAF?", "Bien s\xC3\xBBr."}));
}

TEST(SentenceSplitter, ClosingQuotesAndBracketsStayWithTheirSentence) {
    EXPECT_EQ(sentences("He said \"Stop.\" Then he left. (It was late.) Next."),
              (V{"He said \"Stop.\"", "Then he left.", "(It was late.)", "Next."}));
    EXPECT_EQ(sentences("\xC2\xAB Oui. \xC2\xBB Non."), (V{"\xC2\xAB Oui. \xC2\xBB Non."}))
        << "a space before the closing guillemet: the French style is not split inside quotes";
}

TEST(SentenceSplitter, LowerCaseAfterTheStopIsNoBoundary) {
    EXPECT_EQ(sentences("Wait... what happened? nothing."), (V{"Wait... what happened? nothing."}));
    EXPECT_EQ(sentences("Die Datei (ca. zehn Seiten) fehlt."),
              (V{"Die Datei (ca. zehn Seiten) fehlt."}));
    EXPECT_EQ(sentences("Fin. \xC3\xA9t\xC3\xA9 chaud."), (V{"Fin. \xC3\xA9t\xC3\xA9 chaud."}))
        << "é is lower case";
    EXPECT_EQ(sentences("Ende. \xC3\x84pfel sind rot."), (V{"Ende.", "\xC3\x84pfel sind rot."}))
        << "Ä is upper case";
}

TEST(SentenceSplitter, AbbreviationsInitialsDottedWordsAndOrdinals) {
    EXPECT_EQ(sentences("Dr. Smith met Mr. Jones. They talked."),
              (V{"Dr. Smith met Mr. Jones.", "They talked."}));
    EXPECT_EQ(sentences("Use a tool, e.g. Vim. It works."),
              (V{"Use a tool, e.g. Vim.", "It works."}));
    EXPECT_EQ(sentences("Siehe z.B. Kapitel 3. Mai ist warm."),
              (V{"Siehe z.B. Kapitel 3. Mai ist warm."}));
    EXPECT_EQ(sentences("Am 3. Mai kam J. R. Smith. Er blieb."),
              (V{"Am 3. Mai kam J. R. Smith.", "Er blieb."}));
    EXPECT_EQ(sentences("Mme. Dupont arrive. Elle part."),
              (V{"Mme. Dupont arrive.", "Elle part."}));
    EXPECT_EQ(sentences("It costs 2024. Then it rose."), (V{"It costs 2024.", "Then it rose."}))
        << "only numbers of one or two digits read as ordinals";
}

TEST(SentenceSplitter, NumbersUrlsAndDotsInsideWordsAreNoBoundary) {
    EXPECT_EQ(sentences("Version 3.5 is out. See example.org for more."),
              (V{"Version 3.5 is out.", "See example.org for more."}));
}

TEST(SentenceSplitter, EveryLineBreakEndsASentence) {
    EXPECT_EQ(sentences("Title\nFirst line, no stop\r\n\r\nSecond paragraph. More here.\n"),
              (V{"Title", "First line, no stop", "Second paragraph.", "More here."}));
    EXPECT_EQ(sentences("Dr.\nSmith"), (V{"Dr.", "Smith"}));
}

TEST(SentenceSplitter, WideFullStopsNeedNoSpace) {
    EXPECT_EQ(sentences("\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82\xE8\xB0\xA2\xE8\xB0\xA2\xEF\xBC\x81"),
              (V{"\xE4\xBD\xA0\xE5\xA5\xBD\xE3\x80\x82", "\xE8\xB0\xA2\xE8\xB0\xA2\xEF\xBC\x81"}));
}

TEST(SentenceSplitter, SpansAndGapsRebuildAnyTextExactly) {
    const std::string alphabet[] = {
        "a", "B",        ". ",           "? ", "!", "\n",           " ",    "Dr",
        "3", "\xC3\xA9", "\xE2\x80\xA6", "\"", ")", "\xE3\x80\x82", "\xFF", "\xC3"};
    std::mt19937 rng(7);
    for (int round = 0; round < 2000; ++round) {
        std::string text;
        const int len = static_cast<int>(rng() % 40);
        for (int i = 0; i < len; ++i) text += alphabet[rng() % std::size(alphabet)];
        const std::vector<TextSpan> spans = split_sentences(text);
        std::string rebuilt;
        std::size_t at = 0;
        for (const TextSpan& s : spans) {
            ASSERT_LE(at, s.begin) << text;
            ASSERT_LT(s.begin, s.end) << text;
            ASSERT_FALSE(text[s.begin] == ' ' || text[s.begin] == '\n') << text;
            ASSERT_FALSE(text[s.end - 1] == ' ' || text[s.end - 1] == '\n') << text;
            for (std::size_t i = at; i < s.begin; ++i)
                ASSERT_TRUE(text[i] == ' ' || text[i] == '\n') << "gap holds non-space: " << text;
            rebuilt += text.substr(at, s.end - at);
            at = s.end;
        }
        ASSERT_LE(at, text.size());
        for (std::size_t i = at; i < text.size(); ++i)
            ASSERT_TRUE(text[i] == ' ' || text[i] == '\n') << text;
        rebuilt += text.substr(at);
        ASSERT_EQ(rebuilt, text);
    }
}

}  // namespace
}  // namespace heed
