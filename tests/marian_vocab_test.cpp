// OPUS-MT's id maps: a vocab.yml numbers the model's pieces, source.spm and target.spm segment
// and spell the text. The test bundle (tests/data/marian/opus/) translates as the numpy
// reference of Marian says (expected.json: source ids, greedy ids, text, cross-attention), the
// Heed file it converts to carries the map ("tokenizer.vocabulary"), and a malformed vocab.yml
// or id map is refused naming the problem. Also the Vocabulary layer on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "marian/marian_model.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocabulary.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace heed {
namespace {

using nlohmann::json;
using test::error_of;

std::string opus_file(const std::string& name) {
    return test::read_text(HEED_TEST_DATA "/marian/opus/" + name);
}

const json& fixture() {
    static const json fx =
        json::parse(test::read_text(HEED_TEST_DATA "/marian/expected.json"))["fixtures"]["opus"];
    return fx;
}

/// The bundle with its vocabularies in `order` (file names), vocab.yml's text passed through
/// `change`.
MarianBundle bundle(const std::vector<std::string>& order = {"vocab.yml", "source.spm",
                                                             "target.spm"},
                    const std::function<std::string(std::string)>& change = {}) {
    MarianBundle b;
    b.model = opus_file("model.npz");
    for (const std::string& name : order) {
        std::string bytes = opus_file(name);
        if (change && name == "vocab.yml") bytes = change(bytes);
        b.vocabs.push_back(std::move(bytes));
    }
    b.source_language = "en";
    b.target_language = "de";
    return b;
}

const std::vector<std::uint8_t>& opus_heed() {
    static const std::vector<std::uint8_t> file = heed_file_from_marian(bundle());
    return file;
}

const LoadedModel& opus() {
    static const std::unique_ptr<LoadedModel> m =
        load_model(opus_heed().data(), opus_heed().size());
    return *m;
}

std::string conversion_error(const MarianBundle& b) {
    return error_of([&] { heed_file_from_marian(b); });
}

/// vocab.yml's text with line `from` (whole, without its newline) replaced by `to` ("": gone).
std::function<std::string(std::string)> replace_line(const std::string& from,
                                                     const std::string& to) {
    return [=](std::string text) {
        const std::size_t at = ("\n" + text).find("\n" + from + "\n");
        EXPECT_NE(at, std::string::npos) << from;
        if (at == std::string::npos) return text;
        return text.replace(at, from.size() + 1, to.empty() ? "" : to + "\n");
    };
}

// ---- the test bundle against the reference ----

TEST(MarianVocab, SourceIdsAreSourceSpmPiecesLookedUpInVocabYml) {
    const LoadedModel& m = opus();
    ASSERT_TRUE(m.tokenizer.mapped());
    EXPECT_EQ(m.tokenizer.eos_id(), fixture()["eos_id"].get<int>());
    EXPECT_EQ(m.tokenizer.unk_id(), fixture()["unk_id"].get<int>());
    for (const json& c : fixture()["cases"]) {
        const std::string text = c["text"];
        EXPECT_EQ(m.tokenizer.segmenter().encode_pieces(text),
                  c["source_pieces"].get<std::vector<std::string>>())
            << text;
        std::vector<int> ids = m.tokenizer.encode(text);
        ids.push_back(m.tokenizer.eos_id());
        EXPECT_EQ(ids, c["source_ids"].get<std::vector<int>>()) << text;
    }
}

TEST(MarianVocab, GreedyIdsTextAndCrossAttentionMatchTheReference) {
    const std::unique_ptr<Translator> t = Translator::load(opus_heed().data(), opus_heed().size());
    int traced = 0;
    for (const json& c : fixture()["cases"]) {
        const std::string text = c["text"];
        const std::vector<int> src = c["source_ids"], ids = c["ids"];
        TranslateOptions o;
        // why: the reference stops at ceil(2 × source ids) tokens (Marian's max-length-factor)
        o.max_length = int(std::ceil(2.0 * double(src.size())));
        o.return_attention = c.contains("cross_attention");
        const Translation r = t->translate({text}, o).at(0);
        EXPECT_EQ(r.source_ids, src) << text;
        EXPECT_EQ(r.target_ids, ids) << text;
        EXPECT_EQ(r.text, c["output"].get<std::string>()) << text;
        std::vector<std::string> pieces = c["pieces"];
        if (!ids.empty() && ids.back() == fixture()["eos_id"].get<int>()) pieces.push_back("</s>");
        EXPECT_EQ(r.target_tokens, pieces) << text;
        if (!o.return_attention) continue;
        ++traced;
        // [L][H][T][S] against the reference's [layer][head][step][source position]
        const json& want = c["cross_attention"];
        const Array& cross = r.attention.cross;
        const std::size_t H = cross.shape[1], T = cross.shape[2], S = cross.shape[3];
        ASSERT_EQ(want.size(), cross.shape[0]);
        ASSERT_EQ(T, ids.size());
        ASSERT_EQ(S, src.size());
        float worst = 0;
        for (std::size_t l = 0; l < want.size(); ++l)
            for (std::size_t h = 0; h < H; ++h)
                for (std::size_t s = 0; s < T; ++s)
                    for (std::size_t k = 0; k < S; ++k)
                        worst = std::max(worst, std::abs(cross.data[((l * H + h) * T + s) * S + k] -
                                                         want[l][h][s][k].get<float>()));
        EXPECT_LT(worst, 1e-4f) << text;
    }
    EXPECT_GE(traced, 1);
}

TEST(MarianVocab, NoExpectedOutputHoldsUnk) {
    // Marian never emits <unk> (allow-unk off), and neither does Heed for a Marian model
    for (const json& c : fixture()["cases"])
        for (int id : c["ids"].get<std::vector<int>>())
            EXPECT_NE(id, fixture()["unk_id"].get<int>()) << c["text"];
}

TEST(MarianVocab, TheFilesMayComeInAnyOrderAndTheHeedFileKeepsTheMap) {
    EXPECT_EQ(heed_file_from_marian(bundle({"source.spm", "target.spm", "vocab.yml"})),
              opus_heed());
    // the same vocab.yml twice (Marian's `vocabs: [vocab.yml, vocab.yml]`) is one joint map
    EXPECT_EQ(heed_file_from_marian(bundle({"vocab.yml", "vocab.yml", "source.spm", "target.spm"})),
              opus_heed());
    const LoadedModel& m = opus();
    ASSERT_NE(m.separate_target, nullptr);
    const Vocabulary& target = m.target_tokenizer();
    EXPECT_EQ(target.vocab_size(), 513);
    EXPECT_EQ(target.piece(0), "</s>");
    EXPECT_EQ(target.piece(1), "<unk>");
    EXPECT_EQ(target.piece(19), "4");  // "4": 19, a quoted key
    EXPECT_EQ(target.piece(175), "\"");
    EXPECT_EQ(target.piece(301), "\\");
    EXPECT_EQ(target.piece_to_id("\\"), 301);
    EXPECT_EQ(target.piece_to_id("no such piece"), 1);
    // Marian's search: <unk> alone is never chosen (</s>, the one control piece, ends it)
    EXPECT_EQ(m.never_emitted, std::vector<int>{1});
    EXPECT_EQ(target.control_ids(), std::vector<int>{0});
}

// ---- malformed bundles ----

TEST(MarianVocab, AMalformedVocabYmlIsRefusedByName) {
    const struct {
        std::function<std::string(std::string)> change;
        const char* reason;
    } cases[] = {
        {replace_line("<unk>: 1", "<unk>: 0"), "the id 0 is already given on line 1"},
        {replace_line("<unk>: 1", "</s>: 1"), "the key '</s>' appears twice"},
        {replace_line("<unk>: 1", "<unk>: 600"),
         "gives '<unk>' the id 600, but its 513 ids must "
         "be 0..512 (Heed reads dense id maps only)"},
        {replace_line("</s>: 0", "\"<eos>\": 0"), "has no '</s>' entry, which Marian requires"},
        {replace_line("<unk>: 1", "UNK: 1"), "has no '<unk>' entry, which Marian requires"},
        {replace_line("<unk>: 1", "<unk>: one"), "the id of '<unk>' is not a non-negative integer"},
        {replace_line("<unk>: 1", "<unk>: [1]"), "the id of '<unk>' is not a non-negative integer"},
        {replace_line("<unk>: 1", "\"\": 1"), "has an empty piece (id 1)"},
        {replace_line("<unk>: 1", "\"a\\0b\": 1"), "has a piece with a NUL character (id 1)"},
        {replace_line("<unk>: 1", "<unk>: &a 1"), "anchors ('&') are not read"},
        {[](std::string t) { return t + "extra: 513\n"; },
         "the source id map has 514 pieces but the model's dim-vocabs says 513"},
        {[](std::string t) { return t.substr(0, t.rfind('\n', t.size() - 2) + 1); },
         "the source id map has 512 pieces but the model's dim-vocabs says 513"},
    };
    for (const auto& c : cases) {
        const std::string e =
            conversion_error(bundle({"vocab.yml", "source.spm", "target.spm"}, c.change));
        EXPECT_NE(e.find(c.reason), std::string::npos) << c.reason << "\n  got: " << e;
        EXPECT_EQ(e.rfind("Marian model: ", 0), 0u) << e;
    }
}

TEST(MarianVocab, AVocabYmlNeedsTheSentencePieceModelsBesideIt) {
    EXPECT_NE(conversion_error(bundle({"vocab.yml"})).find("does not segment the text"),
              std::string::npos);
    EXPECT_NE(conversion_error(bundle({"vocab.yml", "source.spm", "target.spm", "model.npz"}))
                  .find("neither a SentencePiece model (.spm) nor a vocab.yml"),
              std::string::npos);
    MarianBundle three = bundle();
    three.vocabs.push_back(opus_file("vocab.yml") + "# another\n");
    three.vocabs.push_back(opus_file("vocab.yml") + "# a third\n");
    EXPECT_NE(conversion_error(three).find("give one vocab.yml (joint) or two"), std::string::npos);
}

TEST(MarianVocab, OneSentencePieceModelMaySegmentBothSides) {
    // a joint vocab.yml with one .spm: both sides segment with it, the ids are the map's
    const std::vector<std::uint8_t> file =
        heed_file_from_marian(bundle({"vocab.yml", "source.spm"}));
    const std::unique_ptr<LoadedModel> m = load_model(file.data(), file.size());
    EXPECT_EQ(m->separate_target, nullptr);
    EXPECT_EQ(m->tokenizer.encode("Hello world."),
              (std::vector<int>{414, 29, 91, 31, 139, 10, 208, 31, 310, 496}));
}

// ---- the id map in a Heed file ----

/// A Heed file split into its header and data section, tensors added or dropped, joined back.
struct HeedFile {
    json header;
    std::string data;
    explicit HeedFile(const std::vector<std::uint8_t>& file) {
        const std::string bytes(file.begin(), file.end());
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[std::size_t(i)]);
        header = json::parse(bytes.substr(8, n));
        data = bytes.substr(8 + n);
    }
    /// Sets U8 tensor `name` to `bytes` (appended; the old data stays as an unused gap).
    void set_bytes(const std::string& name, const std::string& bytes) {
        header[name] = {{"dtype", "U8"},
                        {"shape", {bytes.size()}},
                        {"data_offsets", {data.size(), data.size() + bytes.size()}}};
        data += bytes;
    }
    std::string load_error() const {
        std::string h = header.dump();
        h.append((8 - h.size() % 8) % 8, ' ');
        const std::string bytes = test::u64_le(h.size()) + h + data;
        return error_of(
            [&] { load_model(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()); });
    }
};

/// The opus id map as a tensor, its pieces passed through `change`.
std::string id_map(const std::function<void(std::vector<std::string>&)>& change = {}) {
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < 513; ++i) pieces.push_back(opus().tokenizer.piece(int(i)));
    if (change) change(pieces);
    std::string out;
    for (const std::string& p : pieces) (out += p) += '\0';
    return out;
}

TEST(MarianVocab, TheLoaderChecksTheIdMap) {
    EXPECT_EQ(HeedFile(opus_heed()).load_error(), "(no heed::Error)");
    const struct {
        std::string bytes;
        const char* reason;
    } cases[] = {
        {id_map([](auto& p) { p.pop_back(); }),
         "id map 'tokenizer.vocabulary' lists 512 pieces but the model's vocabulary has 513"},
        {id_map() + "x", "id map 'tokenizer.vocabulary' does not end with a NUL byte"},
        {id_map([](auto& p) { p[5] = p[4]; }), "is listed twice (also id 4)"},
        {id_map([](auto& p) { p[5] = ""; }), "piece 5 is empty"},
        {id_map([](auto& p) { p[5] = "\xFF"; }), "piece 5 is not valid UTF-8"},
        {id_map([](auto& p) { p[0] = "<eos>"; }), "it has no \"</s>\" piece"},
        {id_map([](auto& p) { std::swap(p[0], p[2]); }),
         "id map 'tokenizer.vocabulary' puts </s> at 2 and <unk> at 1, but the model's eos_id "
         "is 0 and its unk_id 1"},
        {std::string(std::size_t(64) * 262144 + 1, '\0'),
         "id map 'tokenizer.vocabulary' is 16777217 bytes, over the limit of 16777216"},
    };
    for (const auto& c : cases) {
        HeedFile f(opus_heed());
        f.set_bytes("tokenizer.vocabulary", c.bytes);
        const std::string e = f.load_error();
        EXPECT_NE(e.find(c.reason), std::string::npos) << c.reason << "\n  got: " << e;
    }
    // without its map, the SentencePiece model's ids do not fit the model
    HeedFile no_map(opus_heed());
    no_map.header.erase("tokenizer.vocabulary");
    EXPECT_NE(no_map.load_error().find("tokenizer 'tokenizer.model' has 300 pieces but the "
                                       "model's vocabulary has 513"),
              std::string::npos)
        << no_map.load_error();
    // a target map alone
    no_map.set_bytes("tokenizer.target.vocabulary", id_map());
    EXPECT_NE(no_map.load_error().find("a target id map (tensor 'tokenizer.target.vocabulary') "
                                       "but no source one"),
              std::string::npos);
    // a target map of its own is read as the target's
    HeedFile own(opus_heed());
    own.set_bytes("tokenizer.target.vocabulary", id_map([](auto& p) { std::swap(p[2], p[3]); }));
    EXPECT_EQ(own.load_error(), "(no heed::Error)");
    own.set_bytes("tokenizer.target.vocabulary", id_map([](auto& p) { p.pop_back(); }));
    EXPECT_NE(own.load_error().find("'tokenizer.target.vocabulary' lists 512 pieces"),
              std::string::npos);
}

// ---- the Vocabulary layer ----

const Tokenizer& target_spm() {
    static const Tokenizer t = Tokenizer::from_bytes(opus_file("target.spm"));
    return t;
}

TEST(Vocabulary, WithoutAMapEveryCallIsTheTokenizers) {
    const Tokenizer& t = target_spm();
    Vocabulary v(t);
    EXPECT_FALSE(v.mapped());
    const std::string text = "Die Software ist verfügbar, Привет!";
    EXPECT_EQ(v.encode(text), t.encode(text));
    EXPECT_EQ(v.decode(t.encode(text)), t.decode(t.encode(text)));
    EXPECT_EQ(v.vocab_size(), t.vocab_size());
    EXPECT_EQ(v.control_ids(), t.control_ids());
    for (int id = -1; id <= t.vocab_size(); ++id) {
        EXPECT_EQ(v.is_control(id), t.is_control(id));
        EXPECT_EQ(v.is_unknown(id), t.is_unknown(id));
        EXPECT_EQ(v.byte_value(id), t.byte_value(id));
    }
    EXPECT_EQ(v.eos_id(), t.eos_id());
    EXPECT_EQ(v.unk_id(), t.unk_id());
    EXPECT_EQ(error_of([&] { v.piece(t.vocab_size()); }),
              error_of([&] { t.piece(t.vocab_size()); }));
}

TEST(Vocabulary, DecodePiecesFollowsSentencepiece) {
    const Tokenizer& t = target_spm();
    // the pieces of ids decode as the ids do
    for (const std::string text : {"Die Software", "  zwei   Räume ", "x"}) {
        std::vector<std::string> pieces;
        for (int id : t.encode(text)) pieces.push_back(t.piece(id));
        EXPECT_EQ(t.decode_pieces(pieces), t.decode(t.encode(text))) << text;
    }
    // ▁ is a space, the leading one dropped; a piece the model lacks is written as it is (its ▁
    // kept); <unk> is the unknown surface; control pieces vanish
    const std::string s = "\xE2\x96\x81";
    EXPECT_EQ(t.decode_pieces({s + "Die", s, "Software"}), "Die Software");
    EXPECT_EQ(t.decode_pieces({s + "Die", s + "Zzyzx"}), "Die" + s + "Zzyzx");
    EXPECT_EQ(t.decode_pieces({s + "Die", "<unk>", "</s>", "<s>"}), "Die \xE2\x81\x87 ");
}

TEST(Vocabulary, AMapNumbersThePiecesAndTheSegmenterSpellsThem) {
    const std::string s = "\xE2\x96\x81";
    // ids: </s> 0, <unk> 1, then pieces of the target model, one it lacks, a typed control
    Vocabulary v(target_spm(), {"</s>", "<unk>", s + "Die", s, "Software", "<2fr>", "<s>"});
    EXPECT_TRUE(v.mapped());
    EXPECT_EQ(v.vocab_size(), 7);
    EXPECT_EQ(v.eos_id(), 0);
    EXPECT_EQ(v.unk_id(), 1);
    EXPECT_EQ(v.bos_id(), 6);
    EXPECT_EQ(v.pad_id(), -1);
    EXPECT_EQ(v.control_ids(), (std::vector<int>{0, 6}));  // </s>, and <s>: the model's control
    EXPECT_TRUE(v.is_unknown(1));
    EXPECT_EQ(v.decode({2, 3, 4, 0}), "Die Software");
    EXPECT_EQ(v.decode({2, 1}), "Die \xE2\x81\x87 ");
    EXPECT_EQ(v.decode({5, 2}), "<2fr> Die");  // not a control piece until made one
    v.make_control({5, 2, 1});                 // a normal piece and <unk> stay as they are
    EXPECT_EQ(v.control_ids(), (std::vector<int>{0, 5, 6}));
    EXPECT_EQ(v.decode({5, 2}), "Die");
    EXPECT_EQ(v.piece_to_id("<2fr>"), 5);
    EXPECT_EQ(v.piece_to_id(s + "Zzyzx"), 1);
    // text: the segmenter's pieces by string, the absent ones and control ones <unk>
    ASSERT_EQ(target_spm().encode_pieces("Die Software wird"),
              (std::vector<std::string>{s + "Die", s, "Software", s + "wird"}));
    EXPECT_EQ(v.encode("Die Software wird"), (std::vector<int>{2, 3, 4, 1}));
    EXPECT_EQ(error_of([&] { v.decode({7}); }),
              "Cannot decode id 7: it is outside the vocabulary [0, 7).");
    EXPECT_EQ(error_of([&] { v.piece(-1); }), "Piece id -1 is outside the vocabulary [0, 7).");
}

TEST(Vocabulary, ByteFallbackPiecesKeepTheirBytesThroughTheMap) {
    const Tokenizer spm = Tokenizer::from_bytes(test::read_text(HEED_TEST_DATA "/spm_multi.model"));
    ASSERT_GE(spm.byte_value(spm.piece_to_id("<0xC3>")), 0);
    Vocabulary v(spm, {"<0xA9>", "</s>", "<unk>", "<0xC3>",
                       "\xE2\x96\x81"
                       "ca",
                       "f"});
    EXPECT_EQ(v.byte_value(3), 0xC3);
    EXPECT_EQ(v.byte_value(0), 0xA9);
    EXPECT_EQ(v.byte_value(4), -1);
    EXPECT_EQ(v.decode({4, 5, 3, 0}), "café");
}

TEST(Vocabulary, AUserDefinedPieceMadeControlIsNeverTextThroughTheMap) {
    // spm_multi's "<2de>" is a user-defined piece: text matches it until it is made control
    const Tokenizer spm = Tokenizer::from_bytes(test::read_text(HEED_TEST_DATA "/spm_multi.model"));
    Vocabulary v(spm, {"</s>", "<unk>", "<2de>"});
    const auto count = [&](int id) {
        const std::vector<int> ids = v.encode("<2de> Hello");
        return std::count(ids.begin(), ids.end(), id);
    };
    EXPECT_EQ(count(2), 1);
    EXPECT_FALSE(v.is_control(2));
    v.make_control({2});
    EXPECT_TRUE(v.is_control(2));
    EXPECT_EQ(count(2), 0);
    EXPECT_EQ(v.decode({2}), "");
    EXPECT_EQ(v.control_ids(), (std::vector<int>{0, 2}));
}

TEST(Vocabulary, AMapWithoutItsSpecialPiecesIsRefused) {
    EXPECT_EQ(error_of([] {
                  Vocabulary(target_spm(), {"<unk>", "a"});
              }),
              "Invalid id map: it has no \"</s>\" piece.");
    EXPECT_EQ(error_of([] {
                  Vocabulary(target_spm(), {"</s>", "a"});
              }),
              "Invalid id map: it has no \"<unk>\" piece.");
    EXPECT_EQ(error_of([] { Vocabulary(target_spm(), {}); }),
              "Invalid id map: it lists no pieces.");
}

}  // namespace
}  // namespace heed
