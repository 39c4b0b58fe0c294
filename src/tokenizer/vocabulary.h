// heed::Vocabulary: the model's ids over a Tokenizer. Most models use the SentencePiece model's
// own ids (every call forwards to the Tokenizer, unchanged); a Marian/OPUS-MT model numbers its
// pieces by its own list (vocab.yml), so text is segmented by the SentencePiece model and each
// piece is looked up in that list by its string, and back. Not the segmentation (tokenizer.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace heed {

/// Text <-> model ids. Immutable after loading but for make_control(); copies are independent.
class Vocabulary {
  public:
    /// The model uses `tokenizer`'s ids.
    explicit Vocabulary(Tokenizer tokenizer);
    /// The model's ids are positions in `pieces` (an id map: Marian's vocab.yml in id order);
    /// `tokenizer` segments the text and spells the output. Throws heed::Error for an empty
    /// list, a piece that is empty, not valid UTF-8 or listed twice, or no "</s>" or "<unk>".
    Vocabulary(Tokenizer tokenizer, std::vector<std::string> pieces);

    /// True when the model's ids are an id map's rather than the tokenizer's.
    bool mapped() const { return mapped_; }
    /// The SentencePiece model that segments the text.
    const Tokenizer& segmenter() const { return tokenizer_; }

    /// Model ids of `text` (no EOS added). Mapped: the segmenter's pieces, each looked up by its
    /// string; a piece the list lacks, or one that is a control piece, becomes unk_id().
    std::vector<int> encode(std::string_view text) const;
    /// Text for model `ids`, as the segmenter decodes pieces (sentencepiece's DecodePieces:
    /// "▁" becomes a space, the leading one dropped, <0xXX> pieces reassembled, control pieces
    /// skipped, <unk> as the unknown surface, a piece it lacks as itself). Throws heed::Error
    /// for an id outside [0, vocab_size).
    std::string decode(const std::vector<int>& ids) const;
    /// The piece string of model id `id`; throws heed::Error if out of range.
    const std::string& piece(int id) const;
    /// The model id of `piece`, or unk_id() if there is none.
    int piece_to_id(std::string_view piece) const;

    /// Number of model ids.
    int vocab_size() const { return mapped_ ? int(pieces_.size()) : tokenizer_.vocab_size(); }
    /// Id of the unknown piece (mapped: "<unk>"), or -1.
    int unk_id() const { return mapped_ ? unk_id_ : tokenizer_.unk_id(); }
    /// Id of the end-of-sentence piece (mapped: "</s>"), or -1.
    int eos_id() const { return mapped_ ? eos_id_ : tokenizer_.eos_id(); }
    /// Id of the segmenter's begin-of-sentence piece, or -1.
    int bos_id() const { return mapped_ ? bos_id_ : tokenizer_.bos_id(); }
    /// Id of the segmenter's padding piece, or -1.
    int pad_id() const { return mapped_ ? pad_id_ : tokenizer_.pad_id(); }
    /// True for control ids (mapped: "</s>", the segmenter's control pieces the list holds and
    /// those make_control() added); false for out-of-range ids.
    bool is_control(int id) const;
    /// True for the unknown id; false for out-of-range ids.
    bool is_unknown(int id) const;
    /// Makes each of `ids` that is a user-defined or unused piece of the segmenter (mapped: or a
    /// piece the segmenter lacks, other than "<unk>") a control id: text never gives it,
    /// decode() skips it. Other ids are left as they are. Throws heed::Error for an id outside
    /// the vocabulary.
    void make_control(const std::vector<int>& ids);
    /// Every control id, ascending.
    std::vector<int> control_ids() const;
    /// The byte a byte-fallback piece (<0xNN>) writes, or -1 for any other id.
    int byte_value(int id) const;

  private:
    /// The segmenter's id of model id `id`'s piece when it has exactly that piece, else -1.
    int segmenter_id(int id) const { return segmenter_of_[std::size_t(id)]; }

    Tokenizer tokenizer_;
    bool mapped_ = false;
    // mapped only:
    std::vector<std::string> pieces_;           // model id -> piece
    std::unordered_map<std::string, int> ids_;  // piece -> model id
    std::vector<int> segmenter_of_;             // model id -> segmenter id, or -1
    std::vector<std::uint8_t> control_;         // model id -> control?
    int unk_id_ = -1, eos_id_ = -1, bos_id_ = -1, pad_id_ = -1;
};

}  // namespace heed
