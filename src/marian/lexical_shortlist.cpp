// Reading and verifying Marian's binary lexical shortlist (see lexical_shortlist.h for the
// layout). Every count is checked against the file size before anything is allocated.
// Not the text shortlist reader (refused here, with the conversion command).
#include "marian/lexical_shortlist.h"

#include <string>

#include "core/error.h"

namespace heed {
namespace {

constexpr std::size_t kHeaderBytes = 48;

std::uint64_t load_u64(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

std::uint32_t load_u32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
           (std::uint32_t(p[3]) << 24);
}

[[noreturn]] void fail(const std::string& what) { throw Error("Marian shortlist: " + what); }

/// True when the bytes open like marian's text `lex.s2t`: a first line of printable text with
/// whitespace-separated fields ("target source probability").
bool looks_like_text(const std::uint8_t* data, std::size_t size) {
    std::size_t fields = 0;
    bool in_field = false;
    for (std::size_t i = 0; i < size && i < 1024; ++i) {
        const std::uint8_t c = data[i];
        if (c == '\n') break;
        if (c < 0x20 && c != '\t' && c != '\r') return false;
        const bool space = c == ' ' || c == '\t' || c == '\r';
        if (!space && !in_field) ++fields;
        in_field = !space;
    }
    return fields >= 3;
}

}  // namespace

std::uint64_t lexical_shortlist_checksum(const std::uint8_t* data, std::size_t size) {
    std::uint64_t seed = 0;
    for (std::size_t at = 16; at + 8 <= size; at += 8)
        seed ^= load_u64(data + at) + 0x9e3779b9ull + (seed << 6) + (seed >> 2);
    return seed;
}

LexicalShortlist read_lexical_shortlist(const std::uint8_t* data, std::size_t size,
                                        int source_vocab, int target_vocab) {
    if (source_vocab <= 0 || target_vocab <= 0)
        fail("the vocabulary sizes must be positive (got " + std::to_string(source_vocab) +
             " and " + std::to_string(target_vocab) + ")");
    if (size < 8 || load_u64(data) != kLexicalShortlistMagic) {
        if (looks_like_text(data, size))
            fail(
                "this is a text lexical shortlist (lines of 'target source probability'), "
                "which Heed does not read; convert it to the binary form with browsermt's "
                "marian-conv: marian-conv --shortlist lex.s2t 50 50 0 --dump lex.s2t.bin "
                "--vocabs vocab.spm vocab.spm");
        fail("the file does not start with the binary shortlist magic (is it a shortlist?)");
    }
    if (size < kHeaderBytes)
        fail("the file is " + std::to_string(size) + " bytes, shorter than its 48-byte header");
    LexicalShortlist out;
    out.first_num = load_u64(data + 16);
    out.best_num = load_u64(data + 24);
    const std::uint64_t n_offsets = load_u64(data + 32), n_targets = load_u64(data + 40);
    const std::size_t body = size - kHeaderBytes;
    if (n_offsets > body / 8 || n_targets > (body - n_offsets * 8) / 4 ||
        kHeaderBytes + n_offsets * 8 + n_targets * 4 != size)
        fail("the header declares " + std::to_string(n_offsets) + " offsets and " +
             std::to_string(n_targets) + " targets, which do not fill the file's " +
             std::to_string(size) + " bytes exactly");
    const std::uint64_t stored = load_u64(data + 8),
                        actual = lexical_shortlist_checksum(data, size);
    if (stored != actual)
        fail("checksum mismatch (the file says " + std::to_string(stored) + ", its contents " +
             "give " + std::to_string(actual) + "): the file is corrupt");
    if (n_offsets != std::uint64_t(source_vocab) + 1)
        fail("the shortlist covers " + std::to_string(n_offsets ? n_offsets - 1 : 0) +
             " source words, but the source vocabulary has " + std::to_string(source_vocab));
    out.offsets.resize(n_offsets);
    for (std::size_t i = 0; i < n_offsets; ++i) {
        const std::uint64_t v = load_u64(data + kHeaderBytes + 8 * i);
        const std::uint64_t previous = i ? out.offsets[i - 1] : 0;
        if (i == 0 && v != 0) fail("the first offset is " + std::to_string(v) + ", not 0");
        if (v < previous || v > n_targets)
            fail("offset #" + std::to_string(i) + " (" + std::to_string(v) +
                 ") is out of order or past the " + std::to_string(n_targets) + " targets");
        if (v - previous > out.best_num)
            fail("source word " + std::to_string(i - 1) + " lists " + std::to_string(v - previous) +
                 " targets, more than best_num (" + std::to_string(out.best_num) + ")");
        out.offsets[i] = v;
    }
    if (out.offsets.back() != n_targets)
        fail("the last offset is " + std::to_string(out.offsets.back()) + ", not the " +
             std::to_string(n_targets) + " targets");
    out.targets.resize(n_targets);
    const std::uint8_t* targets = data + kHeaderBytes + 8 * n_offsets;
    for (std::size_t j = 0; j < n_targets; ++j) {
        out.targets[j] = load_u32(targets + 4 * j);
        if (out.targets[j] >= std::uint32_t(target_vocab))
            fail("target #" + std::to_string(j) + " is id " + std::to_string(out.targets[j]) +
                 ", outside the target vocabulary of " + std::to_string(target_vocab));
    }
    return out;
}

}  // namespace heed
