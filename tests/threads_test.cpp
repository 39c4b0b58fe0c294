// TranslateOptions::threads: a batch shared out over threads gives the same translations, in
// the same order, as one thread; one long sentence (or fewer sentences than threads) with its
// products shared out gives the same ids, probabilities and attention, bit for bit; the range
// is checked.
#include <gtest/gtest.h>

#include "core/error.h"
#include "translator/translator.h"

namespace {

const std::vector<std::string> kTexts = {
    "This package contains the development files for the library.",
    "A simple text editor for the terminal.",
    "It provides a command-line interface to manage virtual machines.",
    "The program reads a configuration file and starts the server.",
    "This is a dummy package to ease the transition.",
    "Documentation for the Python bindings is included in this package.",
    "The library supports reading and writing images in many formats.",
};

TEST(Threads, ABatchOnSeveralThreadsEqualsOneThread) {
    auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/en-fr.heed");
    for (int beam : {1, 3}) {
        heed::TranslateOptions one;
        one.beam_size = beam;
        one.return_attention = true;
        const std::vector<heed::Translation> want = tr->translate(kTexts, one);
        for (int threads : {2, 3, 16}) {
            heed::TranslateOptions many = one;
            many.threads = threads;
            const std::vector<heed::Translation> got = tr->translate(kTexts, many);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                EXPECT_EQ(got[i].target_ids, want[i].target_ids) << threads << " " << kTexts[i];
                EXPECT_EQ(got[i].source_ids, want[i].source_ids);
                EXPECT_EQ(got[i].attention.cross.shape, want[i].attention.cross.shape);
            }
        }
    }
}

// 40 words: long enough that the encoder's and the decoder's products are shared out.
const std::string kLong =
    "The program reads a configuration file when it starts, checks every option against the "
    "documented limits, and then opens a window in which the user can edit several text files "
    "at once, search them quickly, and save each one in a different format.";

/// Every field a thread count could change, compared exactly.
void expect_same(const heed::Translation& got, const heed::Translation& want,
                 const std::string& what) {
    EXPECT_EQ(got.target_ids, want.target_ids) << what;
    EXPECT_EQ(got.token_probs, want.token_probs) << what;
    EXPECT_EQ(got.score, want.score) << what;
    EXPECT_EQ(got.text, want.text) << what;
    EXPECT_TRUE(got.has_attention) << what;
    const auto same = [&](const heed::Array& a, const heed::Array& b, const char* name) {
        EXPECT_EQ(a.shape, b.shape) << what << " " << name;
        EXPECT_EQ(a.data, b.data) << what << " " << name;
    };
    same(got.attention.encoder_self, want.attention.encoder_self, "encoder_self");
    same(got.attention.decoder_self, want.attention.decoder_self, "decoder_self");
    same(got.attention.cross, want.attention.cross, "cross");
}

TEST(Threads, FewerSentencesThanThreadsShareEachProductAndEqualOneThread) {
    // int8 products (multi.heed), and f32 ones (en-fr.heed widened at load)
    for (const char* model : {"/multi.heed", "/en-fr.heed"}) {
        heed::LoadSettings load;
        load.int8 = std::string(model) == "/multi.heed";
        auto tr = heed::Translator::load_file(std::string(HEED_MODELS_DIR) + model, load);
        const std::vector<std::vector<std::string>> calls = {{kLong}, {kLong, kTexts[1]}};
        for (int beam : {1, 4}) {
            heed::TranslateOptions one;
            one.beam_size = beam;
            one.return_attention = true;
            for (const std::vector<std::string>& texts : calls) {
                const std::vector<heed::Translation> want = tr->translate(texts, one);
                for (int threads : {2, 3}) {
                    heed::TranslateOptions many = one;
                    many.threads = threads;
                    const std::vector<heed::Translation> got = tr->translate(texts, many);
                    ASSERT_EQ(got.size(), want.size());
                    for (std::size_t i = 0; i < got.size(); ++i)
                        expect_same(got[i], want[i],
                                    std::string(model) + " beam " + std::to_string(beam) + " " +
                                        std::to_string(threads) + " threads, text " +
                                        std::to_string(i) + " of " + std::to_string(texts.size()));
                }
            }
            // the streaming path (one sentence at a time, a step callback) shares products too
            heed::TranslateOptions many = one;
            many.threads = 2;
            int steps = 0;
            const heed::Translation streamed =
                tr->translate_one(kLong, many, [&](const heed::StepEvent&) { return ++steps > 0; });
            expect_same(streamed, tr->translate({kLong}, one)[0],
                        std::string(model) + " translate_one, beam " + std::to_string(beam));
            EXPECT_GT(steps, 0);
        }
    }
}

TEST(Threads, OutOfRangeIsRefusedByName) {
    auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    for (int bad : {0, -1, 17}) {
        heed::TranslateOptions o;
        o.threads = bad;
        try {
            tr->translate({"a test"}, o);
            ADD_FAILURE() << "no error for " << bad;
        } catch (const heed::Error& e) {
            EXPECT_NE(std::string(e.what()).find("threads must be between 1 and 16"),
                      std::string::npos)
                << e.what();
        }
    }
}

}  // namespace
