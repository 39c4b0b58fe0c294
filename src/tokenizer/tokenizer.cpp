// Unigram SentencePiece encode/decode, mirroring the sentencepiece library's optimized
// encoder (Viterbi computed on the fly from a trie walk) and its Decode rules.
// Not the trainer, not sampling: one best segmentation per input.
#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <cfloat>

#include "core/error.h"
#include "core/utf8.h"

namespace heed {
namespace {

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581 "▁"
constexpr float kUnkPenalty = 10.0f;                       // unk score = lowest piece score - this

const char* model_type_name(ModelType t) {
    switch (t) {
        case ModelType::Unigram:
            return "unigram";
        case ModelType::Bpe:
            return "bpe";
        case ModelType::Word:
            return "word";
        case ModelType::Char:
            return "char";
    }
    return "unknown";
}

/// A piece must be valid UTF-8. why: pieces are printed, joined into text and written as JSON;
/// a raw 0xFF from an untrusted model would reach the terminal and break the JSON writer.
void check_piece_utf8(const std::string& piece, int id) {
    const std::size_t bad = find_invalid_utf8(piece);
    if (bad != std::string::npos)
        throw Error("Invalid SentencePiece model: piece " + std::to_string(id) +
                    " is not valid UTF-8 (bad byte at offset " + std::to_string(bad) + ").");
}

/// "<0xAB>" -> 0xAB; -1 for anything else (sentencepiece writes the hex in upper case).
int byte_piece_value(const std::string& p) {
    if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    const int hi = hex(p[3]), lo = hex(p[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// PieceTrie: a plain double array (child = base[node] + byte, check[child] == node), built
// breadth-first with first-fit placement of each node's children.

void Tokenizer::PieceTrie::build(std::vector<std::pair<std::string_view, int>> keys) {
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 1; i < keys.size(); ++i)
        if (keys[i].first == keys[i - 1].first)
            throw Error("Invalid SentencePiece model: piece " + quoted(keys[i].first) +
                        " is defined twice.");

    units_.clear();
    // why: free slots form an ascending linked list, so placement never rescans full regions
    std::vector<int> next_free, prev_free;
    int head = -1, tail = -1;
    auto grow = [&](std::size_t new_size) {
        const std::size_t old_size = units_.size();
        units_.resize(new_size);
        next_free.resize(new_size, -1);
        prev_free.resize(new_size, -1);
        for (std::size_t i = old_size; i < new_size; ++i) {
            prev_free[i] = tail;
            if (tail >= 0)
                next_free[std::size_t(tail)] = int(i);
            else
                head = int(i);
            tail = int(i);
        }
    };
    auto occupy = [&](std::size_t slot, int parent) {
        units_[slot].check = parent;
        const int p = prev_free[slot], n = next_free[slot];
        if (p >= 0)
            next_free[std::size_t(p)] = n;
        else
            head = n;
        if (n >= 0)
            prev_free[std::size_t(n)] = p;
        else
            tail = p;
    };
    grow(1024);
    occupy(0, 0);              // the root
    std::size_t frontier = 0;  // highest occupied slot
    std::size_t max_base = 0;
    constexpr int kMaxProbes = 32;

    struct Job {
        int node;
        std::size_t lo, hi, depth;  // keys[lo, hi) share the node's prefix of length depth
    };
    std::vector<Job> jobs{{0, 0, keys.size(), 0}};
    std::vector<unsigned char> labels;
    std::vector<std::size_t> starts;

    for (std::size_t qi = 0; qi < jobs.size(); ++qi) {
        const Job job = jobs[qi];
        std::size_t i = job.lo;
        // why: sorted order puts the key that ends at this node first in its range
        if (i < job.hi && keys[i].first.size() == job.depth)
            units_[std::size_t(job.node)].value = keys[i++].second;

        labels.clear();
        starts.clear();
        for (std::size_t j = i; j < job.hi; ++j) {
            const auto c = static_cast<unsigned char>(keys[j].first[job.depth]);
            if (labels.empty() || c != labels.back()) {
                labels.push_back(c);
                starts.push_back(j);
            }
        }
        if (labels.empty()) continue;
        starts.push_back(job.hi);

        // first fit: the lowest free slot for labels[0] whose sibling slots are free too
        // why: after a bounded number of misses, start past the last used slot, where
        // everything fits; this keeps loading linear at the price of a few holes
        std::size_t base = 0;
        int probes = 0;
        for (int pos = head;; pos = next_free[std::size_t(pos)]) {
            if (++probes > kMaxProbes && std::size_t(pos) <= frontier) pos = int(frontier + 1);
            if (pos < 0) {
                const std::size_t old_size = units_.size();
                grow(old_size * 2);
                pos = int(old_size);
            }
            if (std::size_t(pos) + 256 >= units_.size()) grow(units_.size() * 2);
            if (std::size_t(pos) <= labels[0]) continue;
            const std::size_t b = std::size_t(pos) - labels[0];
            bool fits = true;
            for (std::size_t k = 1; k < labels.size() && fits; ++k)
                fits = units_[b + labels[k]].check == -1;
            if (fits) {
                base = b;
                break;
            }
        }
        units_[std::size_t(job.node)].base = int(base);
        max_base = std::max(max_base, base);
        for (std::size_t k = 0; k < labels.size(); ++k) {
            const std::size_t child = base + labels[k];
            occupy(child, job.node);
            frontier = std::max(frontier, child);
            jobs.push_back({int(child), starts[k], starts[k + 1], job.depth + 1});
        }
    }
    // why: next() reads base + byte unchecked, so keep 256 slots past the highest base
    units_.resize(std::max(frontier + 1, max_base + 256));
    units_.shrink_to_fit();
}

int Tokenizer::PieceTrie::find(std::string_view key) const {
    int node = 0;
    for (const char c : key) {
        node = next(node, static_cast<unsigned char>(c));
        if (node < 0) return -1;
    }
    return value(node);
}

// ---------------------------------------------------------------------------------------------
// Loading

Tokenizer Tokenizer::from_bytes(const std::string& model_proto) {
    const ModelProto m = parse_model_proto(model_proto);
    const TrainerSpec& ts = m.trainer_spec;
    if (ts.model_type != ModelType::Unigram)
        throw Error(std::string("Unsupported SentencePiece model: model_type is ") +
                    model_type_name(ts.model_type) + ", only unigram models are supported.");
    if (m.pieces.empty()) throw Error("Invalid SentencePiece model: it has no pieces.");

    Tokenizer t;
    const std::size_t n = m.pieces.size();
    t.pieces_.reserve(n);
    t.scores_.reserve(n);
    t.types_.reserve(n);
    t.byte_of_.assign(n, -1);
    t.byte_fallback_ = ts.byte_fallback;
    t.byte_ids_.fill(-1);
    t.unk_surface_ = ts.unk_surface;
    t.add_dummy_prefix_ = m.normalizer_spec.add_dummy_prefix;
    t.remove_extra_whitespaces_ = m.normalizer_spec.remove_extra_whitespaces;
    t.min_score_ = FLT_MAX;
    t.max_score_ = FLT_MIN;  // why: sentencepiece starts from FLT_MIN (> 0), so keep it

    for (const ModelPiece& p : m.pieces) {
        t.pieces_.push_back(p.piece);
        t.scores_.push_back(p.score);
        t.types_.push_back(p.type);
    }

    bool has_matchable = false;
    for (std::size_t i = 0; i < n; ++i) {
        const int id = int(i);
        const std::string& text = t.pieces_[i];
        if (text.empty())
            throw Error("Invalid SentencePiece model: piece " + std::to_string(id) + " is empty.");
        check_piece_utf8(text, id);
        switch (t.types_[i]) {
            case PieceType::Normal:
                t.min_score_ = std::min(t.min_score_, t.scores_[i]);
                t.max_score_ = std::max(t.max_score_, t.scores_[i]);
                has_matchable = true;
                break;
            case PieceType::UserDefined:
            case PieceType::Unused:
                has_matchable = true;
                break;
            case PieceType::Unknown:
                if (t.model_unk_ >= 0)
                    throw Error("Invalid SentencePiece model: it defines two unknown pieces.");
                t.model_unk_ = id;
                t.reserved_.emplace_back(text, id);
                break;
            case PieceType::Control:
                t.reserved_.emplace_back(text, id);
                break;
            case PieceType::Byte: {
                if (!ts.byte_fallback)
                    throw Error("Invalid SentencePiece model: byte piece " + quoted(text) +
                                " found although byte_fallback is off.");
                const int b = byte_piece_value(text);
                if (b < 0)
                    throw Error("Invalid SentencePiece model: byte piece " + quoted(text) +
                                " is not of the form <0x00>..<0xFF>.");
                t.byte_of_[i] = std::int16_t(b);
                t.byte_ids_[std::size_t(b)] = id;
                t.reserved_.emplace_back(text, id);
                break;
            }
        }
    }
    if (t.model_unk_ < 0) throw Error("Invalid SentencePiece model: it has no unknown piece.");
    if (!has_matchable) throw Error("Invalid SentencePiece model: it has no normal pieces.");
    if (ts.byte_fallback &&
        std::find(t.byte_ids_.begin(), t.byte_ids_.end(), -1) != t.byte_ids_.end())
        throw Error(
            "Invalid SentencePiece model: byte_fallback is on but not all 256 byte pieces exist.");

    std::sort(t.reserved_.begin(), t.reserved_.end());
    for (std::size_t i = 1; i < t.reserved_.size(); ++i)
        if (t.reserved_[i].first == t.reserved_[i - 1].first)
            throw Error("Invalid SentencePiece model: piece " + quoted(t.reserved_[i].first) +
                        " is defined twice.");
    t.normalizer_ = Normalizer(m.normalizer_spec, ts.treat_whitespace_as_suffix);
    t.build_matcher();
    if (m.has_denormalizer_spec && !m.denormalizer_spec.precompiled_charsmap.empty()) {
        t.denormalizer_ = Normalizer(m.denormalizer_spec, false);
        t.has_denormalizer_ = true;
    }

    // why: like SentencePieceProcessor, special ids come from the trainer's piece names
    const int unk = t.piece_to_id(ts.unk_piece);
    t.unk_id_ = t.is_unknown(unk) ? unk : -1;
    const int bos = t.piece_to_id(ts.bos_piece);
    t.bos_id_ = t.is_control(bos) ? bos : -1;
    const int eos = t.piece_to_id(ts.eos_piece);
    t.eos_id_ = t.is_control(eos) ? eos : -1;
    const int pad = t.piece_to_id(ts.pad_piece);
    t.pad_id_ = t.is_control(pad) ? pad : -1;
    return t;
}

void Tokenizer::build_matcher() {
    std::vector<std::pair<std::string_view, int>> matchable;
    std::vector<std::string> user_symbols;
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
        const PieceType type = types_[i];
        if (type == PieceType::UserDefined) user_symbols.push_back(pieces_[i]);
        if (type == PieceType::Normal || type == PieceType::UserDefined ||
            type == PieceType::Unused)
            matchable.emplace_back(pieces_[i], int(i));
    }
    trie_.build(std::move(matchable));
    normalizer_.set_user_defined_symbols(std::move(user_symbols));
}

void Tokenizer::make_control(const std::vector<int>& ids) {
    bool changed = false;
    for (const int id : ids) {
        if (id < 0 || id >= vocab_size())
            throw Error("Piece id " + std::to_string(id) + " is outside the vocabulary [0, " +
                        std::to_string(vocab_size()) + ").");
        PieceType& type = types_[std::size_t(id)];
        if (type != PieceType::UserDefined && type != PieceType::Unused) continue;
        type = PieceType::Control;
        reserved_.emplace_back(pieces_[std::size_t(id)], id);
        changed = true;
    }
    if (!changed) return;
    std::sort(reserved_.begin(), reserved_.end());
    build_matcher();
}

std::vector<int> Tokenizer::control_ids() const {
    std::vector<int> out;
    for (std::size_t i = 0; i < types_.size(); ++i)
        if (types_[i] == PieceType::Control) out.push_back(int(i));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Look-ups

const std::string& Tokenizer::piece(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("Piece id " + std::to_string(id) + " is outside the vocabulary [0, " +
                    std::to_string(vocab_size()) + ").");
    return pieces_[std::size_t(id)];
}

int Tokenizer::piece_to_id(std::string_view p) const {
    const auto it = std::lower_bound(
        reserved_.begin(), reserved_.end(), p,
        [](const std::pair<std::string, int>& e, std::string_view key) { return e.first < key; });
    if (it != reserved_.end() && it->first == p) return it->second;
    const int id = trie_.find(p);
    return id >= 0 ? id : model_unk_;
}

// ---------------------------------------------------------------------------------------------
// Encoding

std::vector<Tokenizer::Span> Tokenizer::segment(const std::string& normalized) const {
    std::vector<Span> spans;
    const int size = int(normalized.size());
    if (size == 0) return spans;

    // best[end]: the best path covering normalized[0, end) ends with piece `id` at `start`
    struct Best {
        float score = 0;
        int start = -1;
        int id = -1;
    };
    std::vector<Best> best(std::size_t(size) + 1);
    const float unk_score = min_score_ - kUnkPenalty;
    const char* text = normalized.data();

    for (int start = 0; start < size;) {
        const float score_here = best[std::size_t(start)].score;
        const int char_len = std::min(utf8_char_length(text[start]), size - start);
        bool has_single_char_piece = false;
        int node = 0;
        for (int end = start; end < size;) {
            node = trie_.next(node, static_cast<unsigned char>(text[end++]));
            if (node < 0) break;
            const int id = trie_.value(node);
            if (id < 0 || types_[std::size_t(id)] == PieceType::Unused) continue;
            const int length = end - start;
            // why: the same mixed float/double arithmetic as sentencepiece, so ties break alike;
            // user-defined pieces get a bonus that makes them win
            const double score = types_[std::size_t(id)] == PieceType::UserDefined
                                     ? double(float(length) * max_score_) - 0.1
                                     : double(scores_[std::size_t(id)]);
            const double candidate = score + double(score_here);
            Best& target = best[std::size_t(end)];
            if (target.start == -1 || candidate > double(target.score)) {
                target.score = float(candidate);
                target.start = start;
                target.id = id;
            }
            if (length == char_len) has_single_char_piece = true;
        }
        if (!has_single_char_piece) {
            const float candidate = unk_score + score_here;
            Best& target = best[std::size_t(start + char_len)];
            if (target.start == -1 || candidate > target.score) {
                target.score = candidate;
                target.start = start;
                target.id = model_unk_;
            }
        }
        start += char_len;
    }

    for (int end = size; end > 0; end = best[std::size_t(end)].start)
        spans.push_back({best[std::size_t(end)].start, end, best[std::size_t(end)].id});
    std::reverse(spans.begin(), spans.end());

    // why: sentencepiece merges a run of unknown characters into one piece (unless byte
    // fallback spells them out byte by byte)
    if (!byte_fallback_) {
        std::size_t out = 0;
        for (std::size_t i = 0; i < spans.size(); ++i) {
            if (out > 0 && spans[i].id == model_unk_ && spans[out - 1].id == model_unk_)
                spans[out - 1].end = spans[i].end;
            else
                spans[out++] = spans[i];
        }
        spans.resize(out);
    }
    return spans;
}

template <class Emit>
void Tokenizer::for_each_output(const std::string& normalized, const std::vector<Span>& spans,
                                Emit&& emit) const {
    for (const Span& s : spans) {
        if (byte_fallback_ && s.id == model_unk_) {
            for (int i = s.begin; i < s.end; ++i) {
                const int id = byte_ids_[static_cast<unsigned char>(normalized[std::size_t(i)])];
                emit(id, std::string_view(pieces_[std::size_t(id)]));
            }
        } else {
            emit(s.id, std::string_view(normalized)
                           .substr(std::size_t(s.begin), std::size_t(s.end - s.begin)));
        }
    }
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
    const std::string normalized = normalizer_.normalize(text);
    const std::vector<Span> spans = segment(normalized);
    std::vector<int> ids;
    ids.reserve(spans.size());
    for_each_output(normalized, spans, [&](int id, std::string_view) { ids.push_back(id); });
    return ids;
}

std::vector<std::string> Tokenizer::encode_pieces(std::string_view text) const {
    const std::string normalized = normalizer_.normalize(text);
    const std::vector<Span> spans = segment(normalized);
    std::vector<std::string> out;
    out.reserve(spans.size());
    for_each_output(normalized, spans, [&](int, std::string_view p) { out.emplace_back(p); });
    return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding

template <class PieceAt>
std::string Tokenizer::decode_with(std::size_t count, PieceAt&& piece_at) const {
    std::string text;
    std::string pending_bytes;  // consecutive <0xXX> pieces, decoded together as UTF-8
    auto flush_bytes = [&] {
        const std::string_view bytes = pending_bytes;
        for (std::size_t i = 0; i < bytes.size();) {
            const Utf8Char c = decode_utf8(bytes, i);
            text.append(c.valid ? bytes.substr(i, c.length) : kReplacementChar);
            i += c.length;
        }
        pending_bytes.clear();
    };

    bool expect_leading_space = true;  // sentencepiece's is_bos_ws
    bool leading_space_seen = false;   // sentencepiece's bos_ws_seen
    for (std::size_t i = 0; i < count; ++i) {
        const std::string& p = piece_at(i);
        // why: sentencepiece decodes ids through their piece strings and looks each up again
        const int id = piece_to_id(p);
        const PieceType type = types_[std::size_t(id)];
        if (type == PieceType::Byte) {
            pending_bytes.push_back(char(byte_of_[std::size_t(id)]));
            continue;
        }
        flush_bytes();
        if (leading_space_seen || !text.empty()) expect_leading_space = false;
        leading_space_seen = false;
        if (type == PieceType::Control) continue;
        if (type == PieceType::Unknown) {
            text.append(p == pieces_[std::size_t(id)] ? std::string_view(unk_surface_) : p);
            continue;
        }
        std::string_view v = p;
        if (expect_leading_space && (add_dummy_prefix_ || remove_extra_whitespaces_)) {
            if (v.substr(0, kSpaceSymbol.size()) == kSpaceSymbol) {
                v.remove_prefix(kSpaceSymbol.size());
                // why: with remove_extra_whitespaces every leading space goes, not just one
                leading_space_seen = !remove_extra_whitespaces_;
            }
        }
        for (std::size_t pos; (pos = v.find(kSpaceSymbol)) != std::string_view::npos;) {
            text.append(v.substr(0, pos));
            text.push_back(' ');
            v.remove_prefix(pos + kSpaceSymbol.size());
        }
        text.append(v);
    }
    flush_bytes();
    if (has_denormalizer_) text = denormalizer_.normalize(text);
    return text;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
    for (const int id : ids)
        if (id < 0 || id >= vocab_size())
            throw Error("Cannot decode id " + std::to_string(id) +
                        ": it is outside the vocabulary [0, " + std::to_string(vocab_size()) +
                        ").");
    return decode_with(ids.size(), [&](std::size_t i) -> const std::string& {
        return pieces_[std::size_t(ids[i])];
    });
}

std::string Tokenizer::decode_pieces(const std::vector<std::string>& pieces) const {
    return decode_with(pieces.size(),
                       [&](std::size_t i) -> const std::string& { return pieces[i]; });
}

}  // namespace heed
