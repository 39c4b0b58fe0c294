// Marian's binary model format (version 1) and the checks every archive item passes, whatever
// file it came from. Layout, all little-endian: u64 version, u64 item count, per item four u64
// (name bytes with NUL, type code, rank, data bytes), the NUL-terminated names, the shapes as
// int32, u64 padding length and the padding, then each item's data in item order.
// Not the npz reader (npz_reader.cpp) and not the meaning of any item.
#include "marian/marian_archive.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/half.h"
#include "core/utf8.h"

namespace heed {
namespace {

constexpr std::size_t kPerItemHeaderBytes = 32;
const char* const kConfigItem = "special:model.yml";

std::uint32_t load_u32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
           (std::uint32_t(p[3]) << 24);
}

std::uint64_t load_u64(const std::uint8_t* p) {
    return std::uint64_t(load_u32(p)) | (std::uint64_t(load_u32(p + 4)) << 32);
}

[[noreturn]] void fail(const std::string& what) { throw Error("Marian model: " + what); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string hex(std::uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), digits[v & 15]);
        v >>= 4;
    } while (v != 0);
    while (s.size() < 4) s.insert(s.begin(), '0');
    return "0x" + s;
}

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::size_t element_size(MarianType type) {
    switch (type) {
        case MarianType::Float32:
            return 4;
        case MarianType::Float16:
            return 2;
        case MarianType::Int8:
        case MarianType::IntGemm8:
            return 1;
    }
    return 1;
}

/// The type of a .bin type code, or throws naming the item and the code (and what the code
/// means in browsermt's or upstream Marian's src/common/types.h, when it is one of theirs).
MarianType type_of_code(std::uint64_t code, const std::string& item) {
    switch (code) {
        case 0x0101:
            return MarianType::Int8;
        case 0x0402:
            return MarianType::Float16;
        case 0x0404:
            return MarianType::Float32;
        case 0x4101:
            return MarianType::IntGemm8;
    }
    static const std::pair<std::uint64_t, const char*> known[] = {
        {0x0102, "int16"},
        {0x0104, "int32"},
        {0x0108, "int64"},
        {0x0201, "uint8"},
        {0x0202, "uint16"},
        {0x0204, "uint32"},
        {0x0208, "uint64"},
        {0x0408, "float64"},
        {0x0802, "packed16"},
        {0x1801, "packed8avx2"},
        {0x2801, "packed8avx512"},
        {0x4102, "intgemm16"},
        {0x10001, "intgemm8 as upstream Marian numbers it, a different layout"},
        {0x10002, "upstream Marian's intgemm16"}};
    std::string name;
    for (const auto& [value, text] : known)
        if (value == code) name = std::string(" (") + text + ")";
    fail("item " + quoted(item) + " has type code " + hex(code) + name +
         ", which Heed does not read; it reads float32, float16, int8 and browsermt's intgemm8 "
         "(0x4101)");
}

}  // namespace

const char* marian_type_name(MarianType type) {
    switch (type) {
        case MarianType::Float32:
            return "float32";
        case MarianType::Float16:
            return "float16";
        case MarianType::Int8:
            return "int8";
        case MarianType::IntGemm8:
            return "intgemm8";
    }
    return "?";
}

void MarianArchive::add(MarianItem item, std::size_t available, bool exact) {
    const std::string name = quoted(item.name);
    if (item.name.empty()) fail("an item has an empty name");
    if (find_invalid_utf8(item.name) != std::string::npos)
        fail("an item's name is not valid UTF-8");
    if (index_.count(item.name)) fail("two items are named " + name);
    if (item.shape.size() > kMaxRank)
        fail("item " + name + " has rank " + std::to_string(item.shape.size()) + ", more than " +
             std::to_string(kMaxRank));
    const std::size_t size = element_size(item.type);
    const std::size_t extra = item.type == MarianType::IntGemm8 ? 4 : 0;
    const std::string what =
        name + " (" + marian_type_name(item.type) + ", shape " + shape_text(item.shape) + ")";
    // why: a product beyond what any buffer holds is refused before it can overflow
    const std::size_t limit = std::numeric_limits<std::size_t>::max() / 8;
    std::size_t elements = 1;
    bool empty = false;
    for (std::size_t d : item.shape) empty = empty || d == 0;
    for (std::size_t d : item.shape) {
        if (empty) break;
        if (elements > limit / d)
            fail("item " + what + " has more values than its " + std::to_string(available) +
                 " bytes of data hold");
        elements *= d;
    }
    if (empty) elements = 0;
    const std::size_t need = elements * size + extra;
    if (need > available || (exact && need != available))
        fail("item " + what + " needs " + std::to_string(need) + " bytes of data, but the file " +
             "gives it " + std::to_string(available));
    item.bytes = elements * size;
    if (item.type == MarianType::IntGemm8) {
        const std::uint32_t bits = load_u32(item.data + item.bytes);
        item.quant_mult = f32_from_bits(bits);
        // why: an all-zero matrix gets 127 / 0 = +inf from marian-conv, and 1 / +inf = 0 still
        // dequantises it; NaN, zero, negative and tiny (1 / q overflows) multipliers cannot
        if (!(item.quant_mult > 0) || std::isinf(1.0f / item.quant_mult))
            fail("item " + name + " has quant_mult " + std::to_string(item.quant_mult) +
                 "; a positive number was expected");
        // why: marian-conv transposes every int8 matrix but those named *Wemb* (it does not
        // update the shape); Marian's loader un-transposes by the same name test
        item.transposed = item.name.find("Wemb") == std::string::npos;
    }
    index_.emplace(item.name, items_.size());
    items_.push_back(std::move(item));
}

MarianArchive MarianArchive::read_binary(const std::uint8_t* data, std::size_t size) {
    if (size < 16)
        fail("the file is " + std::to_string(size) +
             " bytes, too short for a binary model's version and item count (16 bytes)");
    const std::uint64_t version = load_u64(data);
    if (version == 2) fail("binary format version 2 (an encrypted model) is not read");
    if (version != 1)
        fail("binary format version " + std::to_string(version) +
             ", expected 1 (is this a Marian .bin model?)");
    const std::uint64_t count = load_u64(data + 8);
    std::size_t pos = 16;
    if (count > kMaxItems)
        fail("the file declares " + std::to_string(count) + " items, more than the " +
             std::to_string(kMaxItems) + " accepted");
    if (count > (size - pos) / kPerItemHeaderBytes)
        fail("the file declares " + std::to_string(count) + " items, but their headers run " +
             "past its end (" + std::to_string(size) + " bytes)");
    struct Header {
        std::uint64_t name_bytes, type, rank, data_bytes;
    };
    std::vector<Header> headers(count);
    for (Header& h : headers) {
        h = {load_u64(data + pos), load_u64(data + pos + 8), load_u64(data + pos + 16),
             load_u64(data + pos + 24)};
        pos += kPerItemHeaderBytes;
    }
    std::vector<std::string> names(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::string item = "item #" + std::to_string(i);
        const std::uint64_t n = headers[i].name_bytes;
        if (n == 0 || n > kMaxNameBytes + 1)
            fail(item + " declares a name of " + std::to_string(n) + " bytes (1 to " +
                 std::to_string(kMaxNameBytes + 1) + " with its NUL)");
        if (n > size - pos) fail(item + "'s name runs past the end of the file");
        const char* p = reinterpret_cast<const char*>(data + pos);
        if (p[n - 1] != '\0' || std::memchr(p, '\0', n - 1) != nullptr)
            fail(item + "'s name is not one NUL-terminated string of " + std::to_string(n) +
                 " bytes");
        names[i].assign(p, n - 1);
        pos += n;
    }
    std::vector<std::vector<std::size_t>> shapes(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t rank = headers[i].rank;
        if (rank > kMaxRank)
            fail("item " + quoted(names[i]) + " has rank " + std::to_string(rank) + ", more than " +
                 std::to_string(kMaxRank));
        if (rank * 4 > size - pos)
            fail("item " + quoted(names[i]) + "'s shape runs past the end of the file");
        for (std::uint64_t k = 0; k < rank; ++k) {
            const auto dim = std::int32_t(load_u32(data + pos + 4 * k));
            if (dim < 0)
                fail("item " + quoted(names[i]) + " has a negative dimension (" +
                     std::to_string(dim) + ") in its shape");
            shapes[i].push_back(std::size_t(dim));
        }
        pos += rank * 4;
    }
    if (size - pos < 8) fail("the file ends before the padding length that follows the shapes");
    const std::uint64_t padding = load_u64(data + pos);
    pos += 8;
    if (padding > size - pos)
        fail("the padding before the data (" + std::to_string(padding) +
             " bytes) runs past the end of the file");
    pos += padding;
    MarianArchive archive;
    archive.items_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t n = headers[i].data_bytes;
        if (n > size - pos)
            fail("item " + quoted(names[i]) + " declares " + std::to_string(n) +
                 " bytes of data at offset " + std::to_string(pos) + ", but the file ends at " +
                 std::to_string(size));
        MarianItem item{names[i], type_of_code(headers[i].type, names[i]), shapes[i], data + pos,
                        0};
        // why: marian-conv pads each item's data to 256 bytes, so the data may exceed the values
        archive.add(std::move(item), n, false);
        pos += n;
    }
    if (pos != size)
        fail(std::to_string(size - pos) + " bytes follow the last item's data; the file is " +
             "corrupt or not a Marian model");
    return archive;
}

MarianArchive MarianArchive::read(const std::uint8_t* data, std::size_t size) {
    const bool zip = size >= 4 && data[0] == 'P' && data[1] == 'K' &&
                     ((data[2] == 3 && data[3] == 4) || (data[2] == 5 && data[3] == 6));
    return zip ? read_npz(data, size) : read_binary(data, size);
}

const MarianItem* MarianArchive::find(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &items_[it->second];
}

std::string MarianArchive::config_yaml() const {
    const MarianItem* item = find(kConfigItem);
    if (item == nullptr)
        fail(std::string("the archive has no item '") + kConfigItem +
             "' (the model's configuration)");
    if (item->type != MarianType::Int8)
        fail(std::string("item '") + kConfigItem + "' is " + marian_type_name(item->type) +
             ", expected int8 text");
    const void* nul = std::memchr(item->data, '\0', item->bytes);
    if (nul == nullptr) fail(std::string("item '") + kConfigItem + "' is not NUL-terminated");
    const auto* text = reinterpret_cast<const char*>(item->data);
    return std::string(text, static_cast<const char*>(nul) - text);
}

std::vector<float> MarianArchive::read_f32(const MarianItem& item) const {
    const std::size_t n = item.bytes / element_size(item.type);
    std::vector<float> out(n);
    const std::uint8_t* p = item.data;
    switch (item.type) {
        case MarianType::Float32:
            for (std::size_t i = 0; i < n; ++i) out[i] = f32_from_bits(load_u32(p + 4 * i));
            break;
        case MarianType::Float16:
            for (std::size_t i = 0; i < n; ++i)
                out[i] = f16_to_f32(std::uint16_t(p[2 * i] | (p[2 * i + 1] << 8)));
            break;
        case MarianType::IntGemm8: {
            const std::size_t cols = item.shape.empty() ? 1 : item.shape.back();
            const std::size_t rows = cols == 0 ? 0 : n / cols;
            const float scale = 1.0f / item.quant_mult;
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols; ++c) {
                    const std::size_t at = item.transposed ? c * rows + r : r * cols + c;
                    out[r * cols + c] = float(std::int8_t(p[at])) * scale;
                }
            break;
        }
        case MarianType::Int8:
            fail("item " + quoted(item.name) + " is int8 (text or raw bytes), not numbers");
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(out[i]))
            fail("item " + quoted(item.name) + " holds a value that is not finite (element " +
                 std::to_string(i) + ")");
    return out;
}

}  // namespace heed
