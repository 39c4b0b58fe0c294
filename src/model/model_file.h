// The Heed model file (safetensors layout, see models/FORMAT.md): parses and verifies the
// header over caller-owned bytes, and reads named tensors as f32 or raw bytes on request.
// Not the loader: which tensors a model needs and what they mean lives in weights.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace heed {

/// Element types a tensor may be stored in. I8 is per-row quantised (see ModelFile::read_f32);
/// U16 and I32 hold integer tables (the output shortlist), never weights.
enum class DType { F32, F16, BF16, I8, U8, U16, I32 };

/// The dtype's name as written in the header ("F32", ...).
const char* dtype_name(DType dtype);
/// Bytes per element.
std::size_t dtype_size(DType dtype);

/// One tensor's header entry; `begin`/`end` are byte offsets into the data section.
struct TensorInfo {
    std::string name;
    DType dtype;
    std::vector<std::size_t> shape;
    std::size_t begin, end;
};

/// A verified view of a model file. It does not own the bytes: the buffer given to parse()
/// must outlive the ModelFile and every read from it.
class ModelFile {
  public:
    /// Largest header accepted; a bigger length field means a corrupt or foreign file.
    static constexpr std::uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;
    /// A header may be at most this plus 1/16 of the data section (see parse()).
    static constexpr std::uint64_t kHeaderSlackBytes = 1024u * 1024u;
    /// Most tensor entries accepted in one header.
    static constexpr std::size_t kMaxTensors = 65536;
    /// The only format version this build reads.
    static constexpr const char* kVersion = "1";

    /// Parses and verifies; copies nothing large. Throws heed::Error naming the problem.
    static ModelFile parse(const std::uint8_t* data, std::size_t size);

    /// A "__metadata__" string; throws heed::Error if the key is missing.
    const std::string& metadata(const std::string& key) const;
    /// True when "__metadata__" has `key`.
    bool has_metadata(const std::string& key) const;
    /// The whole "__metadata__" object as JSON text.
    std::string metadata_json() const;

    /// True when the file holds a tensor called `name`.
    bool has(const std::string& name) const;
    /// The header entry of `name`; throws "missing tensor 'X'".
    const TensorInfo& info(const std::string& name) const;
    /// Converts to f32 (dequantising I8 with X.scale), checking the expected shape: throws
    /// "tensor 'X' has shape [a, b], expected [c, d]". U8 tensors are refused.
    std::vector<float> read_f32(const std::string& name,
                                const std::vector<std::size_t>& expected_shape) const;
    /// The stored values of an I8 tensor and its per-row X.scale, unconverted, checking the
    /// expected [rows, cols] shape and that every scale is finite; throws for other dtypes.
    void read_i8(const std::string& name, const std::vector<std::size_t>& expected_shape,
                 std::vector<std::int8_t>& values, std::vector<float>& scales) const;
    /// The values of a 1-D I32 or U16 tensor (the output shortlist's tables); throws for others.
    std::vector<std::int32_t> read_i32(const std::string& name) const;
    /// The raw bytes of a U8 tensor (e.g. "tokenizer.model"); throws for other dtypes.
    std::string read_bytes(const std::string& name) const;
    /// All tensor names, sorted.
    std::vector<std::string> names() const;
    /// After loading, the loader calls this with every name it consumed; throws
    /// "unknown tensor 'X'" for leftovers (".scale" companions count as consumed with their
    /// tensor).
    void check_all_used(const std::set<std::string>& used) const;

  private:
    ModelFile() = default;
    const std::uint8_t* bytes_of(const TensorInfo& t) const { return data_ + t.begin; }

    const std::uint8_t* data_ = nullptr;  // start of the data section (caller-owned)
    std::size_t data_size_ = 0;
    std::map<std::string, std::string> metadata_;
    std::map<std::string, TensorInfo> tensors_;
};

}  // namespace heed
