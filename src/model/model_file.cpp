// Parsing and verification of the Heed model file header, and f32 / byte reads of its tensors.
// Every malformed input ends in heed::Error with a message naming the problem; nothing here
// allocates in proportion to the file except the parsed header and the tensor a reader asks for.
#include "model/model_file.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.h"
#include "core/half.h"
#include "core/utf8.h"

namespace heed {
namespace {

using nlohmann::json;

const char* const kScaleSuffix = ".scale";

std::uint16_t load_u16_le(const std::uint8_t* p) { return std::uint16_t(p[0] | (p[1] << 8)); }

std::uint32_t load_u32_le(const std::uint8_t* p) {
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
           (std::uint32_t(p[3]) << 24);
}

std::uint64_t load_u64_le(const std::uint8_t* p) {
    return std::uint64_t(load_u32_le(p)) | (std::uint64_t(load_u32_le(p + 4)) << 32);
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string offsets_text(std::uint64_t begin, std::uint64_t end) {
    return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool parse_dtype(const std::string& s, DType& out) {
    static const std::pair<const char*, DType> table[] = {
        {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16}, {"I8", DType::I8},
        {"U8", DType::U8},   {"U16", DType::U16}, {"I32", DType::I32}};
    for (const auto& [name, dtype] : table)
        if (s == name) {
            out = dtype;
            return true;
        }
    return false;
}

/// A non-negative JSON integer, or throws naming the tensor and `what` the number is.
std::uint64_t read_count(const json& v, const std::string& tensor, const char* what) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer())
        throw Error("tensor " + in_quotes(tensor) + " has a negative " + what + " (" + v.dump() +
                    ")");
    if (v.is_number_float())
        throw Error("tensor " + in_quotes(tensor) + " has a non-integer " + what + " (" + v.dump() +
                    ")");
    throw Error("tensor " + in_quotes(tensor) + " has a " + what + " that is not a number (" +
                v.dump() + ")");
}

const json& require_field(const json& entry, const std::string& tensor, const char* key) {
    auto it = entry.find(key);
    if (it == entry.end())
        throw Error("tensor " + in_quotes(tensor) + " has no \"" + key + "\" in its header entry");
    return *it;
}

/// One header entry, checked on its own (no cross-tensor or file-size checks yet).
TensorInfo parse_entry(const std::string& name, const json& entry) {
    if (!entry.is_object())
        throw Error("tensor " + in_quotes(name) + " has a header entry that is not a JSON object");
    TensorInfo t;
    t.name = name;

    const json& dtype = require_field(entry, name, "dtype");
    if (!dtype.is_string())
        throw Error("tensor " + in_quotes(name) + " has a \"dtype\" that is not a string");
    if (!parse_dtype(dtype.get<std::string>(), t.dtype))
        throw Error("tensor " + in_quotes(name) + " has unknown dtype " +
                    in_quotes(dtype.get<std::string>()) +
                    " (expected F32, F16, BF16, I8, U8, U16 or I32)");

    const json& shape = require_field(entry, name, "shape");
    if (!shape.is_array())
        throw Error("tensor " + in_quotes(name) + " has a \"shape\" that is not an array");
    std::uint64_t count = 1;
    bool overflow = false;
    for (const json& d : shape) {
        const std::uint64_t dim = read_count(d, name, "dimension");
        if (dim > std::numeric_limits<std::size_t>::max()) overflow = true;
        if (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / dim) overflow = true;
        count = overflow ? 0 : count * dim;
        t.shape.push_back(std::size_t(dim));
    }

    const json& offsets = require_field(entry, name, "data_offsets");
    if (!offsets.is_array() || offsets.size() != 2)
        throw Error("tensor " + in_quotes(name) +
                    " has \"data_offsets\" that are not [begin, end]");
    const std::uint64_t begin = read_count(offsets[0], name, "data offset");
    const std::uint64_t end = read_count(offsets[1], name, "data offset");
    if (begin > end)
        throw Error("tensor " + in_quotes(name) + " has data_offsets " + offsets_text(begin, end) +
                    " with begin after end");

    const std::uint64_t elem = dtype_size(t.dtype);
    if (overflow || count > std::numeric_limits<std::uint64_t>::max() / elem)
        throw Error("tensor " + in_quotes(name) + " has an impossibly large shape");
    if (count * elem != end - begin)
        throw Error("tensor " + in_quotes(name) + " of " + dtype_name(t.dtype) + " shape " +
                    shape_text(t.shape) + " needs " + std::to_string(count * elem) +
                    " bytes, but its data_offsets " + offsets_text(begin, end) + " hold " +
                    std::to_string(end - begin));
    // why: on wasm32 size_t is 32 bits; such offsets cannot lie inside the buffer, and must not
    // be truncated into range by the cast below.
    if (end > std::numeric_limits<std::size_t>::max())
        throw Error("tensor " + in_quotes(name) + " has data_offsets " + offsets_text(begin, end) +
                    " out of range: larger than any buffer on this platform");
    t.begin = std::size_t(begin);
    t.end = std::size_t(end);
    return t;
}

/// Checks the tensors against each other and against the data section size.
void check_layout(const std::map<std::string, TensorInfo>& tensors, std::size_t data_size) {
    std::vector<const TensorInfo*> order;
    for (const auto& [name, t] : tensors) order.push_back(&t);
    std::sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });

    const TensorInfo* prev = nullptr;  // the non-empty tensor reaching furthest so far
    bool contiguous = true;
    std::size_t covered = 0, max_end = 0;
    for (const TensorInfo* t : order) {
        if (t->begin != covered) contiguous = false;
        covered = std::max(covered, t->end);
        max_end = std::max(max_end, t->end);
        if (t->begin == t->end) continue;  // empty tensors own no bytes
        if (prev && t->begin < prev->end)
            throw Error("tensors " + in_quotes(prev->name) + " " +
                        offsets_text(prev->begin, prev->end) + " and " + in_quotes(t->name) + " " +
                        offsets_text(t->begin, t->end) + " overlap in the data section");
        if (!prev || t->end > prev->end) prev = t;
    }
    if (max_end <= data_size) return;
    // why: writers pack tensors back to back, so a gap-free layout that runs past the end means
    // the file was cut short; anything else is one entry pointing outside the data.
    if (contiguous)
        throw Error("model file is truncated: the header describes " + std::to_string(max_end) +
                    " bytes of tensor data but only " + std::to_string(data_size) + " follow it");
    for (const TensorInfo* t : order)
        if (t->end > data_size)
            throw Error("tensor " + in_quotes(t->name) + " has data_offsets " +
                        offsets_text(t->begin, t->end) + " out of range: the data section has " +
                        std::to_string(data_size) + " bytes");
}

/// Every I8 tensor X is [rows, cols] and comes with an F32 X.scale of shape [rows].
void check_quantised(const std::map<std::string, TensorInfo>& tensors) {
    for (const auto& [name, t] : tensors) {
        if (t.dtype != DType::I8) continue;
        if (t.shape.size() != 2)
            throw Error("I8 tensor " + in_quotes(name) +
                        " must be 2-D [rows, cols], but has shape " + shape_text(t.shape));
        auto it = tensors.find(name + kScaleSuffix);
        if (it == tensors.end())
            throw Error("I8 tensor " + in_quotes(name) + " has no scale tensor " +
                        in_quotes(name + kScaleSuffix));
        const TensorInfo& s = it->second;
        if (s.dtype != DType::F32 || s.shape != std::vector<std::size_t>{t.shape[0]})
            throw Error("scale tensor " + in_quotes(s.name) + " is " + dtype_name(s.dtype) + " " +
                        shape_text(s.shape) + ", expected F32 [" + std::to_string(t.shape[0]) +
                        "] (one scale per row of " + in_quotes(name) + ")");
    }
}

std::string require_metadata(const std::map<std::string, std::string>& meta, const char* key) {
    auto it = meta.find(key);
    if (it == meta.end())
        throw Error(std::string("model file has no \"") + key + "\" in its \"__metadata__\"");
    return it->second;
}

}  // namespace

const char* dtype_name(DType dtype) {
    switch (dtype) {
        case DType::F32:
            return "F32";
        case DType::F16:
            return "F16";
        case DType::BF16:
            return "BF16";
        case DType::I8:
            return "I8";
        case DType::U8:
            return "U8";
        case DType::U16:
            return "U16";
        case DType::I32:
            return "I32";
    }
    return "?";
}

std::size_t dtype_size(DType dtype) {
    switch (dtype) {
        case DType::F32:
        case DType::I32:
            return 4;
        case DType::F16:
        case DType::BF16:
        case DType::U16:
            return 2;
        case DType::I8:
        case DType::U8:
            return 1;
    }
    return 1;
}

ModelFile ModelFile::parse(const std::uint8_t* data, std::size_t size) {
    // length prefix
    if (data == nullptr || size < 8)
        throw Error("model file is too short (" + std::to_string(size) +
                    " bytes): not a Heed model file");
    const std::uint64_t header_size = load_u64_le(data);
    if (header_size > kMaxHeaderBytes)
        throw Error("model file header length " + std::to_string(header_size) +
                    " is implausible (limit 100 MB): corrupt, or not a Heed model file");
    if (header_size > size - 8)
        throw Error("model file header length " + std::to_string(header_size) +
                    " runs past the end of the file (" + std::to_string(size) +
                    " bytes): truncated or corrupt");
    // why: parsing JSON costs many times its size in memory, so a header may not be much bigger
    // than the data it describes (real headers are a few kilobytes); this refuses a header of
    // millions of empty entries before it is parsed.
    const std::uint64_t data_bytes = size - 8 - header_size;
    if (header_size > kHeaderSlackBytes + data_bytes / 16)
        throw Error("model file header length " + std::to_string(header_size) +
                    " is too large for its " + std::to_string(data_bytes) +
                    " bytes of tensor data (limit " + std::to_string(kHeaderSlackBytes) +
                    " + data/16): corrupt, or not a Heed model file");

    // header JSON
    const std::string_view text(reinterpret_cast<const char*>(data + 8), std::size_t(header_size));
    const std::size_t bad = find_invalid_utf8(text);
    if (bad != std::string_view::npos)
        throw Error("model file header is not valid UTF-8 (bad byte at header offset " +
                    std::to_string(bad) + ")");
    json header;
    try {
        header = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        throw Error(std::string("model file header is not valid JSON: ") + e.what());
    }
    if (!header.is_object()) throw Error("model file header is not a JSON object");

    ModelFile file;
    file.data_ = data + 8 + header_size;
    file.data_size_ = size - 8 - std::size_t(header_size);

    // why: every value is type-checked before use, so nlohmann should not throw here; if it
    // does, the caller still gets a heed::Error, never a foreign exception type
    try {
        // metadata
        auto meta = header.find("__metadata__");
        if (meta == header.end() || !meta->is_object())
            throw Error("not a Heed model file: the header has no \"__metadata__\" object");
        for (const auto& [key, value] : meta->items()) {
            if (!value.is_string())
                throw Error("model file metadata " + in_quotes(key) + " is not a string");
            file.metadata_[key] = value.get<std::string>();
        }
        auto format = file.metadata_.find("format");
        if (format == file.metadata_.end() || format->second != "heed")
            throw Error(std::string("not a Heed model file: \"__metadata__\" has ") +
                        (format == file.metadata_.end()
                             ? "no \"format\""
                             : "\"format\" " + in_quotes(format->second)) +
                        ", expected 'heed'");
        const std::string version = require_metadata(file.metadata_, "heed.version");
        if (version != kVersion) {
            // why: a whole number above ours is a file from a newer Heed; say what to do
            const bool newer = !version.empty() && version.size() < 10 &&
                               version.find_first_not_of("0123456789") == std::string::npos &&
                               version[0] != '0' && std::stoi(version) > std::stoi(kVersion);
            throw Error(newer ? "model file format version " + in_quotes(version) +
                                    " is newer than this Heed reads (version " + kVersion +
                                    "): update Heed to load it"
                              : "unsupported Heed model file version " + in_quotes(version) +
                                    " (this build reads version " + kVersion + ")");
        }
        require_metadata(file.metadata_, "heed.config");

        // tensors
        for (const auto& [name, entry] : header.items()) {
            if (name == "__metadata__") continue;
            if (file.tensors_.size() >= kMaxTensors)
                throw Error("model file has more than " + std::to_string(kMaxTensors) +
                            " tensors: corrupt, or not a Heed model file");
            file.tensors_.emplace(name, parse_entry(name, entry));
        }
    } catch (const json::exception& e) {
        throw Error(std::string("model file header could not be read: ") + e.what());
    }
    check_layout(file.tensors_, file.data_size_);
    check_quantised(file.tensors_);
    return file;
}

const std::string& ModelFile::metadata(const std::string& key) const {
    auto it = metadata_.find(key);
    if (it == metadata_.end()) throw Error("model file has no metadata " + in_quotes(key));
    return it->second;
}

bool ModelFile::has_metadata(const std::string& key) const { return metadata_.count(key) != 0; }

std::string ModelFile::metadata_json() const { return json(metadata_).dump(); }

bool ModelFile::has(const std::string& name) const { return tensors_.count(name) != 0; }

const TensorInfo& ModelFile::info(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error("missing tensor " + in_quotes(name));
    return it->second;
}

std::vector<float> ModelFile::read_f32(const std::string& name,
                                       const std::vector<std::size_t>& expected_shape) const {
    const TensorInfo& t = info(name);
    if (t.dtype == DType::U8 || t.dtype == DType::U16 || t.dtype == DType::I32)
        throw Error("tensor " + in_quotes(name) + " holds " + dtype_name(t.dtype) +
                    " integers, not weights");
    if (t.shape != expected_shape)
        throw Error("tensor " + in_quotes(name) + " has shape " + shape_text(t.shape) +
                    ", expected " + shape_text(expected_shape));
    const std::size_t n = (t.end - t.begin) / dtype_size(t.dtype);
    const std::uint8_t* p = bytes_of(t);
    std::vector<float> out(n);
    switch (t.dtype) {
        case DType::F32:
            for (std::size_t i = 0; i < n; ++i) out[i] = f32_from_bits(load_u32_le(p + 4 * i));
            break;
        case DType::F16:
            for (std::size_t i = 0; i < n; ++i) out[i] = f16_to_f32(load_u16_le(p + 2 * i));
            break;
        case DType::BF16:
            for (std::size_t i = 0; i < n; ++i) out[i] = bf16_to_f32(load_u16_le(p + 2 * i));
            break;
        case DType::I8: {
            // value = int8 * scale[row]; parse() guaranteed the [rows] F32 scale exists
            const std::size_t rows = t.shape[0], cols = t.shape[1];
            const std::uint8_t* scale = bytes_of(info(name + kScaleSuffix));
            for (std::size_t r = 0; r < rows; ++r) {
                const float s = f32_from_bits(load_u32_le(scale + 4 * r));
                for (std::size_t c = 0; c < cols; ++c)
                    out[r * cols + c] = float(std::int8_t(p[r * cols + c])) * s;
            }
            break;
        }
        case DType::U8:
        case DType::U16:
        case DType::I32:
            break;  // refused above
    }
    return out;
}

void ModelFile::read_i8(const std::string& name, const std::vector<std::size_t>& expected_shape,
                        std::vector<std::int8_t>& values, std::vector<float>& scales) const {
    const TensorInfo& t = info(name);
    if (t.dtype != DType::I8)
        throw Error("tensor " + in_quotes(name) + " is " + dtype_name(t.dtype) + ", expected I8");
    if (t.shape != expected_shape)
        throw Error("tensor " + in_quotes(name) + " has shape " + shape_text(t.shape) +
                    ", expected " + shape_text(expected_shape));
    const std::size_t rows = t.shape[0], cols = t.shape[1];
    const std::uint8_t* p = bytes_of(t);
    values.resize(rows * cols);
    for (std::size_t i = 0; i < rows * cols; ++i) values[i] = std::int8_t(p[i]);
    const std::uint8_t* scale = bytes_of(info(name + kScaleSuffix));
    scales.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
        scales[r] = f32_from_bits(load_u32_le(scale + 4 * r));
        // why: one NaN or Inf scale silently turns every translation into an empty line
        if (!std::isfinite(scales[r]))
            throw Error("tensor " + in_quotes(name + kScaleSuffix) + " has a non-finite value (" +
                        std::to_string(scales[r]) + ") at element " + std::to_string(r));
    }
}

std::vector<std::int32_t> ModelFile::read_i32(const std::string& name) const {
    const TensorInfo& t = info(name);
    if ((t.dtype != DType::I32 && t.dtype != DType::U16) || t.shape.size() != 1)
        throw Error("tensor " + in_quotes(name) + " is " + dtype_name(t.dtype) + " " +
                    shape_text(t.shape) + ", expected a 1-D I32 or U16 tensor");
    std::vector<std::int32_t> out(t.shape[0]);
    const std::uint8_t* p = bytes_of(t);
    if (t.dtype == DType::U16)
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::int32_t(load_u16_le(p + 2 * i));
    else
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::int32_t(load_u32_le(p + 4 * i));
    return out;
}

std::string ModelFile::read_bytes(const std::string& name) const {
    const TensorInfo& t = info(name);
    if (t.dtype != DType::U8)
        throw Error("tensor " + in_quotes(name) + " is " + dtype_name(t.dtype) +
                    ", expected U8 bytes");
    return std::string(reinterpret_cast<const char*>(bytes_of(t)), t.end - t.begin);
}

std::vector<std::string> ModelFile::names() const {
    std::vector<std::string> out;
    for (const auto& [name, t] : tensors_) out.push_back(name);
    return out;
}

void ModelFile::check_all_used(const std::set<std::string>& used) const {
    for (const auto& [name, t] : tensors_) {
        if (used.count(name)) continue;
        if (ends_with(name, kScaleSuffix)) {
            const std::string base =
                name.substr(0, name.size() - std::string_view(kScaleSuffix).size());
            auto it = tensors_.find(base);
            if (it != tensors_.end() && it->second.dtype == DType::I8 && used.count(base)) continue;
        }
        throw Error("unknown tensor " + in_quotes(name) +
                    " (this build does not use it; is the file for a newer Heed?)");
    }
}

}  // namespace heed
