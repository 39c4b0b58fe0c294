// Marian bundles' vocabularies onto the model config (marian_vocab.h).
#include "marian/marian_vocab.h"

#include <algorithm>

#include "core/error.h"
#include "marian/marian_yaml.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocabulary.h"

namespace heed {
namespace {

Error refuse(const std::string& what) { return Error("Marian model: " + what); }

/// A serialized SentencePiece ModelProto starts with its first piece: field 1, wire type 2.
bool is_sentencepiece(const std::string& bytes) {
    return !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x0A;
}

/// A YAML mapping, as OPUS-MT's vocab.yml is: text (no NUL byte where a binary file has its
/// header) with `key: value` lines, not JSON (a BPE release's vocab.json).
bool is_yaml_map(const std::string& bytes) {
    return bytes.compare(0, 1, "{") != 0 && bytes.find(": ") != std::string::npos &&
           bytes.find('\0') >= std::min<std::size_t>(bytes.size(), 4096);
}

/// "the id map", "the source id map", ... for messages about the `i`-th of `n` files of a kind.
std::string which(const char* kind, std::size_t i, std::size_t n) {
    return std::string("the ") + (n == 1 ? "" : i == 0 ? "source " : "target ") + kind;
}

/// The pieces of a vocab.yml in id order; its ids must be 0..N-1.
std::vector<std::string> id_map(const std::string& yml, const std::string& name) {
    std::vector<std::pair<std::string, int>> entries;
    try {
        entries = parse_vocab_yaml(yml);
    } catch (const Error& e) {
        throw refuse(name + ": " + e.what());
    }
    if (entries.empty()) throw refuse(name + " (vocab.yml) lists no pieces");
    std::vector<std::string> pieces(entries.size());
    for (auto& [piece, id] : entries) {
        // why: ids are distinct (parse_vocab_yaml), so N ids below N are each of 0..N-1
        if (std::size_t(id) >= entries.size())
            throw refuse(name + " (vocab.yml) gives '" + piece + "' the id " + std::to_string(id) +
                         ", but its " + std::to_string(entries.size()) + " ids must be 0.." +
                         std::to_string(entries.size() - 1) + " (Heed reads dense id maps only)");
        if (piece.empty())
            throw refuse(name + " (vocab.yml) has an empty piece (id " + std::to_string(id) + ")");
        if (piece.find('\0') != std::string::npos)
            throw refuse(name + " (vocab.yml) has a piece with a NUL character (id " +
                         std::to_string(id) + ")");
        pieces[std::size_t(id)] = std::move(piece);
    }
    return pieces;
}

/// The SentencePiece models and id maps of `files`, in order, the same file given twice once.
void sort_files(const std::vector<std::string>& files, std::vector<const std::string*>& spms,
                std::vector<const std::string*>& ymls) {
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& f = files[i];
        if (is_sentencepiece(f) || is_yaml_map(f)) {
            auto& kind = is_sentencepiece(f) ? spms : ymls;
            if (kind.size() != 1 || *kind[0] != f) kind.push_back(&f);
            continue;
        }
        const std::string name =
            files.size() == 1 ? "the vocabulary" : "vocabulary " + std::to_string(i + 1);
        throw refuse(name +
                     " is neither a SentencePiece model (.spm) nor a vocab.yml id map; a "
                     "release that segments with BPE (BPE codes and a vocab.json) is not "
                     "supported");
    }
}

/// Checks one side's ids against its dim-vocabs entry: a SentencePiece model's pieces, or an
/// id map over it (the same checks the loader makes, as a Marian message).
Vocabulary side(const std::string& spm, const std::vector<std::string>& map, int size,
                const char* name) {
    Tokenizer t = Tokenizer::from_bytes(spm);
    const int have = map.empty() ? t.vocab_size() : int(map.size());
    if (have != size)
        throw refuse(std::string("the ") + name + (map.empty() ? " vocabulary" : " id map") +
                     " has " + std::to_string(have) + " pieces but the model's dim-vocabs says " +
                     std::to_string(size));
    if (map.empty()) return Vocabulary(std::move(t));
    for (const char* required : {"</s>", "<unk>"})
        if (std::find(map.begin(), map.end(), required) == map.end())
            throw refuse(std::string("the ") + name + " id map (vocab.yml) has no '" + required +
                         "' entry, which Marian requires");
    try {
        return Vocabulary(std::move(t), map);
    } catch (const Error& e) {
        throw refuse(std::string("the ") + name + " id map: " + e.what());
    }
}

}  // namespace

MarianVocabularies marian_vocabularies(const std::vector<std::string>& files) {
    std::vector<const std::string*> spms, ymls;
    if (files.empty())
        throw refuse(
            "give one vocabulary (shared) or two (source, then target), and with OPUS-MT's "
            "vocab.yml its SentencePiece models too; got none");
    sort_files(files, spms, ymls);
    if (ymls.empty() && spms.size() > 2)
        throw refuse(
            "give one SentencePiece vocabulary (shared) or two (source, then target), got " +
            std::to_string(spms.size()));
    if (!ymls.empty() && spms.empty())
        throw refuse(
            "a vocab.yml numbers the model's pieces but does not segment the text: give the "
            "SentencePiece models beside it too (OPUS-MT's source.spm and target.spm)");
    if (ymls.size() > 2 || spms.size() > 2)
        throw refuse(
            "give one vocab.yml (joint) or two (source, then target), and one "
            "SentencePiece model (shared) or two (source.spm, then target.spm); got " +
            std::to_string(ymls.size()) + " and " + std::to_string(spms.size()));
    MarianVocabularies v;
    v.source = *spms[0];
    if (spms.size() == 2) v.target = *spms[1];
    for (std::size_t i = 0; i < ymls.size(); ++i)
        (i == 0 ? v.source_map : v.target_map) = id_map(*ymls[i], which("id map", i, ymls.size()));
    return v;
}

void apply_vocabularies(const MarianVocabularies& vocabs, ModelConfig& c) {
    const std::vector<std::string>& target_map =
        vocabs.target_map.empty() ? vocabs.source_map : vocabs.target_map;
    const Vocabulary source = side(vocabs.source, vocabs.source_map, c.vocab_size, "source");
    const Vocabulary target = side(vocabs.target.empty() ? vocabs.source : vocabs.target,
                                   target_map, c.target_vocab(), "target");
    if (source.eos_id() < 0 || source.unk_id() < 0 || target.eos_id() < 0 || target.unk_id() < 0)
        throw refuse(std::string("the ") +
                     (source.eos_id() < 0 || source.unk_id() < 0 ? "source" : "target") +
                     " vocabulary has no </s> or no <unk> piece");
    if (source.eos_id() != target.eos_id() || source.unk_id() != target.unk_id())
        throw refuse(
            "the source and target vocabularies give </s> or <unk> different ids, which Heed "
            "does not support");
    c.eos_id = source.eos_id();
    c.unk_id = source.unk_id();
    c.bos_id =
        source.bos_id() >= 0 && source.bos_id() == target.bos_id() ? source.bos_id() : c.eos_id;
    c.pad_id =
        source.pad_id() >= 0 && source.pad_id() == target.pad_id() ? source.pad_id() : c.eos_id;
    c.decoder_start_id = c.eos_id;  // why: unused (zero_start), but it must be a target id
    if (vocabs.shared_ids() && c.vocab_size != c.target_vocab())
        throw refuse(std::string("one shared ") + (vocabs.mapped() ? "id map" : "vocabulary") +
                     " but dim-vocabs gives two sizes (" + std::to_string(c.vocab_size) + ", " +
                     std::to_string(c.target_vocab()) + ")");
}

std::string id_map_bytes(const std::vector<std::string>& pieces) {
    std::string out;
    for (const std::string& p : pieces) (out += p) += '\0';
    return out;
}

}  // namespace heed
