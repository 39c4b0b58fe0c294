// Writes the Heed model file (models/FORMAT.md): the length-prefixed JSON header, then the
// tensors packed back to back, wider elements first and byte tensors last, each aligned to its
// element size. Not the reader (model_file.h), which checks everything this writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/model_file.h"  // DType

namespace heed {

class ModelFileWriter {
  public:
    /// A "__metadata__" entry (format, heed.version, heed.config, ...).
    void metadata(const std::string& key, const std::string& value);
    /// An F32 tensor of `shape` from `values` (their count must match the shape).
    void f32(const std::string& name, std::vector<std::size_t> shape, std::vector<float> values);
    /// An I8 tensor [rows, cols] and its per-row F32 scale tensor `name.scale`.
    void i8(const std::string& name, std::size_t rows, std::size_t cols,
            std::vector<std::int8_t> values, std::vector<float> scales);
    /// A U8 tensor holding `bytes` (a tokenizer model).
    void bytes(const std::string& name, const std::string& bytes);
    /// A 1-D I32 tensor (shortlist tables).
    void i32(const std::string& name, const std::vector<std::int32_t>& values);

    /// The whole file. Throws heed::Error for a duplicate name or a count/shape mismatch.
    std::vector<std::uint8_t> finish() const;

  private:
    struct Entry {
        DType dtype;
        std::vector<std::size_t> shape;
        std::string data;  ///< raw little-endian bytes
    };
    void add(const std::string& name, Entry entry);

    std::map<std::string, std::string> metadata_;
    std::vector<std::pair<std::string, Entry>> entries_;
};

}  // namespace heed
