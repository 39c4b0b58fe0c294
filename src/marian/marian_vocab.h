// A Marian bundle's vocabularies: which file is the source's and which the target's, checked
// against the model's "dim-vocabs", and the special ids the model config takes from them.
// Not the tokenizer itself (tokenizer/), which reads the SentencePiece models these pass on.
#pragma once

#include <string>
#include <vector>

#include "model/config.h"

namespace heed {

/// The SentencePiece models of a bundle: `source`, and `target` when the target has its own
/// (empty: shared).
struct MarianVocabularies {
    std::string source, target;
};

/// Sorts `files` (SentencePiece `.spm` models; one shared, or the source's then the target's).
/// OPUS-MT's `vocab.yml` id maps are refused by name for now. Throws heed::Error.
MarianVocabularies marian_vocabularies(const std::vector<std::string>& files);

/// Checks the vocabularies' sizes against `config` (dim-vocabs) and sets its special ids from
/// the SentencePiece models (</s>, <unk>; <s> and <pad> fall back to </s> when absent).
void apply_vocabularies(const MarianVocabularies& vocabs, ModelConfig& config);

}  // namespace heed
