// Marian bundles' vocabularies onto the model config (marian_vocab.h).
#include "marian/marian_vocab.h"

#include "core/error.h"
#include "tokenizer/tokenizer.h"

namespace heed {
namespace {

/// A serialized SentencePiece ModelProto starts with its first piece: field 1, wire type 2.
bool is_sentencepiece(const std::string& bytes) {
    return !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x0A;
}

}  // namespace

MarianVocabularies marian_vocabularies(const std::vector<std::string>& files) {
    if (files.empty() || files.size() > 2)
        throw Error(
            "Marian model: give one vocabulary (shared) or two (source, then target), got " +
            std::to_string(files.size()));
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (is_sentencepiece(files[i])) continue;
        const std::string which = files.size() == 1 ? "the vocabulary"
                                  : i == 0          ? "the source vocabulary"
                                                    : "the target vocabulary";
        if (files[i].compare(0, 1, "{") != 0 && files[i].find(": ") != std::string::npos)
            throw Error("Marian model: " + which +
                        " is a YAML id map (OPUS-MT's vocab.yml); Heed reads SentencePiece "
                        "vocabularies (.spm) only so far");
        throw Error("Marian model: " + which +
                    " is not a SentencePiece model (.spm); a release that segments with BPE "
                    "(BPE codes and a vocab.json) is not supported");
    }
    MarianVocabularies v;
    v.source = files[0];
    if (files.size() == 2 && files[1] != files[0]) v.target = files[1];
    return v;
}

void apply_vocabularies(const MarianVocabularies& vocabs, ModelConfig& c) {
    const Tokenizer source = Tokenizer::from_bytes(vocabs.source);
    const Tokenizer target =
        Tokenizer::from_bytes(vocabs.target.empty() ? vocabs.source : vocabs.target);
    const auto check = [](const Tokenizer& t, int size, const char* side) {
        if (t.vocab_size() != size)
            throw Error(std::string("Marian model: the ") + side + " vocabulary has " +
                        std::to_string(t.vocab_size()) +
                        " pieces but the model's dim-vocabs says " + std::to_string(size));
        if (t.eos_id() < 0 || t.unk_id() < 0)
            throw Error(std::string("Marian model: the ") + side +
                        " vocabulary has no </s> or no <unk> piece");
    };
    check(source, c.vocab_size, "source");
    check(target, c.target_vocab(), "target");
    if (source.eos_id() != target.eos_id() || source.unk_id() != target.unk_id())
        throw Error(
            "Marian model: the source and target vocabularies give </s> or <unk> "
            "different ids, which Heed does not support");
    c.eos_id = source.eos_id();
    c.unk_id = source.unk_id();
    c.bos_id =
        source.bos_id() >= 0 && source.bos_id() == target.bos_id() ? source.bos_id() : c.eos_id;
    c.pad_id =
        source.pad_id() >= 0 && source.pad_id() == target.pad_id() ? source.pad_id() : c.eos_id;
    c.decoder_start_id = c.eos_id;  // why: unused (zero_start), but it must be a target id
    if (vocabs.target.empty() && c.vocab_size != c.target_vocab())
        throw Error("Marian model: one shared vocabulary but dim-vocabs gives two sizes (" +
                    std::to_string(c.vocab_size) + ", " + std::to_string(c.target_vocab()) + ")");
}

}  // namespace heed
