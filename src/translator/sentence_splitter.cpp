// Sentence boundaries by punctuation, line breaks and an abbreviation list (sentence_splitter.h).
#include "translator/sentence_splitter.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "core/utf8.h"

namespace heed {
namespace {

/// One code point and the byte offset where it starts.
struct Char {
    char32_t cp;
    std::size_t at;
};

/// Decodes UTF-8 (core/utf8.h); a byte that starts no valid sequence becomes one "letter"
/// (U+FFFD).
std::vector<Char> decode(std::string_view s) {
    std::vector<Char> out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const Utf8Char c = decode_utf8(s, i);
        out.push_back({c.cp, i});
        i += c.length;
    }
    return out;
}

bool is_line_break(char32_t c) {
    return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x85 || c == 0x2028 ||
           c == 0x2029;
}

bool is_space(char32_t c) {
    return c == ' ' || c == '\t' || is_line_break(c) || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
}

/// Ends a sentence when whitespace follows: . ! ? … ‼ ⁇ ⁈ ⁉
bool is_terminal(char32_t c) {
    return c == '.' || c == '!' || c == '?' || c == 0x2026 || c == 0x203C ||
           (c >= 0x2047 && c <= 0x2049);
}

/// Ends a sentence even when no whitespace follows (CJK full stops).
bool is_wide_terminal(char32_t c) { return c == 0x3002 || c == 0xFF01 || c == 0xFF1F; }

/// Closing quotes and brackets that belong to the sentence they end.
bool is_closer(char32_t c) {
    return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}' || c == 0xBB || c == 0x2019 ||
           c == 0x201D || c == 0x203A || c == 0x300D || c == 0x300F;
}

/// Lower-case letters of Latin (Basic, Latin-1, Extended-A), Greek and Cyrillic; enough to tell
/// "e.g. the" (no boundary) from "end. The" in the languages the models know.
bool is_lower(char32_t c) {
    if (c >= 'a' && c <= 'z') return true;
    if (c >= 0xDF && c <= 0xFF) return c != 0xF7;
    if (c >= 0x100 && c <= 0x17F) {  // Latin Extended-A: pairs alternate upper, lower
        if (c == 0x138 || c == 0x149 || c == 0x17F) return true;  // ĸ ŉ ſ
        if (c == 0x178) return false;                             // Ÿ
        const bool odd_is_lower = c < 0x138 || (c > 0x149 && c < 0x178);
        return (c % 2 == 1) == odd_is_lower;
    }
    if (c >= 0x3B1 && c <= 0x3C9) return true;
    return c >= 0x430 && c <= 0x45F;
}

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }

/// Words after which a single "." is not a full stop (English, German, French; case matters).
bool is_abbreviation(const std::u32string& w) {
    static const std::array<const char*, 40> kWords = {
        "Mr",  "Mrs",  "Ms",   "Dr",  "Prof", "Sr",  "Jr",     "St",   "vs",  "No",
        "Nos", "Fig",  "fig",  "Vol", "vol",  "pp",  "approx", "cf",   "Hr",  "Fr",
        "Frl", "Nr",   "bzw",  "ca",  "vgl",  "ggf", "evtl",   "inkl", "Str", "Bd",
        "Mme", "Mlle", "Mmes", "env", "av",   "bd",  "éd",     "chap", "art", "Abs"};
    std::string ascii;
    for (char32_t c : w) {
        if (c < 0x80)
            ascii.push_back(static_cast<char>(c));
        else if (c == 0xE9)
            ascii += "é";
        else
            return false;
    }
    return std::find(kWords.begin(), kWords.end(), ascii) != kWords.end();
}

/// True when the "." at chars[dot] follows a word that makes it no full stop.
bool dot_is_not_a_stop(const std::vector<Char>& chars, std::size_t dot) {
    std::size_t b = dot;
    while (b > 0 && !is_space(chars[b - 1].cp)) --b;
    // why: "(e.g." and "„Dr." — opening quotes and brackets are not part of the word
    while (b < dot && (chars[b].cp == '(' || chars[b].cp == '[' || chars[b].cp == '"' ||
                       chars[b].cp == 0x201E || chars[b].cp == 0x201C || chars[b].cp == 0xAB))
        ++b;
    std::u32string word;
    for (std::size_t i = b; i < dot; ++i) word.push_back(chars[i].cp);
    if (word.empty()) return false;
    if (word.size() == 1 && !is_digit(word[0]) && !is_terminal(word[0])) return true;
    if (word.find(U'.') != std::u32string::npos && word.back() != U'.') return true;
    if (word.size() <= 2 && std::all_of(word.begin(), word.end(), is_digit)) return true;
    return is_abbreviation(word);
}

}  // namespace

std::vector<TextSpan> split_sentences(std::string_view text) {
    const std::vector<Char> chars = decode(text);
    const std::size_t n = chars.size();
    auto byte_at = [&](std::size_t i) { return i < n ? chars[i].at : text.size(); };
    std::vector<TextSpan> spans;
    auto close = [&](std::size_t first, std::size_t last) {  // chars [first, last), trimmed
        while (first < last && is_space(chars[first].cp)) ++first;
        while (last > first && is_space(chars[last - 1].cp)) --last;
        if (last > first) spans.push_back({byte_at(first), byte_at(last)});
    };

    std::size_t start = 0;
    std::size_t i = 0;
    while (i < n) {
        const char32_t c = chars[i].cp;
        if (is_line_break(c)) {
            close(start, i);
            start = ++i;
            continue;
        }
        if (is_wide_terminal(c)) {
            std::size_t e = i + 1;
            while (e < n && (is_wide_terminal(chars[e].cp) || is_closer(chars[e].cp))) ++e;
            close(start, e);
            start = i = e;
            continue;
        }
        if (!is_terminal(c)) {
            ++i;
            continue;
        }
        // a run of terminal punctuation, then closing quotes and brackets
        std::size_t e = i;
        while (e < n && is_terminal(chars[e].cp)) ++e;
        const bool single_dot = e == i + 1 && c == '.';
        while (e < n && is_closer(chars[e].cp)) ++e;
        if (e == n || !is_space(chars[e].cp)) {
            i = e;
            continue;
        }
        std::size_t next = e;
        while (next < n && is_space(chars[next].cp) && !is_line_break(chars[next].cp)) ++next;
        const char32_t after = next < n ? chars[next].cp : 0;
        // why: French sets a space before a closing guillemet ("« Oui. »"); ASCII quotes open
        // as often as they close, so only the unambiguous closers keep the sentence going
        const bool closes_later = is_closer(after) && after != '"' && after != '\'';
        const bool boundary =
            next == n || is_line_break(after) ||
            (!is_lower(after) && !closes_later && !(single_dot && dot_is_not_a_stop(chars, i)));
        if (boundary) {
            close(start, e);
            start = next;
        }
        i = next;
    }
    close(start, n);
    return spans;
}

}  // namespace heed
