// ModelFileWriter: entries collected, then laid out as models/heed_file.py lays them out.
#include "model/model_file_writer.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace heed {
namespace {

template <class T>
std::string raw(const std::vector<T>& v) {
    // why: every target of Heed (x86, WebAssembly) is little-endian, the file's byte order
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::size_t count(const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
}

}  // namespace

void ModelFileWriter::metadata(const std::string& key, const std::string& value) {
    metadata_[key] = value;
}

void ModelFileWriter::add(const std::string& name, Entry entry) {
    for (const auto& e : entries_)
        if (e.first == name) throw Error("model file writer: tensor '" + name + "' written twice");
    if (count(entry.shape) * dtype_size(entry.dtype) != entry.data.size())
        throw Error("model file writer: tensor '" + name + "' has " +
                    std::to_string(entry.data.size()) + " bytes, not what its shape holds");
    entries_.emplace_back(name, std::move(entry));
}

void ModelFileWriter::f32(const std::string& name, std::vector<std::size_t> shape,
                          std::vector<float> values) {
    add(name, Entry{DType::F32, std::move(shape), raw(values)});
}

void ModelFileWriter::i8(const std::string& name, std::size_t rows, std::size_t cols,
                         std::vector<std::int8_t> values, std::vector<float> scales) {
    add(name, Entry{DType::I8, {rows, cols}, raw(values)});
    f32(name + ".scale", {rows}, std::move(scales));
}

void ModelFileWriter::bytes(const std::string& name, const std::string& bytes) {
    add(name, Entry{DType::U8, {bytes.size()}, bytes});
}

void ModelFileWriter::i32(const std::string& name, const std::vector<std::int32_t>& values) {
    add(name, Entry{DType::I32, {values.size()}, raw(values)});
}

std::vector<std::uint8_t> ModelFileWriter::finish() const {
    // wider elements first, byte tensors last: every tensor stays aligned to its element size
    std::vector<const std::pair<std::string, Entry>*> order;
    for (const auto& e : entries_) order.push_back(&e);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        const auto key = [](const Entry& e) {
            return std::make_pair(-int(dtype_size(e.dtype)), e.dtype == DType::U8);
        };
        return key(a->second) < key(b->second);
    });
    nlohmann::json header = nlohmann::json::object();
    header["__metadata__"] = metadata_;
    std::size_t offset = 0;
    for (const auto* e : order) {
        header[e->first] = {{"dtype", dtype_name(e->second.dtype)},
                            {"shape", e->second.shape},
                            {"data_offsets", {offset, offset + e->second.data.size()}}};
        offset += e->second.data.size();
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // why: the data section starts 8-aligned
    std::vector<std::uint8_t> out(8 + text.size() + offset);
    const std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) out[std::size_t(i)] = std::uint8_t(n >> (8 * i));
    std::memcpy(out.data() + 8, text.data(), text.size());
    std::size_t at = 8 + text.size();
    for (const auto* e : order) {
        std::memcpy(out.data() + at, e->second.data.data(), e->second.data.size());
        at += e->second.data.size();
    }
    return out;
}

}  // namespace heed
