// The output shortlist: the tables of a shipped model, the restricted output layer against the
// full one, translations that use only allowed pieces, attention unchanged by it, and bad tables
// refused by name.
#include "model/shortlist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/model.h"
#include "model/model_file.h"
#include "test_util.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace {

using nlohmann::json;

const std::string kModel = HEED_MODELS_DIR "/en-fr.heed";
const std::vector<std::string> kTexts = {
    "This package contains the development files for the library.",
    "A fast and lightweight window manager for the X Window System.",
    "The plugin adds support for spell checking in several languages.",
};

TEST(Shortlist, SelectionHoldsFrequentSourceAndExtraIdsSortedOnce) {
    auto m = heed::load_model_file(kModel);
    const heed::Shortlist& sl = m->model.weights().shortlists.at("fr");
    const std::vector<int> src = m->tokenizer.encode(kTexts[0]);
    const std::vector<int> a = sl.select(src, {3, 7999});
    const std::vector<int> none = sl.select({}, {});
    EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
    EXPECT_EQ(std::adjacent_find(a.begin(), a.end()), a.end());                // unique
    EXPECT_TRUE(std::includes(a.begin(), a.end(), none.begin(), none.end()));  // frequent
    EXPECT_TRUE(std::binary_search(a.begin(), a.end(), 7999));
    EXPECT_GT(a.size(), none.size());  // the source pieces added their own
    EXPECT_LT(a.size(), 8000u);
}

TEST(Shortlist, PaddingToAMultipleTakesTheIdsAfterTheFrequentOnesNotYetListed) {
    auto m = heed::load_model_file(kModel);
    const heed::Shortlist& sl = m->model.weights().shortlists.at("fr");
    const std::vector<int> src = m->tokenizer.encode(kTexts[0]);
    const std::vector<int> plain = sl.select(src, {});
    const std::vector<int> padded = sl.select(src, {}, 8, 8000);
    // why: padding starts at id n, n the count of frequent ids (Marian's are ids 0..n-1)
    const int frequent = int(sl.select({}, {}).size());
    EXPECT_EQ(padded.size() % 8, 0u);
    EXPECT_LT(padded.size(), plain.size() + 8);
    EXPECT_TRUE(std::includes(padded.begin(), padded.end(), plain.begin(), plain.end()));
    std::vector<int> added;
    std::set_difference(padded.begin(), padded.end(), plain.begin(), plain.end(),
                        std::back_inserter(added));
    int next = frequent;  // each added id is the lowest unlisted one from `frequent` up
    for (int id : added) {
        while (std::binary_search(plain.begin(), plain.end(), next)) ++next;
        EXPECT_EQ(id, next++);
    }
    // the extra ids come after the padding: </s> is added whatever the count
    const std::vector<int> with_extra = sl.select(src, {7999}, 8, 8000);
    EXPECT_EQ(with_extra.size(),
              padded.size() + (std::binary_search(padded.begin(), padded.end(), 7999) ? 0 : 1));
    EXPECT_EQ(sl.select(src, {}, 1, 8000), plain);
}

// The restricted layer computes the same numbers for its rows as the full one (the same
// integer dot products per row), so the shortlist changes which pieces compete, nothing else.
TEST(Shortlist, RestrictedLogitsEqualTheFullLogitsOfThoseRows) {
    auto m = heed::load_model_file(kModel);
    const heed::Model& model = m->model;
    const heed::ModelConfig& c = model.config();
    const std::vector<int> src = m->tokenizer.encode(kTexts[1]);
    std::vector<int> ids = src;
    ids.push_back(c.eos_id);
    const heed::Memory mem = model.encode(ids);
    const heed::OutputLayer out =
        model.output_layer(m->model.weights().shortlists.at("fr").select(src, {c.eos_id}));
    heed::DecoderState full_state(c, 1, 8), short_state(c, 1, 8);
    std::vector<float> full(c.vocab_size), part(out.ids.size());
    for (int token : {c.decoder_start_id, 42, 1234}) {
        model.step({&mem}, {token}, full_state, full.data());
        model.step({&mem}, {token}, short_state, part.data(), nullptr, &out);
        for (std::size_t i = 0; i < out.ids.size(); ++i)
            ASSERT_EQ(part[i], full[out.ids[i]]) << "id " << out.ids[i];
    }
}

TEST(Shortlist, TranslationsUseOnlyAllowedPiecesAndAttentionIsUnchanged) {
    auto tr = heed::Translator::load_file(kModel);
    auto m = heed::load_model_file(kModel);
    for (int beam : {1, 4}) {
        heed::TranslateOptions o;
        o.beam_size = beam;
        o.shortlist = true;
        o.return_attention = true;
        for (const std::string& text : kTexts) {
            const heed::Translation t = tr->translate({text}, o).at(0);
            std::vector<int> src = m->tokenizer.encode(text);
            const std::vector<int> allowed =
                m->model.weights().shortlists.at("fr").select(src, {m->model.config().eos_id});
            EXPECT_EQ(t.output_size, int(allowed.size()));
            for (int id : t.target_ids)
                EXPECT_TRUE(std::binary_search(allowed.begin(), allowed.end(), id)) << id;
            for (const heed::StepTrace& s : t.attention.steps)
                for (const heed::Candidate& cand : s.top)
                    EXPECT_TRUE(std::binary_search(allowed.begin(), allowed.end(), cand.id));
            // the same tokens decoded without the shortlist attend identically
            heed::TranslateOptions full = o;
            full.shortlist = false;
            full.beam_size = 1;
            full.forced_prefix = t.target_ids;
            full.max_length = int(t.target_ids.size());
            const heed::Translation f = tr->translate({text}, full).at(0);
            EXPECT_EQ(f.output_size, 8000);
            EXPECT_EQ(f.attention.encoder_self.data, t.attention.encoder_self.data);
            EXPECT_EQ(f.attention.cross.data, t.attention.cross.data) << text;
            EXPECT_EQ(f.attention.decoder_self.data, t.attention.decoder_self.data) << text;
        }
    }
}

TEST(Shortlist, AModelWithoutOneRefusesTheOption) {
    auto tr = heed::Translator::load_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    heed::TranslateOptions o;
    o.shortlist = true;
    try {
        tr->translate({"a test"}, o);
        FAIL() << "no error";
    } catch (const heed::Error& e) {
        EXPECT_NE(std::string(e.what()).find("has no output shortlist"), std::string::npos)
            << e.what();
    }
}

/// en-fr.heed with one value of a shortlist tensor replaced (element `at` of `name`).
std::string patched(const std::string& name, std::size_t at, std::int32_t value) {
    std::string bytes = heed::test::read_text(kModel);
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    const json header = json::parse(bytes.substr(8, n));
    const std::size_t where = 8 + n + header[name]["data_offsets"][0].get<std::size_t>() + 4 * at;
    std::memcpy(&bytes[where], &value, 4);
    return bytes;
}

std::string load_error(const std::string& bytes) {
    try {
        heed::Translator::load(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const heed::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(Shortlist, BadTablesAreRefusedByName) {
    EXPECT_NE(load_error(patched("shortlist.fr.targets", 5, 8000))
                  .find("'shortlist.fr.targets' holds 8000 at element 5, not an id"),
              std::string::npos);
    EXPECT_NE(load_error(patched("shortlist.fr.frequent", 0, -1)).find("'shortlist.fr.frequent'"),
              std::string::npos);
    EXPECT_NE(load_error(patched("shortlist.fr.offsets", 0, 1))
                  .find("'shortlist.fr.offsets' must run from 0"),
              std::string::npos);
    EXPECT_NE(load_error(patched("shortlist.fr.offsets", 100, 1 << 30)).find("decreases"),
              std::string::npos);
}

}  // namespace
