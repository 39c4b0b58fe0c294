// Finding the runs, URLs and characters a translation must copy.
#include "translator/copy_spans.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/utf8.h"

namespace heed {
namespace {

bool is_combining(char32_t cp) { return cp >= 0x0300 && cp <= 0x036F; }

bool url_tail(char c) {
    return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == ')' ||
           c == ']' || c == '}' || c == '\'' || c == '"';
}

void add(std::vector<CopySpan>& spans, CopySpan span) {
    for (const CopySpan& s : spans)
        if (s.text == span.text) return;
    spans.push_back(std::move(span));
}

/// URLs: "http://" or "https://" at the start of a word, to the next space, less trailing
/// punctuation.
void add_urls(std::vector<CopySpan>& spans, std::string_view text) {
    for (std::size_t at = text.find("http"); at != std::string_view::npos;
         at = text.find("http", at + 1)) {
        if (at > 0 && !std::isspace(static_cast<unsigned char>(text[at - 1])) &&
            text[at - 1] != '(' && text[at - 1] != '"' && text[at - 1] != '\'')
            continue;
        const std::string_view rest = text.substr(at);
        const std::size_t scheme = rest.rfind("https://", 0) == 0  ? 8
                                   : rest.rfind("http://", 0) == 0 ? 7
                                                                   : 0;
        if (scheme == 0) continue;
        std::size_t end = scheme;
        while (end < rest.size() && static_cast<unsigned char>(rest[end]) > ' ') ++end;
        while (end > scheme && url_tail(rest[end - 1])) --end;
        std::size_t trigger = scheme + (rest.substr(scheme, 4) == "www." ? 4 : 0) + 1;
        if (end > trigger) add(spans, {std::string(rest.substr(0, end)), trigger});
    }
}

}  // namespace

std::vector<CopySpan> copy_spans(std::string_view text) {
    std::vector<CopySpan> spans;
    std::size_t run = 0, first = 0, chars = 0;  // the run's start, its first character's bytes
    const auto close = [&](std::size_t end) {
        if (chars >= 2) add(spans, {std::string(text.substr(run, end - run)), first});
        chars = 0;
    };
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char c = decode_utf8(text, i);
        if (c.valid && (must_copy(c.cp) || (chars > 0 && is_combining(c.cp)))) {
            if (chars == 0) {
                run = i;
                first = c.length;
            }
            ++chars;
        } else {
            close(i);
        }
        i += c.length;
    }
    close(text.size());
    add_urls(spans, text);
    return spans;
}

CopyRules copy_rules(std::string_view text) {
    CopyRules rules{copy_spans(text), {}};
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Char c = decode_utf8(text, i);
        if (c.valid && must_copy(c.cp)) rules.chars.push_back(c.cp);
        i += c.length;
    }
    std::sort(rules.chars.begin(), rules.chars.end());
    rules.chars.erase(std::unique(rules.chars.begin(), rules.chars.end()), rules.chars.end());
    return rules;
}

}  // namespace heed
