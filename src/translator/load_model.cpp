// load_model(): a model file's parts (config, tokenizer, weights, directions) parsed and
// checked against each other, and what the searches need from the tokenizer (control pieces
// never emitted, the byte-fallback pieces).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/model_file.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace heed {
namespace {

/// The tokenizer in tensor `name`, checked against the model: `pieces` ids, the same EOS.
Tokenizer read_tokenizer(const ModelFile& file, const std::string& name, int pieces,
                         const ModelConfig& config) {
    Tokenizer t = Tokenizer::from_bytes(file.read_bytes(name));
    if (t.vocab_size() != pieces)
        throw Error("tokenizer '" + name + "' has " + std::to_string(t.vocab_size()) +
                    " pieces but the model's vocabulary has " + std::to_string(pieces));
    if (t.eos_id() != config.eos_id)
        throw Error("tokenizer '" + name + "' and the model disagree on the end-of-sentence id");
    return t;
}

}  // namespace

std::unique_ptr<LoadedModel> load_model(const std::uint8_t* bytes, std::size_t size,
                                        const LoadOptions& options) {
    if (size > kMaxModelBytes)
        throw Error("model file is " + std::to_string(size) + " bytes, over the limit of " +
                    std::to_string(kMaxModelBytes));
    ModelFile file = ModelFile::parse(bytes, size);
    ModelConfig config = ModelConfig::from_json(file.metadata("heed.config"));
    if (!file.has("tokenizer.model"))
        throw Error("model file has no tokenizer (tensor 'tokenizer.model' is missing)");
    Tokenizer tokenizer = read_tokenizer(file, "tokenizer.model", config.vocab_size, config);
    std::unique_ptr<Tokenizer> separate;
    if (file.has("tokenizer.target.model"))
        separate = std::make_unique<Tokenizer>(
            read_tokenizer(file, "tokenizer.target.model", config.target_vocab(), config));
    else if (config.target_vocab() != config.vocab_size)
        throw Error("model has a target vocabulary of its own (target_vocab_size " +
                    std::to_string(config.target_vocab()) +
                    ") but no tokenizer for it (tensor 'tokenizer.target.model' is missing)");
    Tokenizer& target = separate ? *separate : tokenizer;
    ModelWeights weights = load_weights(file, config, options);
    Directions directions = Directions::parse(
        file.has_metadata("heed.languages") ? file.metadata("heed.languages") : std::string(),
        target, config.decoder_start_id);
    // why: a start piece ("<2de>") is the model's instruction, never the user's text or output
    std::vector<int> starts = directions.start_ids();
    starts.push_back(config.decoder_start_id);
    target.make_control(starts);
    std::vector<int> never_emitted;
    for (int id : target.control_ids())
        if (id != config.eos_id) never_emitted.push_back(id);
    BytePieces byte_pieces;
    byte_pieces.byte_of.assign(std::size_t(target.vocab_size()), -1);
    for (int id = 0; id < target.vocab_size(); ++id) {
        const int b = target.byte_value(id);
        if (b < 0) continue;
        byte_pieces.byte_of[std::size_t(id)] = std::int16_t(b);
        byte_pieces.ids.push_back(id);
    }
    return std::unique_ptr<LoadedModel>(
        new LoadedModel{Model(config, std::move(weights)), std::move(tokenizer),
                        file.metadata_json(), std::move(directions), std::move(never_emitted),
                        std::move(byte_pieces), std::move(separate)});
}

std::unique_ptr<LoadedModel> load_model_file(const std::string& path, const LoadOptions& options) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error("cannot open model file '" + path + "'");
    // why: a device or pipe (/dev/zero) never ends; only a regular file has a size to check
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error("model file '" + path + "' is not a regular file");
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw Error("cannot read model file '" + path + "'");
    if (size > kMaxModelBytes)
        throw Error("model file '" + path + "' is " + std::to_string(size) +
                    " bytes, over the limit of " + std::to_string(kMaxModelBytes));
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    f.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size));
    if (std::size_t(f.gcount()) != size) throw Error("cannot read model file '" + path + "'");
    return load_model(bytes.data(), bytes.size(), options);
}

}  // namespace heed
