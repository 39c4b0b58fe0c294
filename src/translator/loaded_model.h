// What a Translator holds: a model file's model, tokenizer and metadata, loaded and checked
// against each other. Internal to the translator layer and to tests that need the parts; the
// façade for everyone else is translator.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decoding/copy_guard.h"
#include "decoding/utf8_guard.h"
#include "model/model.h"
#include "tokenizer/vocabulary.h"
#include "translator/directions.h"

namespace heed {

struct LoadedModel {
    Model model;
    /// The source's ids and text, and the target's unless `separate_target`: the SentencePiece
    /// model's own ids, or an id map's ("tokenizer.vocabulary") over it.
    Vocabulary tokenizer;
    std::string metadata_json;  ///< the file's "__metadata__" as a JSON object text
    Directions directions;      ///< from "heed.languages": the directions and their start ids
    /// Target ids the decoder may never choose, ascending: every control piece but </s> (<s>,
    /// <pad>, the target-language tokens); under SearchRules::Marian <unk> alone.
    std::vector<int> never_emitted;
    /// The tokenizer's byte-fallback pieces (none without byte fallback, or under
    /// SearchRules::Marian), so output stays valid UTF-8.
    BytePieces bytes;
    /// What each target id writes, for the copy guard (empty under SearchRules::Marian: Marian
    /// has no such guard).
    PieceTexts texts;
    /// The target's when it has a SentencePiece model or an id map of its own
    /// ("tokenizer.target.model", "tokenizer.target.vocabulary"), or one of each.
    std::unique_ptr<Vocabulary> separate_target;

    const Vocabulary& target_tokenizer() const {
        return separate_target ? *separate_target : tokenizer;
    }
};

/// Parses and verifies a model file held in memory; throws heed::Error naming the problem.
std::unique_ptr<LoadedModel> load_model(const std::uint8_t* bytes, std::size_t size,
                                        const LoadOptions& options = {});
/// Reads and loads a model file; throws heed::Error if unreadable or invalid.
std::unique_ptr<LoadedModel> load_model_file(const std::string& path,
                                             const LoadOptions& options = {});

}  // namespace heed
