// One call's budget: counts first (cheap), splits second, refuses before any translation.
#include "translator/call_budget.h"

#include "core/error.h"

namespace heed {

std::vector<std::vector<TextSpan>> split_call(const std::vector<std::string>& texts, bool split) {
    const CallLimits& l = kCallLimits;
    if (texts.size() > l.texts)
        throw Error("a call holds at most " + std::to_string(l.texts) + " texts (got " +
                    std::to_string(texts.size()) + "): split it into several calls");
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (texts[i].size() > l.text_bytes)
            throw Error((texts.size() > 1 ? "text " + std::to_string(i + 1) : std::string("text")) +
                        " is too long (" + std::to_string(texts[i].size()) + " bytes; at most " +
                        std::to_string(l.text_bytes) + "): split it into several texts");
        bytes += texts[i].size();
    }
    if (bytes > l.bytes)
        throw Error("a call holds at most " + std::to_string(l.bytes) + " bytes of text (got " +
                    std::to_string(bytes) + "): split it into several calls");
    std::vector<std::vector<TextSpan>> out;
    std::size_t sentences = 0;
    for (const std::string& text : texts) {
        std::vector<TextSpan> spans;
        if (split) spans = split_sentences(text);
        if (spans.empty()) spans = {{0, text.size()}};  // why: a blank text gets its message
        sentences += spans.size();
        out.push_back(std::move(spans));
    }
    if (sentences > l.sentences)
        throw Error("a call holds at most " + std::to_string(l.sentences) + " sentences (got " +
                    std::to_string(sentences) + "): split it into several calls");
    return out;
}

}  // namespace heed
