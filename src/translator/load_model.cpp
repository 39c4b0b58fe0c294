// load_model(): a model file's parts (config, tokenizers and their id maps, weights,
// directions) parsed and checked against each other, and what the searches need from the
// tokenizer (control pieces never emitted, the byte-fallback pieces).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/config.h"
#include "model/model_file.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace heed {
namespace {

/// An id map's tensor at most this big (a U8 tensor: 64 bytes for each of the most ids a model
/// may have); checked before its pieces are copied.
constexpr std::size_t kMaxIdMapBytes = std::size_t(64) * ModelLimits::vocab_size;

/// The pieces of id map `name` (models/FORMAT.md: each piece followed by a NUL byte), `count`
/// of them.
std::vector<std::string> read_id_map(const ModelFile& file, const std::string& name, int count) {
    const TensorInfo& t = file.info(name);
    const std::size_t size = t.end - t.begin;
    if (size > kMaxIdMapBytes)
        throw Error("id map '" + name + "' is " + std::to_string(size) +
                    " bytes, over the limit of " + std::to_string(kMaxIdMapBytes));
    const std::string bytes = file.read_bytes(name);
    if (!bytes.empty() && bytes.back() != '\0')
        throw Error("id map '" + name + "' does not end with a NUL byte (one follows each piece)");
    const std::size_t nuls = std::size_t(std::count(bytes.begin(), bytes.end(), '\0'));
    if (nuls != std::size_t(count))
        throw Error("id map '" + name + "' lists " + std::to_string(nuls) +
                    " pieces but the model's vocabulary has " + std::to_string(count));
    std::vector<std::string> pieces;
    pieces.reserve(nuls);
    for (std::size_t begin = 0; begin < bytes.size();) {
        const std::size_t end = bytes.find('\0', begin);
        pieces.push_back(bytes.substr(begin, end - begin));
        begin = end + 1;
    }
    return pieces;
}

/// One side's ids, checked against the model: the SentencePiece model in tensor `model` and,
/// when `map` names a tensor, the id map over it; `pieces` ids, the same </s> (and <unk>).
Vocabulary read_vocabulary(const ModelFile& file, const std::string& model, const std::string& map,
                           int pieces, const ModelConfig& config) {
    Tokenizer t = Tokenizer::from_bytes(file.read_bytes(model));
    if (map.empty()) {
        if (t.vocab_size() != pieces)
            throw Error("tokenizer '" + model + "' has " + std::to_string(t.vocab_size()) +
                        " pieces but the model's vocabulary has " + std::to_string(pieces));
        if (t.eos_id() != config.eos_id)
            throw Error("tokenizer '" + model +
                        "' and the model disagree on the end-of-sentence id");
        return Vocabulary(std::move(t));
    }
    std::vector<std::string> list = read_id_map(file, map, pieces);
    Vocabulary v = [&] {
        try {
            return Vocabulary(std::move(t), std::move(list));
        } catch (const Error& e) {
            throw Error("id map '" + map + "': " + e.what());
        }
    }();
    if (v.eos_id() != config.eos_id || v.unk_id() != config.unk_id)
        throw Error("id map '" + map + "' puts </s> at " + std::to_string(v.eos_id()) +
                    " and <unk> at " + std::to_string(v.unk_id()) + ", but the model's eos_id is " +
                    std::to_string(config.eos_id) + " and its unk_id " +
                    std::to_string(config.unk_id));
    return v;
}

/// What each id of `target` writes (PieceTexts): "▁" as a space, byte pieces their byte,
/// control and unknown pieces nothing.
PieceTexts piece_texts(const Vocabulary& target) {
    static const std::string kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary
    PieceTexts t;
    t.text.resize(std::size_t(target.vocab_size()));
    for (int id = 0; id < target.vocab_size(); ++id) {
        std::string& out = t.text[std::size_t(id)];
        if (target.is_control(id) || id == target.unk_id()) continue;
        const int b = target.byte_value(id);
        if (b >= 0) {
            out.assign(1, char(b));
            continue;
        }
        const std::string& piece = target.piece(id);
        for (std::size_t i = 0; i < piece.size();) {
            if (piece.compare(i, kSpace.size(), kSpace) == 0) {
                out += ' ';
                i += kSpace.size();
            } else {
                out += piece[i++];
            }
        }
    }
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
    const bool mapped = file.has("tokenizer.vocabulary");
    const bool own_model = file.has("tokenizer.target.model");
    const bool own_map = file.has("tokenizer.target.vocabulary");
    if (own_map && !mapped)
        throw Error(
            "model file has a target id map (tensor 'tokenizer.target.vocabulary') but no "
            "source one (tensor 'tokenizer.vocabulary' is missing)");
    Vocabulary tokenizer = read_vocabulary(
        file, "tokenizer.model", mapped ? "tokenizer.vocabulary" : "", config.vocab_size, config);
    std::unique_ptr<Vocabulary> separate;
    if (own_model || own_map)
        separate = std::make_unique<Vocabulary>(
            read_vocabulary(file, own_model ? "tokenizer.target.model" : "tokenizer.model",
                            !mapped   ? ""
                            : own_map ? "tokenizer.target.vocabulary"
                                      : "tokenizer.vocabulary",
                            config.target_vocab(), config));
    else if (config.target_vocab() != config.vocab_size)
        throw Error("model has a target vocabulary of its own (target_vocab_size " +
                    std::to_string(config.target_vocab()) +
                    ") but no tokenizer for it (tensor 'tokenizer.target.model' is missing)");
    Vocabulary& target = separate ? *separate : tokenizer;
    ModelWeights weights = load_weights(file, config, options);
    Directions directions = Directions::parse(
        file.has_metadata("heed.languages") ? file.metadata("heed.languages") : std::string(),
        target, config.decoder_start_id);
    // why: a start piece ("<2de>") is the model's instruction, never the user's text or output
    std::vector<int> starts = directions.start_ids();
    starts.push_back(config.decoder_start_id);
    target.make_control(starts);
    // why: a model read through src/marian/ searches as Marian's beam search does (Marian's
    // translator/beam_search.cpp: only <unk>'s column is suppressed, unless allow-unk; no other
    // piece is, and nothing keeps byte-fallback pieces whole characters)
    const bool marian = config.search_rules == SearchRules::Marian;
    std::vector<int> never_emitted;
    if (marian)
        never_emitted.push_back(config.unk_id);
    else
        for (int id : target.control_ids())
            if (id != config.eos_id) never_emitted.push_back(id);
    BytePieces byte_pieces;
    byte_pieces.byte_of.assign(std::size_t(target.vocab_size()), -1);
    for (int id = 0; id < target.vocab_size() && !marian; ++id) {
        const int b = target.byte_value(id);
        if (b < 0) continue;
        byte_pieces.byte_of[std::size_t(id)] = std::int16_t(b);
        byte_pieces.ids.push_back(id);
    }
    PieceTexts texts;
    if (!marian) {
        texts = piece_texts(target);
        index_copied(texts);
    }
    return std::unique_ptr<LoadedModel>(
        new LoadedModel{Model(config, std::move(weights)), std::move(tokenizer),
                        file.metadata_json(), std::move(directions), std::move(never_emitted),
                        std::move(byte_pieces), std::move(texts), std::move(separate)});
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
