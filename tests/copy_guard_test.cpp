// The copy guard: which spans a source holds (translator/copy_spans.h), where a hypothesis is
// inside one and what it may write next (decoding/copy_guard.h), on made-up pieces; then the
// four-way model, whose unguarded search writes "λνκκυφγ" as "λνκυφγ".
#include "decoding/copy_guard.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"
#include "translator/copy_spans.h"
#include "translator/translator.h"

namespace {

using heed::CopySpan;

std::vector<std::string> texts_of(const std::vector<CopySpan>& spans) {
    std::vector<std::string> out;
    for (const CopySpan& s : spans) out.push_back(s.text);
    return out;
}

TEST(CopySpans, RunsOfOtherScriptsAndEmojiAndUrls) {
    const auto spans = heed::copy_spans(
        "The word λόγος, in Russian слово (see https://example.org/a/b). 😀👍 and 東京駅!");
    EXPECT_EQ(texts_of(spans), (std::vector<std::string>{"λόγος", "слово", "😀👍", "東京駅",
                                                         "https://example.org/a/b"}));
    EXPECT_EQ(spans[0].trigger, std::string("λ").size());  // one whole character
    // four bytes: an emoji's lead bytes alone name no emoji
    EXPECT_EQ(spans[2].trigger, std::string("😀").size());
    EXPECT_EQ(spans[4].trigger, std::string("https://e").size());
}

TEST(CopySpans, LatinTextPunctuationAndSingleCharactersAreNoSpans) {
    EXPECT_TRUE(heed::copy_spans("Ça coûte 5 € „genau“ – naïve œuvre… ™ № Ærø").empty());
    EXPECT_TRUE(heed::copy_spans("x → y, Ω alone, 😀 alone").empty());
    EXPECT_TRUE(heed::copy_spans("http:// https://").empty());
    EXPECT_FALSE(heed::must_copy(U'é'));
    EXPECT_FALSE(heed::must_copy(U'ẞ'));
    EXPECT_FALSE(heed::must_copy(U'\uFFFD'));
    EXPECT_TRUE(heed::must_copy(U'ж'));
    EXPECT_TRUE(heed::must_copy(U'\u200D'));  // the joiner inside an emoji sequence
}

TEST(CopySpans, UrlLosesTrailingPunctuationAndWwwCountsAsScheme) {
    const auto spans = heed::copy_spans("Go to (https://www.ofdo.net/neezps), or http://a.de.");
    ASSERT_EQ(texts_of(spans),
              (std::vector<std::string>{"https://www.ofdo.net/neezps", "http://a.de"}));
    EXPECT_EQ(spans[0].trigger, std::string("https://www.o").size());
    EXPECT_EQ(heed::copy_spans("xhttps://a.de").size(), 0u);  // not at the start of a word
}

TEST(CopySpans, EachSpanOnce) { EXPECT_EQ(heed::copy_spans("слово и слово").size(), 1u); }

std::string_view rest(std::string_view written, const std::vector<CopySpan>& spans) {
    return heed::copy_rest(written, spans);
}

TEST(CopyRest, InsideABegunSpanUntilItEnds) {
    const std::vector<CopySpan> spans{{"οζζεψ", std::string("ο").size()}};
    EXPECT_EQ(rest("counted from ο", spans), "ζζεψ");
    EXPECT_EQ(rest("counted from οζ", spans), "ζεψ");
    EXPECT_EQ(rest("counted from οζζεψ", spans), "");
    EXPECT_EQ(rest("counted from οζζεψ.", spans), "");
    EXPECT_EQ(rest("counted from", spans), "");
    EXPECT_EQ(rest("", spans), "");
}

TEST(CopyRest, NothingBeforeTheTrigger) {
    const std::vector<CopySpan> url{{"https://www.ofdo.net/x", 13}};
    EXPECT_EQ(rest("see https://www.", url), "");
    EXPECT_EQ(rest("see https://www.o", url), "fdo.net/x");
    const std::vector<CopySpan> emoji{{"😀👍", 4}};
    EXPECT_EQ(rest(std::string("a ") + std::string("😀").substr(0, 3), emoji), "");
    EXPECT_EQ(rest("a 😀", emoji), "👍");
}

TEST(CopyRest, ASpanWrittenWholeDoesNotBeginAgainInsideItself) {
    const std::vector<CopySpan> spans{{"ωω", std::string("ω").size()}};
    EXPECT_EQ(rest("ω", spans), "ω");
    EXPECT_EQ(rest("ωω", spans), "");    // finished: its second ω starts nothing
    EXPECT_EQ(rest("ωωω", spans), "ω");  // a third begins the span again
}

TEST(CopyRest, TheLongestBegunSpanWins) {
    const std::vector<CopySpan> spans{{"жук", 2}, {"жюзж", 2}};
    EXPECT_EQ(rest("ж", spans), "ук");  // both begun; equal length, the first listed
    EXPECT_EQ(rest("жю", spans), "зж");
    EXPECT_EQ(rest("жу", spans), "к");
}

/// Made-up target pieces: 0 </s>, then " ο", "ο", "ζ", "ζζ", "εψ", "εψ.", "εψa", "the", and
/// the byte pieces 0xCE (the lead byte of ζ and ε), 0xB6 (ζ's second), 0xB5 (ε's) and 0xE2
/// (U+2000..U+2FFF: general punctuation, arrows...).
const heed::PieceTexts& pieces() {
    static const heed::PieceTexts p = [] {
        heed::PieceTexts t{
            {"", " ο", "ο", "ζ", "ζζ", "εψ", "εψ.", "εψa", "the", "\xCE", "\xB6", "\xB5", "\xE2"},
            {},
            {}};
        heed::index_copied(t);
        return t;
    }();
    return p;
}

std::vector<int> kept(std::string_view rest, const heed::OutputLayer* shortlist = nullptr,
                      int minus_inf_at = -1) {
    const heed::OutputColumns cols{shortlist, int(pieces().text.size())};
    std::vector<float> row(std::size_t(cols.size()), -1.0f);
    if (minus_inf_at >= 0) row[std::size_t(minus_inf_at)] = -INFINITY;
    heed::keep_span(row.data(), cols, pieces(), rest);
    std::vector<int> out;
    for (int c = 0; c < cols.size(); ++c)
        if (std::isfinite(row[std::size_t(c)])) out.push_back(cols.id(c));
    return out;
}

TEST(KeepSpan, OnlyPiecesThatGoOnSpellingTheRest) {
    EXPECT_EQ(kept("ζζεψ"), (std::vector<int>{3, 4, 9}));  // ζ, ζζ, and ζ's lead byte
    // "εψ." ends it with punctuation, "εψa" would run on; 0xCE is ε's lead byte as well
    EXPECT_EQ(kept("εψ"), (std::vector<int>{5, 6, 9}));
    EXPECT_EQ(kept(""), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(KeepSpan, LeavesARowWhereNoContinuationIsScoreable) {
    heed::OutputLayer shortlist;
    shortlist.ids = {0, 2, 8};  // no ζ piece
    EXPECT_EQ(kept("ζεψ", &shortlist), (std::vector<int>{0, 2, 8}));
    EXPECT_EQ(kept("εψ", nullptr, 5), (std::vector<int>{6, 9}));  // εψ is -inf already
    std::vector<float> row(pieces().text.size(), -INFINITY);
    heed::keep_span(row.data(), {nullptr, int(row.size())}, pieces(), "ζ");
    for (float v : row) EXPECT_TRUE(std::isinf(v));
}

TEST(KeepSpan, WrittenTextSpellsSpacesAndBytes) {
    EXPECT_EQ(heed::written_text({8, 1, 3, 0}, pieces()), "the οζ");
    EXPECT_EQ(heed::written_text({9}, pieces()), "\xCE");
}

TEST(PieceTexts, IndexedAreThePiecesWithCharactersToCopyAndHighBytes) {
    EXPECT_EQ(pieces().copied_ids, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12}));
    EXPECT_EQ(pieces().copied_chars[0], U"ο");
    EXPECT_EQ(pieces().copied_chars[4], U"εψ");
    EXPECT_EQ(pieces().copied_chars[7], U"");  // a byte piece
}

/// The ids keep_uninvented leaves scoreable after `written`, with `allowed` characters.
std::vector<int> uninvented(const std::u32string& allowed, std::string_view written = "the ") {
    const heed::OutputColumns cols{nullptr, int(pieces().text.size())};
    std::vector<float> row(std::size_t(cols.size()), -1.0f);
    heed::keep_uninvented(row.data(), cols, pieces(), allowed, written);
    std::vector<int> out;
    for (int c = 0; c < cols.size(); ++c)
        if (std::isfinite(row[std::size_t(c)])) out.push_back(c);
    return out;
}

TEST(KeepUninvented, NoCharacterToCopyTheSourceLacks) {
    // no Greek in the source: no Greek piece, no byte that can only begin Greek (0xCE); a
    // continuation byte alone is the UTF-8 guard's to judge, 0xE2 may begin punctuation
    EXPECT_EQ(uninvented(U""), (std::vector<int>{0, 8, 10, 11, 12}));
    // ζ in the source: ζ and ζζ, and 0xCE, which may begin it
    EXPECT_EQ(uninvented(U"ζ"), (std::vector<int>{0, 3, 4, 8, 9, 10, 11, 12}));
    EXPECT_EQ(uninvented(U"εζοψ"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(KeepUninvented, AnOpenCharacterMayOnlyBecomeAnAllowedOne) {
    // after the lead byte 0xCE: 0xB6 makes ζ (allowed), 0xB5 makes ε (not)
    EXPECT_EQ(uninvented(U"ζ", "the \xCE"), (std::vector<int>{0, 3, 4, 8, 9, 10, 12}));
    // (0xCE and 0xE2 would not continue 0xCE at all: the UTF-8 guard's to ban)
    EXPECT_EQ(uninvented(U"", "the \xCE"), (std::vector<int>{0, 8, 9, 12}));
}

TEST(KeepUninvented, LeavesARowWhereNothingElseIsScoreable) {
    const heed::OutputColumns cols{nullptr, int(pieces().text.size())};
    std::vector<float> row(std::size_t(cols.size()), -INFINITY);
    row[2] = -1.0f;  // "ο" alone
    heed::keep_uninvented(row.data(), cols, pieces(), U"", "the ");
    EXPECT_TRUE(std::isfinite(row[2]));
}

TEST(CopyRules, SpansAndEveryCharacterToCopy) {
    const heed::CopyRules r = heed::copy_rules("Ω and ωω, 😀 and слово");
    EXPECT_EQ(texts_of(r.spans), (std::vector<std::string>{"ωω", "слово"}));
    EXPECT_EQ(r.chars, U"Ωωвлос😀");  // ascending, each once
}

// The four-way model: without the guard, greedy and beam search write "mandb(λνκυφγ)" for
// "mandb(λνκκυφγ)" in a man page's three sentences taken as one (the copy check, en → fr); the
// guard keeps what the model began whole.
// why both ways: a later model that copies this itself makes the test say so, instead of
// passing without the guard doing anything (then take a span it drops from the copy check).
TEST(CopyGuardModel, KeepsABegunRunWhole) {
    auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/multi.heed");
    for (int beam : {1, 4}) {
        heed::TranslateOptions o;
        o.to = "fr";
        o.beam_size = beam;
        const std::vector<std::string> source{
            "It is extremely important that this format is followed, and that there is a "
            "backslash before the single dash which follows the item name. This syntax is used "
            "by the mandb(λνκκυφγ) program to create a database of short descriptions for the "
            "whatis(1) and apropos(1) commands. (See lexgrog(1) for further details on the "
            "syntax of the NAME section.)"};
        const std::string text = tr->translate(source, o).at(0).text;
        EXPECT_NE(text.find("λνκκυφγ"), std::string::npos) << "beam " << beam << ": " << text;
        o.copy_guard = false;
        const std::string raw = tr->translate(source, o).at(0).text;
        EXPECT_EQ(raw.find("λνκκυφγ"), std::string::npos) << "beam " << beam << ": " << raw;
        EXPECT_NE(raw.find("λνκυφγ"), std::string::npos) << "beam " << beam << ": " << raw;
    }
}

}  // namespace
