// Fuzz target: Marian's model archives, .bin and .npz by their magic, then every item's values,
// the embedded "special:model.yml" and its YAML, and the npz reader on the same bytes whatever
// their magic. Only heed::Error may escape.
#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "marian/marian_archive.h"
#include "marian/marian_yaml.h"

namespace {

void read_all(const heed::MarianArchive& archive) {
    for (const heed::MarianItem& item : archive.items()) {
        try {
            archive.read_f32(item);
        } catch (const heed::Error&) {
        }
    }
    heed::parse_flat_yaml(archive.config_yaml());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        read_all(heed::MarianArchive::read(data, size));
    } catch (const heed::Error&) {
    }
    try {
        read_all(heed::MarianArchive::read_npz(data, size));
    } catch (const heed::Error&) {
    }
    return 0;
}
