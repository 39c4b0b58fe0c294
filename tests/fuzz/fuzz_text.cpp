// Fuzz target: user text through the shipped-style tokenizer and the tiny model. Valid UTF-8
// must encode to in-range ids that decode to valid UTF-8, and translate must return or throw
// heed::Error; any other outcome aborts. Not the model file side (fuzz_loader.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/utf8.h"
#include "tokenizer/vocabulary.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace {

const heed::Translator& tiny() {
    static const auto t = heed::Translator::load_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    return *t;
}

// why: the façade keeps its tokenizer to itself; the round trip reaches it through the
// internal header, as the other tests do
const heed::Vocabulary& tiny_tokenizer() {
    static const auto parts = heed::load_model_file(HEED_MODELS_DIR "/tiny/tiny.heed");
    return parts->tokenizer;
}

void require(bool ok) {
    if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const heed::Translator& tr = tiny();
    if (heed::find_invalid_utf8(text) == std::string_view::npos) {
        // round trip
        const heed::Vocabulary& tok = tiny_tokenizer();
        const std::vector<int> ids = tok.encode(text);
        for (int id : ids) require(id >= 0 && id < tok.vocab_size());
        require(heed::find_invalid_utf8(tok.decode(ids)) == std::string_view::npos);
    }
    try {
        heed::TranslateOptions o;
        o.max_length = 6;
        for (const heed::Translation& t : tr.translate({text}, o))
            require(heed::find_invalid_utf8(t.text) == std::string_view::npos);
    } catch (const heed::Error&) {
    }
    return 0;
}
