// Protobuf wire-format decoding for ModelProto: varints, fixed32 floats, length-delimited
// strings and nested messages. Not general: only the fields named in proto_reader.h are kept,
// and groups (a deprecated wire type SentencePiece never writes) are rejected.
#include "tokenizer/proto_reader.h"

#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace heed {
namespace {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

/// A cursor over one message's bytes; every read checks the bounds.
class WireReader {
  public:
    WireReader(std::string_view bytes, std::size_t base_offset)
        : data_(bytes), base_(base_offset) {}

    bool done() const { return pos_ >= data_.size(); }

    std::uint64_t varint() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos_ >= data_.size()) fail("truncated varint");
            const auto byte = static_cast<std::uint8_t>(data_[pos_++]);
            if (shift == 63 && byte > 1) fail("varint longer than 64 bits");
            value |= std::uint64_t(byte & 0x7F) << shift;
            if ((byte & 0x80) == 0) return value;
        }
        fail("varint longer than 10 bytes");
    }

    /// Reads a tag; returns the field number and sets *wire_type.
    std::uint32_t tag(int* wire_type) {
        const std::uint64_t key = varint();
        *wire_type = int(key & 7);
        const std::uint64_t field = key >> 3;
        if (field == 0 || field > 0x1FFFFFFF) fail("invalid field number");
        return std::uint32_t(field);
    }

    std::string_view bytes() {
        const std::uint64_t length = varint();
        if (length > data_.size() - pos_) fail("length-delimited field runs past the end");
        std::string_view out = data_.substr(pos_, std::size_t(length));
        pos_ += std::size_t(length);
        return out;
    }

    /// Offset (in the whole model) of the next unread byte; used for nested readers.
    std::size_t offset() const { return base_ + pos_; }

    float fixed32_float() {
        if (data_.size() - pos_ < 4) fail("truncated fixed32 field");
        std::uint32_t bits = 0;
        for (int i = 0; i < 4; ++i) bits |= std::uint32_t(std::uint8_t(data_[pos_ + i])) << (8 * i);
        pos_ += 4;
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }

    void skip(int wire_type) {
        switch (wire_type) {
            case kVarint:
                varint();
                return;
            case kFixed64:
                advance(8);
                return;
            case kLengthDelimited:
                bytes();
                return;
            case kFixed32:
                advance(4);
                return;
            case 3:
            case 4:
                fail("protobuf groups are not supported");
            default:
                fail("invalid wire type " + std::to_string(wire_type));
        }
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error("Invalid SentencePiece model: " + what + " at byte " +
                    std::to_string(base_ + pos_) + ".");
    }

  private:
    void advance(std::size_t n) {
        if (data_.size() - pos_ < n) fail("truncated fixed-width field");
        pos_ += n;
    }

    std::string_view data_;
    std::size_t base_;
    std::size_t pos_ = 0;
};

// why: proto2 int32 fields carry negative values as 10-byte sign-extended varints
int to_int32(std::uint64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

// why: proto2 closed enums leave the field unset when the value is not a known constant
bool known_piece_type(std::uint64_t v) { return v >= 1 && v <= 6; }
bool known_model_type(std::uint64_t v) { return v >= 1 && v <= 4; }

void parse_piece(WireReader r, ModelPiece* out) {
    while (!r.done()) {
        int wt;
        const std::uint32_t field = r.tag(&wt);
        if (field == 1 && wt == kLengthDelimited) {
            out->piece = std::string(r.bytes());
        } else if (field == 2 && wt == kFixed32) {
            out->score = r.fixed32_float();
        } else if (field == 3 && wt == kVarint) {
            const std::uint64_t v = r.varint();
            if (known_piece_type(v)) out->type = PieceType(int(v));
        } else {
            r.skip(wt);
        }
    }
}

void parse_trainer_spec(WireReader r, TrainerSpec* out) {
    while (!r.done()) {
        int wt;
        const std::uint32_t field = r.tag(&wt);
        if (wt == kVarint) {
            const std::uint64_t v = r.varint();
            switch (field) {
                case 3:
                    if (known_model_type(v)) out->model_type = ModelType(int(v));
                    break;
                case 4:
                    out->vocab_size = to_int32(v);
                    break;
                case 24:
                    out->treat_whitespace_as_suffix = v != 0;
                    break;
                case 35:
                    out->byte_fallback = v != 0;
                    break;
                case 40:
                    out->unk_id = to_int32(v);
                    break;
                case 41:
                    out->bos_id = to_int32(v);
                    break;
                case 42:
                    out->eos_id = to_int32(v);
                    break;
                case 43:
                    out->pad_id = to_int32(v);
                    break;
                default:
                    break;
            }
        } else if (wt == kLengthDelimited && field >= 44 && field <= 48) {
            std::string s(r.bytes());
            switch (field) {
                case 44:
                    out->unk_surface = std::move(s);
                    break;
                case 45:
                    out->unk_piece = std::move(s);
                    break;
                case 46:
                    out->bos_piece = std::move(s);
                    break;
                case 47:
                    out->eos_piece = std::move(s);
                    break;
                default:
                    out->pad_piece = std::move(s);
                    break;
            }
        } else {
            r.skip(wt);
        }
    }
}

void parse_normalizer_spec(WireReader r, NormalizerSpec* out) {
    while (!r.done()) {
        int wt;
        const std::uint32_t field = r.tag(&wt);
        if (field == 1 && wt == kLengthDelimited) {
            out->name = std::string(r.bytes());
        } else if (field == 2 && wt == kLengthDelimited) {
            out->precompiled_charsmap = std::string(r.bytes());
        } else if (field >= 3 && field <= 5 && wt == kVarint) {
            const bool v = r.varint() != 0;
            if (field == 3) out->add_dummy_prefix = v;
            if (field == 4) out->remove_extra_whitespaces = v;
            if (field == 5) out->escape_whitespaces = v;
        } else {
            r.skip(wt);
        }
    }
}

/// Opens a nested message: a reader over its bytes that reports offsets in the whole model.
WireReader nested(WireReader& r) {
    const std::string_view body = r.bytes();
    return WireReader(body, r.offset() - body.size());
}

}  // namespace

ModelProto parse_model_proto(std::string_view bytes) {
    ModelProto model;
    WireReader r(bytes, 0);
    while (!r.done()) {
        int wt;
        const std::uint32_t field = r.tag(&wt);
        if (wt != kLengthDelimited || field < 1 || field > 5 || field == 4) {
            r.skip(wt);
            continue;
        }
        WireReader body = nested(r);
        // why: a repeated singular message merges into the earlier one, as protobuf does
        switch (field) {
            case 1:
                model.pieces.emplace_back();
                parse_piece(body, &model.pieces.back());
                break;
            case 2:
                parse_trainer_spec(body, &model.trainer_spec);
                break;
            case 3:
                parse_normalizer_spec(body, &model.normalizer_spec);
                break;
            case 5:
                model.has_denormalizer_spec = true;
                parse_normalizer_spec(body, &model.denormalizer_spec);
                break;
            default:
                break;
        }
    }
    return model;
}

}  // namespace heed
