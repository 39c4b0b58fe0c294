// Fuzz target: the text and table formats of a Marian bundle on the same bytes: the flat YAML of
// model.yml (and its typed getters), vocab.yml, and the binary lexical shortlist, also with its
// checksum made right so mutations reach the offset and target checks. Only heed::Error may
// escape.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "marian/lexical_shortlist.h"
#include "marian/marian_yaml.h"

namespace {

std::uint64_t load_u64(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

void read_shortlist(const std::uint8_t* data, std::size_t size) {
    // why: the source vocabulary must match the file's offset count for the reader to go on
    int source = 8;
    if (size >= 40) source = int(std::min<std::uint64_t>(load_u64(data + 32) - 1, 1u << 20));
    try {
        heed::read_lexical_shortlist(data, size, std::max(source, 1), 64);
    } catch (const heed::Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const heed::YamlMap map = heed::parse_flat_yaml(text);
        for (const auto& [key, value] : map) {
            try {
                heed::yaml_int(map, key, 0);
            } catch (const heed::Error&) {
            }
            try {
                heed::yaml_bool(map, key, false);
            } catch (const heed::Error&) {
            }
            try {
                heed::yaml_int_list(map, key);
            } catch (const heed::Error&) {
            }
        }
    } catch (const heed::Error&) {
    }
    try {
        heed::parse_vocab_yaml(text);
    } catch (const heed::Error&) {
    }
    read_shortlist(data, size);
    if (size >= 16) {
        std::vector<std::uint8_t> fixed(data, data + size);
        const std::uint64_t sum = heed::lexical_shortlist_checksum(fixed.data(), size);
        for (int i = 0; i < 8; ++i) fixed[8 + i] = std::uint8_t(sum >> (8 * i));
        read_shortlist(fixed.data(), size);
    }
    return 0;
}
