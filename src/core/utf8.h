// UTF-8 decoding for user text, model strings and byte pieces (RFC 3629: no overlongs, no
// surrogates, max U+10FFFF): the one decoder every layer steps through a string with, and the
// validity check built on it. Not a Unicode library (no classes, no normalisation).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heed {

/// One character read from UTF-8.
struct Utf8Char {
    char32_t cp;         ///< the code point; U+FFFD when !valid
    std::size_t length;  ///< bytes it takes, 1..4; 1 when !valid
    bool valid;          ///< false: the byte starts no valid sequence (malformed, cut short,
                         ///< overlong, a surrogate or above U+10FFFF)
};

/// Decodes the character starting at byte `at` (< s.size()) of `s`. Step through a string with
/// `for (std::size_t i = 0; i < s.size(); i += c.length) { const Utf8Char c = ... }`; an
/// invalid byte is skipped alone, as sentencepiece and the WHATWG decoder's U+FFFD do.
inline Utf8Char decode_utf8(std::string_view s, std::size_t at = 0) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + at;
    const Utf8Char bad{0xFFFD, 1, false};
    const unsigned char c = p[0];
    if (c < 0x80) return {c, 1, true};
    std::size_t len;
    char32_t cp;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return bad;  // a continuation byte, or F8..FF
    }
    if (len > s.size() - at) return bad;
    for (std::size_t k = 1; k < len; ++k) {
        if ((p[k] & 0xC0) != 0x80) return bad;
        cp = (cp << 6) | (p[k] & 0x3F);
    }
    const bool overlong =
        (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return bad;
    return {cp, len, true};
}

/// Returns the byte offset of the first invalid sequence, or npos when `s` is valid UTF-8.
inline std::size_t find_invalid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const Utf8Char c = decode_utf8(s, i);
        if (!c.valid) return i;
        i += c.length;
    }
    return std::string_view::npos;
}

/// Bytes of the character a UTF-8 lead byte begins: 1 for ASCII, 2 to 4, or 0 for a byte that
/// begins none (a continuation byte, C0, C1, F5..FF).
inline int utf8_lead_length(unsigned char b) {
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) return 2;
    if (b >= 0xE0 && b <= 0xEF) return 3;
    if (b >= 0xF0 && b <= 0xF4) return 4;
    return 0;
}

/// Appends the UTF-8 bytes of code point `cp` (at most U+10FFFF, not a surrogate) to `out`.
inline void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) return void(out += char(cp));
    const int n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    out += char(static_cast<unsigned char>((0xF00 >> n) | (cp >> (6 * (n - 1)))));  // C0/E0/F0
    for (int k = n - 2; k >= 0; --k)
        out += char(static_cast<unsigned char>(0x80 | ((cp >> (6 * k)) & 0x3F)));
}

}  // namespace heed
