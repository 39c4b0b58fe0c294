// Marian's transformer onto Heed's: architecture from "special:model.yml", parameters renamed
// and laid out as Heed's loader reads them (Marian's affine is x·W + b with W [in, out], Heed's
// linear W [out, in]; intgemm8 matrices are stored transposed already, so they stay int8 with
// one scale per row, 1/quant_mult), vocabularies and shortlist as Heed tensors.
#include "marian/marian_model.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "marian/lexical_shortlist.h"
#include "marian/marian_archive.h"
#include "marian/marian_vocab.h"
#include "marian/marian_yaml.h"
#include "model/config.h"
#include "model/model_file_writer.h"

namespace heed {
namespace {

using Shape = std::vector<std::size_t>;

Error refuse(const std::string& what) { return Error("Marian model: " + what); }

/// The architecture a model.yml describes, everything Heed cannot compute refused by name.
/// Absent keys take Marian's defaults (its own model.yml lists them all).
struct Architecture {
    ModelConfig config;
    int alignment_layer = -1;
    bool tied_all = false, tied_src = false, tied_decoder = false;
};

/// Marian's post-processing string without 'd' (dropout, a no-op at inference).
std::string without_dropout(std::string ops) {
    ops.erase(std::remove(ops.begin(), ops.end(), 'd'), ops.end());
    return ops;
}

Architecture read_architecture(const YamlMap& y) {
    Architecture a;
    ModelConfig& c = a.config;
    const std::string type = yaml_string(y, "type", "transformer");
    if (type != "transformer")
        throw refuse("type '" + type + "' is not supported (only 'transformer')");
    for (const char* key : {"factors-dim-emb", "lemma-dim-emb"})
        if (yaml_int(y, key, 0) != 0)
            throw refuse(std::string("'") + key + "' (factored vocabularies) is not supported");
    if (!yaml_string(y, "factors-combine", "").empty() &&
        yaml_string(y, "factors-combine", "") != "sum")
        throw refuse("'factors-combine' (factored vocabularies) is not supported");
    for (const char* key : {"right-left", "transformer-no-projection", "ulr", "layer-normalization",
                            "skip", "transformer-pool"})
        if (yaml_bool(y, key, false))
            throw refuse(std::string("'") + key + ": true' is not supported");
    if (y.count("transformer-tied-layers") && !yaml_int_list(y, "transformer-tied-layers").empty())
        throw refuse("'transformer-tied-layers' (layers sharing weights) is not supported");

    c.d_model = yaml_int(y, "dim-emb", 512);
    c.heads = yaml_int(y, "transformer-heads", 8);
    c.encoder_layers = yaml_int(y, "enc-depth", 1);
    c.decoder_layers = yaml_int(y, "dec-depth", 1);
    c.ffn_dim = yaml_int(y, "transformer-dim-ffn", 2048);
    const int dec_ffn = yaml_int(y, "transformer-decoder-dim-ffn", 0);
    if (dec_ffn != 0 && dec_ffn != c.ffn_dim)
        throw refuse("a decoder feed-forward width (" + std::to_string(dec_ffn) +
                     ") other than the encoder's (" + std::to_string(c.ffn_dim) +
                     ") is not supported");
    const int depth = yaml_int(y, "transformer-ffn-depth", 2);
    const int dec_depth = yaml_int(y, "transformer-decoder-ffn-depth", 0);
    if (depth != 2 || (dec_depth != 0 && dec_depth != 2))
        throw refuse("feed-forward depth " + std::to_string(dec_depth ? dec_depth : depth) +
                     " is not supported (only 2: W1, activation, W2)");
    const std::string act = yaml_string(y, "transformer-ffn-activation", "swish");
    if (act == "relu")
        c.activation = Activation::Relu;
    else if (act == "swish")
        c.activation = Activation::Swish;
    else
        throw refuse("transformer-ffn-activation '" + act + "' is not supported (relu, swish)");

    const std::string pre = yaml_string(y, "transformer-preprocess", "");
    const std::string post = without_dropout(yaml_string(y, "transformer-postprocess", "dan"));
    const std::string emb = without_dropout(yaml_string(y, "transformer-postprocess-emb", "d"));
    const std::string top = yaml_string(y, "transformer-postprocess-top", "");
    if (!without_dropout(pre).empty())
        throw refuse(
            "transformer-preprocess '" + pre +
            "' (pre-norm) is not supported: Marian's pre-norm layer projects keys and "
            "values from the un-normalised stream; only post-norm ('dan') models are read");
    if (post != "an")
        throw refuse("transformer-postprocess '" + post + "' is not supported (only 'dan')");
    // why: Marian applies these ops with preProcess, which knows only 'd' and 'n' (a LayerNorm
    // "<encoder|decoder>_emb_ln_{scale,bias}_pre") and aborts on any other letter
    if (emb == "n")
        c.embedding_norm = true;
    else if (!emb.empty())
        throw refuse("transformer-postprocess-emb '" + emb +
                     "' is not supported (only 'd', 'n' or '': Marian's embedding ops are "
                     "dropout and one LayerNorm)");
    if (!without_dropout(top).empty())
        throw refuse("transformer-postprocess-top '" + top + "' is not supported (only '')");

    const std::string autoreg = yaml_string(y, "transformer-decoder-autoreg", "self-attention");
    if (autoreg == "rnn") {
        const std::string cell = yaml_string(y, "dec-cell", "gru");
        if (cell != "ssru")
            throw refuse("an RNN decoder with dec-cell '" + cell +
                         "' is not supported (only ssru)");
        c.decoder_self = DecoderSelf::Ssru;
    } else if (autoreg != "self-attention") {
        throw refuse("transformer-decoder-autoreg '" + autoreg +
                     "' is not supported (self-attention, rnn with dec-cell ssru)");
    }

    const std::vector<int> vocabs = yaml_int_list(y, "dim-vocabs");
    if (vocabs.size() != 2)
        throw refuse("'dim-vocabs' must list the source and target vocabulary sizes");
    c.vocab_size = vocabs[0];
    c.target_vocab_size = vocabs[1];
    a.tied_all = yaml_bool(y, "tied-embeddings-all", false);
    a.tied_src = yaml_bool(y, "tied-embeddings-src", false);
    a.tied_decoder = yaml_bool(y, "tied-embeddings", false);
    c.final_logits_bias = !yaml_bool(y, "output-omit-bias", false);
    c.ties = a.tied_all || (a.tied_src && a.tied_decoder) ? EmbeddingTies::All
             : a.tied_decoder                             ? EmbeddingTies::Decoder
             : a.tied_src                                 ? EmbeddingTies::SourceTarget
                                                          : EmbeddingTies::None;

    const std::string align = yaml_string(y, "transformer-guided-alignment-layer", "last");
    if (align == "last") {
        a.alignment_layer = c.decoder_layers - 1;
    } else {
        const int layer = yaml_int(y, "transformer-guided-alignment-layer", 0);
        if (layer < 1 || layer > c.decoder_layers)
            throw refuse("transformer-guided-alignment-layer " + align + " is not a decoder layer");
        a.alignment_layer = layer - 1;
    }

    c.pre_norm = false;
    c.positions = PositionKind::Marian;
    c.max_positions = 512;
    c.scale_embeddings = true;
    c.zero_start = true;
    c.layer_norm_eps = 1e-6f;
    c.search_rules = SearchRules::Marian;
    return a;
}

/// Marian's parameters by name, each consumed once; whatever is left is refused.
class Parameters {
  public:
    explicit Parameters(const MarianArchive& a) : a_(a) {}

    /// Item `name`, checked to hold the logical shape `shape` (a [1, n] row equals [n]).
    const MarianItem& get(const std::string& name, const Shape& shape) {
        const MarianItem* item = a_.find(name);
        if (!item) throw refuse("parameter '" + name + "' is missing");
        Shape have = item->shape, want = shape;
        if (have.size() == 2 && have[0] == 1) have.erase(have.begin());
        if (want.size() == 2 && want[0] == 1) want.erase(want.begin());
        if (have != want || item->type == MarianType::Int8)
            throw refuse("parameter '" + name + "' is " + marian_type_name(item->type) + " " +
                         text(item->shape) + ", expected " + text(shape));
        used_.insert(name);
        return *item;
    }
    bool has(const std::string& name) const { return a_.find(name) != nullptr; }
    /// The untied output matrix [Vt, D]: `decoder_ff_logit_out_Wt` [Vt, D], or the older
    /// `decoder_ff_logit_out_W` [D, Vt] when the file has that one.
    void output(ModelFileWriter& out, std::size_t Vt, std::size_t D) {
        if (has("decoder_ff_logit_out_W"))
            matrix(out, "lm_head.weight", "decoder_ff_logit_out_W", Vt, D, true);
        else
            matrix(out, "lm_head.weight", "decoder_ff_logit_out_Wt", Vt, D, false);
    }
    std::vector<float> f32(const std::string& name, const Shape& shape) {
        return a_.read_f32(get(name, shape));
    }

    /// A [rows, cols] Heed matrix from Marian's `name`, whose logical shape is [cols, rows]
    /// when `linear` (an affine's W [in, out]) and [rows, cols] otherwise (an embedding table
    /// or an output matrix Wt [V, D]). An IntGemm8 item stays int8, with its one scale on
    /// every row: its stored values are Heed's rows already or their exact transpose.
    void matrix(ModelFileWriter& out, const std::string& heed, const std::string& name,
                std::size_t rows, std::size_t cols, bool linear) {
        const MarianItem& item = get(name, linear ? Shape{cols, rows} : Shape{rows, cols});
        if (item.type == MarianType::IntGemm8) {
            std::vector<std::int8_t> q(rows * cols);
            const auto* stored = reinterpret_cast<const std::int8_t*>(item.data);
            if (item.transposed == linear)  // stored [rows, cols] row-major
                std::memcpy(q.data(), stored, q.size());
            else  // stored [cols, rows] row-major
                for (std::size_t c = 0; c < cols; ++c)
                    for (std::size_t r = 0; r < rows; ++r) q[r * cols + c] = stored[c * rows + r];
            out.i8(heed, rows, cols, std::move(q),
                   std::vector<float>(rows, 1.0f / item.quant_mult));
            return;
        }
        std::vector<float> v = a_.read_f32(item);
        if (linear) v = transposed(v, cols, rows);  // [in, out] -> [out, in]
        out.f32(heed, {rows, cols}, std::move(v));
    }
    /// Heed's `heed`.weight/.bias from Marian's affine `w` [in, out] and `b` [1, out] ("": 0).
    void linear(ModelFileWriter& out, const std::string& heed, const std::string& w,
                const std::string& b, std::size_t in, std::size_t outs) {
        matrix(out, heed + ".weight", w, outs, in, true);
        out.f32(heed + ".bias", {outs},
                b.empty() ? std::vector<float>(outs, 0.0f) : f32(b, {1, outs}));
    }
    /// Heed's LayerNorm `heed` from Marian's `m`_ln_scale`suffix` and `m`_ln_bias`suffix`
    /// (suffix "_pre" for a norm its preProcess applies).
    void norm(ModelFileWriter& out, const std::string& heed, const std::string& m, std::size_t D,
              const std::string& suffix = "") {
        out.f32(heed + ".weight", {D}, f32(m + "_ln_scale" + suffix, {1, D}));
        out.f32(heed + ".bias", {D}, f32(m + "_ln_bias" + suffix, {1, D}));
    }
    void attention(ModelFileWriter& out, const std::string& heed, const std::string& m,
                   std::size_t D) {
        for (const char* p : {"q", "k", "v", "o"})
            linear(out, heed + "." + p, m + "_W" + p, m + "_b" + p, D, D);
    }

    /// Refuses any parameter nothing read; the alphas' activation quantisers are Bergamot's
    /// (Heed quantises each activation row itself) and "special:" items are metadata.
    void finish() const {
        for (const MarianItem& item : a_.items()) {
            const std::string& n = item.name;
            const bool alpha = n.size() > 11 && n.compare(n.size() - 11, 11, "_QuantMultA") == 0;
            if (used_.count(n) || alpha || n.rfind("special:", 0) == 0) continue;
            throw refuse("parameter '" + n +
                         "' is not part of the architecture its model.yml "
                         "describes");
        }
    }

  private:
    static std::string text(const Shape& s) {
        std::string t = "[";
        for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
        return t + "]";
    }
    static std::vector<float> transposed(const std::vector<float>& v, std::size_t rows,
                                         std::size_t cols) {
        std::vector<float> t(v.size());
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) t[c * rows + r] = v[r * cols + c];
        return t;
    }

    const MarianArchive& a_;
    std::set<std::string> used_;
};

/// Every parameter, Marian's names onto Heed's.
void write_parameters(const Architecture& arch, Parameters& p, ModelFileWriter& out) {
    const ModelConfig& c = arch.config;
    const std::size_t D = c.d_model, F = c.ffn_dim, V = c.vocab_size, Vt = c.target_vocab();
    // embeddings and output (tied-embeddings-all / -src / tied-embeddings)
    const std::string src = arch.tied_all || arch.tied_src ? "Wemb" : "encoder_Wemb";
    const std::string tgt = arch.tied_all || arch.tied_src ? "Wemb" : "decoder_Wemb";
    switch (c.ties) {
        case EmbeddingTies::All:
            p.matrix(out, "embed.weight", src, V, D, false);
            break;
        case EmbeddingTies::Decoder:
            p.matrix(out, "src_embed.weight", src, V, D, false);
            p.matrix(out, "lm_head.weight", tgt, Vt, D, false);
            break;
        case EmbeddingTies::SourceTarget:
            p.matrix(out, "embed.weight", src, V, D, false);
            p.output(out, Vt, D);
            break;
        case EmbeddingTies::None:
            p.matrix(out, "src_embed.weight", src, V, D, false);
            p.matrix(out, "tgt_embed.weight", tgt, Vt, D, false);
            p.output(out, Vt, D);
            break;
    }
    if (c.final_logits_bias) out.f32("logits.bias", {Vt}, p.f32("decoder_ff_logit_out_b", {1, Vt}));
    if (c.embedding_norm) {
        p.norm(out, "encoder.emb_ln", "encoder_emb", D, "_pre");
        p.norm(out, "decoder.emb_ln", "decoder_emb", D, "_pre");
    }

    for (int i = 0; i < c.encoder_layers; ++i) {
        const std::string h = "encoder." + std::to_string(i);
        const std::string m = "encoder_l" + std::to_string(i + 1);
        p.attention(out, h + ".self_attn", m + "_self", D);
        p.norm(out, h + ".ln1", m + "_self_Wo", D);
        p.linear(out, h + ".ffn.fc1", m + "_ffn_W1", m + "_ffn_b1", D, F);
        p.linear(out, h + ".ffn.fc2", m + "_ffn_W2", m + "_ffn_b2", F, D);
        p.norm(out, h + ".ln2", m + "_ffn_ffn", D);
    }
    for (int i = 0; i < c.decoder_layers; ++i) {
        const std::string h = "decoder." + std::to_string(i);
        const std::string m = "decoder_l" + std::to_string(i + 1);
        if (c.ssru_decoder()) {  // W x and W_f x + b_f (Kim et al. 2019 §3.2)
            p.linear(out, h + ".ssru.w", m + "_rnn_W", "", D, D);
            p.linear(out, h + ".ssru.f", m + "_rnn_Wf", m + "_rnn_bf", D, D);
            p.norm(out, h + ".ln1", m + "_rnn_ffn", D);
        } else {
            p.attention(out, h + ".self_attn", m + "_self", D);
            p.norm(out, h + ".ln1", m + "_self_Wo", D);
        }
        p.attention(out, h + ".cross_attn", m + "_context", D);
        p.norm(out, h + ".ln2", m + "_context_Wo", D);
        p.linear(out, h + ".ffn.fc1", m + "_ffn_W1", m + "_ffn_b1", D, F);
        p.linear(out, h + ".ffn.fc2", m + "_ffn_W2", m + "_ffn_b2", F, D);
        p.norm(out, h + ".ln3", m + "_ffn_ffn", D);
    }
    p.finish();
}

/// Marian's shortlist as Heed's for the target language: the first_num most frequent target
/// ids, then each source id's list — with the source id itself when the vocabulary is shared,
/// as Marian's selection adds a sentence's own ids then.
void write_shortlist(const std::string& bytes, const ModelConfig& c, bool shared,
                     const std::string& lang, ModelFileWriter& out) {
    const LexicalShortlist s =
        read_lexical_shortlist(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(),
                               c.vocab_size, c.target_vocab());
    const std::size_t first = std::min<std::uint64_t>(s.first_num, c.target_vocab());
    std::vector<std::int32_t> frequent(first), offsets = {0}, targets;
    for (std::size_t i = 0; i < first; ++i) frequent[i] = std::int32_t(i);
    if (std::uint64_t(s.targets.size()) + (shared ? s.offsets.size() : 0) > 0x7fffffffu)
        throw refuse("the shortlist lists more ids than Heed's shortlist holds");
    for (std::size_t w = 0; w + 1 < s.offsets.size(); ++w) {
        for (std::uint64_t i = s.offsets[w]; i < s.offsets[w + 1]; ++i)
            targets.push_back(std::int32_t(s.targets[i]));
        if (shared) targets.push_back(std::int32_t(w));
        offsets.push_back(std::int32_t(targets.size()));
    }
    out.i32("shortlist." + lang + ".frequent", frequent);
    out.i32("shortlist." + lang + ".offsets", offsets);
    out.i32("shortlist." + lang + ".targets", targets);
}

/// A language code as translate()'s `to` takes it: 1 to 8 letters a-z ("und" when unknown).
bool valid_tag(const std::string& tag) {
    return !tag.empty() && tag.size() <= 8 &&
           std::all_of(tag.begin(), tag.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; });
}

}  // namespace

std::vector<std::uint8_t> heed_file_from_marian(const MarianBundle& bundle,
                                                MarianSummary* summary) {
    for (const std::string* tag : {&bundle.source_language, &bundle.target_language})
        if (!valid_tag(*tag))
            throw refuse("language '" + *tag + "' is not a language code (1 to 8 letters a-z)");
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(bundle.model.data());
    const MarianArchive archive = MarianArchive::read(bytes, bundle.model.size());
    const Architecture arch = read_architecture(parse_flat_yaml(archive.config_yaml()));
    ModelConfig config = arch.config;

    ModelFileWriter out;
    const MarianVocabularies vocabs = marian_vocabularies(bundle.vocabs);
    apply_vocabularies(vocabs, config);  // sizes checked against dim-vocabs, special ids
    out.bytes("tokenizer.model", vocabs.source);
    if (!vocabs.target.empty()) out.bytes("tokenizer.target.model", vocabs.target);
    if (vocabs.mapped()) out.bytes("tokenizer.vocabulary", id_map_bytes(vocabs.source_map));
    if (!vocabs.target_map.empty())
        out.bytes("tokenizer.target.vocabulary", id_map_bytes(vocabs.target_map));

    Parameters parameters(archive);
    write_parameters(arch, parameters, out);
    if (!bundle.shortlist.empty())
        write_shortlist(bundle.shortlist, config, vocabs.shared_ids(), bundle.target_language, out);

    MarianSummary s;
    s.decoder = config.ssru_decoder() ? "ssru" : "self-attention";
    s.alignment_layer = arch.alignment_layer;
    s.shortlist = !bundle.shortlist.empty();
    s.weights = "float32";
    for (const MarianItem& item : archive.items())
        if (item.type == MarianType::IntGemm8)
            s.weights = "intgemm8";
        else if (item.type == MarianType::Float16 && s.weights == "float32")
            s.weights = "float16";
    if (summary) *summary = s;

    out.metadata("format", "heed");
    out.metadata("heed.version", "1");
    out.metadata("heed.config", config.to_json());
    out.metadata("heed.languages", nlohmann::json{{"source", bundle.source_language},
                                                  {"target", bundle.target_language}}
                                       .dump());
    out.metadata("heed.marian", nlohmann::json{{"decoder", s.decoder},
                                               {"alignment_layer", s.alignment_layer},
                                               {"weights", s.weights},
                                               {"shortlist", s.shortlist}}
                                    .dump());
    return out.finish();
}

}  // namespace heed
