// Tests for the readers of Marian's files: .bin and .npz archives built here (and one written by
// numpy, tests/data/marian_io/tiny.npz), every malformed field refused with its reason, the YAML
// subset and vocab.yml, and the binary lexical shortlist. Not a test of the mapping onto Heed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "marian/lexical_shortlist.h"
#include "marian/marian_archive.h"
#include "marian/marian_yaml.h"
#include "test_util.h"

namespace heed {
namespace {

using test::error_of;
using test::u64_le;
using Mutation = std::function<void(std::string&)>;

constexpr std::uint64_t kF32 = 0x0404, kF16 = 0x0402, kI8 = 0x0101, kIntGemm8 = 0x4101;

std::string u32_le(std::uint32_t v) { return u64_le(v).substr(0, 4); }
std::string u16_le(std::uint16_t v) { return u64_le(v).substr(0, 2); }
const std::uint8_t* bytes(const std::string& s) {
    return reinterpret_cast<const std::uint8_t*>(s.data());
}
std::string f32_bytes(const std::vector<float>& v) {
    std::string b(v.size() * 4, '\0');
    std::memcpy(&b[0], v.data(), b.size());  // why: the test host is little-endian
    return b;
}
/// int8 values in stored order, then the float32 quant_mult (marian-conv's intgemm8 layout).
std::string intgemm(const std::vector<std::int8_t>& q, float quant_mult) {
    return std::string(q.begin(), q.end()) + f32_bytes({quant_mult});
}
void put(std::string& s, std::size_t at, const std::string& v) { s.replace(at, v.size(), v); }

// ---- Marian .bin, laid out as binary.cpp's saveItems does (data padded to 256 bytes) ----

struct BinItem {
    std::string name;
    std::uint64_t type;
    std::vector<std::int32_t> shape;
    std::string data;
};

std::string marian_bin(const std::vector<BinItem>& items) {
    std::string out = u64_le(1) + u64_le(items.size()), names, shapes, data;
    for (const BinItem& it : items) {
        const std::string d = it.data + std::string((256 - it.data.size() % 256) % 256, '\0');
        out += u64_le(it.name.size() + 1) + u64_le(it.type) + u64_le(it.shape.size()) +
               u64_le(d.size());
        names += it.name + std::string(1, '\0');
        for (std::int32_t dim : it.shape) shapes += u32_le(std::uint32_t(dim));
        data += d;
    }
    out += names + shapes;
    const std::size_t pad = ((out.size() + 8) / 256 + 1) * 256 - out.size() - 8;
    return out + u64_le(pad) + std::string(pad, '\0') + data;
}
/// Where item i's header field k (0 name bytes, 1 type, 2 rank, 3 data bytes) lies.
std::size_t field(std::size_t item, int k) { return 16 + 32 * item + 8 * k; }

const std::string kYml = "type: transformer\ndim-emb: 3\n";
// W = [[1, -2, 3], [-4, 5, -127]] / quant_mult; stored transposed but for Wemb.
const std::vector<float> kW = {1, -2, 3, -4, 5, -127};
std::vector<BinItem> sample_items() {
    return {{"encoder_l1_ffn_b1", kF32, {1, 3}, f32_bytes({0.5f, -1.0f, 2.0f})},
            {"encoder_l1_ffn_W1", kIntGemm8, {2, 3}, intgemm({1, -4, -2, 5, 3, -127}, 2.0f)},
            {"Wemb", kIntGemm8, {2, 3}, intgemm({1, -2, 3, -4, 5, -127}, 4.0f)},
            {"special:model.yml", kI8, {int(kYml.size()) + 1}, kYml + std::string(1, '\0')}};
}

std::vector<float> scaled(const std::vector<float>& v, float quant_mult) {
    std::vector<float> out;
    for (float x : v) out.push_back(x * (1.0f / quant_mult));
    return out;
}

TEST(MarianBinary, ReadsFloat32TextAndIntgemm8ItemsDequantisingInTheLogicalLayout) {
    const std::string file = marian_bin(sample_items());
    const MarianArchive a = MarianArchive::read(bytes(file), file.size());
    ASSERT_EQ(a.items().size(), 4u);
    EXPECT_EQ(a.find("encoder_l1_ffn_b1")->type, MarianType::Float32);
    EXPECT_EQ(a.read_f32(*a.find("encoder_l1_ffn_b1")), (std::vector<float>{0.5f, -1.0f, 2.0f}));
    const MarianItem& w = *a.find("encoder_l1_ffn_W1");
    EXPECT_EQ(w.shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_TRUE(w.transposed);
    EXPECT_EQ(w.quant_mult, 2.0f);
    EXPECT_EQ(w.bytes, 6u);
    EXPECT_EQ(a.read_f32(w), scaled(kW, 2.0f));
    EXPECT_FALSE(a.find("Wemb")->transposed);
    EXPECT_EQ(a.read_f32(*a.find("Wemb")), scaled(kW, 4.0f));
    EXPECT_EQ(a.config_yaml(), kYml);
    EXPECT_EQ(a.find("absent"), nullptr);
}

TEST(MarianBinary, AlphasItemsAndFloat16AreReadAsOrdinaryItems) {
    const std::string file =
        marian_bin({{"encoder_l1_self_Wq_QuantMultA", kF32, {1, 1}, f32_bytes({12.5f})},
                    {"none_QuantMultA", kF32, {1, 1}, f32_bytes({3.0f})},
                    {"Wemb_QuantMultA", kIntGemm8, {1, 1}, intgemm({127}, 127.0f / 3.0f)},
                    {"half", kF16, {3}, u16_le(0x3E00) + u16_le(0xC000) + u16_le(0x0001)}});
    const MarianArchive a = MarianArchive::read_binary(bytes(file), file.size());
    EXPECT_EQ(a.read_f32(*a.find("encoder_l1_self_Wq_QuantMultA")), std::vector<float>{12.5f});
    EXPECT_FALSE(a.find("Wemb_QuantMultA")->transposed);
    EXPECT_NEAR(a.read_f32(*a.find("Wemb_QuantMultA"))[0], 3.0f, 1e-6);
    EXPECT_EQ(a.read_f32(*a.find("half")),
              (std::vector<float>{1.5f, -2.0f, std::ldexp(1.0f, -24)}));
}

TEST(MarianBinary, ATruncatedItemIsRefusedNamingIt) {
    auto items = sample_items();
    items.push_back({"decoder_l1_rnn_W", kF32, {32, 32}, f32_bytes(std::vector<float>(1024))});
    const std::string file = marian_bin(items);
    EXPECT_NE(error_of([&] {
                  MarianArchive::read(bytes(file), file.size() - 100);
              }).find("item 'decoder_l1_rnn_W' declares 4096 bytes of data at offset"),
              std::string::npos);
}

TEST(MarianBinary, EveryTruncationAndRandomCorruptionEndsInHeedError) {
    const std::string file = marian_bin(sample_items());
    for (std::size_t n = 0; n < file.size(); ++n)
        EXPECT_THROW(MarianArchive::read(bytes(file), n), Error) << n;
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
        std::string bad = file;
        for (int k = 0; k < 3; ++k) bad[rng() % 1024] = char(rng());
        try {
            const MarianArchive a = MarianArchive::read(bytes(bad), bad.size());
            for (const MarianItem& item : a.items()) {
                if (item.type != MarianType::Int8) a.read_f32(item);
            }
            parse_flat_yaml(a.config_yaml());
        } catch (const Error&) {
        }
    }
}

TEST(MarianBinary, EachMalformedFieldIsRefusedWithItsReason) {
    const std::string file = marian_bin(sample_items());
    const std::size_t names = field(4, 0), shapes = names + 18 + 18 + 5 + 18;
    const std::vector<std::pair<Mutation, std::string>> cases = {
        {[](std::string& s) { s.resize(12); }, "too short for a binary model's version"},
        {[](std::string& s) { put(s, 0, u64_le(7)); }, "binary format version 7, expected 1"},
        {[](std::string& s) { put(s, 0, u64_le(2)); }, "version 2 (an encrypted model)"},
        {[](std::string& s) { put(s, 8, u64_le(1u << 20)); }, "more than the 65536 accepted"},
        {[](std::string& s) { put(s, 8, u64_le(60000)); }, "their headers run past its end"},
        {[](std::string& s) { put(s, field(1, 0), u64_le(0)); }, "item #1 declares a name of 0"},
        {[=](std::string& s) { s[names + 17] = 'x'; }, "item #0's name is not one NUL-term"},
        {[=](std::string& s) { put(s, field(1, 1), u64_le(0x4102)); },
         "'encoder_l1_ffn_W1' has type code 0x4102 (intgemm16), which Heed does not read"},
        {[=](std::string& s) { put(s, field(0, 1), u64_le(0x1234)); }, "type code 0x1234, "},
        {[=](std::string& s) { put(s, field(0, 2), u64_le(9)); }, "'encoder_l1_ffn_b1' has rank 9"},
        {[=](std::string& s) { put(s, shapes + 4, u32_le(std::uint32_t(-3))); },
         "negative dimension (-3)"},
        {[=](std::string& s) { put(s, shapes + 4, u32_le(65)); },
         "'encoder_l1_ffn_b1' (float32, shape [1, 65]) needs 260 bytes of data, but the file "
         "gives it 256"},
        {[=](std::string& s) {
             put(s, shapes, u32_le(0x7FFFFFFF));
             put(s, shapes + 4, u32_le(0x7FFFFFFF));
         },
         "has more values than its 256 bytes of data hold"},
        {[=](std::string& s) { put(s, 512 + 6, f32_bytes({0.0f})); },
         "'encoder_l1_ffn_W1' has quant_mult 0.000000; a positive number was expected"},
        {[=](std::string& s) { put(s, 512 + 6, f32_bytes({-1.0f})); }, "quant_mult -1"},
        {[=](std::string& s) { put(s, shapes + 28, u64_le(1u << 30)); }, "padding before the data"},
        {[](std::string& s) { s += "extra"; }, "5 bytes follow the last item's data"},
        {[=](std::string& s) { s.replace(names + 18, 17, "encoder_l1_ffn_b1"); },
         "two items are named 'encoder_l1_ffn_b1'"}};
    for (const auto& [mutate, expected] : cases) {
        std::string bad = file;
        mutate(bad);
        const std::string message = error_of([&] { MarianArchive::read(bytes(bad), bad.size()); });
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        EXPECT_EQ(message.rfind("Marian model: ", 0), 0u) << message;
    }
}

TEST(MarianBinary, ConfigAndValuesAreCheckedWhenRead) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::string file =
        marian_bin({{"bad", kF32, {2}, f32_bytes({1.0f, inf})}, {"text", kI8, {2}, "ab"}});
    const MarianArchive a = MarianArchive::read(bytes(file), file.size());
    EXPECT_NE(error_of([&] { a.read_f32(*a.find("bad")); })
                  .find("'bad' holds a value that is "
                        "not finite (element 1)"),
              std::string::npos);
    EXPECT_NE(error_of([&] { a.read_f32(*a.find("text")); }).find("'text' is int8"),
              std::string::npos);
    EXPECT_NE(error_of([&] { a.config_yaml(); }).find("no item 'special:model.yml'"),
              std::string::npos);
    const std::string cut = marian_bin({{"special:model.yml", kI8, {2}, "ab"}});
    EXPECT_NE(error_of([&] {
                  MarianArchive::read(bytes(cut), cut.size()).config_yaml();
              }).find("is not NUL-terminated"),
              std::string::npos);
}

// ---- npz: numpy's own file, and ZIPs built here (stored entries, CRCs left zero) ----

std::string npy(const std::string& dict, const std::string& values, int version = 1) {
    const std::size_t prefix = version == 1 ? 10 : 12;
    std::string header = dict;
    header.append(63 - (prefix + header.size()) % 64, ' ');
    header += '\n';
    return "\x93NUMPY" + std::string{char(version), 0} +
           (version == 1 ? u16_le(std::uint16_t(header.size()))
                         : u32_le(std::uint32_t(header.size()))) +
           header + values;
}

struct ZipEntry {
    std::string name, payload;
    std::uint16_t method = 0, flags = 0;
};

std::string zip(const std::vector<ZipEntry>& entries, bool zip64 = false) {
    std::string out, dir;
    for (const ZipEntry& e : entries) {
        const std::uint32_t n = std::uint32_t(e.payload.size()), at = std::uint32_t(out.size());
        const std::string common = u16_le(e.flags) + u16_le(e.method) + u32_le(0x21 << 16) +
                                   u32_le(0) +
                                   (zip64 ? u32_le(~0u) + u32_le(~0u) : u32_le(n) + u32_le(n)) +
                                   u16_le(std::uint16_t(e.name.size()));
        const std::string extra =
            zip64 ? u16_le(1) + u16_le(24) + u64_le(n) + u64_le(n) + u64_le(at) : "";
        out += u32_le(0x04034b50) + u16_le(20) + common + u16_le(0) + e.name + e.payload;
        dir += u32_le(0x02014b50) + u16_le(20) + u16_le(20) + common +
               u16_le(std::uint16_t(extra.size())) + std::string(10, '\0') +
               (zip64 ? u32_le(~0u) : u32_le(at)) + e.name + extra;
    }
    const std::uint64_t count = entries.size(), at = out.size(), size = dir.size();
    out += dir;
    if (zip64) {
        const std::uint64_t record = out.size();
        out += u32_le(0x06064b50) + u64_le(44) + u16_le(45) + u16_le(45) + u32_le(0) + u32_le(0) +
               u64_le(count) + u64_le(count) + u64_le(size) + u64_le(at);
        out += u32_le(0x07064b50) + u32_le(0) + u64_le(record) + u32_le(1);
        return out + u32_le(0x06054b50) + std::string(4, '\0') + u16_le(0xFFFF) + u16_le(0xFFFF) +
               u32_le(~0u) + u32_le(~0u) + u16_le(0);
    }
    return out + u32_le(0x06054b50) + std::string(4, '\0') + u16_le(std::uint16_t(count)) +
           u16_le(std::uint16_t(count)) + u32_le(std::uint32_t(size)) + u32_le(std::uint32_t(at)) +
           u16_le(0);
}

const std::string kF32Dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

// tests/data/marian_io/tiny.npz was written by numpy 1.24 (/usr/bin/python3):
//   np.savez('tiny.npz', Wemb=(np.arange(6, dtype=np.float32) * 0.5 - 1).reshape(2, 3),
//            decoder_ff_logit_out_b=np.array([0.25, -0.5, 1], np.float32),
//            half=np.array([1.5, -2], np.float16), **{'special:model.yml': np.frombuffer(
//                b'type: transformer\ndim-emb: 3\ndim-vocabs: [5, 5]\n\0', np.int8)})
TEST(MarianNpz, ReadsTheFileNumpyWrites) {
    const std::string file = test::read_text(std::string(HEED_TEST_DATA) + "/marian_io/tiny.npz");
    ASSERT_FALSE(file.empty());
    const MarianArchive a = MarianArchive::read(bytes(file), file.size());
    ASSERT_EQ(a.items().size(), 4u);
    EXPECT_EQ(a.find("Wemb")->shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(a.read_f32(*a.find("Wemb")), (std::vector<float>{-1, -0.5f, 0, 0.5f, 1, 1.5f}));
    // Marian reads a 1-D array [n] as [1, n]
    EXPECT_EQ(a.find("decoder_ff_logit_out_b")->shape, (std::vector<std::size_t>{1, 3}));
    EXPECT_EQ(a.read_f32(*a.find("half")), (std::vector<float>{1.5f, -2.0f}));
    EXPECT_EQ(yaml_int_list(parse_flat_yaml(a.config_yaml()), "dim-vocabs"),
              (std::vector<int>{5, 5}));
    for (std::size_t n = 0; n < file.size(); ++n)
        EXPECT_THROW(MarianArchive::read(bytes(file), n), Error) << n;
}

TEST(MarianNpz, ReadsZip64FieldsAndNpyVersions2And3) {
    const std::string v = f32_bytes({1.0f, 2.0f});
    const std::string file =
        zip({{"a.npy", npy(kF32Dict, v, 2)}, {"b.npy", npy(kF32Dict, v, 3)}}, true);
    const MarianArchive a = MarianArchive::read_npz(bytes(file), file.size());
    EXPECT_EQ(a.read_f32(*a.find("b")), (std::vector<float>{1.0f, 2.0f}));
}

TEST(MarianNpz, ACompressedOrMalformedEntryIsRefusedByName) {
    const std::string v = f32_bytes({1.0f, 2.0f});
    const auto dict = [](const std::string& descr, const std::string& rest) {
        return "{'descr': '" + descr + "', " + rest + "}";
    };
    const std::vector<std::pair<std::vector<ZipEntry>, std::string>> cases = {
        {{{"x.npy", npy(kF32Dict, v), 8}},
         "npz entry 'x.npy' is compressed (deflate); Marian writes npz uncompressed"},
        {{{"x.npy", npy(kF32Dict, v), 0, 1}}, "entry 'x.npy' is encrypted"},
        {{{"x.npy", npy(dict("<f8", "'fortran_order': False, 'shape': (1,), "), v)}},
         "has dtype '<f8', which Heed does not read"},
        {{{"x.npy", npy(dict("<f4", "'fortran_order': True, 'shape': (2,), "), v)}},
         "'x.npy' is stored in Fortran order"},
        {{{"x.npy", npy(dict("<f4", "'fortran_order': False, 'shape': (3,), "), v)}},
         "item 'x' (float32, shape [1, 3]) needs 12 bytes of data, but the file gives it 8"},
        {{{"x.npy", npy(dict("<f4", "'fortran_order': False, 'shape': (2,), 'x': 1, "), v)}},
         "unexpected or repeated header key 'x'"},
        {{{"x.npy", npy(dict("<f4", "'fortran_order': False, "), v)}}, "header lacks one of"},
        {{{"x.txt", npy(kF32Dict, v)}}, "entry 'x.txt' is not a .npy file"},
        {{{"x.npy", "NUMPY!" + v}}, "entry 'x.npy' does not start with the .npy magic"},
        {{{"x.npy", npy(kF32Dict, v)}, {"x.npy", npy(kF32Dict, v)}}, "two items are named 'x'"}};
    for (const auto& [entries, expected] : cases) {
        const std::string file = zip(entries);
        const std::string message =
            error_of([&] { MarianArchive::read(bytes(file), file.size()); });
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
    std::string file = zip({{"x.npy", npy(kF32Dict, v)}});
    file.resize(file.size() - 2);
    EXPECT_NE(error_of([&] {
                  MarianArchive::read_npz(bytes(file), file.size());
              }).find("no ZIP end record"),
              std::string::npos);
}

// ---- YAML ----

TEST(MarianYaml, ReadsTheModelYmlMarianWrites) {
    const YamlMap m = parse_flat_yaml(
        "---\n# written by marian-conv\nbert-class-symbol: \"[CLS]\"\ndim-emb: 512\n"
        "dim-vocabs:\n  - 32000\n  - 32000\ntied-embeddings-all: true\ntransformer-preprocess: "
        "\"\"\r\ntransformer-tied-layers: []\ntype: transformer  # comment\n"
        "version: v1.9.56 179b8efe 2021-04-07 11:48:12 +0100\nlist: [a, 'b, c', \"d\"]\n"
        "'quoted key': 'it''s'\nnull-ish: ~\nbare:\n");
    EXPECT_EQ(yaml_int(m, "dim-emb", 0), 512);
    EXPECT_EQ(yaml_int(m, "absent", -7), -7);
    EXPECT_EQ(yaml_int_list(m, "dim-vocabs"), (std::vector<int>{32000, 32000}));
    EXPECT_TRUE(yaml_bool(m, "tied-embeddings-all", false));
    EXPECT_EQ(yaml_string(m, "transformer-preprocess", "x"), "");
    EXPECT_EQ(yaml_string(m, "bert-class-symbol", ""), "[CLS]");
    EXPECT_EQ(yaml_string(m, "type", ""), "transformer");
    EXPECT_EQ(yaml_string(m, "version", ""), "v1.9.56 179b8efe 2021-04-07 11:48:12 +0100");
    EXPECT_TRUE(m.at("transformer-tied-layers").is_list);
    EXPECT_EQ(m.at("list").list, (std::vector<std::string>{"a", "b, c", "d"}));
    EXPECT_EQ(yaml_string(m, "quoted key", ""), "it's");
    EXPECT_EQ(yaml_string(m, "null-ish", ""), "~");
    EXPECT_EQ(yaml_string(m, "bare", "x"), "");
}

TEST(MarianYaml, EachConstructOutsideTheSubsetIsRefusedNamingItsLine) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a: 1\nb:\n  c: 2\n", "line 3: nested mappings are not read"},
        {"a: 1\nb: &x 2\n", "line 2: anchors"},
        {"a: *x\n", "line 1: aliases"},
        {"a: !!str x\n", "line 1: tags"},
        {"a: |\n  text\n", "line 1: block scalars"},
        {"a: one\n  two\n", "line 2: an indented line"},
        {"a: {b: 1}\n", "line 1: flow mappings"},
        {"a: 1\na: 2\n", "line 2: the key 'a' appears twice (first on line 1)"},
        {"a:\n\t- 1\n", "line 2: a tab in the indentation"},
        {"a: \"open\n", "line 1: a double-quoted scalar does not close"},
        {"a: 'open\n", "line 1: a single-quoted scalar does not close"},
        {"a: [1, 2\n", "line 1: a flow list does not close"},
        {"a: [1, [2]]\n", "line 1: nested lists are not read"},
        {"- 1\n", "line 1: a list item ('- ') outside a list"},
        {"a:\n  - - 1\n", "line 2: nested lists"},
        {"a:\n  - b: 1\n", "line 2: nested mappings"},
        {"a:\n  - 1\n    - 2\n", "line 3: list items are indented unevenly"},
        {"a: 1\n---\nb: 2\n", "line 2: only one leading '---'"},
        {"a: \"\\q\"\n", "line 1: an unknown escape '\\q'"},
        {"a: \"\\uD800\"\n", "line 1: an escape names no Unicode scalar value"},
        {"a: \"\\x4\"\n", "line 1: '\\x' needs 2 hex digits"},
        {"a: \"x\" y\n", "line 1: unexpected text after the value"},
        {"? a\n", "line 1: complex keys"},
        {"a:1\n", "line 1: expected 'key: value'"},
        {"a: 1\nb: \xff\n", "line 2: the text is not valid UTF-8"}};
    for (const auto& [text, expected] : cases) {
        const std::string message = error_of([&t = text] { parse_flat_yaml(t); });
        EXPECT_NE(message.find("model.yml " + expected), std::string::npos) << text << message;
    }
}

TEST(MarianYaml, TypedGettersRefuseWhatTheyCannotRead) {
    const YamlMap m = parse_flat_yaml("a: abc\nb: 007\nc: 99999999999\nd: yes\ne: [1, x]\nf: 1\n");
    EXPECT_NE(error_of([&] { yaml_int(m, "a", 0); }).find("'a' is 'abc', expected an integer"),
              std::string::npos);
    EXPECT_THROW(yaml_int(m, "b", 0), Error);
    EXPECT_THROW(yaml_int(m, "c", 0), Error);
    EXPECT_NE(error_of([&] { yaml_bool(m, "d", false); }).find("expected true or false"),
              std::string::npos);
    EXPECT_THROW(yaml_int_list(m, "e"), Error);
    EXPECT_THROW(yaml_int_list(m, "f"), Error);
    EXPECT_THROW(yaml_string(m, "e", ""), Error);
}

TEST(MarianYaml, VocabYmlDecodesEveryQuotingStyle) {
    const auto v = parse_vocab_yaml(
        "\"</s>\": 0\n\"<unk>\": 1\n\xe2\x96\x81the: 2\n\"\\\"\": 3\n\"\\\\\": 4\n"
        "\"\\u2581a\": 5\n\"\\x41\\U0001F600\": 6\n'it''s': 7\n\"\\t\\n\\0\\N\": 9\n");
    const std::vector<std::pair<std::string, int>> want = {{"</s>", 0},
                                                           {"<unk>", 1},
                                                           {"\xe2\x96\x81the", 2},
                                                           {"\"", 3},
                                                           {"\\", 4},
                                                           {"\xe2\x96\x81"
                                                            "a",
                                                            5},
                                                           {"A\xf0\x9f\x98\x80", 6},
                                                           {"it's", 7},
                                                           {std::string("\t\n\0\xc2\x85", 5), 9}};
    EXPECT_EQ(v, want);
}

TEST(MarianYaml, VocabYmlRefusesBadIdsAndRepeats) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a: 0\nb: -1\n", "vocab.yml line 2: the id of 'b' is not a non-negative integer"},
        {"a: 0\nb: x\n", "line 2: the id of 'b'"},
        {"a: 0\nb: [1]\n", "line 2: the id of 'b'"},
        {"a: 0\nb: 0\n", "vocab.yml line 2: the id 0 is already given on line 1"},
        {"a: 0\n\"a\": 1\n", "vocab.yml line 2: the key 'a' appears twice"}};
    for (const auto& [text, expected] : cases)
        EXPECT_NE(error_of([&t = text] { parse_vocab_yaml(t); }).find(expected), std::string::npos)
            << text;
}

// ---- the binary lexical shortlist ----

std::string shortlist(const std::vector<std::uint64_t>& offsets,
                      const std::vector<std::uint32_t>& targets, std::uint64_t best = 3) {
    std::string s = u64_le(kLexicalShortlistMagic) + u64_le(0) + u64_le(2) + u64_le(best) +
                    u64_le(offsets.size()) + u64_le(targets.size());
    for (std::uint64_t o : offsets) s += u64_le(o);
    for (std::uint32_t t : targets) s += u32_le(t);
    put(s, 8, u64_le(lexical_shortlist_checksum(bytes(s), s.size())));
    return s;
}

TEST(LexicalShortlist, ReadsAValidShortlistWithMariansChecksum) {
    const std::string file = shortlist({0, 2, 2, 5}, {1, 4, 0, 7, 9});
    // why: the value from an independent implementation of util::hashMem (Python, u64 wrap)
    EXPECT_EQ(lexical_shortlist_checksum(bytes(file), file.size()), 0x8a4841ab2f479d92ull);
    const LexicalShortlist s = read_lexical_shortlist(bytes(file), file.size(), 3, 10);
    EXPECT_EQ(s.first_num, 2u);
    EXPECT_EQ(s.best_num, 3u);
    EXPECT_EQ(s.offsets, (std::vector<std::uint64_t>{0, 2, 2, 5}));
    EXPECT_EQ(s.targets, (std::vector<std::uint32_t>{1, 4, 0, 7, 9}));
    for (std::size_t n = 0; n < file.size(); ++n)
        EXPECT_THROW(read_lexical_shortlist(bytes(file), n, 3, 10), Error) << n;
}

TEST(LexicalShortlist, EachInconsistencyIsRefused) {
    std::string corrupt = shortlist({0, 2, 2, 5}, {1, 4, 0, 7, 9});
    corrupt[60] ^= 1;
    const std::string text = "le the 0.5\nla the 0.25\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {corrupt, "checksum mismatch"},
        {text, "text lexical shortlist"},
        {std::string(64, '\0'), "does not start with the binary shortlist magic"},
        {shortlist({0, 2, 5}, {1, 4, 0, 7, 9}), "covers 2 source words, but the source"},
        {shortlist({1, 2, 2, 5}, {1, 4, 0, 7, 9}), "the first offset is 1"},
        {shortlist({0, 3, 2, 5}, {1, 4, 0, 7, 9}), "offset #2 (2) is out of order"},
        {shortlist({0, 2, 2, 4}, {1, 4, 0, 7, 9}), "the last offset is 4"},
        {shortlist({0, 2, 2, 5}, {1, 4, 0, 7, 9}, 2), "source word 2 lists 3 targets"},
        {shortlist({0, 2, 2, 5}, {1, 4, 0, 7, 10}), "target #4 is id 10, outside"},
        {shortlist({0, 2, 2, 5}, {1, 4, 0, 7, 9}) + "xxxx", "do not fill the file's"}};
    for (const auto& [file, expected] : cases)
        EXPECT_NE(error_of([&f = file] {
                      read_lexical_shortlist(bytes(f), f.size(), 3, 10);
                  }).find(expected),
                  std::string::npos)
            << expected;
    EXPECT_NE(error_of([&] {
                  read_lexical_shortlist(bytes(text), text.size(), 3, 10);
              }).find("marian-conv --shortlist lex.s2t"),
              std::string::npos);
}

}  // namespace
}  // namespace heed
