// The façade: validates text and options, tokenises, runs the encoder and the search, and
// turns hypotheses into Translations (text, tokens, probabilities, attention trace).
#include "translator/translator.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/error.h"
#include "core/thread_pool.h"
#include "core/utf8.h"
#include "decoding/search.h"
#include "model/explain.h"
#include "model/model.h"
#include "tokenizer/vocabulary.h"
#include "translator/copy_spans.h"
#include "translator/loaded_model.h"
#include "translator/results.h"

namespace heed {
namespace {

/// Whether the threads of a call share each product of its one sentence (greedy or beam)
/// instead of taking a sentence each (README, Speed: 2 threads against 1 on one sentence).
bool shares_products(const TranslateOptions& options, std::size_t sentences) {
    return sentences == 1 && options.threads > 1;
}

bool is_blank(const std::string& s) {
    for (unsigned char ch : s)
        if (!std::isspace(ch)) return false;
    return true;
}

}  // namespace

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
std::size_t Translator::weight_bytes() const { return loaded_->model.weights().resident_bytes(); }
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
                        "' (python3 -m models.pipeline.make_shortlist adds one)");
    }
    const ModelConfig& c = loaded_->model.config();
    const std::vector<int>& prefix = options.forced_prefix;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        const std::string field =
            "forcedPrefix[" + std::to_string(i) + "] = " + std::to_string(prefix[i]);
        if (prefix[i] < 0 || prefix[i] >= c.target_vocab())
            throw Error(field + " is not a target id of this model (0.." +
                        std::to_string(c.target_vocab() - 1) + ")");
        const std::vector<int>& never = loaded_->never_emitted;
        if (std::binary_search(never.begin(), never.end(), prefix[i]))
            throw Error(
                field +
                (prefix[i] == c.unk_id ? " is the unknown piece '" : " is the control piece '") +
                loaded_->target_tokenizer().piece(prefix[i]) + "', which the decoder never emits");
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
        if (a.block == AttentionBlock::DecoderSelf && c.ssru_decoder())
            throw Error(field +
                        ".block: this model's decoder has no self-attention (an SSRU "
                        "cell takes its place), so there is no head to ablate there");
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

std::vector<int> source_ids(const Vocabulary& tok, const ModelConfig& c, const std::string& text) {
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
    // why: Marian stops at max-length-factor × the source's pieces (</s> included); Bergamot,
    // and so Firefox, sets the factor to 2
    const bool marian = c.search_rules == SearchRules::Marian;
    s.max_length = o.max_length > 0 ? o.max_length : marian ? 2 * src_len : 2 * src_len + 10;
    // why: a forced prefix is decoded whole, with room for one more token after it
    s.max_length = std::max(s.max_length, int(o.forced_prefix.size()) + 1);
    s.max_length = std::min(s.max_length, c.max_positions);
    s.forced_prefix = o.forced_prefix;
    s.banned = &m.never_emitted;
    s.bytes = m.bytes.ids.empty() ? nullptr : &m.bytes;
    s.texts = m.texts.text.empty() || !o.copy_guard ? nullptr : &m.texts;
    s.length_penalty = o.length_penalty;
    s.rules = c.search_rules;
    s.return_attention = o.return_attention;
    s.top_k = o.top_k;
    return s;
}

/// The copy guard's rules for a sentence (source ids), as its text decodes.
CopyRules rules_of(const LoadedModel& m, const std::vector<int>& ids) {
    if (m.texts.text.empty()) return {};  // why: no guard (a Marian model)
    return copy_rules(m.tokenizer.decode(ids));
}

/// The output layer of options.shortlist for these sentences (their sources' pieces together),
/// or none.
std::unique_ptr<OutputLayer> shortlist_layer(const LoadedModel& m, const TranslateOptions& o,
                                             const std::vector<const std::vector<int>*>& sources) {
    if (!o.shortlist) return nullptr;
    const Shortlist& sl = m.model.weights().shortlists.at(m.directions.target(o.to));
    std::vector<int> source, extra = o.forced_prefix;
    for (const std::vector<int>* s : sources) source.insert(source.end(), s->begin(), s->end());
    const ModelConfig& c = m.model.config();
    extra.push_back(c.eos_id);
    const int multiple = c.search_rules == SearchRules::Marian ? 8 : 1;
    return std::make_unique<OutputLayer>(
        m.model.output_layer(sl.select(source, extra, multiple, c.target_vocab())));
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
    if (!kHaveThreads || options.threads <= 1 || ids.empty())
        return translate_group(std::move(ids), options);
    // why: the threads are started once for the call and reused by every product of it
    const bool share_products = shares_products(options, ids.size());
    ThreadPool pool(share_products ? options.threads : std::min(options.threads, int(ids.size())));
    const int threads = pool.threads();
    if (share_products) {
        // why: one sentence: every thread works inside each large product (output columns
        // shared out, the same bits as one thread)
        PoolScope scope(&pool);
        return translate_group(std::move(ids), options);
    }
    if (threads <= 1) return translate_group(std::move(ids), options);
    // why: sentence i goes to group i % threads, so long and short sentences spread evenly
    std::vector<std::vector<std::vector<int>>> groups(threads);
    for (std::size_t i = 0; i < ids.size(); ++i) groups[i % threads].push_back(std::move(ids[i]));
    std::vector<std::vector<Translation>> results(threads);
    std::vector<std::exception_ptr> errors(threads);
    pool.run([&](int g) {
        try {
            results[g] = translate_group(std::move(groups[g]), options);
        } catch (...) {
            errors[g] = std::current_exception();
        }
    });
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<Translation> out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out.push_back(std::move(results[i % threads][i / threads]));
    return out;
}

std::vector<Translation> Translator::translate_group(std::vector<std::vector<int>> ids,
                                                     const TranslateOptions& options) const {
    std::vector<Prepared> prepared(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        prepared[i].ids = std::move(ids[i]);
        prepared[i].memory = loaded_->model.encode(
            prepared[i].ids, options.return_attention ? &prepared[i].trace : nullptr,
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
        for (const Prepared& p : prepared) {
            so.row_max_length.push_back(
                search_options(options, *loaded_, int(p.ids.size())).max_length);
            so.copy.push_back(rules_of(*loaded_, p.ids));
        }
        std::vector<const std::vector<int>*> sources;
        for (const Prepared& p : prepared) sources.push_back(&p.ids);
        const std::unique_ptr<OutputLayer> output = shortlist_layer(*loaded_, options, sources);
        so.output = output.get();
        std::vector<Hypothesis> hyps = greedy_search(loaded_->model, memories, so);
        for (std::size_t i = 0; i < prepared.size(); ++i)
            out.push_back(
                finish(to_translation(*loaded_, prepared[i], hyps[i], options.return_attention),
                       *loaded_, options, output.get()));
    } else {
        for (const Prepared& p : prepared) {
            SearchOptions so = search_options(options, *loaded_, int(p.ids.size()));
            so.copy.push_back(rules_of(*loaded_, p.ids));
            const std::unique_ptr<OutputLayer> output =
                shortlist_layer(*loaded_, options, {&p.ids});
            so.output = output.get();
            out.push_back(
                finish(to_translation(*loaded_, p, beam_search(loaded_->model, p.memory, so),
                                      options.return_attention),
                       *loaded_, options, output.get()));
        }
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
    // why: one sentence: under beam search every thread of options.threads works inside each
    // large product
    ThreadPool pool(kHaveThreads && shares_products(options, 1) ? options.threads : 1);
    PoolScope scope(&pool);
    Prepared p;
    p.ids = source_ids(loaded_->tokenizer, c, text);
    p.memory = loaded_->model.encode(p.ids, options.return_attention ? &p.trace : nullptr,
                                     &options.interventions);
    SearchOptions so = search_options(options, *loaded_, int(p.ids.size()));
    so.copy.push_back(rules_of(*loaded_, p.ids));
    const std::unique_ptr<OutputLayer> output = shortlist_layer(*loaded_, options, {&p.ids});
    so.output = output.get();
    SearchObserver observer;
    std::vector<std::string> source_tokens;
    Array encoder_self;
    if (on_step) {
        for (int id : p.ids) source_tokens.push_back(loaded_->tokenizer.piece(id));
        if (options.return_attention)
            encoder_self = Array{
                {std::size_t(c.encoder_layers), std::size_t(c.heads), p.ids.size(), p.ids.size()},
                p.trace.self_attn};
        observer = [&](const SearchProgress& best) {
            return on_step(step_event(loaded_->target_tokenizer(), c, p.ids, source_tokens,
                                      encoder_self, best));
        };
    }
    Hypothesis h = options.beam_size == 1
                       ? greedy_search(loaded_->model, {&p.memory}, so, observer)[0]
                       : beam_search(loaded_->model, p.memory, so, observer);
    return finish(to_translation(*loaded_, p, h, options.return_attention), *loaded_, options,
                  output.get());
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
        if (id < 0 || id >= c.target_vocab()) throw Error("explain: target id out of range");
    const HeadQuery query{block, layer, head, loaded_->directions.start_id(to)};
    HeadExplanation e = heed::explain_head(loaded_->model, source, target, query);
    e.start_token = loaded_->target_tokenizer().piece(query.start_id);
    return e;
}

}  // namespace heed
