// Tests for ModelFile and half.h: valid files built in memory, one malformed file per verified
// error, a mutation fuzz loop, and the fixtures written by models/goldens/make_format_fixture.py.
// Not a test of the loader (which tensors a model needs) or of the tokenizer bytes' contents.
#include "model/model_file.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "test_util.h"

namespace heed {
namespace {

using nlohmann::json;
using test::error_of;
using test::u64_le;

// ---- a tiny writer: header JSON + data section, laid out like write_heed() ----

/// The whole file for a given header text and data section (the header is space-padded to 8).
std::string file_bytes(std::string header_text, const std::string& data) {
    header_text.append((8 - header_text.size() % 8) % 8, ' ');
    return u64_le(header_text.size()) + header_text + data;
}

struct Writer {
    json header = {
        {"__metadata__",
         {{"format", "heed"}, {"heed.version", "1"}, {"heed.config", "{\"d_model\":2}"}}}};
    std::string data;

    void add(const std::string& name, const char* dtype, const std::vector<std::size_t>& shape,
             const std::string& bytes) {
        header[name] = {{"dtype", dtype},
                        {"shape", shape},
                        {"data_offsets", {data.size(), data.size() + bytes.size()}}};
        data += bytes;
    }
    void add_f32(const std::string& name, const std::vector<std::size_t>& shape,
                 const std::vector<float>& v) {
        std::string b(v.size() * 4, '\0');
        std::memcpy(&b[0], v.data(), b.size());  // why: the test host is little-endian
        add(name, "F32", shape, b);
    }
    void add_u16(const std::string& name, const char* dtype, const std::vector<std::size_t>& shape,
                 const std::vector<std::uint16_t>& v) {
        std::string b;
        for (std::uint16_t x : v) b += std::string{char(x & 0xFF), char(x >> 8)};
        add(name, dtype, shape, b);
    }
    void add_i8(const std::string& name, const std::vector<std::size_t>& shape,
                const std::vector<std::int8_t>& v) {
        add(name, "I8", shape, std::string(v.begin(), v.end()));
    }
    std::string build() const { return file_bytes(header.dump(), data); }
};

/// A small file using every dtype; F32 first, then 2-byte, then 1-byte tensors.
Writer valid_writer() {
    Writer w;
    w.add_f32("embed.weight", {3, 2}, {1.0f, -2.0f, 0.5f, 0.25f, 3.0f, -4.0f});
    w.add_f32("proj.weight.scale", {2}, {0.5f, 0.01f});
    w.add_u16("ln.weight", "F16", {2}, {0x3C00, 0xC000});  // 1, -2
    w.add_u16("ln.bias", "BF16", {2}, {0x3F80, 0x4049});   // 1, 3.140625
    w.add_i8("proj.weight", {2, 3}, {1, -2, 127, -127, 0, 100});
    w.add("tokenizer.model", "U8", {5}, std::string("spm\x00\xff", 5));
    return w;
}

/// Where the data section of a built file starts (8 + the header length field).
std::size_t data_start(const std::string& bytes) {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[i]);
    return 8 + std::size_t(n);
}

ModelFile parse(const std::string& bytes) {
    return ModelFile::parse(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

/// Passes when parsing `bytes` throws heed::Error whose message contains `fragment`.
::testing::AssertionResult rejects(const std::string& bytes, const std::string& fragment) {
    try {
        parse(bytes);
    } catch (const Error& e) {
        if (std::string(e.what()).find(fragment) != std::string::npos)
            return ::testing::AssertionSuccess() << e.what();
        return ::testing::AssertionFailure()
               << "message \"" << e.what() << "\" lacks \"" << fragment << "\"";
    }
    return ::testing::AssertionFailure() << "parsed; expected an error with \"" << fragment << "\"";
}

/// Rebuilds the valid file after `edit` changes its header.
template <class Edit>
std::string edited(Edit edit) {
    Writer w = valid_writer();
    edit(w.header);
    return w.build();
}

// ---- valid files ----

TEST(ModelFile, ParsesValidFileAndMetadata) {
    const std::string bytes = valid_writer().build();
    const ModelFile f = parse(bytes);
    EXPECT_EQ(f.names(),
              (std::vector<std::string>{"embed.weight", "ln.bias", "ln.weight", "proj.weight",
                                        "proj.weight.scale", "tokenizer.model"}));
    EXPECT_TRUE(f.has("ln.bias"));
    EXPECT_FALSE(f.has("ln"));
    EXPECT_EQ(f.info("proj.weight").dtype, DType::I8);
    EXPECT_EQ(f.info("proj.weight").shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(f.info("ln.weight").begin, 32u);
    EXPECT_EQ(f.info("ln.weight").end, 36u);
    EXPECT_EQ(f.metadata("format"), "heed");
    EXPECT_EQ(f.metadata("heed.config"), "{\"d_model\":2}");
    EXPECT_TRUE(f.has_metadata("heed.version"));
    EXPECT_FALSE(f.has_metadata("heed.card"));
    EXPECT_EQ(error_of([&] { f.metadata("heed.card"); }), "model file has no metadata 'heed.card'");
    EXPECT_EQ(
        json::parse(f.metadata_json()),
        (json{{"format", "heed"}, {"heed.version", "1"}, {"heed.config", "{\"d_model\":2}"}}));
}

TEST(ModelFile, ReadsEveryDtypeAsF32) {
    const std::string bytes = valid_writer().build();
    const ModelFile f = parse(bytes);
    EXPECT_EQ(f.read_f32("embed.weight", {3, 2}),
              (std::vector<float>{1.0f, -2.0f, 0.5f, 0.25f, 3.0f, -4.0f}));
    EXPECT_EQ(f.read_f32("ln.weight", {2}), (std::vector<float>{1.0f, -2.0f}));
    EXPECT_EQ(f.read_f32("ln.bias", {2}), (std::vector<float>{1.0f, 3.140625f}));
    // I8: value = int8 * scale[row]
    EXPECT_EQ(f.read_f32("proj.weight", {2, 3}),
              (std::vector<float>{0.5f, -1.0f, 63.5f, -127 * 0.01f, 0.0f, 100 * 0.01f}));
    EXPECT_EQ(f.read_bytes("tokenizer.model"), std::string("spm\x00\xff", 5));
}

TEST(ModelFile, ReadErrorsNameTheTensor) {
    const std::string bytes = valid_writer().build();
    const ModelFile f = parse(bytes);
    EXPECT_EQ(error_of([&] {
                  f.read_f32("embed.weight", {2, 3});
              }),
              "tensor 'embed.weight' has shape [3, 2], expected [2, 3]");
    EXPECT_EQ(error_of([&] { f.read_f32("ln.weight", {}); }),
              "tensor 'ln.weight' has shape [2], expected []");
    EXPECT_EQ(error_of([&] { f.read_f32("lm_head.weight", {2}); }),
              "missing tensor 'lm_head.weight'");
    EXPECT_EQ(error_of([&] { f.info("x"); }), "missing tensor 'x'");
    EXPECT_EQ(error_of([&] { f.read_f32("tokenizer.model", {5}); }),
              "tensor 'tokenizer.model' holds U8 integers, not weights");
    EXPECT_EQ(error_of([&] { f.read_bytes("ln.bias"); }),
              "tensor 'ln.bias' is BF16, expected U8 bytes");
}

// The output shortlist's tables: I32, or U16 (half the bytes) for vocabularies up to 65,536.
TEST(ModelFile, ReadsIntegerTablesFromI32AndU16) {
    Writer w = valid_writer();
    std::string i32;
    for (std::uint32_t x : {0u, 7u, 70000u}) {
        const char b[4] = {char(x & 0xFF), char((x >> 8) & 0xFF), char((x >> 16) & 0xFF),
                           char(x >> 24)};
        i32.append(b, 4);
    }
    w.add("shortlist.fr.offsets", "I32", {3}, i32);
    w.add_u16("shortlist.fr.targets", "U16", {3}, {0, 7, 65535});
    const std::string bytes = w.build();
    const ModelFile f = parse(bytes);
    EXPECT_EQ(f.read_i32("shortlist.fr.offsets"), (std::vector<std::int32_t>{0, 7, 70000}));
    EXPECT_EQ(f.read_i32("shortlist.fr.targets"), (std::vector<std::int32_t>{0, 7, 65535}));
    EXPECT_EQ(error_of([&] { f.read_f32("shortlist.fr.targets", {3}); }),
              "tensor 'shortlist.fr.targets' holds U16 integers, not weights");
    EXPECT_EQ(error_of([&] { f.read_i32("ln.weight"); }),
              "tensor 'ln.weight' is F16 [2], expected a 1-D I32 or U16 tensor");
}

TEST(ModelFile, CheckAllUsedCountsScalesWithTheirTensor) {
    const std::string bytes = valid_writer().build();
    const ModelFile f = parse(bytes);
    const std::set<std::string> all = {"embed.weight", "ln.weight", "ln.bias", "proj.weight",
                                       "tokenizer.model"};
    EXPECT_NO_THROW(f.check_all_used(all));
    std::set<std::string> some = all;
    some.erase("ln.bias");
    EXPECT_EQ(error_of([&] { f.check_all_used(some); }).rfind("unknown tensor 'ln.bias'", 0), 0u);
    some = all;
    some.erase("proj.weight");  // then its scale is not consumed either
    EXPECT_EQ(error_of([&] { f.check_all_used(some); }).rfind("unknown tensor 'proj.weight'", 0),
              0u);

    // a ".scale" tensor that is nobody's companion is an ordinary tensor
    Writer w = valid_writer();
    w.add_f32("ln.weight.scale", {1}, {2.0f});
    const std::string b2 = w.build();
    const ModelFile f2 = parse(b2);
    EXPECT_EQ(
        error_of([&] { f2.check_all_used(all); }).rfind("unknown tensor 'ln.weight.scale'", 0), 0u);
}

TEST(ModelFile, AcceptsEmptyTensorsScalarsAndUnalignedData) {
    Writer w;
    w.add_f32("s", {}, {7.0f});
    w.add("empty", "F32", {0, 4}, "");
    w.add("odd", "U8", {1}, "x");
    w.add_f32("after", {1}, {-1.5f});  // starts at byte 5: reads must not assume alignment
    const std::string bytes = w.build();
    const ModelFile f = parse(bytes);
    EXPECT_EQ(f.read_f32("s", {}), std::vector<float>{7.0f});
    EXPECT_TRUE(f.read_f32("empty", {0, 4}).empty());
    EXPECT_EQ(f.read_f32("after", {1}), std::vector<float>{-1.5f});
}

// ---- one malformed file per verified error ----

TEST(ModelFileErrors, TooShort) {
    EXPECT_TRUE(rejects("", "model file is too short (0 bytes): not a Heed model file"));
    EXPECT_TRUE(rejects(std::string("\x10\0\0", 3), "too short (3 bytes)"));
    EXPECT_TRUE(rejects(std::string(7, '\0'), "too short (7 bytes)"));
    EXPECT_THROW(ModelFile::parse(nullptr, 0), Error);
}

TEST(ModelFileErrors, HeaderLengthPastEndOrAbsurd) {
    EXPECT_TRUE(rejects(u64_le(1000) + "{}", "header length 1000 runs past the end of the file"));
    EXPECT_TRUE(rejects(u64_le(1), "header length 1 runs past the end of the file (8 bytes)"));
    EXPECT_TRUE(rejects(u64_le(200u << 20) + "{}", "is implausible (limit 100 MB)"));
    EXPECT_TRUE(rejects(u64_le(~std::uint64_t{0}) + "{}", "is implausible"));
    // a full valid file whose length field is off by more than the data
    std::string bytes = valid_writer().build();
    bytes.replace(0, 8, u64_le(bytes.size()));
    EXPECT_TRUE(rejects(bytes, "runs past the end of the file"));
}

TEST(ModelFileErrors, HeaderNotUtf8JsonOrObject) {
    EXPECT_TRUE(rejects(file_bytes("{\"a\xff\":1}", ""),
                        "header is not valid UTF-8 (bad byte at "
                        "header offset 3)"));
    EXPECT_TRUE(rejects(file_bytes("{\"\xed\xa0\x80\":1}", ""), "not valid UTF-8"));  // surrogate
    EXPECT_TRUE(rejects(file_bytes("{\"format\": ", ""), "header is not valid JSON"));
    EXPECT_TRUE(rejects(file_bytes("", ""), "header is not valid JSON"));
    EXPECT_TRUE(rejects(file_bytes("{} {}", ""), "header is not valid JSON"));
    EXPECT_TRUE(rejects(file_bytes("[1, 2]", ""), "header is not a JSON object"));
    EXPECT_TRUE(rejects(file_bytes("\"heed\"", ""), "header is not a JSON object"));
    // PyTorch's zip format or any other binary: the first 8 bytes make an absurd length
    EXPECT_TRUE(rejects(std::string("PK\x03\x04\x14\0\0\0", 8) + "junk", "implausible"));
}

TEST(ModelFileErrors, NotAHeedFile) {
    EXPECT_TRUE(rejects(file_bytes("{}", ""),
                        "not a Heed model file: the header has no \"__metadata__\" object"));
    EXPECT_TRUE(
        rejects(edited([](json& h) { h["__metadata__"] = "heed"; }), "not a Heed model file"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"].erase("format"); }),
                        "not a Heed model file: \"__metadata__\" has no \"format\""));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"]["format"] = "pt"; }),
                        "not a Heed model file: \"__metadata__\" has \"format\" 'pt', "
                        "expected 'heed'"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"]["format"] = 1; }),
                        "model file metadata 'format' is not a string"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"]["heed.card"] = json::object(); }),
                        "model file metadata 'heed.card' is not a string"));
}

TEST(ModelFileErrors, VersionAndConfig) {
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"]["heed.version"] = "2"; }),
                        "model file format version '2' is newer than this Heed reads (version "
                        "1): update Heed to load it"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"]["heed.version"] = "0"; }),
                        "unsupported Heed model file version '0' (this build reads version 1)"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"]["heed.version"] = "1.5"; }),
                        "unsupported Heed model file version '1.5' (this build reads version 1)"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"].erase("heed.version"); }),
                        "model file has no \"heed.version\" in its \"__metadata__\""));
    EXPECT_TRUE(rejects(edited([](json& h) { h["__metadata__"].erase("heed.config"); }),
                        "model file has no \"heed.config\" in its \"__metadata__\""));
}

TEST(ModelFileErrors, EntryMissingFieldsOrWrongTypes) {
    for (const char* key : {"dtype", "shape", "data_offsets"})
        EXPECT_TRUE(
            rejects(edited([&](json& h) { h["ln.bias"].erase(key); }),
                    std::string("tensor 'ln.bias' has no \"") + key + "\" in its header entry"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["ln.bias"] = json::array({1, 2});
                        }),
                        "tensor 'ln.bias' has a header entry that is not a JSON object"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.bias"]["dtype"] = 16; }),
                        "tensor 'ln.bias' has a \"dtype\" that is not a string"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.bias"]["shape"] = 2; }),
                        "tensor 'ln.bias' has a \"shape\" that is not an array"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.bias"]["shape"] = {"2"}; }),
                        "tensor 'ln.bias' has a dimension that is not a number (\"2\")"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.bias"]["data_offsets"] = {32}; }),
                        "tensor 'ln.bias' has \"data_offsets\" that are not [begin, end]"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.bias"]["data_offsets"] = "32-36"; }),
                        "that are not [begin, end]"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["ln.bias"]["data_offsets"] = {36, nullptr};
                        }),
                        "tensor 'ln.bias' has a data offset that is not a number (null)"));
}

TEST(ModelFileErrors, UnknownDtype) {
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.bias"]["dtype"] = "F64"; }),
                        "tensor 'ln.bias' has unknown dtype 'F64' (expected F32, F16, BF16, I8, "
                        "U8, U16 or I32)"));
    EXPECT_TRUE(
        rejects(edited([](json& h) { h["ln.bias"]["dtype"] = "f16"; }), "unknown dtype 'f16'"));
}

TEST(ModelFileErrors, NegativeOrNonIntegerDims) {
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["embed.weight"]["shape"] = {-3, -2};
                        }),
                        "tensor 'embed.weight' has a negative dimension (-3)"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["embed.weight"]["shape"] = {3, 2.0};
                        }),
                        "tensor 'embed.weight' has a non-integer dimension (2.0)"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["embed.weight"]["shape"] = {1.5, 4};
                        }),
                        "non-integer dimension (1.5)"));
    // dimensions whose product overflows 64 bits
    EXPECT_TRUE(
        rejects(edited([](json& h) {
                    h["embed.weight"]["shape"] = {std::uint64_t(1) << 40, std::uint64_t(1) << 40};
                }),
                "tensor 'embed.weight' has an impossibly large shape"));
}

TEST(ModelFileErrors, OffsetsBeginAfterEndOrNegative) {
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["ln.bias"]["data_offsets"] = {36, 32};
                        }),
                        "tensor 'ln.bias' has data_offsets [36, 32] with begin after end"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["ln.bias"]["data_offsets"] = {-4, 0};
                        }),
                        "tensor 'ln.bias' has a negative data offset (-4)"));
}

TEST(ModelFileErrors, ByteSizeDoesNotMatchShape) {
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["embed.weight"]["shape"] = {3, 3};
                        }),
                        "tensor 'embed.weight' of F32 shape [3, 3] needs 36 bytes, but its "
                        "data_offsets [0, 24] hold 24"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["ln.weight"]["dtype"] = "F32"; }),
                        "tensor 'ln.weight' of F32 shape [2] needs 8 bytes"));
}

TEST(ModelFileErrors, OffsetsOutOfRange) {
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["ln.weight"]["data_offsets"] = {1000000, 1000004};
                        }),
                        "tensor 'ln.weight' has data_offsets [1000000, 1000004] out of range: "
                        "the data section has 51 bytes"));
    EXPECT_TRUE(
        rejects(edited([](json& h) {
                    h["ln.weight"]["data_offsets"] = {~std::uint64_t{0} - 4, ~std::uint64_t{0}};
                }),
                "out of range"));
}

TEST(ModelFileErrors, OverlappingTensors) {
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["ln.bias"]["data_offsets"] = {34, 38};
                        }),
                        "tensors 'ln.weight' [32, 36] and 'ln.bias' [34, 38] overlap in the data "
                        "section"));
    // the same bytes claimed twice
    EXPECT_TRUE(rejects(edited([](json& h) { h["alias"] = h["embed.weight"]; }), "overlap"));
    // one tensor inside a larger one
    EXPECT_TRUE(
        rejects(edited([](json& h) {
                    h["inner"] = {{"dtype", "U8"}, {"shape", {2}}, {"data_offsets", {4, 6}}};
                }),
                "overlap"));
}

TEST(ModelFileErrors, QuantisedWithoutOrWithBadScale) {
    EXPECT_TRUE(rejects(edited([](json& h) { h.erase("proj.weight.scale"); }),
                        "I8 tensor 'proj.weight' has no scale tensor 'proj.weight.scale'"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["proj.weight.scale"]["shape"] = {1, 2};
                        }),
                        "scale tensor 'proj.weight.scale' is F32 [1, 2], expected F32 [2] (one "
                        "scale per row of 'proj.weight')"));
    EXPECT_TRUE(rejects(edited([](json& h) {
                            h["proj.weight.scale"]["dtype"] = "F16";
                            h["proj.weight.scale"]["shape"] = {4};
                        }),
                        "scale tensor 'proj.weight.scale' is F16 [4], expected F32 [2]"));
    EXPECT_TRUE(rejects(edited([](json& h) { h["proj.weight"]["shape"] = {6}; }),
                        "I8 tensor 'proj.weight' must be 2-D [rows, cols], but has shape [6]"));
}

TEST(ModelFileErrors, TruncatedDataSection) {
    const std::string bytes = valid_writer().build();
    EXPECT_TRUE(rejects(bytes.substr(0, bytes.size() - 1),
                        "model file is truncated: the header describes 51 bytes of tensor data "
                        "but only 50 follow it"));
    const std::size_t header_end = data_start(bytes);
    for (std::size_t cut : {std::size_t(51), std::size_t(20), std::size_t(2)})
        EXPECT_TRUE(rejects(bytes.substr(0, bytes.size() - cut), "model file is truncated"));
    // cut inside the header: the length field runs past the end
    EXPECT_TRUE(rejects(bytes.substr(0, header_end - 60), "runs past the end of the file"));
}

TEST(ModelFileErrors, FuzzedCopiesParseOrThrowHeedError) {
    const std::string valid = valid_writer().build();
    const std::size_t header_end = data_start(valid);
    std::mt19937 rng(20240611);
    auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
    int parsed = 0, rejected = 0;
    for (int iter = 0; iter < 2000; ++iter) {
        std::string b = valid;
        switch (iter % 6) {
            case 0:  // flip a few random bits anywhere
                for (int k = 0; k < 1 + int(pick(4)); ++k) b[pick(b.size())] ^= char(1 << pick(8));
                break;
            case 1:  // overwrite bytes inside the header text (digits, quotes, brackets)
                for (int k = 0; k < 1 + int(pick(3)); ++k)
                    b[8 + pick(header_end - 8)] = "0123456789-.\"[]{}:, e\xff"[pick(22)];
                break;
            case 2:  // truncate
                b.resize(pick(b.size()));
                break;
            case 3:  // corrupt the length field
                b[pick(8)] = char(rng());
                break;
            case 4:  // random bytes in the data section: parses, and every read still works
                for (int k = 0; k < 4; ++k)
                    b[header_end + pick(b.size() - header_end)] = char(rng());
                break;
            default:  // random bytes appended or spliced in
                b.insert(pick(b.size()), std::string(1 + pick(16), char(rng())));
                break;
        }
        try {
            const ModelFile f = parse(b);
            ++parsed;
            for (const std::string& name : f.names()) {  // every read must stay in bounds
                const TensorInfo& t = f.info(name);
                try {
                    if (t.dtype == DType::U8)
                        f.read_bytes(name);
                    else
                        f.read_f32(name, t.shape);
                } catch (const Error&) {
                }
            }
        } catch (const Error&) {
            ++rejected;
        }
    }
    std::printf("fuzz: %d mutated files parsed, %d rejected with heed::Error\n", parsed, rejected);
    EXPECT_EQ(parsed + rejected, 2000);
    EXPECT_GT(rejected, 1000);  // most mutations are caught
    EXPECT_GT(parsed, 0);       // and flips in the data section are not errors
}

// ---- fixtures written by heed_torch.write_heed (models/goldens/make_format_fixture.py) ----

std::string fixture(const char* name) {
    const std::string bytes = test::read_text(std::string(HEED_TEST_DATA) + "/" + name);
    EXPECT_FALSE(bytes.empty()) << "missing fixture " << name;
    return bytes;
}

const char kFixtureTokenizer[] = "heed fixture: stand-in tokenizer bytes \x00\x01\xfe\xff";

/// Every tensor heed_tensors() produces for the fixture config (D=8, F=16, V=16, 1+1 layers).
std::set<std::string> fixture_tensor_names() {
    std::set<std::string> n = {"embed.weight",      "encoder.ln.weight", "encoder.ln.bias",
                               "decoder.ln.weight", "decoder.ln.bias",   "tokenizer.model"};
    auto attn = [&](const std::string& p) {
        for (const char* x : {"q", "k", "v", "o"})
            for (const char* y : {"weight", "bias"}) n.insert(p + "." + x + "." + y);
    };
    auto pair = [&](const std::string& p) {
        n.insert(p + ".weight");
        n.insert(p + ".bias");
    };
    attn("encoder.0.self_attn");
    attn("decoder.0.self_attn");
    attn("decoder.0.cross_attn");
    for (const char* p : {"encoder.0.ln1", "encoder.0.ln2", "encoder.0.ffn.fc1",
                          "encoder.0.ffn.fc2", "decoder.0.ln1", "decoder.0.ln2", "decoder.0.ln3",
                          "decoder.0.ffn.fc1", "decoder.0.ffn.fc2"})
        pair(p);
    return n;
}

TEST(ModelFileFixture, F16FileFromPyTorch) {
    const std::string bytes = fixture("tiny_format.heed");
    const ModelFile f = parse(bytes);
    EXPECT_EQ(f.metadata("heed.card"), "format fixture");
    EXPECT_EQ(json::parse(f.metadata("heed.languages"))["target"], "de");
    EXPECT_EQ(json::parse(f.metadata("heed.config"))["ffn_dim"], 16);
    EXPECT_EQ(f.info("encoder.0.ffn.fc1.weight").dtype, DType::F16);
    EXPECT_EQ(f.read_bytes("tokenizer.model"),
              std::string(kFixtureTokenizer, sizeof kFixtureTokenizer - 1));
    // numbers printed by models/goldens/make_format_fixture.py
    const auto embed = f.read_f32("embed.weight", {16, 8});
    EXPECT_ALLCLOSE(std::vector<float>(embed.begin() + 8, embed.begin() + 12),
                    (std::vector<float>{-0.712402344f, 0.24621582f, -0.236083984f, -0.297851562f}),
                    0, 0);
    const auto b1 = f.read_f32("encoder.0.ffn.fc1.bias", {16});
    EXPECT_ALLCLOSE(std::vector<float>(b1.begin(), b1.begin() + 4),
                    (std::vector<float>{0.101074219f, 0.237670898f, -0.0847167969f, 0.0811157227f}),
                    0, 0);
    const auto v = f.read_f32("decoder.0.cross_attn.v.weight", {8, 8});
    EXPECT_ALLCLOSE(std::vector<float>(v.begin() + 60, v.end()),
                    (std::vector<float>{0.0514221191f, -0.131225586f, -0.1796875f, 0.116455078f}),
                    0, 0);
    const auto names = fixture_tensor_names();
    EXPECT_EQ(f.names(), std::vector<std::string>(names.begin(), names.end()));
    EXPECT_NO_THROW(f.check_all_used(names));
}

TEST(ModelFileFixture, I8FileFromPyTorch) {
    const std::string bytes = fixture("tiny_format_i8.heed");
    const ModelFile f = parse(bytes);
    EXPECT_EQ(f.info("embed.weight").dtype, DType::I8);
    EXPECT_EQ(f.info("encoder.0.ffn.fc2.weight").dtype, DType::I8);
    EXPECT_EQ(f.info("encoder.0.self_attn.q.weight").dtype, DType::F32);  // [8, 8] < threshold
    EXPECT_EQ(f.info("encoder.0.ffn.fc1.bias").dtype, DType::F32);
    EXPECT_EQ(f.info("decoder.ln.weight").dtype, DType::F32);
    // exact: the file holds what PyTorch computes with after round_to_dtype(model, "I8")
    const auto embed = f.read_f32("embed.weight", {16, 8});
    EXPECT_ALLCLOSE(std::vector<float>(embed.begin() + 8, embed.begin() + 12),
                    (std::vector<float>{-0.712570965f, 0.246874988f, -0.2356534f, -0.297372133f}),
                    0, 0);
    EXPECT_ALLCLOSE(std::vector<float>(embed.begin(), embed.begin() + 8),
                    std::vector<float>(8, 0.0f), 0, 0);  // the zeroed padding row (scale 1, q 0)
    EXPECT_ALLCLOSE(f.read_f32("embed.weight.scale", {16}).data(),
                    std::vector<float>{1.0f, 0.00561079523f, 0.00474118767f}.data(), 3, 0, 0);
    const auto fc2 = f.read_f32("encoder.0.ffn.fc2.weight", {8, 16});
    EXPECT_ALLCLOSE(
        fc2.data() + 32,
        std::vector<float>{0.184214532f, 0.230268165f, -0.0921072662f, -0.487400949f}.data(), 4, 0,
        0);
    EXPECT_ALLCLOSE(
        f.read_f32("encoder.0.self_attn.q.weight", {8, 8}).data(),
        std::vector<float>{-0.356150568f, -0.342009306f, 0.39206773f, -0.0938825086f}.data(), 4, 0,
        0);
    EXPECT_ALLCLOSE(
        f.read_f32("encoder.0.ffn.fc1.bias", {16}).data(),
        std::vector<float>{0.101046517f, 0.237670451f, -0.0847085863f, 0.0810979977f}.data(), 4, 0,
        0);
    // the raw int8s behind embed row 1
    const std::int8_t* q = reinterpret_cast<const std::int8_t*>(bytes.data() + data_start(bytes) +
                                                                f.info("embed.weight").begin + 8);
    EXPECT_EQ((std::vector<int>(q, q + 4)), (std::vector<int>{-127, 44, -42, -53}));
    // scales are consumed with their tensors
    const auto names = fixture_tensor_names();
    EXPECT_NO_THROW(f.check_all_used(names));
    EXPECT_EQ(f.names().size(), names.size() + 5);  // embed + 2 x (fc1, fc2) scales
}

// ---- half.h ----

/// The value of binary16 bits `h`, computed independently with ldexp.
double f16_reference(std::uint16_t h) {
    const int sign = (h >> 15) ? -1 : 1;
    const int exp = (h >> 10) & 0x1F;
    const int mant = h & 0x3FF;
    if (exp == 0) return sign * std::ldexp(double(mant), -24);
    if (exp == 31) return mant ? std::nan("") : sign * std::numeric_limits<double>::infinity();
    return sign * std::ldexp(double(1024 + mant), exp - 25);
}

TEST(Half, F16AllBitPatternsExact) {
    for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
        const float got = f16_to_f32(std::uint16_t(h));
        const double want = f16_reference(std::uint16_t(h));
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got)) << std::hex << h;
            std::uint32_t bits;
            std::memcpy(&bits, &got, 4);
            EXPECT_EQ(bits & 0x7FFFFFu, (h & 0x3FFu) << 13)
                << "NaN payload kept, " << std::hex << h;
            EXPECT_EQ(bits >> 31, h >> 15) << std::hex << h;
        } else {
            ASSERT_EQ(double(got), want) << std::hex << h;
            ASSERT_EQ(std::signbit(got), bool(h & 0x8000)) << std::hex << h;  // -0 stays -0
        }
    }
    EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
    EXPECT_EQ(f16_to_f32(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
    EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));     // smallest normal
    EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0f);
    EXPECT_EQ(f16_to_f32(0xFC00), -std::numeric_limits<float>::infinity());
}

TEST(Half, Bf16IsTheTopHalfOfAFloat) {
    EXPECT_EQ(bf16_to_f32(0x3F80), 1.0f);
    EXPECT_EQ(bf16_to_f32(0xC040), -3.0f);
    EXPECT_EQ(bf16_to_f32(0x0001), std::ldexp(1.0f, -133));  // subnormal
    EXPECT_EQ(bf16_to_f32(0x7F80), std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(bf16_to_f32(0x7FC1)));
    EXPECT_TRUE(std::signbit(bf16_to_f32(0x8000)));
    for (std::uint32_t b = 0; b <= 0xFFFF; b += 7) {
        const float f = bf16_to_f32(std::uint16_t(b));
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        ASSERT_EQ(bits, b << 16);
    }
}

}  // namespace
}  // namespace heed
