// Marian's model archives read as named, typed items over caller-owned bytes: the binary `.bin`
// (marian-conv's output; Firefox Translations ships its intgemm8 form) and the `.npz` (what Marian
// training and OPUS-MT write). Not the mapping of Marian's parameters onto Heed's model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace heed {

/// The element types Heed reads from Marian archives (Marian's `Type`, browsermt numbering).
enum class MarianType {
    Float32,  ///< .bin type 0x0404, npy '<f4'
    Float16,  ///< .bin type 0x0402, npy '<f2'
    Int8,     ///< .bin type 0x0101, npy '|i1' / '<i1': raw bytes, e.g. "special:model.yml"
    /// .bin type 0x4101 (browsermt's intgemm8): the int8 values of one matrix, then one
    /// little-endian float32 quant_mult; values = round(w * quant_mult), one scale per matrix.
    IntGemm8,
};

/// The type's name as Marian prints it ("float32", "intgemm8", ...).
const char* marian_type_name(MarianType type);

/// One item of an archive. `data` points into the caller's bytes and may be unaligned.
///
/// IntGemm8 layout (marian-conv --gemm-type intgemm8, browsermt/marian-dev): `shape` is the
/// logical [rows, cols] (all leading dims are rows), but unless the name contains "Wemb" the
/// values are stored transposed, [cols, rows] row-major; quant_mult follows the values.
///
/// Alphas (`*.intgemm.alphas.bin`, read with gemm-precision int8shiftAlphaAll): beside every
/// int8 matrix `M` the file holds `M_QuantMultA`, shape [1, 1]: the precomputed activation
/// multiplier (the int8 input is round(x * value), clipped to +-127; it was computed offline
/// as 127 / (mean + 1.1 std of max|x|)). The output layer's is `none_QuantMultA` (float32),
/// often also as `Wemb_QuantMultA` or `decoder_Wemb_QuantMultA`, which marian-conv stores as a
/// one-element IntGemm8 (the name contains "Wemb"): read_f32 gives back its value.
struct MarianItem {
    std::string name;
    MarianType type = MarianType::Float32;
    std::vector<std::size_t> shape;      ///< Marian's logical shape (npz: 1-D [n] becomes [1, n])
    const std::uint8_t* data = nullptr;  ///< the values (IntGemm8: the int8 values only)
    std::size_t bytes = 0;               ///< bytes of `data`: elements * element size
    float quant_mult = 0;                ///< IntGemm8: the trailing float; > 0 (+inf: all zero)
    bool transposed = false;             ///< IntGemm8: values stored [cols, rows] row-major
};

/// A verified view of a Marian archive. It does not own the bytes: the buffer given to a
/// read function must outlive the archive and every item pointer taken from it.
class MarianArchive {
  public:
    /// Most items accepted (real models hold a few hundred).
    static constexpr std::size_t kMaxItems = 65536;
    /// Longest item name accepted, in bytes.
    static constexpr std::size_t kMaxNameBytes = 4096;
    /// Highest rank accepted.
    static constexpr std::size_t kMaxRank = 8;

    /// Marian's binary format, version 1. Throws heed::Error naming what is malformed.
    static MarianArchive read_binary(const std::uint8_t* data, std::size_t size);
    /// A numpy .npz of stored (uncompressed) .npy entries. Throws heed::Error.
    static MarianArchive read_npz(const std::uint8_t* data, std::size_t size);
    /// read_npz when the bytes start with a ZIP signature ("PK\3\4" or "PK\5\6"), else
    /// read_binary.
    static MarianArchive read(const std::uint8_t* data, std::size_t size);

    /// Every item, in file order.
    const std::vector<MarianItem>& items() const { return items_; }
    /// The item called `name`, or nullptr.
    const MarianItem* find(const std::string& name) const;
    /// The text of the int8 item "special:model.yml" up to its NUL; throws heed::Error when the
    /// item is missing, not int8, or has no NUL.
    std::string config_yaml() const;
    /// The values as float32 in the logical row-major layout: Float32 and Float16 as stored,
    /// IntGemm8 as q * (1 / quant_mult) (Marian's own dequantisation) un-transposed. Throws
    /// heed::Error for Int8 items and for a value that is not finite.
    std::vector<float> read_f32(const MarianItem& item) const;

  private:
    MarianArchive() = default;
    /// Checks `item` (name non-empty, valid UTF-8 and unique; rank; its values within the
    /// `available` bytes at item.data, all of them when `exact`), fills bytes, quant_mult and
    /// transposed, and appends it. Throws heed::Error naming the item.
    void add(MarianItem item, std::size_t available, bool exact);

    std::vector<MarianItem> items_;
    std::map<std::string, std::size_t> index_;
};

}  // namespace heed
