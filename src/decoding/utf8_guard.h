// Keeps the bytes a hypothesis writes through byte-fallback pieces (<0xNN>) valid UTF-8: a
// sequence, once begun, must be finished before any other piece or </s>, and no piece may
// begin with a byte that cannot start a character. Not tokenisation (see tokenizer/).
#pragma once

#include <cstdint>
#include <vector>

#include "decoding/search.h"

namespace heed {

/// The byte-fallback pieces of a target vocabulary.
struct BytePieces {
    std::vector<std::int16_t> byte_of;  ///< per target id: the byte its <0xNN> piece writes, or -1
    std::vector<int> ids;               ///< every byte piece's id, ascending
};

/// What the next piece of a hypothesis must be: `count` more continuation bytes, the next one
/// in [lo, hi] (RFC 3629 §4: after E0 only A0..BF, after ED 80..9F, after F0 90..BF, after F4
/// 80..8F); count 0 = anything but a byte that cannot start a character.
struct Utf8Need {
    int count = 0;
    int lo = 0x80, hi = 0xBF;
};

/// The need after `tokens` (a hypothesis's target ids so far, oldest first), read from its
/// last four pieces at most (a UTF-8 character is at most four bytes).
Utf8Need utf8_need(const std::vector<int>& tokens, const BytePieces& bytes);

/// Sets to -inf, in one row of log-probabilities over `cols`, every piece that would make the
/// bytes invalid UTF-8 under `need`, and every lead byte whose character would not be finished
/// within `room` more pieces (the length limit). When a sequence is open and none of the bytes
/// that would continue it is scoreable (a shortlist without them), the row is left as it is.
void keep_utf8(float* logprobs, const OutputColumns& cols, const BytePieces& bytes, Utf8Need need,
               int room);

}  // namespace heed
