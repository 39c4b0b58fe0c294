// Batches: a refused text gives its own error item while the others are
// translated, and a batch over the documented limits (kMaxBatchTexts texts, kMaxBatchPieces
// source pieces) is refused before anything is decoded. Not the single-text checks
// (end_to_end_test.cpp's TranslatorErrors).
#include <string>
#include <vector>

#include "core/error.h"
#include "test_util.h"
#include "translator/translator.h"

namespace heed {
namespace {

using test::error_of;

TEST(Batch, ARefusedTextIsItsOwnErrorItem) {
    auto tr = Translator::load_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    TranslateOptions o;
    o.max_length = 12;
    const std::vector<std::string> texts = {"A simple text editor", "", "abc\xff",
                                            std::string(30000, 'a'), "This package"};
    const std::vector<BatchItem> items = tr->translate_batch(texts, o);
    ASSERT_EQ(items.size(), texts.size());
    EXPECT_TRUE(items[0].ok);
    EXPECT_NE(items[1].error.find("empty text"), std::string::npos) << items[1].error;
    EXPECT_NE(items[2].error.find("not valid UTF-8"), std::string::npos) << items[2].error;
    EXPECT_NE(items[3].error.find("too long"), std::string::npos) << items[3].error;
    EXPECT_TRUE(items[4].ok);
    for (std::size_t i : {std::size_t(0), std::size_t(4)})
        EXPECT_EQ(items[i].translation.target_ids, tr->translate({texts[i]}, o)[0].target_ids)
            << "item " << i << " differs from translating it alone";
}

TEST(Batch, TooManyTextsAreRefused) {
    auto tr = Translator::load_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    const std::vector<std::string> texts(kMaxBatchTexts + 1, "A simple text editor");
    const std::string e = error_of([&] { tr->translate_batch(texts, {}); });
    EXPECT_NE(e.find("at most 256 texts (got 257)"), std::string::npos) << e;
}

TEST(Batch, TooManyPiecesInAllAreRefusedBeforeDecoding) {
    // why: the shipped model takes 249 pieces a sentence; the tiny one (63) cannot reach the cap
    auto tr = Translator::load_file(HEED_MODELS_DIR "/en-fr.heed");
    std::string sixty_words;
    for (int i = 0; i < 60; ++i) sixty_words += "configuration files ";
    const std::vector<std::string> texts(200, sixty_words);  // ~130 pieces each
    const std::string e = error_of([&] { tr->translate_batch(texts, {}); });
    EXPECT_NE(e.find("at most 16384 source pieces in all"), std::string::npos) << e;
}

}  // namespace
}  // namespace heed
