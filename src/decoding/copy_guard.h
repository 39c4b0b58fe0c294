// Keeps text that must come through a translation unchanged from being changed or invented.
// Characters to copy (must_copy: letters of scripts other than Latin, emoji and other symbols)
// may only be written when the source has them; and once a hypothesis's text ends with the
// beginning of a source span (a run of such characters, a URL: see translator/copy_spans.h),
// only pieces that go on spelling that span may follow until it is written out. The model
// still chooses whether and where to copy and what comes after; the guard stops it from
// dropping, doubling or changing a character half-way ("οζζεψλλβ" written "οζεψλλβ", a URL
// cut after its first path letters) and from writing a character of a script the source does
// not hold. Not tokenisation (see tokenizer/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decoding/search.h"

namespace heed {

/// True for a code point a translation copies rather than translates: a letter of a script
/// other than Latin, an emoji or pictographic symbol, an arrow, a CJK punctuation mark; false
/// for ASCII, Latin letters and their accents, general punctuation, currency and letterlike
/// symbols (a translation may rightly change or drop those).
bool must_copy(char32_t cp);

/// Fills texts.copied_ids and copied_chars from texts.text.
void index_copied(PieceTexts& texts);

/// What is left to write of the span `written` (a hypothesis's text so far) has begun and not
/// finished, or "" when it is not inside one. A span begins wherever its first byte is written
/// outside another span already past its trigger, and the longest begun span wins.
std::string_view copy_rest(std::string_view written, const std::vector<CopySpan>& spans);

/// The text of `tokens` (target ids), or of their `last` ones, as PieceTexts spells them.
std::string written_text(const std::vector<int>& tokens, const PieceTexts& texts,
                         std::size_t last = SIZE_MAX);

/// Sets to -inf, in one row of log-probabilities over `cols`, every piece that does not go on
/// spelling `rest`: kept are the pieces whose text is a prefix of `rest`, and those that write
/// all of `rest` followed by a space or ASCII punctuation. An empty `rest`, or a row where no
/// such piece is scoreable (a shortlist without them), is left as it is.
void keep_span(float* logprobs, const OutputColumns& cols, const PieceTexts& texts,
               std::string_view rest);

/// Sets to -inf every piece that would write a character to copy that `allowed` (ascending)
/// lacks: an ordinary piece holding one, or a byte piece (<0xNN>) after which the character
/// `written` has open could only be one. A row where nothing else is scoreable is left as it is.
void keep_uninvented(float* logprobs, const OutputColumns& cols, const PieceTexts& texts,
                     const std::u32string& allowed, std::string_view written);

/// Both rules for one hypothesis (target ids so far) of a sentence.
void keep_copy(float* logprobs, const OutputColumns& cols, const PieceTexts& texts,
               const CopyRules& rules, const std::vector<int>& tokens);

}  // namespace heed
