// Reads a serialized SentencePiece ModelProto (.model bytes) into plain structs, keeping only
// the fields the tokenizer uses. Not a protobuf library: no writer, no reflection, unknown
// fields are skipped and proto2 defaults are filled in by hand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heed {

/// What a vocabulary entry is; the values are those of sentencepiece_model.proto.
enum class PieceType : int {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

/// The segmentation algorithm a model was trained for; values as in the proto.
enum class ModelType : int { Unigram = 1, Bpe = 2, Word = 3, Char = 4 };

/// One vocabulary entry (ModelProto.SentencePiece).
struct ModelPiece {
    std::string piece;                   ///< UTF-8 text of the piece ("▁" marks a space).
    float score = 0.0f;                  ///< log-probability for unigram models.
    PieceType type = PieceType::Normal;  ///< proto default NORMAL.
};

/// The TrainerSpec fields that change how a trained model encodes or decodes.
struct TrainerSpec {
    ModelType model_type = ModelType::Unigram;   ///< field 3
    int vocab_size = 8000;                       ///< field 4 (informational only)
    bool treat_whitespace_as_suffix = false;     ///< field 24: "▁" goes after words
    bool byte_fallback = false;                  ///< field 35: unknown chars become <0xXX>
    int unk_id = 0;                              ///< field 40
    int bos_id = 1;                              ///< field 41
    int eos_id = 2;                              ///< field 42
    int pad_id = -1;                             ///< field 43
    std::string unk_surface = " \xE2\x81\x87 ";  ///< field 44: what decode prints for <unk>
    std::string unk_piece = "<unk>";             ///< field 45
    std::string bos_piece = "<s>";               ///< field 46
    std::string eos_piece = "</s>";              ///< field 47
    std::string pad_piece = "<pad>";             ///< field 48
};

/// NormalizerSpec: the text normalisation applied before segmentation.
struct NormalizerSpec {
    std::string name;                      ///< field 1, e.g. "nmt_nfkc"
    std::string precompiled_charsmap;      ///< field 2: darts-clone trie + replacement pool
    bool add_dummy_prefix = true;          ///< field 3: prepend "▁"
    bool remove_extra_whitespaces = true;  ///< field 4: trim and squeeze spaces
    bool escape_whitespaces = true;        ///< field 5: ' ' -> "▁"
};

/// The parts of ModelProto the tokenizer needs.
struct ModelProto {
    std::vector<ModelPiece> pieces;      ///< field 1, in id order
    TrainerSpec trainer_spec;            ///< field 2
    NormalizerSpec normalizer_spec;      ///< field 3
    bool has_denormalizer_spec = false;  ///< whether field 5 was present
    NormalizerSpec denormalizer_spec;    ///< field 5: applied to decoded text when it has a map
};

/// Parses the wire format of a serialized ModelProto. Throws heed::Error on truncated or
/// malformed data. Does not check the model's semantics (that is the Tokenizer's job).
ModelProto parse_model_proto(std::string_view bytes);

}  // namespace heed
