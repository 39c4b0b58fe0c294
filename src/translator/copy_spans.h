// What in a source text must come through a translation unchanged, for the copy guard
// (decoding/copy_guard.h): runs of characters to copy (must_copy: letters of scripts other than
// Latin, emoji and other symbols) and URLs, and every character to copy it holds. Latin-script
// words, names, numbers, file names and code are left to the model: they may rightly change (a
// German noun's case, 1,5 for 1.5), and a guard that held them would hold ordinary words too.
#pragma once

#include <string_view>
#include <vector>

#include "decoding/copy_guard.h"

namespace heed {

/// The spans of `text` (valid UTF-8) that must be copied whole, each once, in order of first
/// appearance: every run of two or more must_copy characters (combining marks included once a
/// run has begun), then every http:// or https:// URL at the start of a word, up to the next
/// space, less trailing punctuation. A single character is no span: there is nothing after it
/// to keep.
std::vector<CopySpan> copy_spans(std::string_view text);

/// The copy guard's rules for a source text: its spans, and its must_copy characters.
CopyRules copy_rules(std::string_view text);

}  // namespace heed
