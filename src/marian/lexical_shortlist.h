// Marian's binary lexical shortlist (browsermt's `lex.*.s2t.bin`, written by marian-conv
// --shortlist): per source word the target words worth scoring, read and verified over
// caller-owned bytes. Not the selection of a batch's vocabulary and not the text `lex.s2t` form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace heed {

/// The first eight bytes of a binary shortlist (little-endian u64).
constexpr std::uint64_t kLexicalShortlistMagic = 0xF11A48D5013417F5ull;

/// A verified binary shortlist. File layout, all little-endian: u64 magic, u64 checksum, u64
/// first_num, u64 best_num, u64 offsets count, u64 targets count, the offsets (u64 each), the
/// targets (u32 each), nothing after.
struct LexicalShortlist {
    std::uint64_t first_num;  ///< target ids 0 .. first_num - 1 (the most frequent) always kept
    std::uint64_t best_num;   ///< the most targets one source word lists
    /// [source_vocab + 1], offsets[0] = 0, non-decreasing, last = targets.size(): source word
    /// s lists targets[offsets[s] .. offsets[s + 1]).
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> targets;  ///< target ids, each < the target vocabulary's size
};

/// The file's checksum: Marian's util::hashMem over the little-endian u64 words from first_num
/// to the end (a trailing half word excluded), as written on 64-bit hosts (std::hash of a u64
/// is the value): seed ^= w + 0x9e3779b9 + (seed << 6) + (seed >> 2) per word, from seed 0.
/// `data` is the whole file; `size` must be at least 16.
std::uint64_t lexical_shortlist_checksum(const std::uint8_t* data, std::size_t size);

/// Reads and verifies a binary shortlist for vocabularies of the given sizes: magic, checksum,
/// counts matching the file size, one offset per source word plus one, offsets in order and
/// within the targets, no list longer than best_num, every target id < target_vocab. A text
/// shortlist is refused with the command that converts it. Throws heed::Error naming the fault.
LexicalShortlist read_lexical_shortlist(const std::uint8_t* data, std::size_t size,
                                        int source_vocab, int target_vocab);

}  // namespace heed
