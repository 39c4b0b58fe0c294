// TranslateOptions::threads: a batch shared out over threads gives the same translations, in
// the same order, as one thread; the range is checked.
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
