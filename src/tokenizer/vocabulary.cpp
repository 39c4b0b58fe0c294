// The model's ids over a Tokenizer (vocabulary.h): forwarded unchanged without an id map; with
// one, pieces are looked up by their strings, as Marian's DefaultVocab looks up the pieces
// spm_encode writes, and the output's pieces are spelt by the segmenter's DecodePieces.
#include "tokenizer/vocabulary.h"

#include <utility>

#include "core/error.h"
#include "core/utf8.h"

namespace heed {
namespace {

[[noreturn]] void out_of_range(int id, int size) {
    throw Error("Piece id " + std::to_string(id) + " is outside the vocabulary [0, " +
                std::to_string(size) + ").");
}

}  // namespace

Vocabulary::Vocabulary(Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}

Vocabulary::Vocabulary(Tokenizer tokenizer, std::vector<std::string> pieces)
    : tokenizer_(std::move(tokenizer)), mapped_(true), pieces_(std::move(pieces)) {
    if (pieces_.empty()) throw Error("Invalid id map: it lists no pieces.");
    const std::size_t n = pieces_.size();
    ids_.reserve(n);
    segmenter_of_.assign(n, -1);
    control_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& p = pieces_[i];
        const std::string at = "Invalid id map: piece " + std::to_string(i);
        if (p.empty()) throw Error(at + " is empty.");
        const std::size_t bad = find_invalid_utf8(p);
        if (bad != std::string::npos)
            throw Error(at + " is not valid UTF-8 (bad byte at offset " + std::to_string(bad) +
                        ").");
        const auto [it, fresh] = ids_.emplace(p, int(i));
        if (!fresh)
            throw Error(at + " \"" + p + "\" is listed twice (also id " +
                        std::to_string(it->second) + ").");
        const int s = tokenizer_.piece_to_id(p);
        if (tokenizer_.piece(s) != p) continue;  // why: piece_to_id answers unk for any other
        segmenter_of_[i] = s;
        control_[i] = tokenizer_.is_control(s);
    }
    const auto find = [&](const std::string& p) {
        const auto it = ids_.find(p);
        return it == ids_.end() ? -1 : it->second;
    };
    // why: Marian's DefaultVocab requires exactly these two strings
    eos_id_ = find("</s>");
    unk_id_ = find("<unk>");
    if (eos_id_ < 0) throw Error("Invalid id map: it has no \"</s>\" piece.");
    if (unk_id_ < 0) throw Error("Invalid id map: it has no \"<unk>\" piece.");
    control_[std::size_t(eos_id_)] = 1;
    control_[std::size_t(unk_id_)] = 0;
    if (tokenizer_.bos_id() >= 0) bos_id_ = find(tokenizer_.piece(tokenizer_.bos_id()));
    if (tokenizer_.pad_id() >= 0) pad_id_ = find(tokenizer_.piece(tokenizer_.pad_id()));
}

std::vector<int> Vocabulary::encode(std::string_view text) const {
    if (!mapped_) return tokenizer_.encode(text);
    std::vector<int> ids;
    for (const std::string& p : tokenizer_.encode_pieces(text)) {
        const auto it = ids_.find(p);
        // why: text never gives a control id, even where an unknown run spells one ("</s>")
        const bool usable = it != ids_.end() && !control_[std::size_t(it->second)];
        ids.push_back(usable ? it->second : unk_id_);
    }
    return ids;
}

std::string Vocabulary::decode(const std::vector<int>& ids) const {
    if (!mapped_) return tokenizer_.decode(ids);
    std::vector<std::string> pieces;
    pieces.reserve(ids.size());
    for (const int id : ids) {
        if (id < 0 || id >= vocab_size())
            throw Error("Cannot decode id " + std::to_string(id) +
                        ": it is outside the vocabulary [0, " + std::to_string(vocab_size()) +
                        ").");
        const int s = segmenter_id(id);
        // why: the segmenter skips its own control pieces; a control id it does not know as
        // one (a piece it lacks, "</s>" where it has none) would be spelt out
        if (control_[std::size_t(id)] && (s < 0 || !tokenizer_.is_control(s))) continue;
        pieces.push_back(pieces_[std::size_t(id)]);
    }
    return tokenizer_.decode_pieces(pieces);
}

const std::string& Vocabulary::piece(int id) const {
    if (!mapped_) return tokenizer_.piece(id);
    if (id < 0 || id >= vocab_size()) out_of_range(id, vocab_size());
    return pieces_[std::size_t(id)];
}

int Vocabulary::piece_to_id(std::string_view piece) const {
    if (!mapped_) return tokenizer_.piece_to_id(piece);
    const auto it = ids_.find(std::string(piece));
    return it == ids_.end() ? unk_id_ : it->second;
}

bool Vocabulary::is_control(int id) const {
    if (!mapped_) return tokenizer_.is_control(id);
    return id >= 0 && id < vocab_size() && control_[std::size_t(id)];
}

bool Vocabulary::is_unknown(int id) const {
    return mapped_ ? id >= 0 && id == unk_id_ : tokenizer_.is_unknown(id);
}

void Vocabulary::make_control(const std::vector<int>& ids) {
    if (!mapped_) return tokenizer_.make_control(ids);
    for (const int id : ids) {
        if (id < 0 || id >= vocab_size()) out_of_range(id, vocab_size());
        const int s = segmenter_id(id);
        if (s >= 0) tokenizer_.make_control({s});  // why: only a user-defined or unused one
        // why: a piece the segmenter lacks is never text, so it is the model's own
        const bool control = s >= 0 ? tokenizer_.is_control(s) : id != unk_id_;
        if (control) control_[std::size_t(id)] = 1;
    }
}

std::vector<int> Vocabulary::control_ids() const {
    if (!mapped_) return tokenizer_.control_ids();
    std::vector<int> out;
    for (std::size_t i = 0; i < control_.size(); ++i)
        if (control_[i]) out.push_back(int(i));
    return out;
}

int Vocabulary::byte_value(int id) const {
    if (!mapped_) return tokenizer_.byte_value(id);
    if (id < 0 || id >= vocab_size()) return -1;
    const int s = segmenter_id(id);
    return s < 0 ? -1 : tokenizer_.byte_value(s);
}

}  // namespace heed
