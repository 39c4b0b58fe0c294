// Untrusted model files: each crafted change to the tiny model must end in a heed::Error that
// names the field or tensor and the limit, before the loader allocates for it. Not the
// format's own checks (model_file_test.cpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "model/config.h"
#include "model/model_file.h"
#include "test_util.h"
#include "translator/translator.h"

namespace heed {
namespace {

using nlohmann::json;
using test::error_of;
using test::u64_le;

/// The tiny model split into its header JSON and data section, and joined back.
struct TinyFile {
    json header;
    std::string data;

    TinyFile() {
        const std::string bytes = test::read_text(HEED_MODELS_DIR "/tiny/tiny.heed");
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i) n = (n << 8) | std::uint8_t(bytes[i]);
        header = json::parse(bytes.substr(8, n));
        data = bytes.substr(8 + n);
    }
    std::string bytes() const {
        std::string h = header.dump();
        h.append((8 - h.size() % 8) % 8, ' ');
        return u64_le(h.size()) + h + data;
    }
    /// Replaces one config field by raw JSON text (e.g. "1e20").
    void set_config(const std::string& key, const std::string& value_json) {
        json c = json::parse(header["__metadata__"]["heed.config"].get<std::string>());
        c[key] = json::parse(value_json);
        header["__metadata__"]["heed.config"] = c.dump();
    }
    std::size_t offset_of(const std::string& tensor) const {
        return header.at(tensor).at("data_offsets")[0].get<std::size_t>();
    }
};

std::string load_error(const std::string& bytes) {
    return error_of([&] {
        Translator::load(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    });
}

std::string config_error(const std::string& key, const std::string& value_json) {
    TinyFile f;
    f.set_config(key, value_json);
    return load_error(f.bytes());
}

TEST(UntrustedModel, TheTinyModelItselfLoads) {
    EXPECT_EQ(load_error(TinyFile().bytes()), "(no heed::Error)");
}

// a float in an integer field was a UB cast
TEST(UntrustedModel, FloatInAnIntegerFieldIsRefused) {
    for (auto [key, value] : {std::pair{"heads", "1e20"},
                              {"d_model", "1e10"},
                              {"ffn_dim", "1e300"},
                              {"heads", "4.0"},
                              {"encoder_layers", "2.5"}}) {
        const std::string e = config_error(key, value);
        EXPECT_NE(e.find(std::string("'") + key + "' must be an integer"), std::string::npos)
            << key << "=" << value << ": " << e;
    }
}

// 4294967300 wrapped to 4
TEST(UntrustedModel, LargeIntegersDoNotWrap) {
    for (const char* value : {"4294967300", "18446744073709551615", "-4294967292", "2147483648"}) {
        const std::string e = config_error("heads", value);
        EXPECT_NE(e.find("'heads' is"), std::string::npos) << value << ": " << e;
        EXPECT_NE(e.find("outside the limit (1 to 64)"), std::string::npos) << e;
    }
}

// layer_norm_eps -1 or infinite was accepted
TEST(UntrustedModel, EpsilonMustBeFiniteAndPositive) {
    for (const char* value : {"-1", "0", "1e-50", "2", "\"small\"", "null"}) {
        const std::string e = config_error("layer_norm_eps", value);
        EXPECT_NE(e.find("'layer_norm_eps' must be a finite number > 0"), std::string::npos)
            << value << ": " << e;
    }
    EXPECT_EQ(config_error("layer_norm_eps", "1e-6"), "(no heed::Error)");
    // why: JSON has no Infinity; nlohmann refuses an overflowing literal as invalid JSON
    const std::string e = error_of([] {
        ModelConfig::from_json(R"({"d_model": 32, "heads": 4, "ffn_dim": 64, "encoder_layers": 1,
            "decoder_layers": 1, "vocab_size": 400, "layer_norm_eps": 1e400})");
    });
    EXPECT_NE(e.find("model config is not valid JSON"), std::string::npos) << e;
}

// unk_id -7 and bos_id 10^9 were accepted
TEST(UntrustedModel, SpecialIdsMustBeInTheVocabulary) {
    EXPECT_NE(config_error("unk_id", "-7").find("'unk_id' is -7"), std::string::npos);
    EXPECT_NE(config_error("bos_id", "1000000000").find("'bos_id'"), std::string::npos);
    const std::string e = config_error("bos_id", "400");
    EXPECT_NE(e.find("'bos_id' is 400, not an id of the 400-piece vocabulary"), std::string::npos)
        << e;
}

// heads 256 made one --attention run take 33 s and 3 GB
TEST(UntrustedModel, ResourceCapsNameTheFieldAndLimit) {
    EXPECT_NE(config_error("heads", "256").find("'heads' is 256, outside the limit (1 to 64)"),
              std::string::npos);
    EXPECT_NE(config_error("encoder_layers", "1000").find("'encoder_layers'"), std::string::npos);
    EXPECT_NE(config_error("vocab_size", "100000000").find("'vocab_size'"), std::string::npos);
    EXPECT_NE(config_error("max_positions", "1000000").find("'max_positions'"), std::string::npos);
}

// NaN/Inf weights loaded and translated to an empty line with exit 0
TEST(UntrustedModel, NonFiniteWeightsAreRefused) {
    for (float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        TinyFile f;
        std::memcpy(&f.data[f.offset_of("embed.weight") + 4 * 5], &bad, 4);
        const std::string e = load_error(f.bytes());
        EXPECT_NE(e.find("tensor 'embed.weight' has a non-finite value"), std::string::npos) << e;
        EXPECT_NE(e.find("at element 5"), std::string::npos) << e;
    }
}

// An int8 model keeps its I8 weights int8 in memory: a NaN or Inf in a row scale must be
// refused as a non-finite weight is (it would make every product of that row NaN).
TEST(UntrustedModel, NonFiniteInt8ScalesAreRefused) {
    const std::string bytes = heed::test::read_text(HEED_MODELS_DIR "/en-fr.heed");
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
    const std::size_t at =
        8 + n + header["encoder.0.ffn.fc1.weight.scale"]["data_offsets"][0].get<std::size_t>();
    for (float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        std::string broken = bytes;
        std::memcpy(&broken[at + 4 * 3], &bad, 4);
        std::string e = "no error";
        try {
            heed::Translator::load(reinterpret_cast<const std::uint8_t*>(broken.data()),
                                   broken.size());
        } catch (const heed::Error& err) {
            e = err.what();
        }
        EXPECT_NE(e.find("'encoder.0.ffn.fc1.weight.scale' has a non-finite value"),
                  std::string::npos)
            << e;
        EXPECT_NE(e.find("at element 3"), std::string::npos) << e;
    }
}

// a 59 MB header of empty tensor entries cost 906 MB before it was rejected
TEST(UntrustedModel, HeaderMuchLargerThanItsDataIsRefusedBeforeParsing) {
    std::string h = "{";
    for (int i = 0; h.size() < 3 * 1024 * 1024; ++i)
        h += "\"t" + std::to_string(i) +
             "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]},";
    h += "\"__metadata__\":{\"format\":\"heed\"}}";
    h.append((8 - h.size() % 8) % 8, ' ');
    const std::string bytes = u64_le(h.size()) + h;
    const std::string e = load_error(bytes);
    EXPECT_NE(e.find("is too large for its 0 bytes of tensor data"), std::string::npos) << e;
}

// tokenizer pieces were not checked as UTF-8 (the CLI printed a raw 0xFF)
TEST(UntrustedModel, TokenizerPiecesMustBeUtf8) {
    TinyFile f;
    const std::size_t begin = f.offset_of("tokenizer.model");
    const std::size_t at = f.data.find("\xE2\x96\x81", begin);  // the first "▁" of a piece
    ASSERT_NE(at, std::string::npos);
    f.data[at] = '\xFF';
    const std::string e = load_error(f.bytes());
    EXPECT_NE(e.find("is not valid UTF-8"), std::string::npos) << e;
}

// -m /dev/zero was read until memory ran out
TEST(UntrustedModel, OversizedOrEndlessFilesAreRefusedBeforeReading) {
    const std::string tiny = TinyFile().bytes();
    // why: load() checks the size before touching the bytes, so a short buffer is enough
    const std::string e = error_of([&] {
        Translator::load(reinterpret_cast<const std::uint8_t*>(tiny.data()), kMaxModelBytes + 1);
    });
    EXPECT_NE(e.find("over the limit of 1073741824"), std::string::npos) << e;
    EXPECT_NE(error_of([] { Translator::load_file("/dev/zero"); }).find("not a regular file"),
              std::string::npos);
}

}  // namespace
}  // namespace heed
