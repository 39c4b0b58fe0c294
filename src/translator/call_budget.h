// One call's budget, the same in the CLI (one TEXT or line), the npm API and its worker (one
// translate() call): how many texts, bytes and sentences it may hold, checked before any work,
// and the sentences of each text. Not the per-sentence checks (translator.h: empty, invalid
// UTF-8, too many pieces), which refuse one text of a batch and translate the others.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "translator/sentence_splitter.h"

namespace heed {

/// The limits of one call, defined here once: split_call() checks them, the bindings hand them
/// to JavaScript (limits()), which checks the same before it copies anything into WASM.
struct CallLimits {
    std::size_t text_bytes = 20000;  ///< UTF-8 bytes of one text
    std::size_t texts = 256;         ///< texts in one call
    std::size_t bytes = 65536;       ///< UTF-8 bytes of all the call's texts together
    std::size_t sentences = 1024;    ///< sentences of all the call's texts, once split
};
inline constexpr CallLimits kCallLimits{};

/// The sentences of each text (split_sentences(); the whole text as one span when `split` is
/// false or the text is blank), after checking `texts` against kCallLimits in
/// this order: the number of texts, each text's bytes, all bytes, all sentences. Throws
/// heed::Error naming the limit, the text and how to stay under it; nothing is translated.
std::vector<std::vector<TextSpan>> split_call(const std::vector<std::string>& texts, bool split);

}  // namespace heed
