// The copy guard: which characters are copied, which span a hypothesis is inside, and the
// pieces that may follow (Unicode block ranges, not properties; UTF-8 per RFC 3629).
#include "decoding/copy_guard.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/utf8.h"

namespace heed {
namespace {

struct Range {
    char32_t lo, hi;
};

// why: blocks at or above U+0370 that hold Latin letters, punctuation or symbols a translation
// may rightly change or drop (Latin Extended Additional, general punctuation, currency,
// letterlike forms, Latin ligatures, U+FFFD...)
constexpr Range kNotCopied[] = {
    {0x0000, 0x036F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1EFF}, {0x2000, 0x200C},
    {0x200E, 0x218F}, {0x2C60, 0x2C7F}, {0x2E00, 0x2E7F}, {0xA720, 0xA7FF},
    {0xAB30, 0xAB6F}, {0xFB00, 0xFB06}, {0xFFF0, 0xFFFF},
};

/// True when some code point in [lo, hi] is not to be copied.
bool holds_uncopied(char32_t lo, char32_t hi) {
    return std::any_of(std::begin(kNotCopied), std::end(kNotCopied),
                       [&](const Range& r) { return r.lo <= hi && r.hi >= lo; });
}

/// A span being matched: its index and the bytes of it matched so far.
struct Begun {
    std::size_t span, at;
};

bool ends_copy(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == ' ' || (u < 0x80 && std::ispunct(u));
}

bool continues(std::string_view piece, std::string_view rest) {
    if (piece.empty()) return false;
    if (piece.size() <= rest.size()) return rest.substr(0, piece.size()) == piece;
    return piece.substr(0, rest.size()) == rest && ends_copy(piece[rest.size()]);
}

/// The bytes of the character `written` ends inside (a lead byte and fewer continuation bytes
/// than it announces), or "" when it ends on a whole character.
std::string_view open_sequence(std::string_view written) {
    const std::size_t n = written.size();
    for (std::size_t back = 1; back <= 4 && back <= n; ++back) {
        const auto b = static_cast<unsigned char>(written[n - back]);
        if (b >= 0x80 && b <= 0xBF) continue;
        const int len = utf8_lead_length(b);
        return len > int(back) ? written.substr(n - back) : std::string_view();
    }
    return {};
}

bool is_allowed(char32_t cp, const std::u32string& allowed) {
    return !must_copy(cp) || std::binary_search(allowed.begin(), allowed.end(), cp);
}

/// Whether the bytes `q` (a lead byte and maybe continuation bytes) can still become a
/// character that is not copied, or one of `allowed`.
bool may_become_allowed(const std::string& q, const std::u32string& allowed) {
    const int len = utf8_lead_length(static_cast<unsigned char>(q[0]));
    if (len <= 1 || int(q.size()) > len) return true;  // not a sequence: the UTF-8 guard's
    for (std::size_t k = 1; k < q.size(); ++k)
        if ((static_cast<unsigned char>(q[k]) & 0xC0) != 0x80) return true;
    if (int(q.size()) == len) {
        const Utf8Char c = decode_utf8(q);
        return !c.valid || is_allowed(c.cp, allowed);
    }
    const char32_t lead_bits = static_cast<unsigned char>(q[0]) & (0x7F >> len);
    char32_t lo = lead_bits, hi = lead_bits;
    for (int k = 1; k < len; ++k) {
        const char32_t bits =
            k < int(q.size()) ? char32_t(static_cast<unsigned char>(q[std::size_t(k)]) & 0x3F) : 0;
        lo = (lo << 6) | bits;
        hi = (hi << 6) | (k < int(q.size()) ? bits : 0x3F);
    }
    if (holds_uncopied(lo, hi)) return true;
    std::string encoded;
    for (char32_t cp : allowed) {
        encoded.clear();
        append_utf8(encoded, cp);
        if (encoded.compare(0, q.size(), q) == 0) return true;
    }
    return false;
}

}  // namespace

bool must_copy(char32_t cp) { return !holds_uncopied(cp, cp); }

void index_copied(PieceTexts& texts) {
    texts.copied_ids.clear();
    texts.copied_chars.clear();
    for (std::size_t id = 0; id < texts.text.size(); ++id) {
        const std::string& t = texts.text[id];
        std::u32string chars;
        bool byte_piece = t.size() == 1 && static_cast<unsigned char>(t[0]) >= 0x80;
        for (std::size_t i = 0; i < t.size() && !byte_piece;) {
            const Utf8Char c = decode_utf8(t, i);
            if (c.valid && must_copy(c.cp)) chars.push_back(c.cp);
            i += c.length;
        }
        if (byte_piece || !chars.empty()) {
            texts.copied_ids.push_back(int(id));
            texts.copied_chars.push_back(std::move(chars));
        }
    }
}

std::string_view copy_rest(std::string_view written, const std::vector<CopySpan>& spans) {
    std::vector<Begun> begun, next;
    for (char b : written) {
        bool inside = false;
        for (const Begun& g : begun) inside = inside || g.at >= spans[g.span].trigger;
        next.clear();
        for (const Begun& g : begun)
            if (spans[g.span].text[g.at] == b && g.at + 1 < spans[g.span].text.size())
                next.push_back({g.span, g.at + 1});
        // why: a byte of a span already committed to is that span's, not the start of another
        // (a span "ωω" written whole must not begin again at its second ω)
        if (!inside)
            for (std::size_t s = 0; s < spans.size(); ++s)
                if (spans[s].text.size() > 1 && spans[s].text[0] == b) next.push_back({s, 1});
        begun.swap(next);
    }
    const Begun* best = nullptr;
    for (const Begun& g : begun)
        if (g.at >= spans[g.span].trigger && (!best || g.at > best->at)) best = &g;
    return best ? std::string_view(spans[best->span].text).substr(best->at) : std::string_view();
}

std::string written_text(const std::vector<int>& tokens, const PieceTexts& texts,
                         std::size_t last) {
    std::string out;
    for (std::size_t i = tokens.size() - std::min(last, tokens.size()); i < tokens.size(); ++i)
        if (tokens[i] >= 0 && tokens[i] < int(texts.text.size()))
            out += texts.text[std::size_t(tokens[i])];
    return out;
}

void keep_span(float* logprobs, const OutputColumns& cols, const PieceTexts& texts,
               std::string_view rest) {
    if (rest.empty()) return;
    const int V = cols.size();
    const auto allowed = [&](int col) {
        const int id = cols.id(col);
        return id >= 0 && id < int(texts.text.size()) &&
               continues(texts.text[std::size_t(id)], rest);
    };
    bool any = false;
    for (int col = 0; col < V && !any; ++col) any = allowed(col) && std::isfinite(logprobs[col]);
    if (!any) return;
    for (int col = 0; col < V; ++col)
        if (!allowed(col)) logprobs[col] = -INFINITY;
}

void keep_uninvented(float* logprobs, const OutputColumns& cols, const PieceTexts& texts,
                     const std::u32string& allowed, std::string_view written) {
    const std::string open(open_sequence(written));
    std::vector<int> banned;  // columns, ascending
    for (std::size_t k = 0; k < texts.copied_ids.size(); ++k) {
        const int col = cols.column(texts.copied_ids[k]);
        if (col < 0 || !std::isfinite(logprobs[col])) continue;
        const std::u32string& chars = texts.copied_chars[k];
        const bool ok =
            chars.empty()
                ? may_become_allowed(open + texts.text[std::size_t(texts.copied_ids[k])], allowed)
                : std::all_of(chars.begin(), chars.end(),
                              [&](char32_t cp) { return is_allowed(cp, allowed); });
        if (!ok) banned.push_back(col);
    }
    if (banned.empty()) return;
    bool any = false;
    for (int col = 0, V = cols.size(); col < V && !any; ++col)
        any =
            std::isfinite(logprobs[col]) && !std::binary_search(banned.begin(), banned.end(), col);
    if (!any) return;
    for (int col : banned) logprobs[col] = -INFINITY;
}

void keep_copy(float* logprobs, const OutputColumns& cols, const PieceTexts& texts,
               const CopyRules& rules, const std::vector<int>& tokens) {
    // why: without spans only the character the text may end inside matters, and a character
    // is at most four pieces (byte pieces)
    const std::string written = written_text(tokens, texts, rules.spans.empty() ? 4 : SIZE_MAX);
    if (!rules.spans.empty()) keep_span(logprobs, cols, texts, copy_rest(written, rules.spans));
    keep_uninvented(logprobs, cols, texts, rules.chars, written);
}

}  // namespace heed
