// Fuzz target: the model file header (length prefix, JSON entries, layout checks) and the
// config JSON it carries; the same bytes are also parsed as a bare config text, so the
// dictionary's config keys reach ModelConfig::from_json directly. Only heed::Error may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "model/config.h"
#include "model/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const heed::ModelFile file = heed::ModelFile::parse(data, size);
        for (const std::string& name : file.names()) file.info(name);
        heed::ModelConfig::from_json(file.metadata("heed.config")).to_json();
    } catch (const heed::Error&) {
    }
    try {
        heed::ModelConfig::from_json(std::string(reinterpret_cast<const char*>(data), size));
    } catch (const heed::Error&) {
    }
    return 0;
}
