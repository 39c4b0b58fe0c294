// The façade: validates text and options, tokenises, runs the encoder and the search, and
// turns hypotheses into Translations (text, tokens, probabilities, attention trace).
#include "translator/translator.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error.h"
#include "core/utf8.h"
#include "decoding/search.h"
#include "model/explain.h"
#include "model/model.h"
#include "model/model_file.h"
#include "tokenizer/tokenizer.h"
#include "translator/loaded_model.h"

namespace heed {
namespace {

// why: a WebAssembly build without pthreads cannot start a std::thread
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kHaveThreads = false;
#else
constexpr bool kHaveThreads = true;
#endif

bool is_blank(const std::string& s) {
    for (unsigned char ch : s)
        if (!std::isspace(ch)) return false;
    return true;
}

}  // namespace

void check_options(const TranslateOptions& o) {
    const OptionLimits& l = kOptionLimits;
    if (o.beam_size < 1 || o.beam_size > l.beam_size)
        throw Error("beam size must be between 1 and " + std::to_string(l.beam_size) + " (got " +
                    std::to_string(o.beam_size) + ")");
    if (o.max_length < 0 || o.max_length > l.max_length)
        throw Error("max length must be between 0 (auto) and " + std::to_string(l.max_length));
    if (!std::isfinite(o.length_penalty) || o.length_penalty < 0 ||
        o.length_penalty > l.length_penalty)
        throw Error("length penalty must be a number between 0 and " +
                    std::to_string(int(l.length_penalty)));
    if (o.threads < 1 || o.threads > l.threads)
        throw Error("threads must be between 1 and " + std::to_string(l.threads) + " (got " +
                    std::to_string(o.threads) + ")");
    if (o.top_k < 0 || o.top_k > l.top_k)
        throw Error("top_k must be between 0 and " + std::to_string(l.top_k));
    if (o.forced_prefix.size() > std::size_t(l.max_length))
        throw Error("forcedPrefix holds at most " + std::to_string(l.max_length) + " ids (got " +
                    std::to_string(o.forced_prefix.size()) + ")");
    const Interventions& iv = o.interventions;
    if (!std::isfinite(iv.temperature) || iv.temperature <= 0 || iv.temperature > 100)
        throw Error("interventions.temperature must be a number in (0, 100], got " +
                    std::to_string(iv.temperature));
    if (iv.window < -1 || iv.window > 4096)
        throw Error("interventions.window must be -1 (none) or 0..4096, got " +
                    std::to_string(iv.window));
    if (iv.sparse.random_blocks < 0 || iv.sparse.random_blocks > 64)
        throw Error("interventions.sparse.randomBlocks must be 0..64, got " +
                    std::to_string(iv.sparse.random_blocks));
    if (iv.sparse.block < 1 || iv.sparse.block > 256)
        throw Error("interventions.sparse.block must be 1..256, got " +
                    std::to_string(iv.sparse.block));
    const LinearAttention& lin = iv.linear;
    if (lin.features < 1 || lin.features > l.linear_features)
        throw Error("interventions.linear.features must be an integer in [1, " +
                    std::to_string(l.linear_features) + "], got " + std::to_string(lin.features));
    if (lin.enabled() && iv.masks_keys())
        throw Error("interventions.linear replaces the softmax, so it cannot be combined with "
                    "interventions.window or interventions.sparse (choose one)");
    if (lin.kind == LinearKind::Elu && iv.temperature != 1.0f)
        throw Error("interventions.temperature must be 1 with interventions.linear.kind 'elu' "
                    "(elu + 1 has no softmax scale to change)");
}

std::unique_ptr<LoadedModel> load_model(const std::uint8_t* bytes, std::size_t size,
                                        const LoadOptions& options) {
    if (size > kMaxModelBytes)
        throw Error("model file is " + std::to_string(size) + " bytes, over the limit of " +
                    std::to_string(kMaxModelBytes));
    ModelFile file = ModelFile::parse(bytes, size);
    ModelConfig config = ModelConfig::from_json(file.metadata("heed.config"));
    if (!file.has("tokenizer.model"))
        throw Error("model file has no tokenizer (tensor 'tokenizer.model' is missing)");
    Tokenizer tokenizer = Tokenizer::from_bytes(file.read_bytes("tokenizer.model"));
    if (tokenizer.vocab_size() != config.vocab_size)
        throw Error("tokenizer has " + std::to_string(tokenizer.vocab_size()) +
                    " pieces but the model's vocab_size is " + std::to_string(config.vocab_size));
    if (tokenizer.eos_id() != config.eos_id)
        throw Error("tokenizer and model disagree on the end-of-sentence id");
    ModelWeights weights = load_weights(file, config, options);
    Directions directions = Directions::parse(
        file.has_metadata("heed.languages") ? file.metadata("heed.languages") : std::string(),
        tokenizer, config.decoder_start_id);
    // why: a start piece ("<2de>") is the model's instruction, never the user's text or output
    std::vector<int> starts = directions.start_ids();
    starts.push_back(config.decoder_start_id);
    tokenizer.make_control(starts);
    std::vector<int> never_emitted;
    for (int id : tokenizer.control_ids())
        if (id != config.eos_id) never_emitted.push_back(id);
    BytePieces byte_pieces;
    byte_pieces.byte_of.assign(std::size_t(tokenizer.vocab_size()), -1);
    for (int id = 0; id < tokenizer.vocab_size(); ++id) {
        const int b = tokenizer.byte_value(id);
        if (b < 0) continue;
        byte_pieces.byte_of[std::size_t(id)] = std::int16_t(b);
        byte_pieces.ids.push_back(id);
    }
    return std::unique_ptr<LoadedModel>(new LoadedModel{
        Model(config, std::move(weights)), std::move(tokenizer), file.metadata_json(),
        std::move(directions), std::move(never_emitted), std::move(byte_pieces)});
}

std::unique_ptr<LoadedModel> load_model_file(const std::string& path, const LoadOptions& options) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error("cannot open model file '" + path + "'");
    // why: a device or pipe (/dev/zero) never ends; only a regular file has a size to check
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error("model file '" + path + "' is not a regular file");
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw Error("cannot read model file '" + path + "'");
    if (size > kMaxModelBytes)
        throw Error("model file '" + path + "' is " + std::to_string(size) +
                    " bytes, over the limit of " + std::to_string(kMaxModelBytes));
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    f.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size));
    if (std::size_t(f.gcount()) != size) throw Error("cannot read model file '" + path + "'");
    return load_model(bytes.data(), bytes.size(), options);
}

Translator::Translator(std::unique_ptr<LoadedModel> loaded) : loaded_(std::move(loaded)) {}
Translator::~Translator() = default;

namespace {

LoadOptions load_options(const LoadSettings& s) {
    LoadOptions o;
    o.int8_kernel = s.int8 ? LinearKernel::Int8 : LinearKernel::F32;
    return o;
}

}  // namespace

std::unique_ptr<Translator> Translator::load(const std::uint8_t* bytes, std::size_t size,
                                             const LoadSettings& settings) {
    return std::unique_ptr<Translator>(
        new Translator(load_model(bytes, size, load_options(settings))));
}

std::unique_ptr<Translator> Translator::load_file(const std::string& path,
                                                  const LoadSettings& settings) {
    return std::unique_ptr<Translator>(
        new Translator(load_model_file(path, load_options(settings))));
}

std::string Translator::config_json() const { return loaded_->model.config().to_json(); }
std::size_t Translator::parameter_count() const {
    return count_parameters(loaded_->model.config());
}
std::size_t Translator::weight_bytes() const {
    return loaded_->model.weights().resident_bytes();
}
bool Translator::int8_weights() const {
    return loaded_->model.weights().lm_head.kernel() != LinearKernel::F32 ||
           (!loaded_->model.weights().encoder.empty() &&
            loaded_->model.weights().encoder[0].ffn.fc1.kernel() != LinearKernel::F32);
}
std::string Translator::metadata_json() const { return loaded_->metadata_json; }
const std::vector<std::string>& Translator::directions() const {
    return loaded_->directions.names();
}
std::vector<std::string> Translator::shortlist_languages() const {
    std::vector<std::string> out;
    for (const auto& entry : loaded_->model.weights().shortlists) out.push_back(entry.first);
    return out;
}

void Translator::check_against_model(const TranslateOptions& options) const {
    loaded_->directions.start_id(options.to);
    if (options.shortlist) {
        const std::string to = loaded_->directions.target(options.to);
        if (!loaded_->model.weights().shortlists.count(to))
            throw Error("shortlist: this model has no output shortlist for '" +
                        (to.empty() ? std::string("its target") : to) +
                        "' (models/make_shortlist.py adds one)");
    }
    const ModelConfig& c = loaded_->model.config();
    const std::vector<int>& prefix = options.forced_prefix;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        const std::string field =
            "forcedPrefix[" + std::to_string(i) + "] = " + std::to_string(prefix[i]);
        if (prefix[i] < 0 || prefix[i] >= c.vocab_size)
            throw Error(field + " is not a target id of this model (0.." +
                        std::to_string(c.vocab_size - 1) + ")");
        const std::vector<int>& never = loaded_->never_emitted;
        if (std::binary_search(never.begin(), never.end(), prefix[i]))
            throw Error(field + " is the control piece '" + loaded_->tokenizer.piece(prefix[i]) +
                        "', which the decoder never emits");
        if (prefix[i] == c.eos_id && i == 0)
            throw Error(field +
                        " is </s>: a translation that ends before its first piece is "
                        "empty (start the prefix with a piece of text)");
        if (prefix[i] == c.eos_id && i + 1 < prefix.size())
            throw Error(field +
                        " is </s>, which ends the translation, so nothing may follow it "
                        "(got " +
                        std::to_string(prefix.size() - i - 1) + " more ids)");
    }
    const std::vector<HeadAblation>& ablations = options.interventions.ablations;
    for (std::size_t i = 0; i < ablations.size(); ++i) {
        const HeadAblation& a = ablations[i];
        const bool encoder = a.block == AttentionBlock::EncoderSelf;
        const int layers = encoder ? c.encoder_layers : c.decoder_layers;
        const std::string field = "interventions.ablate[" + std::to_string(i) + "]";
        if (a.layer < 0 || a.layer >= layers)
            throw Error(field + ".layer: this model has " + (encoder ? "encoder" : "decoder") +
                        " layers 0.." + std::to_string(layers - 1) + ", not " +
                        std::to_string(a.layer));
        if (a.head < 0 || a.head >= c.heads)
            throw Error(field + ".head: this model has heads 0.." + std::to_string(c.heads - 1) +
                        ", not " + std::to_string(a.head));
    }
}

namespace {

struct Prepared {
    std::vector<int> ids;
    Memory memory;
    EncoderTrace trace;
};

std::vector<int> source_ids(const Tokenizer& tok, const ModelConfig& c, const std::string& text) {
    if (text.empty() || is_blank(text)) throw Error("empty text: there is nothing to translate");
    if (text.size() > kMaxTextBytes)
        throw Error("text is too long (" + std::to_string(text.size()) + " bytes; at most " +
                    std::to_string(kMaxTextBytes) + ")");
    const std::size_t bad = find_invalid_utf8(text);
    if (bad != std::string::npos)
        throw Error("text is not valid UTF-8 (invalid byte sequence at offset " +
                    std::to_string(bad) + ")");
    std::vector<int> ids = tok.encode(text);
    const int limit = std::min(kMaxSourceTokens, c.max_positions) - 1;
    if (int(ids.size()) > limit)
        throw Error("text is too long (" + std::to_string(ids.size()) + " tokens; at most " +
                    std::to_string(limit) + "): split it into sentences");
    if (ids.empty()) throw Error("empty text: there is nothing to translate");
    ids.push_back(c.eos_id);
    return ids;
}

SearchOptions search_options(const TranslateOptions& o, const LoadedModel& m, int src_len) {
    const ModelConfig& c = m.model.config();
    SearchOptions s;
    s.start_id = m.directions.start_id(o.to);
    s.interventions = &o.interventions;
    s.beam_size = o.beam_size;
    s.max_length = o.max_length > 0 ? o.max_length : 2 * src_len + 10;
    // why: a forced prefix is decoded whole, with room for one more token after it
    s.max_length = std::max(s.max_length, int(o.forced_prefix.size()) + 1);
    s.max_length = std::min(s.max_length, c.max_positions);
    s.forced_prefix = o.forced_prefix;
    s.banned = &m.never_emitted;
    s.bytes = m.bytes.ids.empty() ? nullptr : &m.bytes;
    s.length_penalty = o.length_penalty;
    s.return_attention = o.return_attention;
    s.top_k = o.top_k;
    return s;
}

Array make_array(std::vector<std::size_t> shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return Array{std::move(shape), std::vector<float>(n, 0.0f)};
}

Translation to_translation(const Tokenizer& tok, const ModelConfig& c, const Prepared& p,
                           const Hypothesis& h, bool with_attention) {
    Translation out;
    out.source_ids = p.ids;
    for (int id : p.ids) out.source_tokens.push_back(tok.piece(id));
    out.target_ids = h.tokens;
    std::vector<int> text_ids;
    for (std::size_t i = 0; i < h.tokens.size(); ++i) {
        out.target_tokens.push_back(tok.piece(h.tokens[i]));
        out.token_probs.push_back(std::exp(h.logprobs[i]));
        if (h.tokens[i] != c.eos_id) text_ids.push_back(h.tokens[i]);
    }
    out.text = tok.decode(text_ids);
    out.truncated = h.tokens.empty() || h.tokens.back() != c.eos_id;
    out.score = h.score;
    if (!with_attention) return out;

    const std::size_t L = c.decoder_layers, H = c.heads, S = p.ids.size(), T = h.steps.size();
    AttentionTrace& a = out.attention;
    a.encoder_self = Array{{std::size_t(c.encoder_layers), H, S, S}, p.trace.self_attn};
    a.decoder_self = make_array({L, H, T, T});
    a.cross = make_array({L, H, T, S});
    for (std::size_t t = 0; t < T; ++t) {
        const StepRecord& r = h.steps[t];
        for (std::size_t l = 0; l < L; ++l)
            for (std::size_t hd = 0; hd < H; ++hd) {
                const float* self_row = r.self_attn.data() + (l * H + hd) * (t + 1);
                std::copy(self_row, self_row + t + 1,
                          a.decoder_self.data.begin() + ((l * H + hd) * T + t) * T);
                const float* cross_row = r.cross_attn.data() + (l * H + hd) * S;
                std::copy(cross_row, cross_row + S,
                          a.cross.data.begin() + ((l * H + hd) * T + t) * S);
            }
        StepTrace st;
        st.token = r.token;
        st.prob = r.prob;
        for (std::size_t k = 0; k < r.top_ids.size(); ++k)
            st.top.push_back(Candidate{r.top_ids[k], tok.piece(r.top_ids[k]), r.top_probs[k]});
        a.steps.push_back(std::move(st));
    }
    a.beam = h.beam;
    for (std::vector<BeamNode>& step : a.beam)
        for (BeamNode& n : step) n.piece = tok.piece(n.token);
    a.beam_winner = h.beam_node;
    out.has_attention = true;
    return out;
}

/// The output layer of options.shortlist for these sentences (their sources' pieces together),
/// or none.
std::unique_ptr<OutputLayer> shortlist_layer(const LoadedModel& m, const TranslateOptions& o,
                                             const std::vector<const std::vector<int>*>& sources) {
    if (!o.shortlist) return nullptr;
    const Shortlist& sl = m.model.weights().shortlists.at(m.directions.target(o.to));
    std::vector<int> source, extra = o.forced_prefix;
    for (const std::vector<int>* s : sources) source.insert(source.end(), s->begin(), s->end());
    extra.push_back(m.model.config().eos_id);
    return std::make_unique<OutputLayer>(m.model.output_layer(sl.select(source, extra)));
}

/// translate_one's step event: the best hypothesis's tokens and its newest rows only.
StepEvent step_event(const Tokenizer& tok, const ModelConfig& c, const std::vector<int>& source_ids,
                     const std::vector<std::string>& source_tokens, const Array& encoder_self,
                     const SearchProgress& best) {
    StepEvent e;
    e.step = int(best.tokens.size()) - 1;
    e.target_ids = best.tokens;
    for (int id : best.tokens) e.target_tokens.push_back(tok.piece(id));
    e.prob = best.logprobs.empty() ? 0.0f : std::exp(best.logprobs.back());
    e.source_ids = &source_ids;
    e.source_tokens = &source_tokens;
    if (!best.last) return e;
    const StepRecord& r = *best.last;
    const std::size_t L = c.decoder_layers, H = c.heads, S = source_ids.size();
    for (std::size_t k = 0; k < r.top_ids.size(); ++k)
        e.top.push_back(Candidate{r.top_ids[k], tok.piece(r.top_ids[k]), r.top_probs[k]});
    e.has_attention = true;
    e.decoder_self = Array{{L, H, std::size_t(e.step) + 1}, r.self_attn};
    e.cross = Array{{L, H, S}, r.cross_attn};
    if (e.step == 0) e.encoder_self = &encoder_self;
    return e;
}

}  // namespace

std::vector<Translation> Translator::translate(const std::vector<std::string>& texts,
                                               const TranslateOptions& options) const {
    check_options(options);
    check_against_model(options);  // why: an unknown target or head fails before any work
    std::vector<std::vector<int>> ids;
    for (const std::string& text : texts)
        ids.push_back(source_ids(loaded_->tokenizer, loaded_->model.config(), text));
    return translate_ids(std::move(ids), options);
}

std::vector<Translation> Translator::translate_ids(std::vector<std::vector<int>> ids,
                                                   const TranslateOptions& options) const {
    const int threads = std::min(options.threads, int(ids.size()));
    if (!kHaveThreads || threads <= 1) return translate_group(std::move(ids), options);
    // why: sentence i goes to group i % threads, so long and short sentences spread evenly
    std::vector<std::vector<std::vector<int>>> groups(threads);
    for (std::size_t i = 0; i < ids.size(); ++i) groups[i % threads].push_back(std::move(ids[i]));
    std::vector<std::vector<Translation>> results(threads);
    std::vector<std::exception_ptr> errors(threads);
    const auto run = [&](int g) {
        try {
            results[g] = translate_group(std::move(groups[g]), options);
        } catch (...) {
            errors[g] = std::current_exception();
        }
    };
    std::vector<std::thread> workers;
    for (int g = 1; g < threads; ++g) workers.emplace_back(run, g);
    run(0);
    for (std::thread& w : workers) w.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<Translation> out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out.push_back(std::move(results[i % threads][i / threads]));
    return out;
}

std::vector<Translation> Translator::translate_group(std::vector<std::vector<int>> ids,
                                                     const TranslateOptions& options) const {
    const ModelConfig& c = loaded_->model.config();
    std::vector<Prepared> prepared(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        prepared[i].ids = std::move(ids[i]);
        prepared[i].memory =
            loaded_->model.encode(prepared[i].ids,
                                  options.return_attention ? &prepared[i].trace : nullptr,
                                  &options.interventions);
    }
    std::vector<Translation> out;
    if (options.beam_size == 1) {
        // why: greedy decodes every sentence together, one decoder row each
        int longest = 0;
        std::vector<const Memory*> memories;
        for (const Prepared& p : prepared) {
            memories.push_back(&p.memory);
            longest = std::max(longest, int(p.ids.size()));
        }
        SearchOptions so = search_options(options, *loaded_, longest);
        std::vector<const std::vector<int>*> sources;
        for (const Prepared& p : prepared) sources.push_back(&p.ids);
        const std::unique_ptr<OutputLayer> output = shortlist_layer(*loaded_, options, sources);
        so.output = output.get();
        std::vector<Hypothesis> hyps = greedy_search(loaded_->model, memories, so);
        for (std::size_t i = 0; i < prepared.size(); ++i) {
            Hypothesis& h = hyps[i];
            const int own_max =
                search_options(options, *loaded_, int(prepared[i].ids.size())).max_length;
            if (int(h.tokens.size()) > own_max) {  // why: same cap as a one-sentence call
                h.tokens.resize(own_max);
                h.logprobs.resize(own_max);
                if (!h.steps.empty()) h.steps.resize(own_max);
                h.score = 0;
                for (float lp : h.logprobs) h.score += lp;
            }
            out.push_back(to_translation(loaded_->tokenizer, c, prepared[i], h,
                                         options.return_attention));
            out.back().output_size = output ? int(output->ids.size()) : c.vocab_size;
        }
    } else {
        for (const Prepared& p : prepared) {
            SearchOptions so = search_options(options, *loaded_, int(p.ids.size()));
            const std::unique_ptr<OutputLayer> output =
                shortlist_layer(*loaded_, options, {&p.ids});
            so.output = output.get();
            out.push_back(to_translation(loaded_->tokenizer, c, p,
                                         beam_search(loaded_->model, p.memory, so),
                                         options.return_attention));
            out.back().output_size = output ? int(output->ids.size()) : c.vocab_size;
        }
    }
    const std::string to = loaded_->directions.target(options.to);
    for (Translation& t : out) {
        t.to = to;
        t.costs = attention_costs(c, options.interventions, int(t.source_ids.size()),
                                  int(t.target_ids.size()));
    }
    return out;
}

std::vector<BatchItem> Translator::translate_batch(const std::vector<std::string>& texts,
                                                  const TranslateOptions& options) const {
    check_options(options);
    check_against_model(options);
    if (texts.size() > kMaxBatchTexts)
        throw Error("a batch holds at most " + std::to_string(kMaxBatchTexts) + " texts (got " +
                    std::to_string(texts.size()) + ")");
    std::vector<BatchItem> items(texts.size());
    std::vector<std::vector<int>> good;
    std::vector<std::size_t> where;
    std::size_t pieces = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        try {
            good.push_back(source_ids(loaded_->tokenizer, loaded_->model.config(), texts[i]));
            pieces += good.back().size();
            where.push_back(i);
        } catch (const Error& e) {
            items[i].error = e.what();
        }
    }
    if (pieces > kMaxBatchPieces)
        throw Error("a batch holds at most " + std::to_string(kMaxBatchPieces) +
                    " source pieces in all (got " + std::to_string(pieces) +
                    "): split it into smaller batches");
    std::vector<Translation> done = translate_ids(std::move(good), options);
    for (std::size_t k = 0; k < done.size(); ++k) {
        items[where[k]].ok = true;
        items[where[k]].translation = std::move(done[k]);
    }
    return items;
}

Translation Translator::translate_one(const std::string& text, const TranslateOptions& options,
                                      const StepCallback& on_step) const {
    check_options(options);
    check_against_model(options);  // why: an unknown target or head fails before any work
    const ModelConfig& c = loaded_->model.config();
    Prepared p;
    p.ids = source_ids(loaded_->tokenizer, c, text);
    p.memory = loaded_->model.encode(p.ids, options.return_attention ? &p.trace : nullptr,
                                     &options.interventions);
    SearchOptions so = search_options(options, *loaded_, int(p.ids.size()));
    const std::unique_ptr<OutputLayer> output = shortlist_layer(*loaded_, options, {&p.ids});
    so.output = output.get();
    SearchObserver observer;
    std::vector<std::string> source_tokens;
    Array encoder_self;
    if (on_step) {
        for (int id : p.ids) source_tokens.push_back(loaded_->tokenizer.piece(id));
        if (options.return_attention)
            encoder_self = Array{{std::size_t(c.encoder_layers), std::size_t(c.heads),
                                  p.ids.size(), p.ids.size()},
                                 p.trace.self_attn};
        observer = [&](const SearchProgress& best) {
            return on_step(step_event(loaded_->tokenizer, c, p.ids, source_tokens, encoder_self,
                                      best));
        };
    }
    Hypothesis h = options.beam_size == 1
                       ? greedy_search(loaded_->model, {&p.memory}, so, observer)[0]
                       : beam_search(loaded_->model, p.memory, so, observer);
    Translation out = to_translation(loaded_->tokenizer, c, p, h, options.return_attention);
    out.to = loaded_->directions.target(options.to);
    out.costs = attention_costs(c, options.interventions, int(out.source_ids.size()),
                                int(out.target_ids.size()));
    out.output_size = output ? int(output->ids.size()) : c.vocab_size;
    return out;
}

HeadExplanation Translator::explain_head(const std::vector<int>& source,
                                         const std::vector<int>& target, AttentionBlock block,
                                         int layer, int head, const std::string& to) const {
    const ModelConfig& c = loaded_->model.config();
    if (source.empty()) throw Error("explain: the source has no tokens");
    if (int(source.size()) > c.max_positions || int(target.size()) > c.max_positions)
        throw Error("explain: sequence longer than the model's positions");
    for (int id : source)
        if (id < 0 || id >= c.vocab_size) throw Error("explain: source id out of range");
    for (int id : target)
        if (id < 0 || id >= c.vocab_size) throw Error("explain: target id out of range");
    const HeadQuery query{block, layer, head, loaded_->directions.start_id(to)};
    HeadExplanation e = heed::explain_head(loaded_->model, source, target, query);
    e.start_token = loaded_->tokenizer.piece(query.start_id);
    return e;
}

}  // namespace heed
