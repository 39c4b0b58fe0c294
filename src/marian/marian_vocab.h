// A Marian bundle's vocabularies: which file is the source's and which the target's, OPUS-MT's
// vocab.yml id maps read into piece lists, all checked against the model's "dim-vocabs", and the
// special ids the model config takes from them. Not the tokenizer itself (tokenizer/), which
// reads the SentencePiece models and id maps these pass on.
#pragma once

#include <string>
#include <vector>

#include "model/config.h"

namespace heed {

/// The vocabularies of a bundle: the SentencePiece models that segment the text (`source`, and
/// `target` when the target has its own; empty: shared) and, for OPUS-MT's bundles, the id maps
/// that number the model's pieces (Marian's vocab.yml: the pieces in id order).
struct MarianVocabularies {
    std::string source, target;
    /// The model's pieces in id order, empty when the model uses the SentencePiece ids;
    /// `target_map` empty: one map for both sides.
    std::vector<std::string> source_map, target_map;

    bool mapped() const { return !source_map.empty(); }
    /// True when both sides number their pieces alike (Marian's shared vocabulary).
    bool shared_ids() const { return mapped() ? target_map.empty() : target.empty(); }
};

/// Sorts `files` by what they are: SentencePiece `.spm` models (one shared, or the source's then
/// the target's) and OPUS-MT's `vocab.yml` id maps (one joint, or the source's then the
/// target's), which need the `.spm` models that segment the text beside them. A vocab.yml's ids
/// must be 0..N-1, each once, its pieces non-empty and without NUL. Throws heed::Error.
MarianVocabularies marian_vocabularies(const std::vector<std::string>& files);

/// Checks the vocabularies' sizes against `config` (dim-vocabs) and sets its special ids: from
/// the SentencePiece models (</s>, <unk>; <s> and <pad> fall back to </s> when absent), or with
/// id maps from their "</s>" and "<unk>" entries, which Marian requires.
void apply_vocabularies(const MarianVocabularies& vocabs, ModelConfig& config);

/// An id map as the model file's "tokenizer.vocabulary" tensor holds it: each piece, then NUL.
std::string id_map_bytes(const std::vector<std::string>& pieces);

}  // namespace heed
