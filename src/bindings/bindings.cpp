// Embind bindings of the WASM module: the only file including <emscripten/bind.h>.
// Type conversion and ownership only; every computation lives below (translator/, ops/).
// Not the JS API: web/lib/heed.js wraps these into the typed façade of heed.d.ts.
// TranslateOptions and their limits cross as Embind value objects under their public JS names
// (beam, maxLength, lengthPenalty, attention, topK): this file is where the names meet.
//
// Conventions. Tensors cross as {shape: number[], data: Float32Array}; arrays leaving WASM are
// copied (memory growth detaches views), except the per-step views handed to the step callback,
// valid only during that call. Fallible calls return {value} or {code, message}: C++
// exceptions are caught here, after unwinding, so no WASM memory leaks and JS never sees a raw
// exception pointer; the façade turns {code, message} into a HeedError.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/error.h"
#include "marian/marian_model.h"
#include "translator/attention_lab.h"
#include "translator/call_budget.h"
#include "translator/sentence_splitter.h"
#include "translator/translator.h"

namespace {

using emscripten::typed_memory_view;
using emscripten::val;

// ---- JS values out ---------------------------------------------------------------------

/// A new Float32Array holding a copy of `n` floats.
val floats_copy(const float* data, std::size_t n) {
    return val::global("Float32Array").new_(typed_memory_view(n, data));
}

/// A Float32Array viewing WASM memory (no copy); valid until the next allocation in WASM.
val floats_view(const float* data, std::size_t n) { return val(typed_memory_view(n, data)); }

template <class T>
val number_array(const std::vector<T>& xs) {
    val a = val::array();
    for (std::size_t i = 0; i < xs.size(); ++i) a.set(i, xs[i]);
    return a;
}

val string_array(const std::vector<std::string>& xs) {
    val a = val::array();
    for (std::size_t i = 0; i < xs.size(); ++i) a.set(i, val(xs[i]));
    return a;
}

val tensor(const std::vector<std::size_t>& shape, val data) {
    val t = val::object();
    t.set("shape", number_array(shape));
    t.set("data", data);
    return t;
}

val tensor(const heed::Array& a, bool copy) {
    return tensor(a.shape, copy ? floats_copy(a.data.data(), a.data.size())
                                : floats_view(a.data.data(), a.data.size()));
}

/// A step's top-k candidates as [{id, piece, prob}].
val candidates_val(const std::vector<heed::Candidate>& candidates) {
    val top = val::array();
    for (std::size_t j = 0; j < candidates.size(); ++j) {
        val c = val::object();
        c.set("id", candidates[j].id);
        c.set("piece", val(candidates[j].piece));
        c.set("prob", candidates[j].prob);
        top.set(j, c);
    }
    return top;
}

val steps_val(const std::vector<heed::StepTrace>& steps) {
    val out = val::array();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const heed::StepTrace& s = steps[i];
        val step = val::object();
        step.set("id", s.token);
        step.set("prob", s.prob);
        step.set("top", candidates_val(s.top));
        out.set(i, step);
    }
    return out;
}

/// translate_one's StepEvent: this step's rows only, viewing WASM memory (heed.js copies them).
val step_val(const heed::StepEvent& e) {
    val r = val::object();
    r.set("step", e.step);
    r.set("sentence", e.sentence);
    r.set("sentences", e.sentences);
    r.set("targetIds", number_array(e.target_ids));
    r.set("targetTokens", string_array(e.target_tokens));
    r.set("prob", e.prob);
    r.set("top", candidates_val(e.top));
    r.set("sourceIds", number_array(*e.source_ids));
    r.set("sourceTokens", string_array(*e.source_tokens));
    if (e.has_attention) {
        // why: views last; converting a std::string mallocs, which may grow (detach) memory
        if (e.encoder_self) r.set("encoderSelf", tensor(*e.encoder_self, false));
        r.set("decoderSelf", tensor(e.decoder_self, false));
        r.set("cross", tensor(e.cross, false));
        if (!e.forget.data.empty()) r.set("forget", tensor(e.forget, false));
    }
    return r;
}

/// The beam tree: per step, [{token, piece, parent, logprob, finished}].
val beam_val(const heed::AttentionTrace& a) {
    val steps = val::array();
    for (std::size_t t = 0; t < a.beam.size(); ++t) {
        val nodes = val::array();
        for (std::size_t k = 0; k < a.beam[t].size(); ++k) {
            const heed::BeamNode& b = a.beam[t][k];
            val n = val::object();
            n.set("token", b.token);
            n.set("piece", val(b.piece));
            n.set("parent", b.parent);
            n.set("logprob", b.logprob);
            n.set("finished", b.finished);
            nodes.set(k, n);
        }
        steps.set(t, nodes);
    }
    return steps;
}

/// Translation::costs as [{block, layer, macs, stateBytes}] (block names as the trace's).
val costs_val(const std::vector<heed::AttentionCost>& costs) {
    val out = val::array();
    for (const heed::AttentionCost& c : costs) {
        val e = val::object();
        e.set("block", val(std::string(heed::block_name(c.block))));
        e.set("layer", c.layer);
        e.set("macs", c.macs);
        e.set("stateBytes", c.state_bytes);
        out.call<void>("push", e);
    }
    return out;
}

/// A Translation as a plain object, its attention arrays copied out of WASM memory.
val translation_val(const heed::Translation& t) {
    val r = val::object();
    r.set("text", val(t.text));
    r.set("sourceTokens", string_array(t.source_tokens));
    r.set("targetTokens", string_array(t.target_tokens));
    r.set("sourceIds", number_array(t.source_ids));
    r.set("targetIds", number_array(t.target_ids));
    r.set("tokenProbs", number_array(t.token_probs));
    r.set("score", t.score);
    r.set("to", val(t.to));
    r.set("truncated", t.truncated);
    r.set("costs", costs_val(t.costs));
    r.set("outputSize", t.output_size);
    if (t.has_attention) {
        val a = val::object();
        a.set("steps", steps_val(t.attention.steps));
        if (!t.attention.beam.empty()) {
            a.set("beam", beam_val(t.attention));
            a.set("beamWinner", t.attention.beam_winner);
        }
        // why: views last; converting a std::string mallocs, which may grow (detach) memory
        a.set("encoderSelf", tensor(t.attention.encoder_self, true));
        a.set("decoderSelf", tensor(t.attention.decoder_self, true));
        a.set("cross", tensor(t.attention.cross, true));
        if (!t.attention.forget.data.empty()) a.set("forget", tensor(t.attention.forget, true));
        r.set("attention", a);
    }
    return r;
}

// ---- JS values in ----------------------------------------------------------------------

/// Copies a {data: Float32Array | number[], shape} tensor object into an Array (the façade
/// checks sizes).
heed::Array array_from(const val& t) {
    heed::Array a;
    a.shape = emscripten::vecFromJSArray<std::size_t>(t["shape"]);
    a.data = emscripten::convertJSArrayToNumberVector<float>(t["data"]);
    return a;
}

std::vector<int> ints_from(const val& a) { return emscripten::vecFromJSArray<int>(a); }

/// {kind: MaskKind, window, offset, keyPadding?: Uint8Array, blocked?: Uint8Array [Lq*Lk]}
heed::LabMask mask_from(const val& m) {
    heed::LabMask mask;
    mask.kind = m["kind"].as<heed::MaskKind>();
    mask.window = m["window"].as<int>();
    mask.offset = m["offset"].as<int>();
    if (!m["keyPadding"].isUndefined())
        mask.key_padding = emscripten::convertJSArrayToNumberVector<std::uint8_t>(m["keyPadding"]);
    if (!m["blocked"].isUndefined())
        mask.blocked = emscripten::convertJSArrayToNumberVector<std::uint8_t>(m["blocked"]);
    return mask;
}

// ---- errors ----------------------------------------------------------------------------

val failure(const char* code, const char* message) {
    val r = val::object();
    r.set("code", val(code));
    r.set("message", val(message));
    return r;
}

/// Runs `f` and wraps its value as {value}; exceptions become {code, message}, heed::Error
/// with `code` (what the user did wrong), anything else with INTERNAL.
template <class F>
val guarded(const char* code, F&& f) {
    try {
        val r = val::object();
        r.set("value", f());
        return r;
    } catch (const heed::Error& e) {
        return failure(code, e.what());
    } catch (const std::bad_alloc&) {
        return failure("INTERNAL", "out of WebAssembly memory");
    } catch (const std::exception& e) {
        return failure("INTERNAL", e.what());
    }
}

/// One text of translate_texts(): its translation, its gaps (gaps[0] + sentences[0].source +
/// gaps[1] + ... is the text) and each sentence's result with its source; or why not.
val text_val(const std::string& text, const heed::TextTranslation& t) {
    val r = val::object();
    if (t.stopped) {
        r.set("stopped", true);
        return r;
    }
    if (!t.ok) {
        r.set("error", failure("BAD_INPUT", t.error.c_str()));
        return r;
    }
    val gaps = val::array(), sentences = val::array();
    std::size_t at = 0;
    for (std::size_t i = 0; i < t.spans.size(); ++i) {
        const heed::TextSpan& s = t.spans[i];
        gaps.set(i, val(text.substr(at, s.begin - at)));
        val sentence = translation_val(t.sentences[i]);
        sentence.set("source", val(text.substr(s.begin, s.end - s.begin)));
        sentences.set(i, sentence);
        at = s.end;
    }
    gaps.set(t.spans.size(), val(text.substr(at)));
    r.set("text", val(t.text));
    r.set("gaps", gaps);
    r.set("sentences", sentences);
    return r;
}

// ---- Marian bundles --------------------------------------------------------------------

std::string bytes_of(const val& u8) {
    const std::vector<std::uint8_t> v = emscripten::convertJSArrayToNumberVector<std::uint8_t>(u8);
    return std::string(v.begin(), v.end());
}

/// {model, vocabs, shortlist, source, target} -> the bundle (bytes copied into WASM memory).
heed::MarianBundle marian_bundle(const val& b) {
    heed::MarianBundle out;
    out.model = bytes_of(b["model"]);
    const val vocabs = b["vocabs"];
    for (unsigned i = 0, n = vocabs["length"].as<unsigned>(); i < n; ++i)
        out.vocabs.push_back(bytes_of(vocabs[i]));
    if (!b["shortlist"].isNull() && !b["shortlist"].isUndefined())
        out.shortlist = bytes_of(b["shortlist"]);
    out.source_language = b["source"].as<std::string>();
    out.target_language = b["target"].as<std::string>();
    return out;
}

/// The bundle as a Heed model file (a Uint8Array copied out of WASM memory), for a cache.
val marian_to_heed(const val& bundle) {
    return guarded("BAD_MODEL", [&] {
        const std::vector<std::uint8_t> file = heed::heed_file_from_marian(marian_bundle(bundle));
        val view(emscripten::typed_memory_view(file.size(), file.data()));
        val copy = val::global("Uint8Array").new_(file.size());
        copy.call<void>("set", view);
        return copy;
    });
}

// ---- the translator --------------------------------------------------------------------

/// Owns one heed::Translator; JS creates it empty, then load()s bytes into it.
class TranslatorHandle {
  public:
    /// bytes: Uint8Array (copied into WASM memory for the duration of parsing).
    /// int8: keep I8 weights int8 (LoadSettings::int8).
    val load(const val& bytes, bool int8) {
        return guarded("BAD_MODEL", [&] {
            std::vector<std::uint8_t> data =
                emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
            heed::LoadSettings settings;
            settings.int8 = int8;
            translator_ = heed::Translator::load(data.data(), data.size(), settings);
            return val(true);
        });
    }

    /// A Marian bundle (marian/marian_model.h), converted and loaded without leaving WASM:
    /// bundle = {model: Uint8Array, vocabs: Uint8Array[], shortlist: Uint8Array | null,
    /// source: string, target: string} (checked in JS).
    val load_marian(const val& bundle, bool int8) {
        return guarded("BAD_MODEL", [&] {
            const std::vector<std::uint8_t> file =
                heed::heed_file_from_marian(marian_bundle(bundle));
            heed::LoadSettings settings;
            settings.int8 = int8;
            translator_ = heed::Translator::load(file.data(), file.size(), settings);
            return val(true);
        });
    }

    /// texts: string[] (checked in JS: dense, strings, no lone surrogates); on_step(event) ->
    /// bool (false stops), or null: the event's rows view WASM memory.
    /// -> ({text, gaps, sentences: (Translation & {source})[]} | {error: {code, message}} |
    ///     {stopped: true})[]
    val translate_texts(const val& texts, const heed::TranslateOptions& options,
                        const val& on_step) const {
        return guarded("BAD_INPUT", [&] {
            const std::vector<std::string> in = emscripten::vecFromJSArray<std::string>(texts);
            heed::StepCallback callback;
            if (!on_step.isNull() && !on_step.isUndefined())
                callback = [&on_step](const heed::StepEvent& e) {
                    return on_step(step_val(e)).as<bool>();
                };
            const std::vector<heed::TextTranslation> done =
                get().translate_texts(in, options, callback);
            val out = val::array();
            for (std::size_t i = 0; i < done.size(); ++i) out.set(i, text_val(in[i], done[i]));
            return out;
        });
    }

    /// block: an AttentionBlock value (JS: core.AttentionBlock.encoder, .decoder, .cross).
    /// to: the result's target language (re-run from the same decoder start token).
    val explain_head(const val& source_ids, const val& target_ids, heed::AttentionBlock block,
                     int layer, int head, const std::string& to) const {
        return guarded("BAD_INPUT", [&] {
            heed::HeadExplanation e = get().explain_head(
                ints_from(source_ids), ints_from(target_ids), block, layer, head, to);
            val r = val::object();
            r.set("dk", e.dk);
            r.set("startToken", val(e.start_token));
            r.set("xq", tensor(e.xq, true));
            r.set("xkv", tensor(e.xkv, true));
            r.set("q", tensor(e.q, true));
            r.set("k", tensor(e.k, true));
            r.set("v", tensor(e.v, true));
            r.set("scores", tensor(e.scores, true));
            r.set("scaled", tensor(e.scaled, true));
            r.set("mask", tensor(e.mask, true));
            r.set("weights", tensor(e.weights, true));
            r.set("weightsUnscaled", tensor(e.weights_unscaled, true));
            r.set("output", tensor(e.output, true));
            r.set("concat", tensor(e.concat, true));
            r.set("projected", tensor(e.projected, true));
            r.set("valueNorms", tensor(e.value_norms, true));
            return r;
        });
    }

    /// {config: JSON text, metadata: JSON text, parameters: number, directions: string[]}
    val info() const {
        return guarded("BAD_MODEL", [&] {
            val r = val::object();
            r.set("config", val(get().config_json()));
            r.set("metadata", val(get().metadata_json()));
            r.set("parameters", double(get().parameter_count()));
            r.set("weightBytes", double(get().weight_bytes()));
            r.set("compute", val(std::string(get().int8_weights() ? "int8" : "f32")));
            val shortlists = val::array();
            for (const std::string& l : get().shortlist_languages())
                shortlists.call<void>("push", val(l));
            r.set("shortlists", shortlists);
            val directions = val::array();
            for (const std::string& d : get().directions()) directions.call<void>("push", val(d));
            r.set("directions", directions);
            return r;
        });
    }

  private:
    const heed::Translator& get() const {
        if (!translator_) throw heed::Error("no model loaded");
        return *translator_;
    }
    std::unique_ptr<heed::Translator> translator_;
};

// ---- attention lab --------------------------------------------------------------------

val result_val(const heed::LabResult& r) {
    val out = val::object();
    out.set("output", tensor(r.output, true));
    out.set("weights", tensor(r.weights, true));
    out.set("scores", tensor(r.scores, true));
    return out;
}

/// q, k, v: tensors; mask: see mask_from; params: {w?, u?, v?} tensors.
val attention(const val& q, const val& k, const val& v, heed::ScoreFunction score, const val& mask,
              const val& params) {
    return guarded("BAD_INPUT", [&] {
        heed::LabInputs in;
        in.q = array_from(q);
        in.k = array_from(k);
        in.v = array_from(v);
        in.score = score;
        in.mask = mask_from(mask);
        if (!params["w"].isUndefined()) in.w = array_from(params["w"]);
        if (!params["u"].isUndefined()) in.u = array_from(params["u"]);
        if (!params["v"].isUndefined()) in.a = array_from(params["v"]);
        return result_val(heed::lab_attention(in));
    });
}

val linear_attention(const val& q, const val& k, const val& v, bool causal) {
    return guarded("BAD_INPUT", [&] {
        return result_val(
            heed::lab_linear_attention(array_from(q), array_from(k), array_from(v), causal));
    });
}

/// -> {positions: [L, D], similarity?: [L, L] (only when with_similarity)}
val sinusoidal_positions(int length, int d_model, bool with_similarity) {
    return guarded("BAD_INPUT", [&] {
        const heed::LabPositions p = heed::lab_positions(length, d_model, with_similarity);
        val r = val::object();
        r.set("positions", tensor(p.positions, true));
        if (with_similarity) r.set("similarity", tensor(p.similarity, true));
        return r;
    });
}

// ---- diagnostics -----------------------------------------------------------------------

/// {inUse: bytes allocated by malloc, size: bytes of linear memory} (leak tests).
/// Every limit of the engine under its JS name: the options' (OptionLimits), one call's
/// (CallLimits), one engine batch's pieces, the model file's bytes and the lab's matrix side.
val limits_val() {
    const heed::OptionLimits& o = heed::kOptionLimits;
    const heed::CallLimits& c = heed::kCallLimits;
    val r = val::object();
    r.set("beam", o.beam_size);
    r.set("maxLength", o.max_length);
    r.set("lengthPenalty", o.length_penalty);
    r.set("topK", o.top_k);
    r.set("threads", o.threads);
    r.set("temperature", o.temperature);
    r.set("window", o.window);
    r.set("randomBlocks", o.random_blocks);
    r.set("sparseBlock", o.sparse_block);
    r.set("linearFeatures", o.linear_features);
    r.set("seed", double(o.seed));
    r.set("layers", o.layers);
    r.set("heads", o.heads);
    r.set("textBytes", double(c.text_bytes));
    r.set("batchTexts", double(c.texts));
    r.set("batchBytes", double(c.bytes));
    r.set("batchSentences", double(c.sentences));
    r.set("batchPieces", double(heed::kMaxBatchPieces));
    r.set("modelBytes", double(heed::kMaxModelBytes));
    r.set("labSize", double(heed::kLabMaxSize));
    r.set("labMaskInt", heed::kLabMaskInt);
    return r;
}

val heap_stats() {
    struct mallinfo mi = mallinfo();
    val r = val::object();
    r.set("inUse", double(mi.uordblks));
    r.set("size", double(emscripten_get_heap_size()));
    return r;
}

}  // namespace

/// Interventions.ablate crosses as a JS array (value_object has no vector fields).
val ablations_to_js(const heed::Interventions& iv) {
    val out = val::array();
    for (const heed::HeadAblation& a : iv.ablations) out.call<void>("push", val(a));
    return out;
}
void ablations_from_js(heed::Interventions& iv, val list) {
    iv.ablations = emscripten::vecFromJSArray<heed::HeadAblation>(list);
}
val forced_to_js(const heed::TranslateOptions& o) { return number_array(o.forced_prefix); }
void forced_from_js(heed::TranslateOptions& o, val list) {
    o.forced_prefix = emscripten::vecFromJSArray<int>(list);
}

/// LinearAttention.kind crosses as 'none' | 'favor' | 'elu' (heed.js has checked the name).
std::string linear_kind_to_js(const heed::LinearAttention& l) {
    static const char* const kKinds[] = {"none", "favor", "elu"};
    return kKinds[int(l.kind)];
}
void linear_kind_from_js(heed::LinearAttention& l, std::string kind) {
    l.kind = kind == "favor" ? heed::LinearKind::Favor
             : kind == "elu" ? heed::LinearKind::Elu
                             : heed::LinearKind::None;
}

EMSCRIPTEN_BINDINGS(heed) {
    // why: one name per option end to end; JS objects convert to TranslateOptions field by field
    emscripten::value_object<heed::TranslateOptions>("TranslateOptions")
        .field("beam", &heed::TranslateOptions::beam_size)
        .field("maxLength", &heed::TranslateOptions::max_length)
        .field("lengthPenalty", &heed::TranslateOptions::length_penalty)
        .field("attention", &heed::TranslateOptions::return_attention)
        .field("topK", &heed::TranslateOptions::top_k)
        .field("to", &heed::TranslateOptions::to)
        .field("interventions", &heed::TranslateOptions::interventions)
        .field("split", &heed::TranslateOptions::split)
        .field("shortlist", &heed::TranslateOptions::shortlist)
        .field("copyGuard", &heed::TranslateOptions::copy_guard)
        .field("threads", &heed::TranslateOptions::threads)
        .field("forcedPrefix", &forced_to_js, &forced_from_js);
    emscripten::value_object<heed::Interventions>("Interventions")
        .field("temperature", &heed::Interventions::temperature)
        .field("window", &heed::Interventions::window)
        .field("noPositions", &heed::Interventions::no_positions)
        .field("ablate", &ablations_to_js, &ablations_from_js)
        .field("sparse", &heed::Interventions::sparse)
        .field("linear", &heed::Interventions::linear);
    emscripten::value_object<heed::LinearAttention>("LinearAttention")
        .field("kind", &linear_kind_to_js, &linear_kind_from_js)
        .field("features", &heed::LinearAttention::features)
        .field("seed", &heed::LinearAttention::seed);
    emscripten::value_object<heed::SparsePattern>("SparsePattern")
        .field("enabled", &heed::SparsePattern::enabled)
        .field("randomBlocks", &heed::SparsePattern::random_blocks)
        .field("block", &heed::SparsePattern::block)
        .field("seed", &heed::SparsePattern::seed);
    emscripten::value_object<heed::HeadAblation>("HeadAblation")
        .field("block", &heed::HeadAblation::block)
        .field("layer", &heed::HeadAblation::layer)
        .field("head", &heed::HeadAblation::head)
        .field("mean", &heed::HeadAblation::mean);
    emscripten::function("limits", &limits_val);
    // why: the enums under the names the JS API uses, so neither side parses the other's strings
    emscripten::enum_<heed::AttentionBlock>("AttentionBlock")
        .value(heed::block_name(heed::AttentionBlock::EncoderSelf),
               heed::AttentionBlock::EncoderSelf)
        .value(heed::block_name(heed::AttentionBlock::DecoderSelf),
               heed::AttentionBlock::DecoderSelf)
        .value(heed::block_name(heed::AttentionBlock::Cross), heed::AttentionBlock::Cross);
    emscripten::enum_<heed::ScoreFunction>("ScoreFunction")
        .value("dot", heed::ScoreFunction::Dot)
        .value("scaled_dot", heed::ScoreFunction::ScaledDot)
        .value("general", heed::ScoreFunction::General)
        .value("additive", heed::ScoreFunction::Additive);
    emscripten::enum_<heed::MaskKind>("MaskKind")
        .value("none", heed::MaskKind::None)
        .value("causal", heed::MaskKind::Causal)
        .value("padding", heed::MaskKind::KeyPadding)
        .value("local", heed::MaskKind::LocalWindow)
        .value("custom", heed::MaskKind::Custom);
    emscripten::function(
        "defaultOptions", +[] { return heed::TranslateOptions{}; });
    emscripten::class_<TranslatorHandle>("Translator")
        .constructor<>()
        .function("load", &TranslatorHandle::load)
        .function("loadMarian", &TranslatorHandle::load_marian)
        .function("translateTexts", &TranslatorHandle::translate_texts)
        .function("explainHead", &TranslatorHandle::explain_head)
        .function("info", &TranslatorHandle::info);
    emscripten::function("attention", &attention);
    emscripten::function("marianToHeed", &marian_to_heed);
    emscripten::function("linearAttention", &linear_attention);
    emscripten::function("sinusoidalPositions", &sinusoidal_positions);
    emscripten::function("heapStats", &heap_stats);
}
