// SentencePiece's text normaliser: the precompiled character map (a darts-clone double-array
// trie over UTF-8 plus a pool of replacement strings), whitespace trimming and the "▁" escape.
// Not segmentation: it only turns raw text into the string the unigram lattice is built on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/proto_reader.h"

namespace heed {

/// U+FFFD, what an invalid UTF-8 sequence becomes (in normalisation and in decoded bytes).
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

/// A NormalizerSpec's precompiled_charsmap: <u32 trie size><darts-clone units><NUL-terminated
/// replacement strings>. Read-only; the units are copied out so the blob need not outlive it.
class CharsMap {
  public:
    /// An empty map: nothing matches.
    CharsMap() = default;
    /// Decodes the blob; throws heed::Error if its sizes are inconsistent.
    explicit CharsMap(std::string_view blob);

    /// True when the map has no rules (normalisation then only handles whitespace).
    bool empty() const { return units_.empty(); }

    /// Longest rule whose key is a prefix of `text`; sets *replacement and returns the key's
    /// byte length, or returns 0 when no rule matches. Like sentencepiece, only the first 32
    /// matching keys (shortest first) are considered.
    std::size_t longest_match(std::string_view text, std::string_view* replacement) const;

  private:
    std::vector<std::uint32_t> units_;
    std::string pool_;
};

/// Normalises text exactly as sentencepiece's Normalizer::Normalize (without the offset map).
class Normalizer {
  public:
    /// Identity normaliser with sentencepiece's default flags.
    Normalizer() = default;
    /// Throws heed::Error if the spec's charsmap is broken.
    Normalizer(const NormalizerSpec& spec, bool treat_whitespace_as_suffix);

    /// User-defined symbols are copied through unnormalised, longest match first (this is
    /// sentencepiece's prefix matcher). Replaces any earlier set.
    void set_user_defined_symbols(std::vector<std::string> symbols);

    /// Returns the normalised form: charsmap applied, spaces trimmed/squeezed, "▁" escaped and
    /// the dummy prefix added, as the spec says. Invalid UTF-8 bytes become U+FFFD each.
    std::string normalize(std::string_view text) const;

  private:
    /// Normalises the longest possible prefix of non-empty `text`: sets *out and returns the
    /// number of input bytes consumed (always >= 1).
    std::size_t normalize_prefix(std::string_view text, std::string_view* out) const;
    std::size_t match_user_symbol(std::string_view text) const;

    CharsMap map_;
    bool add_dummy_prefix_ = true;
    bool remove_extra_whitespaces_ = true;
    bool escape_whitespaces_ = true;
    bool treat_whitespace_as_suffix_ = false;
    std::vector<std::string> user_symbols_;         // sorted
    std::vector<std::size_t> user_symbol_lengths_;  // distinct, longest first
};

/// Byte length of the UTF-8 sequence starting with `lead`, judged by its top bits only
/// (1 for continuation or invalid bytes), as sentencepiece's OneCharLen.
inline int utf8_char_length(char lead) {
    return "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[static_cast<unsigned char>(lead) >> 4];
}

}  // namespace heed
