// A Marian model bundle (Firefox Translations' and OPUS-MT's files) turned into a Heed model
// file in memory: the architecture read from the model's own "special:model.yml", every
// parameter mapped onto Heed's names and layouts (int8 kept int8), the vocabularies and the
// lexical shortlist carried over. Not the reading of the containers (marian_archive.h, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace heed {

/// The files of one bundle, as bytes. Vocabularies are SentencePiece models (`.spm`: one
/// shared, or the source's then the target's) — or OPUS-MT's `vocab.yml` id maps (one shared,
/// or source then target) together with the SentencePiece models that segment the text.
struct MarianBundle {
    std::string model;                ///< `.bin` (float32, intgemm8, alphas) or `.npz`
    std::vector<std::string> vocabs;  ///< `.spm` and `.yml` files, source before target
    std::string shortlist;            ///< a binary `lex.*.s2t.bin`, or empty
    std::string source_language = "und", target_language = "und";  ///< BCP 47 tags
};

/// What Heed records of the conversion (metadata "heed.marian"): the decoder kind, the
/// alignment layer, the GEMM type the weights were stored in.
struct MarianSummary {
    std::string decoder;       ///< "self-attention" or "ssru"
    int alignment_layer = -1;  ///< 0-based decoder layer trained on word alignments, or -1
    std::string weights;       ///< "float32", "float16" or "intgemm8"
    bool shortlist = false;
};

/// The bundle as a Heed model file (models/FORMAT.md), ready for load_model. Throws
/// heed::Error naming what is wrong or not supported ("Marian model: 'factors' are not
/// supported", a missing or mis-shaped parameter by its Marian name, ...).
std::vector<std::uint8_t> heed_file_from_marian(const MarianBundle& bundle,
                                                MarianSummary* summary = nullptr);

}  // namespace heed
