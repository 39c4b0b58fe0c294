// Fuzz target: a whole model file from bytes (header, config, tokenizer, weights). Every input
// must load or end in heed::Error; anything else (a crash, a sanitizer report, another
// exception type) is a bug. Not the text side (fuzz_text.cpp).
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "translator/translator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        heed::Translator::load(data, size);
    } catch (const heed::Error&) {
    }
    return 0;
}
