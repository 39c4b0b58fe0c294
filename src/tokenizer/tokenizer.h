// heed::Tokenizer: text <-> ids for SentencePiece unigram models, matching the sentencepiece
// library id for id (Viterbi over the piece lattice) and byte for byte on decode.
// Not BPE/word/char models, not sampling or n-best, and it knows nothing of tensors.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/normalizer.h"
#include "tokenizer/proto_reader.h"

namespace heed {

/// A loaded unigram SentencePiece model. Immutable after loading; copies are independent.
class Tokenizer {
  public:
    /// Parses a serialized SentencePiece ModelProto (.model bytes); throws heed::Error if
    /// invalid or not a unigram model.
    static Tokenizer from_bytes(const std::string& model_proto);

    /// Ids of the best segmentation of `text` (no BOS/EOS added). Runs of characters outside
    /// the vocabulary become one unk id per run, or <0xXX> byte ids with byte_fallback.
    std::vector<int> encode(std::string_view text) const;
    /// Same segmentation as encode(), as piece strings (an unknown run keeps its own text).
    std::vector<std::string> encode_pieces(std::string_view text) const;
    /// Text for `ids`: control ids (pad/bos/eos) are skipped, unk prints " ⁇ ", byte pieces are
    /// reassembled as UTF-8, "▁" becomes a space and the leading dummy space is dropped.
    /// Throws heed::Error for an id outside [0, vocab_size).
    std::string decode(const std::vector<int>& ids) const;
    /// Text for piece strings, as sentencepiece's DecodePieces: each piece is looked up, so a
    /// piece of this vocabulary decodes as its id does, and one it lacks is written as it is.
    std::string decode_pieces(const std::vector<std::string>& pieces) const;

    /// The piece string of `id`; throws heed::Error if out of range.
    const std::string& piece(int id) const;
    /// The id of `piece`, or unk_id() if the vocabulary has no such piece.
    int piece_to_id(std::string_view piece) const;

    /// Number of pieces in the vocabulary.
    int vocab_size() const { return int(pieces_.size()); }
    /// Id of the unknown piece; -1 if the trainer's unk piece is not an unknown piece.
    int unk_id() const { return unk_id_; }
    /// Id of the begin-of-sentence control piece, or -1.
    int bos_id() const { return bos_id_; }
    /// Id of the end-of-sentence control piece, or -1.
    int eos_id() const { return eos_id_; }
    /// Id of the padding control piece, or -1.
    int pad_id() const { return pad_id_; }
    /// True for control pieces (<s>, </s>, <pad>, ...); false for out-of-range ids.
    bool is_control(int id) const { return has_type(id, PieceType::Control); }
    /// Makes each of `ids` that is a user-defined or unused piece a control piece: text never
    /// matches it again (a target-language token such as "<2de>" typed into the text is spelt
    /// out of ordinary pieces), decode() skips it and is_control() is true. Normal, unknown,
    /// byte and control pieces are left as they are (a normal piece is ordinary text). Throws
    /// heed::Error for an id outside the vocabulary.
    void make_control(const std::vector<int>& ids);
    /// Every control piece's id (<s>, </s>, <pad>, and those make_control() added), ascending.
    std::vector<int> control_ids() const;
    /// The byte a byte-fallback piece (<0xNN>) writes, or -1 for any other id.
    int byte_value(int id) const {
        return id >= 0 && id < int(byte_of_.size()) ? byte_of_[std::size_t(id)] : -1;
    }
    /// True for the unknown piece; false for out-of-range ids.
    bool is_unknown(int id) const { return has_type(id, PieceType::Unknown); }

  private:
    /// Double-array trie over the pieces that can appear in a segmentation (normal,
    /// user-defined, unused); a node's value is the piece id or -1.
    class PieceTrie {
      public:
        void build(std::vector<std::pair<std::string_view, int>> keys);
        /// Child of `node` by `byte`, or -1.
        int next(int node, unsigned char byte) const {
            const Unit& u = units_[std::size_t(node)];
            const int child = u.base + byte;
            if (u.base <= 0 || units_[std::size_t(child)].check != node) return -1;
            return child;
        }
        int value(int node) const { return units_[std::size_t(node)].value; }
        /// Id of exactly `key`, or -1.
        int find(std::string_view key) const;

      private:
        struct Unit {
            int base = 0;    // children live at base + byte; 0 = no children
            int check = -1;  // parent node; -1 = free slot
            int value = -1;  // piece id ending here
        };
        std::vector<Unit> units_;
    };

    /// One node of the best path: normalized[begin, end) is piece `id`.
    struct Span {
        int begin, end, id;
    };

    Tokenizer() = default;
    bool has_type(int id, PieceType t) const {
        return id >= 0 && id < vocab_size() && types_[std::size_t(id)] == t;
    }
    /// The trie of the pieces text can match, and the normaliser's user-defined symbols, from
    /// types_.
    void build_matcher();
    /// Viterbi over the normalized text's lattice, then unk runs merged as sentencepiece.
    std::vector<Span> segment(const std::string& normalized) const;
    /// decode() and decode_pieces(): the text of the `count` pieces piece_at(0..count-1).
    template <class PieceAt>
    std::string decode_with(std::size_t count, PieceAt&& piece_at) const;
    template <class Emit>
    void for_each_output(const std::string& normalized, const std::vector<Span>& spans,
                         Emit&& emit) const;

    std::vector<std::string> pieces_;
    std::vector<float> scores_;
    std::vector<PieceType> types_;
    std::vector<std::pair<std::string, int>> reserved_;  // control/unknown/byte pieces, sorted
    PieceTrie trie_;
    Normalizer normalizer_;
    Normalizer denormalizer_;
    bool has_denormalizer_ = false;

    int model_unk_ = -1;  // the UNKNOWN piece; what absent pieces map to
    int unk_id_ = -1, bos_id_ = -1, eos_id_ = -1, pad_id_ = -1;
    float min_score_ = 0, max_score_ = 0;
    bool byte_fallback_ = false;
    std::array<int, 256> byte_ids_{};    // id of <0xXX> when byte_fallback
    std::vector<std::int16_t> byte_of_;  // byte value of a BYTE piece, else -1
    std::string unk_surface_;
    bool add_dummy_prefix_ = true, remove_extra_whitespaces_ = true;
};

}  // namespace heed
