// UTF-8 validity of byte-fallback output (RFC 3629 §4, the syntax of a UTF-8 character).
#include "decoding/utf8_guard.h"

#include <cmath>

#include "core/utf8.h"

namespace heed {
namespace {

bool is_continuation(int b) { return b >= 0x80 && b <= 0xBF; }

/// Continuation bytes a lead byte announces (0 for ASCII), or -1 when `b` starts nothing
/// (a continuation byte, C0/C1 and F5..FF).
int announced(int b) { return b < 0x80 ? 0 : utf8_lead_length(static_cast<unsigned char>(b)) - 1; }

/// The range of the first continuation byte after lead byte `b`.
Utf8Need first_after(int b, int count) {
    Utf8Need n{count, 0x80, 0xBF};
    if (b == 0xE0) n.lo = 0xA0;  // why: below A0 would be an overlong form
    if (b == 0xED) n.hi = 0x9F;  // why: above 9F would encode a surrogate
    if (b == 0xF0) n.lo = 0x90;  // why: below 90 would be an overlong form
    if (b == 0xF4) n.hi = 0x8F;  // why: above 8F would pass U+10FFFF
    return n;
}

int byte_of(const BytePieces& bytes, int id) {
    return id >= 0 && id < int(bytes.byte_of.size()) ? bytes.byte_of[std::size_t(id)] : -1;
}

}  // namespace

Utf8Need utf8_need(const std::vector<int>& tokens, const BytePieces& bytes) {
    // walk back over the trailing continuation bytes (at most three) to their lead byte
    const int n = int(tokens.size());
    int conts = 0;
    while (conts < 3 && conts < n && is_continuation(byte_of(bytes, tokens[n - 1 - conts])))
        ++conts;
    if (conts == n) return {};
    const int lead = byte_of(bytes, tokens[n - 1 - conts]);
    const int count = lead < 0 ? -1 : announced(lead);
    if (count <= 0 || conts >= count) return {};  // no open sequence (or a broken one: let go)
    if (conts == 0) return first_after(lead, count);
    return Utf8Need{count - conts, 0x80, 0xBF};
}

void keep_utf8(float* logprobs, const OutputColumns& cols, const BytePieces& bytes, Utf8Need need,
               int room) {
    if (need.count == 0) {
        for (int id : bytes.ids) {
            const int col = cols.column(id), count = announced(byte_of(bytes, id));
            if (col >= 0 && (count < 0 || count > room)) logprobs[col] = -INFINITY;
        }
        return;
    }
    bool any = false;
    for (int id : bytes.ids) {
        const int b = byte_of(bytes, id), col = cols.column(id);
        any = any || (col >= 0 && b >= need.lo && b <= need.hi && std::isfinite(logprobs[col]));
    }
    if (!any) return;
    const int V = cols.size();
    for (int col = 0; col < V; ++col) {
        const int b = byte_of(bytes, cols.id(col));
        if (b < need.lo || b > need.hi) logprobs[col] = -INFINITY;
    }
}

}  // namespace heed
