// Unit tests for the tokenizer: proto parsing, normalisation, hand-checked encode/decode on the
// committed en-fr model and on tiny hand-built models, and errors for broken model bytes.
// Not the library comparison: tokenizer_oracle_test does that line by line.
#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "proto_writer.h"
#include "test_util.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/proto_reader.h"

namespace {

using heed::Error;
using heed::Tokenizer;
using Ids = std::vector<int>;
using Pieces = std::vector<std::string>;

const std::string kSpace = "\xE2\x96\x81";  // "▁"

std::string model_bytes(const char* name) {
    return heed::test::read_text(std::string(HEED_TEST_DATA) + "/" + name);
}

const std::string& en_fr_bytes() {
    static const std::string bytes = model_bytes("spm_en_fr.model");
    return bytes;
}

const Tokenizer& en_fr() {
    static const Tokenizer tok = Tokenizer::from_bytes(en_fr_bytes());
    return tok;
}

// --- hand-built models (with the protobuf writer of proto_writer.h) ----------------------------

using heed::test::bytes_field;
using heed::test::piece_field;
using heed::test::varint_field;

/// <unk> plus the given (piece, score) pairs; no charsmap, so normalisation only handles spaces.
std::string tiny_model(const std::vector<std::pair<std::string, float>>& pieces,
                       const std::string& extra = "") {
    std::string m =
        piece_field("<unk>", 0, 2) + piece_field("<s>", 0, 3) + piece_field("</s>", 0, 3);
    for (const auto& [text, score] : pieces) m += piece_field(text, score);
    return m + extra;
}

// --- proto parsing -----------------------------------------------------------------------------

TEST(ProtoReader, ParsesTheEnFrModel) {
    const heed::ModelProto m = heed::parse_model_proto(en_fr_bytes());
    ASSERT_EQ(m.pieces.size(), 8000u);
    EXPECT_EQ(m.pieces[0].piece, "<pad>");
    EXPECT_EQ(m.pieces[0].type, heed::PieceType::Control);
    EXPECT_EQ(m.pieces[1].piece, "<unk>");
    EXPECT_EQ(m.pieces[1].type, heed::PieceType::Unknown);
    EXPECT_EQ(m.pieces[2].piece, "<s>");
    EXPECT_EQ(m.pieces[3].piece, "</s>");
    EXPECT_EQ(m.pieces[6].piece, kSpace + "de");
    EXPECT_EQ(m.pieces[6].type, heed::PieceType::Normal);
    EXPECT_FLOAT_EQ(m.pieces[6].score, -3.6089625f);
    EXPECT_EQ(m.trainer_spec.model_type, heed::ModelType::Unigram);
    EXPECT_EQ(m.trainer_spec.vocab_size, 8000);
    EXPECT_EQ(m.trainer_spec.pad_id, 0);
    EXPECT_EQ(m.trainer_spec.unk_id, 1);
    EXPECT_EQ(m.trainer_spec.bos_id, 2);
    EXPECT_EQ(m.trainer_spec.eos_id, 3);
    EXPECT_FALSE(m.trainer_spec.byte_fallback);
    EXPECT_EQ(m.normalizer_spec.name, "nmt_nfkc");
    EXPECT_GT(m.normalizer_spec.precompiled_charsmap.size(), 1000u);
    EXPECT_TRUE(m.normalizer_spec.add_dummy_prefix);
    EXPECT_TRUE(m.normalizer_spec.remove_extra_whitespaces);
    EXPECT_TRUE(m.normalizer_spec.escape_whitespaces);
}

TEST(ProtoReader, DefaultsNegativeIdsAndMergedMessages) {
    const heed::ModelProto empty = heed::parse_model_proto("");
    EXPECT_TRUE(empty.pieces.empty());
    EXPECT_EQ(empty.trainer_spec.pad_id, -1);
    EXPECT_EQ(empty.trainer_spec.unk_surface, " \xE2\x81\x87 ");
    EXPECT_TRUE(empty.normalizer_spec.add_dummy_prefix);

    // pad_id = -1 is a 10-byte varint; a second trainer_spec merges into the first
    const std::string bytes =
        bytes_field(2, varint_field(43, std::uint64_t(-1)) + varint_field(40, 5)) +
        bytes_field(2, varint_field(35, 1)) + piece_field("x", -2.5f, 4) +
        varint_field(99, 7);  // unknown field: skipped
    const heed::ModelProto m = heed::parse_model_proto(bytes);
    EXPECT_EQ(m.trainer_spec.pad_id, -1);
    EXPECT_EQ(m.trainer_spec.unk_id, 5);
    EXPECT_TRUE(m.trainer_spec.byte_fallback);
    ASSERT_EQ(m.pieces.size(), 1u);
    EXPECT_EQ(m.pieces[0].type, heed::PieceType::UserDefined);
    EXPECT_FLOAT_EQ(m.pieces[0].score, -2.5f);
}

TEST(ProtoReader, RejectsMalformedWireData) {
    EXPECT_THROW(heed::parse_model_proto(std::string("\x0A\x05"
                                                     "ab",
                                                     4)),
                 Error);                                                           // short
    EXPECT_THROW(heed::parse_model_proto(std::string("\x08\xFF\xFF", 3)), Error);  // varint
    EXPECT_THROW(heed::parse_model_proto(std::string("\x0B", 1)), Error);          // group
    EXPECT_THROW(heed::parse_model_proto(std::string("\x0F", 1)), Error);          // type 7
    EXPECT_THROW(heed::parse_model_proto(std::string("\x00\x00", 2)), Error);      // field 0
    try {
        heed::parse_model_proto(en_fr_bytes().substr(0, 1001));
        FAIL() << "truncated model parsed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Invalid SentencePiece model"), std::string::npos)
            << e.what();
    }
}

// --- normalisation -----------------------------------------------------------------------------

std::string nfkc(const std::string& text) {
    static const heed::Normalizer n(heed::parse_model_proto(en_fr_bytes()).normalizer_spec, false);
    return n.normalize(text);
}

TEST(Normalizer, NmtNfkcCases) {
    EXPECT_EQ(nfkc(""), "");
    EXPECT_EQ(nfkc("   "), "");
    EXPECT_EQ(nfkc("Hello world"), kSpace + "Hello" + kSpace + "world");
    EXPECT_EQ(nfkc("  a  b  "), kSpace + "a" + kSpace + "b");
    EXPECT_EQ(nfkc("\tTab\t"), kSpace + "Tab");
    EXPECT_EQ(nfkc("\xE3\x80\x80"
                   "a\xE3\x80\x80"),
              kSpace + "a");  // U+3000
    EXPECT_EQ(nfkc("a\xE2\x80\x8B"
                   "b"),
              kSpace + "a" + kSpace + "b");  // U+200B
    EXPECT_EQ(nfkc("\xEF\xBD\x86\xEF\xBD\x95\xEF\xBD\x8C\xEF\xBD\x8C"),
              kSpace + "full");                          // ｆｕｌｌ
    EXPECT_EQ(nfkc("\xEF\xAC\x81ne"), kSpace + "fine");  // ﬁne
    EXPECT_EQ(nfkc("\xE2\x91\xA0"), kSpace + "1");       // ①
    EXPECT_EQ(nfkc("\xC2\xBD"), kSpace +
                                    "1\xE2\x81\x84"
                                    "2");               // ½ -> 1⁄2
    EXPECT_EQ(nfkc("e\xCC\x81"), kSpace + "\xC3\xA9");  // e + U+0301 -> é
    EXPECT_EQ(nfkc("x\xC2\xB2 H\xE2\x82\x82O"), kSpace + "x2" + kSpace + "H2O");  // x² H₂O
    EXPECT_EQ(nfkc("\xFF"), kSpace + "\xEF\xBF\xBD");                    // bad byte -> U+FFFD
    EXPECT_EQ(nfkc("a\xE2\x82"), kSpace + "a\xEF\xBF\xBD\xEF\xBF\xBD");  // one per byte
}

TEST(Normalizer, FlagsAndUserSymbols) {
    heed::NormalizerSpec spec;  // no charsmap: identity apart from spaces
    EXPECT_EQ(heed::Normalizer(spec, false).normalize(" a  b "), kSpace + "a" + kSpace + "b");
    EXPECT_EQ(heed::Normalizer(spec, true).normalize(" a  b "), "a" + kSpace + "b" + kSpace);
    spec.remove_extra_whitespaces = false;
    EXPECT_EQ(heed::Normalizer(spec, false).normalize(" a  b"),
              kSpace + kSpace + "a" + kSpace + kSpace + "b");
    spec.add_dummy_prefix = false;
    EXPECT_EQ(heed::Normalizer(spec, false).normalize("a b"), "a" + kSpace + "b");
    spec.escape_whitespaces = false;
    EXPECT_EQ(heed::Normalizer(spec, false).normalize("a b "), "a b ");

    heed::Normalizer n(heed::parse_model_proto(en_fr_bytes()).normalizer_spec, false);
    n.set_user_defined_symbols({"\xEF\xAC\x81", "\xEF\xAC\x81n"});
    EXPECT_EQ(n.normalize("\xEF\xAC\x81ne \xEF\xAC\x81"),
              kSpace + "\xEF\xAC\x81ne" + kSpace + "\xEF\xAC\x81");  // ﬁ kept, longest first
}

// --- encode / decode on the en-fr model --------------------------------------------------------

TEST(Tokenizer, VocabularyAndSpecialIds) {
    const Tokenizer& t = en_fr();
    EXPECT_EQ(t.vocab_size(), 8000);
    EXPECT_EQ(t.pad_id(), 0);
    EXPECT_EQ(t.unk_id(), 1);
    EXPECT_EQ(t.bos_id(), 2);
    EXPECT_EQ(t.eos_id(), 3);
    EXPECT_TRUE(t.is_control(0));
    EXPECT_TRUE(t.is_control(2));
    EXPECT_TRUE(t.is_control(3));
    EXPECT_FALSE(t.is_control(1));
    EXPECT_TRUE(t.is_unknown(1));
    EXPECT_FALSE(t.is_unknown(8000));
    EXPECT_EQ(t.piece(2865), kSpace + "world");
    EXPECT_EQ(t.piece_to_id(kSpace + "world"), 2865);
    EXPECT_EQ(t.piece_to_id(kSpace + "the"), 10);
    EXPECT_EQ(t.piece_to_id("</s>"), 3);
    EXPECT_EQ(t.piece_to_id("no such piece"), 1);
    EXPECT_THROW(t.piece(8000), Error);
    EXPECT_THROW(t.piece(-1), Error);
}

TEST(Tokenizer, EncodesHandCheckedSentences) {
    const Tokenizer& t = en_fr();
    EXPECT_EQ(t.encode("Hello world"), (Ids{325, 197, 560, 2865}));
    EXPECT_EQ(t.encode_pieces("Hello world"), (Pieces{kSpace + "H", "el", "lo", kSpace + "world"}));
    EXPECT_EQ(t.encode("  Hello   world  "), (Ids{325, 197, 560, 2865}));
    EXPECT_EQ(t.encode("The quick brown fox jumps over the lazy dog."),
              (Ids{75, 3489, 1487, 6696, 8, 3853, 87, 5590, 4, 529, 10, 23, 233, 67, 13, 1141, 5}));
    EXPECT_EQ(t.encode("Le caf\xC3\xA9 est tr\xC3\xA8s bon !"),
              (Ids{148, 1754, 134, 99, 32, 8, 518, 2735, 8, 1}));
    EXPECT_EQ(t.encode("\xEF\xBD\x86\xEF\xBD\x95\xEF\xBD\x8C\xEF\xBD\x8C \xEF\xAC\x81ne"),
              (Ids{759, 4550}));                            // ｆｕｌｌ ﬁne
    EXPECT_EQ(t.encode("e\xCC\x81t\xC3\xA9"), (Ids{416}));  // decomposed and composed é
    EXPECT_TRUE(t.encode("").empty());
    EXPECT_TRUE(t.encode(" \t ").empty());
}

TEST(Tokenizer, UnknownRunsBecomeOnePiece) {
    const Tokenizer& t = en_fr();
    // ☃☃ snow ☃x
    const std::string text = "\xE2\x98\x83\xE2\x98\x83 snow \xE2\x98\x83x";
    EXPECT_EQ(t.encode(text), (Ids{8, 1, 104, 4456, 8, 1, 87}));
    EXPECT_EQ(t.encode_pieces(text), (Pieces{kSpace, "\xE2\x98\x83\xE2\x98\x83", kSpace + "s",
                                             "now", kSpace, "\xE2\x98\x83", "x"}));
    EXPECT_EQ(t.decode(t.encode(text)), " \xE2\x81\x87  snow  \xE2\x81\x87 x");
    // a whole CJK sentence is one unknown run
    EXPECT_EQ(t.encode("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"), (Ids{8, 1}));
}

TEST(Tokenizer, DecodeRules) {
    const Tokenizer& t = en_fr();
    EXPECT_EQ(t.decode({2, 325, 197, 560, 2865, 3}), "Hello world");  // controls skipped
    EXPECT_EQ(t.decode({0, 8, 0}), "");                               // "▁" alone is the prefix
    EXPECT_EQ(t.decode({8, 14}), "a");                                // every leading ▁ goes
    EXPECT_EQ(t.decode({1}), " \xE2\x81\x87 ");
    EXPECT_EQ(t.decode({}), "");
    EXPECT_EQ(t.decode(t.encode("Le caf\xC3\xA9 est tr\xC3\xA8s bon !")),
              "Le caf\xC3\xA9 est tr\xC3\xA8s bon  \xE2\x81\x87 ");
    EXPECT_THROW(t.decode({5, 8000}), Error);
    EXPECT_THROW(t.decode({-1}), Error);
}

TEST(Tokenizer, CopiesAreIndependent) {
    Tokenizer copy = en_fr();
    const Tokenizer moved = std::move(copy);
    EXPECT_EQ(moved.encode("Hello world"), en_fr().encode("Hello world"));
    EXPECT_EQ(moved.piece_to_id(kSpace + "world"), 2865);
}

// --- tiny hand-built models --------------------------------------------------------------------

TEST(TinyModel, ViterbiPicksTheBestScoringPath) {
    // "ab" -> "▁ab": [▁ab] = -4, [▁][ab] = -1 - 1.5 = -2.5, [▁][a][b] = -3
    const Tokenizer t = Tokenizer::from_bytes(
        tiny_model({{kSpace, -1}, {"a", -1}, {"b", -1}, {"ab", -1.5f}, {kSpace + "ab", -4}}));
    EXPECT_EQ(t.encode_pieces("ab"), (Pieces{kSpace, "ab"}));
    EXPECT_EQ(t.encode("ab"), (Ids{3, 6}));
    EXPECT_EQ(t.decode({3, 6}), "ab");
    // with a better whole-word score the single piece wins
    const Tokenizer u = Tokenizer::from_bytes(
        tiny_model({{kSpace, -1}, {"a", -1}, {"b", -1}, {"ab", -1.5f}, {kSpace + "ab", -2}}));
    EXPECT_EQ(u.encode_pieces("ab ba"), (Pieces{kSpace + "ab", kSpace, "b", "a"}));
    // c is unknown (score: lowest piece score - 10); the run cc becomes one piece
    EXPECT_EQ(u.encode("abcc"), (Ids{7, 0}));
    EXPECT_EQ(u.encode_pieces("abcc"), (Pieces{kSpace + "ab", "cc"}));
}

TEST(TinyModel, UserDefinedPiecesWinAndSkipNormalisation) {
    const std::string bytes = tiny_model({{kSpace, -1}, {"a", -1}, {"b", -1}}) +
                              piece_field("ab", 0, 4) + piece_field("b", 0, 5) /*dup*/;
    EXPECT_THROW(Tokenizer::from_bytes(bytes), Error);  // "b" twice
    const Tokenizer t = Tokenizer::from_bytes(tiny_model({{kSpace, -1}, {"a", -1}, {"b", -5}}) +
                                              piece_field("ab", -100, 4));
    EXPECT_EQ(t.encode_pieces("abab a"), (Pieces{kSpace, "ab", "ab", kSpace, "a"}));
}

TEST(TinyModel, ByteFallback) {
    std::string bytes = tiny_model({{kSpace, -1}, {"a", -1}}) + bytes_field(2, varint_field(35, 1));
    EXPECT_THROW(Tokenizer::from_bytes(bytes), Error);  // byte_fallback without byte pieces
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        bytes += piece_field(name, 0, 6);
    }
    const Tokenizer t = Tokenizer::from_bytes(bytes);
    const int first_byte = 5;  // <unk> <s> </s> ▁ a, then <0x00>...
    // "aé" -> ▁ a <0xC3> <0xA9>
    EXPECT_EQ(t.encode("a\xC3\xA9"), (Ids{3, 4, first_byte + 0xC3, first_byte + 0xA9}));
    EXPECT_EQ(t.encode_pieces("a\xC3\xA9"), (Pieces{kSpace, "a", "<0xC3>", "<0xA9>"}));
    EXPECT_EQ(t.decode(t.encode("a\xC3\xA9")), "a\xC3\xA9");
    // a lone continuation byte decodes to U+FFFD
    EXPECT_EQ(t.decode({4, first_byte + 0xA9, 4}),
              "a\xEF\xBF\xBD"
              "a");
}

TEST(TinyModel, RejectsInvalidModels) {
    auto message_of = [](const std::string& bytes) {
        try {
            Tokenizer::from_bytes(bytes);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message_of("").find("no pieces"), std::string::npos);
    EXPECT_NE(message_of(piece_field("a", -1)).find("no unknown piece"), std::string::npos);
    EXPECT_NE(
        message_of(tiny_model({{"a", -1}}) + bytes_field(2, varint_field(3, 2))).find("unigram"),
        std::string::npos);  // BPE
    EXPECT_NE(message_of(tiny_model({{"", -1}})).find("empty"), std::string::npos);
    EXPECT_NE(message_of(tiny_model({{"a", -1}}) + piece_field("<unk2>", 0, 2)).find("two unknown"),
              std::string::npos);
    EXPECT_NE(
        message_of(tiny_model({{"a", -1}}) + piece_field("<0x41>", 0, 6)).find("byte_fallback"),
        std::string::npos);
    // a broken charsmap
    EXPECT_NE(message_of(tiny_model({{"a", -1}}) + bytes_field(3, bytes_field(2,
                                                                              "\xFF\xFF\xFF\x7F"
                                                                              "abcd")))
                  .find("charsmap"),
              std::string::npos);
}

TEST(TinyModel, GarbageAndTruncatedModelsThrow) {
    const std::string& good = en_fr_bytes();
    for (const std::size_t cut :
         {std::size_t(1), std::size_t(7), std::size_t(100), good.size() / 2, good.size() - 1}) {
        EXPECT_THROW(Tokenizer::from_bytes(good.substr(0, cut)), Error) << "cut at " << cut;
    }
    std::uint32_t state = 12345;
    int threw = 0;
    for (int trial = 0; trial < 200; ++trial) {
        std::string garbage(64 + trial * 13, '\0');
        for (char& c : garbage) {
            state = state * 1664525u + 1013904223u;
            c = char(state >> 24);
        }
        try {
            Tokenizer::from_bytes(garbage);
        } catch (const Error&) {
            ++threw;
        }
    }
    EXPECT_EQ(threw, 200);  // random bytes never form a model with an unknown piece
}

}  // namespace
