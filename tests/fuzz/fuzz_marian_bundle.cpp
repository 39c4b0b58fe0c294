// Fuzz target: a Marian model's bytes through the whole conversion (marian/marian_model.h) with
// the tiny SentencePiece vocabulary, and the Heed file it yields through the engine's loader,
// as `heed translate --marian` and loadTranslator({marian}) do. Only heed::Error may escape.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.h"
#include "marian/marian_model.h"
#include "translator/loaded_model.h"

namespace {

const std::string& vocabulary() {
    static const std::string bytes = [] {
        std::ifstream f(HEED_MODELS_DIR "/tiny/spm.model", std::ios::binary);
        std::ostringstream s;
        s << f.rdbuf();
        return s.str();
    }();
    return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    heed::MarianBundle bundle;
    bundle.model.assign(reinterpret_cast<const char*>(data), size);
    bundle.vocabs = {vocabulary()};
    try {
        const std::vector<std::uint8_t> file = heed::heed_file_from_marian(bundle);
        heed::load_model(file.data(), file.size());
    } catch (const heed::Error&) {
    }
    return 0;
}
