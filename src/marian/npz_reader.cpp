// MarianArchive::read_npz: a numpy .npz (a ZIP of .npy files) as Marian and numpy.savez write it:
// the central directory (ZIP64 fields included) names each stored entry, and each entry is one
// .npy array (format 1, 2 or 3, C order, '<f4', '<f2' or '|i1'). Not a general ZIP reader: no
// compression, encryption or multi-disk archives, and CRC-32s are not recomputed (every field
// that places bytes is checked; the values themselves are the download's to vouch for).
#include <cstring>
#include <string_view>

#include "core/error.h"
#include "marian/marian_archive.h"

namespace heed {
namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50, kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr std::uint32_t kFull32 = 0xFFFFFFFF;

std::uint16_t u16(const std::uint8_t* p) { return std::uint16_t(p[0] | (p[1] << 8)); }
std::uint32_t u32(const std::uint8_t* p) { return u16(p) | (std::uint32_t(u16(p + 2)) << 16); }
std::uint64_t u64(const std::uint8_t* p) { return u32(p) | (std::uint64_t(u32(p + 4)) << 32); }

[[noreturn]] void fail(const std::string& what) { throw Error("Marian model: npz " + what); }

std::string method_name(std::uint16_t method) {
    switch (method) {
        case 8:
            return "deflate";
        case 9:
            return "deflate64";
        case 12:
            return "bzip2";
        case 14:
            return "lzma";
        case 93:
            return "zstd";
        case 95:
            return "xz";
    }
    return "method " + std::to_string(method);
}

/// Where the central directory lies and how many entries it holds.
struct Directory {
    std::uint64_t entries, offset, size;
};

Directory find_directory(const std::uint8_t* data, std::size_t size) {
    if (size < 22) fail("file is too short for a ZIP end record (22 bytes)");
    // why: the end record sits 22 bytes plus its comment from the end; numpy writes no comment
    std::size_t end = size;
    const std::size_t lowest = size - 22 > 65535 ? size - 22 - 65535 : 0;
    for (std::size_t at = size - 22 + 1; at-- > lowest;)
        if (u32(data + at) == kEndSig && at + 22 + u16(data + at + 20) == size) {
            end = at;
            break;
        }
    if (end == size) fail("file has no ZIP end record (it is cut short or not a ZIP)");
    const std::uint8_t* e = data + end;
    if (u16(e + 4) != 0 || u16(e + 6) != 0 || u16(e + 8) != u16(e + 10))
        fail("file spans several disks");
    Directory dir{u16(e + 10), u32(e + 16), u32(e + 12)};
    if (dir.entries == 0xFFFF || dir.offset == kFull32 || dir.size == kFull32) {
        if (end < 20 || u32(data + end - 20) != kLocator64Sig)
            fail("end record asks for ZIP64 fields but the ZIP64 locator is missing");
        const std::uint64_t at = u64(data + end - 20 + 8);
        if (at > end - 20 || end - 20 - at < 56 || u32(data + at) != kEnd64Sig)
            fail("ZIP64 end record is missing or out of place");
        const std::uint8_t* z = data + at;
        if (u32(z + 16) != 0 || u32(z + 20) != 0 || u64(z + 24) != u64(z + 32))
            fail("file spans several disks");
        dir = {u64(z + 32), u64(z + 48), u64(z + 40)};
        end = at;
    }
    if (dir.offset > end || dir.size > end - dir.offset)
        fail("central directory lies outside the file");
    if (dir.entries > MarianArchive::kMaxItems)
        fail("file declares " + std::to_string(dir.entries) + " entries, more than the " +
             std::to_string(MarianArchive::kMaxItems) + " accepted");
    if (dir.entries > dir.size / 46)
        fail("central directory is too short for its " + std::to_string(dir.entries) + " entries");
    return dir;
}

/// A strict reader of the .npy header's Python dict literal.
class NpyHeader {
  public:
    NpyHeader(std::string_view text, const std::string& entry) : s_(text), entry_(entry) {}

    void parse(std::string& descr, std::vector<std::size_t>& shape) {
        bool has_descr = false, has_order = false, has_shape = false;
        expect('{');
        while (!take('}')) {
            const std::string key = quoted();
            expect(':');
            if (key == "descr" && !has_descr) {
                descr = quoted();
                has_descr = true;
            } else if (key == "fortran_order" && !has_order) {
                if (word("True")) bad("is stored in Fortran order; Marian reads C order");
                if (!word("False")) bad("has a fortran_order that is neither True nor False");
                has_order = true;
            } else if (key == "shape" && !has_shape) {
                read_shape(shape);
                has_shape = true;
            } else {
                bad("has an unexpected or repeated header key '" + key + "'");
            }
            if (!take(',')) {
                expect('}');
                break;
            }
        }
        if (!has_descr || !has_order || !has_shape)
            bad("header lacks one of 'descr', 'fortran_order' and 'shape'");
        skip_space();
        if (at_ != s_.size()) bad("header has text after its dict");
    }

  private:
    [[noreturn]] void bad(const std::string& what) { fail("entry '" + entry_ + "' " + what); }
    void skip_space() {
        while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n')) ++at_;
    }
    bool take(char c) {
        skip_space();
        if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
        return false;
    }
    void expect(char c) {
        if (!take(c)) bad(std::string("has a malformed header (expected '") + c + "')");
    }
    bool word(std::string_view w) {
        skip_space();
        if (s_.substr(at_, w.size()) != w) return false;
        at_ += w.size();
        return true;
    }
    std::string quoted() {
        skip_space();
        const char q = at_ < s_.size() ? s_[at_] : '\0';
        if (q != '\'' && q != '"') bad("has a malformed header (expected a quoted string)");
        const std::size_t close = s_.find(q, at_ + 1);
        if (close == std::string_view::npos) bad("has an unterminated string in its header");
        std::string out(s_.substr(at_ + 1, close - at_ - 1));
        at_ = close + 1;
        return out;
    }
    void read_shape(std::vector<std::size_t>& shape) {
        expect('(');
        while (!take(')')) {
            skip_space();
            std::uint64_t dim = 0;
            std::size_t digits = 0;
            for (; at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9'; ++at_, ++digits) {
                dim = dim * 10 + std::uint64_t(s_[at_] - '0');
                if (dim > 0x7FFFFFFF) bad("has a dimension above 2^31 - 1 in its shape");
            }
            if (digits == 0) bad("has a malformed shape");
            if (shape.size() == MarianArchive::kMaxRank)
                bad("has more than " + std::to_string(MarianArchive::kMaxRank) + " dimensions");
            shape.push_back(std::size_t(dim));
            if (!take(',')) {
                expect(')');
                break;
            }
        }
    }

    std::string_view s_;
    std::string entry_;
    std::size_t at_ = 0;
};

}  // namespace

MarianArchive MarianArchive::read_npz(const std::uint8_t* data, std::size_t size) {
    const Directory dir = find_directory(data, size);
    MarianArchive archive;
    std::size_t at = dir.offset;
    const std::size_t dir_end = dir.offset + dir.size;
    for (std::uint64_t i = 0; i < dir.entries; ++i) {
        if (dir_end - at < 46 || u32(data + at) != kCentralSig)
            fail("central directory entry #" + std::to_string(i) + " is malformed");
        const std::uint8_t* c = data + at;
        const std::size_t name_len = u16(c + 28), extra_len = u16(c + 30);
        const std::size_t record = 46 + name_len + extra_len + u16(c + 32);
        if (record > dir_end - at)
            fail("central directory entry #" + std::to_string(i) + " runs past the directory");
        const std::string name(reinterpret_cast<const char*>(c + 46), name_len);
        const std::string entry = "entry '" + name + "'";
        std::uint64_t sizes[3] = {u32(c + 24), u32(c + 20), u32(c + 42)};  // plain, stored, at
        for (std::size_t x = 46 + name_len; x + 4 <= 46 + name_len + extra_len;) {
            const std::size_t id = u16(c + x), len = u16(c + x + 2);
            if (x + 4 + len > 46 + name_len + extra_len)
                fail(entry + " has a malformed extra field");
            // why: a ZIP64 field holds, in this order, only the values whose 32-bit slot is full
            for (std::size_t k = 0, off = x + 4; id == 1 && k < 3; ++k) {
                if (sizes[k] != kFull32) continue;
                if (off + 8 > x + 4 + len) fail(entry + " has a short ZIP64 extra field");
                sizes[k] = u64(c + off);
                off += 8;
            }
            x += 4 + len;
        }
        if (sizes[0] == kFull32 || sizes[1] == kFull32 || sizes[2] == kFull32)
            fail(entry + " lacks the ZIP64 field its sizes ask for");
        const std::uint16_t method = u16(c + 10);
        if (u16(c + 8) & 1) fail(entry + " is encrypted");
        if (method != 0)
            fail(entry + " is compressed (" + method_name(method) + "); Marian writes npz " +
                 "uncompressed: re-save it uncompressed (numpy.savez, not savez_compressed)");
        if (sizes[0] != sizes[1]) fail(entry + " is stored but its two sizes differ");
        const std::uint64_t local = sizes[2];
        if (local > dir.offset || dir.offset - local < 30 || u32(data + local) != kLocalSig)
            fail(entry + " has no local header where the directory places it");
        const std::uint8_t* l = data + local;
        const std::uint64_t begin = local + 30 + u16(l + 26) + u16(l + 28);
        if (u16(l + 26) != name_len || std::memcmp(l + 30, c + 46, name_len) != 0 ||
            u16(l + 8) != method)
            fail(entry + "'s local header disagrees with the central directory");
        if (begin > dir.offset || sizes[1] > dir.offset - begin)
            fail(entry + "'s data runs into the central directory or past the file");
        if (name_len < 4 || name.compare(name_len - 4, 4, ".npy") != 0)
            fail(entry + " is not a .npy file");
        // the .npy: magic, version, header length, the dict, the values
        const std::uint8_t* npy = data + begin;
        const std::uint64_t n = sizes[1];
        if (n < 10 || std::memcmp(npy, "\x93NUMPY", 6) != 0)
            fail(entry + " does not start with the .npy magic");
        if (npy[6] < 1 || npy[6] > 3)
            fail(entry + " is .npy format version " + std::to_string(npy[6]) + ", not 1, 2 or 3");
        const std::size_t prefix = npy[6] == 1 ? 10 : 12;
        if (n < prefix) fail(entry + " is too short for its .npy header length");
        const std::uint64_t header_len = npy[6] == 1 ? u16(npy + 8) : u32(npy + 8);
        if (header_len > n - prefix) fail(entry + "'s .npy header runs past the entry");
        std::string descr;
        MarianItem item{name.substr(0, name_len - 4), MarianType::Float32, {}, nullptr, 0};
        NpyHeader(std::string_view(reinterpret_cast<const char*>(npy + prefix), header_len), name)
            .parse(descr, item.shape);
        if (descr == "<f4") {
            item.type = MarianType::Float32;
        } else if (descr == "<f2") {
            item.type = MarianType::Float16;
        } else if (descr == "|i1" || descr == "<i1") {
            item.type = MarianType::Int8;
        } else {
            fail(entry + " has dtype '" + descr + "', which Heed does not read ('<f4', '<f2' " +
                 "or '|i1')");
        }
        // why: Marian's npz loader (io.cpp) reads a 1-D array [n] as [1, n]; so does this
        if (item.shape.size() == 1) item.shape.insert(item.shape.begin(), 1);
        item.data = npy + prefix + header_len;
        archive.add(std::move(item), n - prefix - header_len, true);
        at += record;
    }
    return archive;
}

}  // namespace heed
