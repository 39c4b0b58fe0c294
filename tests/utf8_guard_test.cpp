// The UTF-8 guard of both searches: which byte-fallback pieces a hypothesis may take next, on a
// made-up vocabulary (ids 0..3 control and ordinary pieces, 4 + b the piece <0xb>), read against
// the syntax of a UTF-8 character (RFC 3629 §4).
#include "decoding/utf8_guard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

constexpr int kFirstByte = 4, kVocab = 4 + 256 + 2;  // two ordinary pieces after the bytes

heed::BytePieces bytes() {
    heed::BytePieces p;
    p.byte_of.assign(kVocab, -1);
    for (int b = 0; b < 256; ++b) {
        p.byte_of[kFirstByte + b] = std::int16_t(b);
        p.ids.push_back(kFirstByte + b);
    }
    return p;
}

int id(int byte) { return kFirstByte + byte; }

/// The ids left scoreable after `tokens`, with `room` pieces allowed after this one.
std::vector<int> allowed(const std::vector<int>& tokens, int room = 10,
                         const heed::OutputLayer* shortlist = nullptr) {
    const heed::BytePieces p = bytes();
    const heed::OutputColumns cols{shortlist, kVocab};
    std::vector<float> row(std::size_t(cols.size()), -1.0f);
    heed::keep_utf8(row.data(), cols, p, heed::utf8_need(tokens, p), room);
    std::vector<int> out;
    for (int c = 0; c < cols.size(); ++c)
        if (std::isfinite(row[std::size_t(c)])) out.push_back(cols.id(c));
    return out;
}

std::vector<int> bytes_between(int lo, int hi) {
    std::vector<int> out;
    for (int b = lo; b <= hi; ++b) out.push_back(id(b));
    return out;
}

TEST(Utf8Guard, NothingOpenBansOnlyBytesThatStartNoCharacter) {
    const std::vector<int> got = allowed({1, id('a')});
    std::vector<int> want = {0, 1, 2, 3};
    for (int b : bytes_between(0x00, 0x7F)) want.push_back(b);
    for (int b : bytes_between(0xC2, 0xF4)) want.push_back(b);
    want.push_back(kVocab - 2);
    want.push_back(kVocab - 1);
    EXPECT_EQ(got, want);  // no 80..BF (continuations), C0, C1 (overlong) or F5..FF
}

TEST(Utf8Guard, AnOpenCharacterTakesOnlyItsContinuation) {
    EXPECT_EQ(allowed({id(0xC3)}), bytes_between(0x80, 0xBF));            // é = C3 A9
    EXPECT_EQ(allowed({id(0xE2), id(0x82)}), bytes_between(0x80, 0xBF));  // € = E2 82 AC
    EXPECT_EQ(allowed({id(0xF0), id(0x9F), id(0x98)}), bytes_between(0x80, 0xBF));
}

TEST(Utf8Guard, TheFirstContinuationIsNarrowedAfterE0EDF0F4) {
    EXPECT_EQ(allowed({id(0xE0)}), bytes_between(0xA0, 0xBF));            // no overlong forms
    EXPECT_EQ(allowed({id(0xED)}), bytes_between(0x80, 0x9F));            // no surrogates
    EXPECT_EQ(allowed({id(0xF0)}), bytes_between(0x90, 0xBF));            // no overlong forms
    EXPECT_EQ(allowed({id(0xF4)}), bytes_between(0x80, 0x8F));            // nothing past U+10FFFF
    EXPECT_EQ(allowed({id(0xE0), id(0xA0)}), bytes_between(0x80, 0xBF));  // then any
}

TEST(Utf8Guard, AFinishedCharacterOpensNothing) {
    EXPECT_EQ(allowed({id(0xC3), id(0xA9)}), allowed({}));
    EXPECT_EQ(allowed({id(0xF0), id(0x9F), id(0x98), id(0x80)}), allowed({}));
    EXPECT_EQ(allowed({id(0xE2), id(0x82), 2}), allowed({}));  // a broken one is let go
}

TEST(Utf8Guard, ALeadByteNeedsRoomForItsCharacter) {
    std::vector<int> got = allowed({}, 1);  // one piece may follow: two-byte leads only
    EXPECT_TRUE(std::find(got.begin(), got.end(), id(0xC3)) != got.end());
    EXPECT_TRUE(std::find(got.begin(), got.end(), id(0xE2)) == got.end());
    got = allowed({}, 0);
    EXPECT_TRUE(std::find(got.begin(), got.end(), id(0xC3)) == got.end());
    EXPECT_TRUE(std::find(got.begin(), got.end(), id('a')) != got.end());
}

TEST(Utf8Guard, AShortlistWithoutTheContinuationLeavesTheRowAlone) {
    heed::OutputLayer layer;
    layer.ids = {0, 1, 2, 3, id(0xC3), id('a')};
    EXPECT_EQ(allowed({id(0xC3)}, 10, &layer), layer.ids);
    layer.ids = {0, 1, 2, 3, id(0xA9), id(0xC3), id('a')};
    EXPECT_EQ(allowed({id(0xC3)}, 10, &layer), std::vector<int>{id(0xA9)});
}

}  // namespace
