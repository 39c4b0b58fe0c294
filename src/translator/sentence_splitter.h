// Splits a paragraph or document into the sentences the models were trained on, so a long text
// is translated sentence by sentence instead of being cut short. Byte spans only: not the
// tokenizer (which splits a sentence into pieces) and not the translation.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace heed {

/// One sentence: bytes [begin, end) of the text, without the whitespace around it.
struct TextSpan {
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// The sentences of a UTF-8 text, in order. What lies between two spans (and before the first
/// and after the last) is whitespace only, so the text is rebuilt exactly from the spans and the
/// gaps. Rules, conservative by design (a missed boundary gives a longer sentence, which still
/// translates; a false one cuts a sentence in two):
/// - every line break ends a sentence (titles, list items and paragraphs stay apart);
/// - `.` `!` `?` `…` (any run of them, then closing quotes or brackets) end a sentence when
///   whitespace follows and the next word does not start with a lower-case letter;
/// - `。` `！` `？` end a sentence even with no whitespace after them;
/// - a single `.` does not end a sentence after a known abbreviation ("Dr.", "z.B.", "Mme."),
///   a single letter (an initial), a word with an inner dot ("e.g.", "U.S.") or a number of one
///   or two digits (German ordinals: "am 3. Mai").
/// Empty or whitespace-only text gives no spans. Invalid UTF-8 bytes are treated as letters.
std::vector<TextSpan> split_sentences(std::string_view text);

}  // namespace heed
