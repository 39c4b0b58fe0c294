// The one paragraph path: a call's texts checked against its budget, split into sentences,
// translated under the batch limits (or one after the other with step events), and each text's
// translation joined with its own gaps.
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "translator/call_budget.h"
#include "translator/translator.h"

namespace heed {
namespace {

/// Where a text's sentence sits in the call's flat list of sentences.
struct SentenceRef {
    std::size_t text = 0;
    std::size_t index = 0;
};

/// "sentence i of n: " when the text has several sentences, else nothing.
std::string in_sentence(std::size_t i, std::size_t n) {
    return n > 1 ? "sentence " + std::to_string(i + 1) + " of " + std::to_string(n) + ": " : "";
}

/// The sentences decoded: gaps[0] + sentence 0's text + gaps[1] + ... (one: its text as is).
std::string joined(const std::string& text, const TextTranslation& t) {
    if (t.sentences.size() == 1) return t.sentences[0].text;
    std::string out;
    std::size_t at = 0;
    for (std::size_t i = 0; i < t.spans.size(); ++i) {
        out += text.substr(at, t.spans[i].begin - at) + t.sentences[i].text;
        at = t.spans[i].end;
    }
    return out + text.substr(at);
}

/// Records a refused sentence: its text becomes an error item (the first refusal wins).
void refuse(TextTranslation& t, std::size_t i, const std::string& message) {
    if (!t.error.empty()) return;
    t.error = in_sentence(i, t.spans.size()) + message;
}

}  // namespace

std::vector<TextTranslation> Translator::translate_texts(const std::vector<std::string>& texts,
                                                         const TranslateOptions& options,
                                                         const StepCallback& on_step) const {
    check_options(options);
    check_against_model(options);
    const std::vector<std::vector<TextSpan>> spans = split_call(texts, options.split);
    std::vector<TextTranslation> out(texts.size());
    std::vector<std::string> sentences;
    std::vector<SentenceRef> refs;
    for (std::size_t t = 0; t < texts.size(); ++t) {
        const std::size_t n = spans[t].size();
        if (n > 1 && !options.forced_prefix.empty())
            throw Error("options.forcedPrefix continues one sentence, but the text has " +
                        std::to_string(n) +
                        ": translate one sentence (result.sentences[i].source), or pass "
                        "split: false");
        out[t].spans = spans[t];
        out[t].sentences.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const TextSpan& s = spans[t][i];
            // why: one sentence is the text as given (a blank text reaches the checks as is)
            sentences.push_back(n == 1 ? texts[t] : texts[t].substr(s.begin, s.end - s.begin));
            refs.push_back({t, i});
        }
    }
    if (on_step) {
        // why: one sentence after the other, so steps stream and the listener can stop between
        bool stopped = false;
        for (std::size_t k = 0; k < sentences.size() && !stopped; ++k) {
            TextTranslation& t = out[refs[k].text];
            if (!t.error.empty()) continue;
            const int n = int(t.spans.size()), i = int(refs[k].index);
            const StepCallback step = [&](const StepEvent& e) {
                StepEvent named = e;
                named.sentence = i;
                named.sentences = n;
                stopped = !on_step(named);
                return !stopped;
            };
            try {
                t.sentences[std::size_t(i)] = translate_one(sentences[k], options, step);
            } catch (const Error& e) {
                refuse(t, std::size_t(i), e.what());
            }
            if (stopped)
                for (std::size_t later = refs[k].text; later < out.size(); ++later)
                    out[later].stopped = true;
        }
    } else {
        for (std::size_t first = 0; first < sentences.size(); first += kChunkSentences) {
            const std::size_t last = std::min(sentences.size(), first + kChunkSentences);
            std::vector<BatchItem> items =
                translate_batch(std::vector<std::string>(sentences.begin() + std::ptrdiff_t(first),
                                                         sentences.begin() + std::ptrdiff_t(last)),
                                options);
            for (std::size_t k = first; k < last; ++k) {
                TextTranslation& t = out[refs[k].text];
                BatchItem& item = items[k - first];
                if (item.ok)
                    t.sentences[refs[k].index] = std::move(item.translation);
                else
                    refuse(t, refs[k].index, item.error);
            }
        }
    }
    for (std::size_t t = 0; t < texts.size(); ++t) {
        TextTranslation& r = out[t];
        r.ok = r.error.empty() && !r.stopped;
        if (r.ok)
            r.text = joined(texts[t], r);
        else
            r.sentences.clear();
    }
    return out;
}

}  // namespace heed
