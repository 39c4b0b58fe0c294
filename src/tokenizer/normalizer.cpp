// Normalisation as sentencepiece does it: darts-clone common-prefix search over the charsmap,
// longest rule wins, then the whitespace rules of NormalizerSpec. Not a Unicode library: all
// the NFKC knowledge lives in the model's precompiled map.
#include "tokenizer/normalizer.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/utf8.h"

namespace heed {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581 "▁"
constexpr std::size_t kMaxTrieResults = 32;                // sentencepiece's kMaxTrieResultsSize

// darts-clone unit layout: label in bits 0-7 (+ bit 31 for value units), has_leaf in bit 8,
// offset in bits 10-31 scaled by 2^8 when bit 9 is set, value in bits 0-30.
inline bool unit_has_leaf(std::uint32_t u) { return (u >> 8) & 1; }
inline std::uint32_t unit_value(std::uint32_t u) { return u & 0x7FFFFFFFu; }
inline std::uint32_t unit_label(std::uint32_t u) { return u & (0x80000000u | 0xFFu); }
inline std::uint32_t unit_offset(std::uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           std::memcmp(s.data() + s.size() - suffix.size(), suffix.data(), suffix.size()) == 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// CharsMap

CharsMap::CharsMap(std::string_view blob) {
    if (blob.size() <= 4) throw Error("Invalid SentencePiece model: the charsmap blob is broken.");
    std::uint32_t trie_size = 0;
    for (int i = 0; i < 4; ++i)
        trie_size |= std::uint32_t(static_cast<unsigned char>(blob[i])) << (8 * i);
    if (trie_size >= blob.size())
        throw Error("Invalid SentencePiece model: the charsmap trie exceeds its blob.");
    blob.remove_prefix(4);
    if (trie_size > blob.size() || trie_size % 4 != 0 || trie_size == 0)
        throw Error("Invalid SentencePiece model: the charsmap trie size is not whole units.");
    units_.resize(trie_size / 4);
    for (std::size_t i = 0; i < units_.size(); ++i) {
        std::uint32_t u = 0;
        for (int k = 0; k < 4; ++k)
            u |= std::uint32_t(static_cast<unsigned char>(blob[4 * i + k])) << (8 * k);
        units_[i] = u;
    }
    pool_ = std::string(blob.substr(trie_size));
}

std::size_t CharsMap::longest_match(std::string_view text, std::string_view* replacement) const {
    if (units_.empty()) return 0;
    const std::size_t n_units = units_.size();
    std::size_t pos = unit_offset(units_[0]);
    std::size_t best_length = 0, best_value = 0, found = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        pos ^= c;
        if (pos >= n_units) break;  // why: a well-formed map never leaves its array
        const std::uint32_t unit = units_[pos];
        if (unit_label(unit) != c) break;
        pos ^= unit_offset(unit);
        if (unit_has_leaf(unit)) {
            if (pos >= n_units) break;
            // why: matches come shortest first, so the last kept one is the longest
            if (found < kMaxTrieResults) {
                best_length = i + 1;
                best_value = unit_value(units_[pos]);
            }
            ++found;
        }
    }
    if (best_length == 0) return 0;
    if (best_value >= pool_.size()) {
        *replacement = std::string_view();
    } else {
        const char* start = pool_.data() + best_value;
        const void* nul = std::memchr(start, '\0', pool_.size() - best_value);
        const std::size_t len =
            nul ? static_cast<const char*>(nul) - start : pool_.size() - best_value;
        *replacement = std::string_view(start, len);
    }
    return best_length;
}

// ---------------------------------------------------------------------------------------------
// Normalizer

Normalizer::Normalizer(const NormalizerSpec& spec, bool treat_whitespace_as_suffix)
    : add_dummy_prefix_(spec.add_dummy_prefix),
      remove_extra_whitespaces_(spec.remove_extra_whitespaces),
      escape_whitespaces_(spec.escape_whitespaces),
      treat_whitespace_as_suffix_(treat_whitespace_as_suffix) {
    if (!spec.precompiled_charsmap.empty()) map_ = CharsMap(spec.precompiled_charsmap);
}

void Normalizer::set_user_defined_symbols(std::vector<std::string> symbols) {
    std::sort(symbols.begin(), symbols.end());
    symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
    user_symbol_lengths_.clear();
    for (const auto& s : symbols)
        if (!s.empty()) user_symbol_lengths_.push_back(s.size());
    std::sort(user_symbol_lengths_.rbegin(), user_symbol_lengths_.rend());
    user_symbol_lengths_.erase(
        std::unique(user_symbol_lengths_.begin(), user_symbol_lengths_.end()),
        user_symbol_lengths_.end());
    user_symbols_ = std::move(symbols);
}

std::size_t Normalizer::match_user_symbol(std::string_view text) const {
    for (const std::size_t len : user_symbol_lengths_) {
        if (len > text.size()) continue;
        if (std::binary_search(user_symbols_.begin(), user_symbols_.end(), text.substr(0, len),
                               [](std::string_view a, std::string_view b) { return a < b; }))
            return len;
    }
    return 0;
}

std::size_t Normalizer::normalize_prefix(std::string_view text, std::string_view* out) const {
    if (!user_symbols_.empty()) {
        if (const std::size_t len = match_user_symbol(text)) {
            *out = text.substr(0, len);
            return len;
        }
    }
    if (const std::size_t len = map_.longest_match(text, out)) return len;
    const Utf8Char c = decode_utf8(text);
    // why: sentencepiece maps a malformed byte to U+FFFD but consumes only that byte
    *out = c.valid ? text.substr(0, c.length) : kReplacementChar;
    return c.length;
}

std::string Normalizer::normalize(std::string_view input) const {
    std::string out;
    if (input.empty()) return out;

    std::string_view piece;
    // leading whitespace: drop every prefix that normalises to exactly one space
    if (remove_extra_whitespaces_) {
        while (!input.empty()) {
            const std::size_t consumed = normalize_prefix(input, &piece);
            if (piece != " ") break;
            input.remove_prefix(consumed);
        }
    }
    if (input.empty()) return out;

    out.reserve(input.size() * 3);
    const std::string_view space = escape_whitespaces_ ? kSpaceSymbol : std::string_view(" ");
    if (!treat_whitespace_as_suffix_ && add_dummy_prefix_) out.append(space);

    bool is_prev_space = remove_extra_whitespaces_;
    while (!input.empty()) {
        const std::size_t consumed = normalize_prefix(input, &piece);
        // squeeze: a space right after a space is dropped
        while (is_prev_space && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
        if (!piece.empty()) {
            if (escape_whitespaces_) {
                std::size_t start = 0;
                for (std::size_t i = 0; i < piece.size(); ++i) {
                    if (piece[i] != ' ') continue;
                    out.append(piece.substr(start, i - start));
                    out.append(kSpaceSymbol);
                    start = i + 1;
                }
                out.append(piece.substr(start));
            } else {
                out.append(piece);
            }
            is_prev_space = piece.back() == ' ';
        }
        input.remove_prefix(consumed);
        if (!remove_extra_whitespaces_) is_prev_space = false;
    }

    // trailing whitespace
    if (remove_extra_whitespaces_) {
        while (ends_with(out, space)) out.resize(out.size() - space.size());
    }
    if (treat_whitespace_as_suffix_ && add_dummy_prefix_) out.append(space);
    return out;
}

}  // namespace heed
