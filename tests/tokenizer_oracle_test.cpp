// Oracle test: heed::Tokenizer against the system's libsentencepiece on every corpus line, for
// both committed models and for variants made by appending proto fields (other normaliser
// flags, byte fallback, user-defined pieces, a denormaliser). Not a unit test of internals.
#include <sentencepiece_processor.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "proto_writer.h"
#include "test_util.h"
#include "tokenizer/proto_reader.h"
#include "tokenizer/tokenizer.h"

namespace {

// --- model variants are built with the protobuf writer of proto_writer.h --------------------

using heed::test::bytes_field;
using heed::test::piece_field;
using heed::test::varint_field;

// --- corpus ---------------------------------------------------------------------------------

std::vector<std::string> corpus_lines() {
    const std::string text =
        heed::test::read_text(std::string(HEED_TEST_DATA) + "/tokenizer_corpus.txt");
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n') continue;
        lines.push_back(text.substr(start, i - start));
        start = i + 1;
    }
    if (start < text.size()) lines.push_back(text.substr(start));
    // cases a text file cannot hold
    lines.push_back(std::string("a\0b", 3));
    lines.push_back(std::string("\0", 1));
    lines.push_back("carriage\rreturn");
    lines.push_back("embedded\nnewline");
    lines.push_back("\r\n");
    return lines;
}

std::string escape(const std::string& s) {
    std::string out;
    for (const unsigned char c : s) {
        if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else {
            out.push_back(char(c));
        }
    }
    return out.size() > 200 ? out.substr(0, 200) + "..." : out;
}

template <class T>
std::string join(const std::vector<T>& v) {
    std::string out;
    for (const auto& x : v) {
        if (!out.empty()) out += ' ';
        if constexpr (std::is_same_v<T, std::string>)
            out += escape(x);
        else
            out += std::to_string(x);
    }
    return out;
}

/// The UTF-8 bytes of one code point.
std::string utf8(char32_t c) {
    std::string out;
    if (c < 0x80) {
        out += char(c);
    } else if (c < 0x800) {
        out += char(0xC0 | (c >> 6));
        out += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += char(0xE0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    } else {
        out += char(0xF0 | (c >> 18));
        out += char(0x80 | ((c >> 12) & 0x3F));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    }
    return out;
}

struct Variant {
    std::string name;
    std::string extra;  // bytes appended to the serialized model
};

std::vector<Variant> variants(const std::string& base) {
    const heed::ModelProto m = heed::parse_model_proto(base);
    auto norm = [](int field, int value) {
        return bytes_field(3, varint_field(field, std::uint64_t(value)));
    };
    std::string byte_pieces;
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        byte_pieces += piece_field(name, 0.0f, 6);
    }
    const std::string user = piece_field("<sep>", 0, 4) + piece_field("\xEF\xAC\x81", 0, 4)  // ﬁ
                             + piece_field("\xE2\x96\x81wor", 0, 4) + piece_field("2024", 0, 4) +
                             piece_field("New York", 0, 4) + piece_field("xyz", 0, 5) +
                             piece_field("\xE2\x98\x83", 0, 5);  // ☃ unused: still unknown
    const std::string denorm = bytes_field(
        5, bytes_field(1, "denorm") + bytes_field(2, m.normalizer_spec.precompiled_charsmap) +
               varint_field(3, 0) + varint_field(4, 0) + varint_field(5, 0));
    // why: a model trained with byte_fallback already has its 256 byte pieces
    const std::string fallback =
        m.trainer_spec.byte_fallback ? "" : bytes_field(2, varint_field(35, 1)) + byte_pieces;
    return {
        {"base", ""},
        {"keep_extra_whitespace", norm(4, 0)},
        {"no_dummy_prefix", norm(3, 0)},
        {"no_dummy_prefix_keep_whitespace", norm(3, 0) + norm(4, 0)},
        {"no_whitespace_escape", norm(5, 0)},
        {"no_charsmap", bytes_field(3, bytes_field(2, ""))},
        {"whitespace_as_suffix", bytes_field(2, varint_field(24, 1))},
        {"byte_fallback", fallback},
        {"user_defined_and_unused", user},
        {"denormalizer", denorm},
        {"unk_surface", bytes_field(2, bytes_field(44, "<?>"))},
    };
}

void compare_model(const std::string& model_name, const std::vector<std::string>& lines,
                   long* lines_compared, long* mismatches) {
    const std::string base = heed::test::read_text(std::string(HEED_TEST_DATA) + "/" + model_name);
    ASSERT_FALSE(base.empty()) << model_name;
    for (const Variant& v : variants(base)) {
        SCOPED_TRACE(model_name + " / " + v.name);
        const std::string bytes = base + v.extra;
        sentencepiece::SentencePieceProcessor spm;
        const auto status = spm.LoadFromSerializedProto(bytes);
        ASSERT_TRUE(status.ok()) << status.ToString();
        const heed::Tokenizer tok = heed::Tokenizer::from_bytes(bytes);

        // vocabulary
        ASSERT_EQ(tok.vocab_size(), spm.GetPieceSize());
        for (int id = 0; id < tok.vocab_size(); ++id) {
            ASSERT_EQ(tok.piece(id), spm.IdToPiece(id)) << id;
            ASSERT_EQ(tok.is_control(id), spm.IsControl(id)) << id;
            ASSERT_EQ(tok.is_unknown(id), spm.IsUnknown(id)) << id;
            ASSERT_EQ(tok.piece_to_id(tok.piece(id)), spm.PieceToId(spm.IdToPiece(id))) << id;
        }
        EXPECT_EQ(tok.unk_id(), spm.unk_id());
        EXPECT_EQ(tok.bos_id(), spm.bos_id());
        EXPECT_EQ(tok.eos_id(), spm.eos_id());
        EXPECT_EQ(tok.pad_id(), spm.pad_id());
        EXPECT_EQ(tok.piece_to_id("no such piece"), spm.PieceToId("no such piece"));

        // every line: ids, pieces, decode
        int shown = 0;
        long local_mismatches = 0;
        for (const std::string& line : lines) {
            std::vector<int> want_ids;
            std::vector<std::string> want_pieces;
            std::string want_text;
            const auto spt = spm.EncodeAsImmutableProto(line);
            for (std::size_t i = 0; i < spt.pieces_size(); ++i) {
                want_ids.push_back(int(spt.pieces(int(i)).id()));
                want_pieces.push_back(spt.pieces(int(i)).piece());
            }
            ASSERT_TRUE(spm.Decode(want_ids, &want_text).ok());
            const std::vector<int> ids = tok.encode(line);
            const std::vector<std::string> pieces = tok.encode_pieces(line);
            const std::string text = tok.decode(ids);
            ++*lines_compared;
            if (ids == want_ids && pieces == want_pieces && text == want_text) continue;
            ++local_mismatches;
            if (shown++ < 5)
                ADD_FAILURE() << "line: " << escape(line) << "\n  ids  got  " << join(ids)
                              << "\n       want " << join(want_ids) << "\n  pieces got  "
                              << join(pieces) << "\n         want " << join(want_pieces)
                              << "\n  decode got  " << escape(text) << "\n         want "
                              << escape(want_text);
        }
        *mismatches += local_mismatches;
        EXPECT_EQ(local_mismatches, 0);

        // decode of arbitrary id sequences (control, unk, byte and normal ids mixed)
        std::mt19937 rng(12345);
        std::uniform_int_distribution<int> any_id(0, tok.vocab_size() - 1), small_id(0, 12),
            length(0, 24);
        int decode_mismatches = 0;
        for (int trial = 0; trial < 2000; ++trial) {
            std::vector<int> ids(std::size_t(length(rng)));
            for (int& id : ids) id = (rng() % 3 == 0) ? small_id(rng) : any_id(rng);
            std::string want;
            ASSERT_TRUE(spm.Decode(ids, &want).ok());
            const std::string got = tok.decode(ids);
            if (got != want && decode_mismatches++ < 5)
                ADD_FAILURE() << "decode " << join(ids) << "\n  got  " << escape(got) << "\n  want "
                              << escape(want);
        }
        EXPECT_EQ(decode_mismatches, 0);
    }
}

TEST(TokenizerOracle, EveryCorpusLineMatchesSentencepiece) {
    const std::vector<std::string> lines = corpus_lines();
    ASSERT_GE(lines.size(), 3000u);
    long compared = 0, mismatches = 0;
    compare_model("spm_en_fr.model", lines, &compared, &mismatches);
    compare_model("spm_en_de.model", lines, &compared, &mismatches);
    // a real byte-fallback model (the multilingual one, with <2xx> user-defined pieces)
    compare_model("spm_multi.model", lines, &compared, &mismatches);
    std::cout << "[oracle] lines compared: " << compared << ", mismatches: " << mismatches << "\n";
}

// What people type, in Latin, Greek or Cyrillic letters, digits, punctuation or emoji, never
// becomes the unknown piece with the byte-fallback model: it is a piece or <0xNN> bytes, and
// decodes back to the (normalised) text, as the sentencepiece library does.
TEST(TokenizerOracle, ByteFallbackLeavesNothingUnknown) {
    const std::string bytes =
        heed::test::read_text(std::string(HEED_TEST_DATA) + "/spm_multi.model");
    const heed::Tokenizer tok = heed::Tokenizer::from_bytes(bytes);
    sentencepiece::SentencePieceProcessor spm;
    ASSERT_TRUE(spm.LoadFromSerializedProto(bytes).ok());
    std::vector<std::string> texts = {
        "Where is the train station?",
        "? ! % = @ # & ( ) [ ] { } < > ^ ~ | \\ ` $ * + - _",
        "\xC3\x84"
        "nderungen speichern",  // Änderungen
        "Stra\xC3\x9F"
        "e \xC3\xA0 \xC3\xA7"
        "a \xC5\x93"
        "uvre",  // Straße à ça œuvre
        "\xCE\x9A\xCE\xB1\xCE\xBB\xCE\xB7\xCE\xBC\xCE\xAD\xCF\x81\xCE\xB1",  // Καλημέρα
        "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",                  // Привет
        "\xF0\x9F\x98\x80 \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD \xE2\x9D\xA4\xEF\xB8\x8F",  // emoji
    };
    // every Latin-1 / Latin Extended-A letter, Greek and Cyrillic letter, and some emoji, alone
    std::vector<std::pair<char32_t, char32_t>> ranges = {
        {0x21, 0x7E}, {0xA1, 0x17F}, {0x391, 0x3C9}, {0x400, 0x45F}, {0x1F600, 0x1F64F}};
    for (const auto& [lo, hi] : ranges)
        for (char32_t c = lo; c <= hi; ++c) texts.push_back("a" + utf8(c) + "b");
    int unknown = 0;
    for (const std::string& text : texts) {
        const std::vector<int> ids = tok.encode(text);
        for (int id : ids) unknown += tok.is_unknown(id);
        std::string want;
        ASSERT_TRUE(spm.Decode(spm.EncodeAsIds(text), &want).ok());
        EXPECT_EQ(tok.decode(ids), want) << escape(text);
    }
    EXPECT_EQ(unknown, 0);
}

TEST(TokenizerOracle, EncodeSpeed) {
    const std::vector<std::string> lines = corpus_lines();
    const std::string bytes =
        heed::test::read_text(std::string(HEED_TEST_DATA) + "/spm_en_fr.model");
    sentencepiece::SentencePieceProcessor spm;
    ASSERT_TRUE(spm.LoadFromSerializedProto(bytes).ok());

    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const heed::Tokenizer tok = heed::Tokenizer::from_bytes(bytes);
    const double load_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();

    auto rate = [&](auto&& encode) {
        std::size_t total = 0;
        int rounds = 0;
        const auto start = clock::now();
        double seconds = 0;
        do {
            for (const std::string& line : lines) total += encode(line);
            ++rounds;
            seconds = std::chrono::duration<double>(clock::now() - start).count();
        } while (seconds < 1.0);
        EXPECT_GT(total, 0u);
        return double(rounds) * double(lines.size()) / seconds;
    };
    const double ours = rate([&](const std::string& s) { return tok.encode(s).size(); });
    const double theirs = rate([&](const std::string& s) {
        std::vector<int> ids;
        spm.Encode(s, &ids);
        return ids.size();
    });
    std::cout << "[speed] heed::Tokenizer load " << load_ms << " ms, encode " << ours
              << " sentences/s; libsentencepiece " << theirs << " sentences/s\n";
}

}  // namespace
