// Fuzz target: a SentencePiece ModelProto from bytes. A model that loads must also encode and
// decode a fixed sentence; only heed::Error may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const heed::Tokenizer tok =
            heed::Tokenizer::from_bytes(std::string(reinterpret_cast<const char*>(data), size));
        tok.decode(tok.encode("A simple text editor, version 2.0 — für Änderungen."));
    } catch (const heed::Error&) {
    }
    return 0;
}
