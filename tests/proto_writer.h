// A tiny protobuf writer for the tokenizer tests: the few wire-format pieces needed to build
// sentencepiece ModelProto bytes by hand or append fields to a committed model.
// Writes only; parsing is src/tokenizer/proto_reader's job.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace heed::test {

/// Base-128 varint, low group first.
inline std::string varint(std::uint64_t v) {
    std::string out;
    while (v >= 0x80) {
        out.push_back(char((v & 0x7F) | 0x80));
        v >>= 7;
    }
    out.push_back(char(v));
    return out;
}

/// Field `field` as a varint (wire type 0).
inline std::string varint_field(int field, std::uint64_t v) {
    return varint(std::uint64_t(field) << 3) + varint(v);
}

/// Field `field` as length-delimited bytes (wire type 2): a string or a nested message.
inline std::string bytes_field(int field, const std::string& b) {
    return varint((std::uint64_t(field) << 3) | 2) + varint(b.size()) + b;
}

/// One ModelProto.pieces entry (field 1): SentencePiece {piece = 1, score = 2 (float),
/// type = 3}; type 1 is NORMAL, 2 UNKNOWN, 3 CONTROL, 4 USER_DEFINED, 5 UNUSED, 6 BYTE.
inline std::string piece_field(const std::string& text, float score, int type = 1) {
    std::string body = bytes_field(1, text) + varint((2 << 3) | 5);
    char raw[4];
    std::memcpy(raw, &score, 4);
    body.append(raw, 4);
    return bytes_field(1, body + varint_field(3, std::uint64_t(type)));
}

}  // namespace heed::test
