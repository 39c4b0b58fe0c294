// Embind bindings of the WASM module: the only file including <emscripten/bind.h>.
// Type conversion and ownership only; every computation lives below (translator/, ops/).
// Not the JS API: web/lib/heed.js wraps these into the typed façade of heed.d.ts.
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
#include "ops/attention.h"
#include "ops/linear_attention.h"
#include "ops/matmul.h"
#include "ops/positional_encoding.h"
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

val tensor(const heed::Mat& m) {
    return tensor({m.shape(0), m.shape(1)}, floats_copy(m.data(), m.size()));
}

val steps_val(const std::vector<heed::StepTrace>& steps) {
    val out = val::array();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const heed::StepTrace& s = steps[i];
        val top = val::array();
        for (std::size_t j = 0; j < s.top.size(); ++j) {
            val c = val::object();
            c.set("id", s.top[j].id);
            c.set("piece", val(s.top[j].piece));
            c.set("prob", s.top[j].prob);
            top.set(j, c);
        }
        val step = val::object();
        step.set("id", s.token);
        step.set("prob", s.prob);
        step.set("top", top);
        out.set(i, step);
    }
    return out;
}

/// A Translation as a plain object; attention arrays copied, or viewed when `copy` is false.
val translation_val(const heed::Translation& t, bool copy) {
    val r = val::object();
    r.set("text", val(t.text));
    r.set("sourceTokens", string_array(t.source_tokens));
    r.set("targetTokens", string_array(t.target_tokens));
    r.set("sourceIds", number_array(t.source_ids));
    r.set("targetIds", number_array(t.target_ids));
    r.set("tokenProbs", number_array(t.token_probs));
    r.set("score", t.score);
    if (t.has_attention) {
        val a = val::object();
        a.set("steps", steps_val(t.attention.steps));
        // why: views last; converting a std::string mallocs, which may grow (detach) memory
        a.set("encoderSelf", tensor(t.attention.encoder_self, copy));
        a.set("decoderSelf", tensor(t.attention.decoder_self, copy));
        a.set("cross", tensor(t.attention.cross, copy));
        r.set("attention", a);
    }
    return r;
}

// ---- JS values in ----------------------------------------------------------------------

/// Copies a JS Float32Array of rows*cols floats into a new matrix (the façade checks sizes).
heed::Mat mat_from(const val& data, int rows, int cols) {
    heed::Mat m = heed::Mat::from_shape({std::size_t(rows), std::size_t(cols)});
    val(typed_memory_view(m.size(), m.data())).call<void>("set", data);
    return m;
}

/// Reads a {data: Float32Array, shape: [rows, cols]} tensor object.
heed::Mat mat_from(const val& t) {
    val shape = t["shape"];
    return mat_from(t["data"], shape[0].as<int>(), shape[1].as<int>());
}

/// Copies a {data: Float32Array} tensor of any shape into a vector.
heed::Vec vec_from(const val& t) {
    val data = t["data"];
    heed::Vec v = heed::Vec::from_shape({data["length"].as<std::size_t>()});
    val(typed_memory_view(v.size(), v.data())).call<void>("set", data);
    return v;
}

std::vector<int> ints_from(const val& a) { return emscripten::vecFromJSArray<int>(a); }

heed::TranslateOptions options_from(const val& o) {
    heed::TranslateOptions options;
    options.beam_size = o["beamSize"].as<int>();
    options.max_length = o["maxLength"].as<int>();
    options.length_penalty = o["lengthPenalty"].as<float>();
    options.return_attention = o["attention"].as<bool>();
    options.top_k = o["topK"].as<int>();
    return options;
}

heed::ScoreFunction score_from(const std::string& name) {
    if (name == "dot") return heed::ScoreFunction::Dot;
    if (name == "scaled_dot") return heed::ScoreFunction::ScaledDot;
    if (name == "general") return heed::ScoreFunction::General;
    if (name == "additive") return heed::ScoreFunction::Additive;
    throw heed::Error("unknown score function '" + name + "'");
}

/// {kind, window?, offset?, keyPadding?: Uint8Array, blocked?: Uint8Array [Lq*Lk]}
heed::AttentionMask mask_from(const val& m, int Lq, int Lk) {
    heed::AttentionMask mask;
    const std::string kind = m["kind"].as<std::string>();
    if (kind == "causal") mask = heed::AttentionMask::causal(m["offset"].as<int>());
    else if (kind == "local") mask = heed::AttentionMask::local(m["window"].as<int>());
    else if (kind == "custom") {
        xt::xtensor<std::uint8_t, 2> blocked = xt::xtensor<std::uint8_t, 2>::from_shape(
            {std::size_t(Lq), std::size_t(Lk)});
        val(typed_memory_view(blocked.size(), blocked.data())).call<void>("set", m["blocked"]);
        mask = heed::AttentionMask::blocked(std::move(blocked));
    } else if (kind != "none" && kind != "padding")
        throw heed::Error("unknown mask kind '" + kind + "'");
    if (!m["keyPadding"].isUndefined())
        mask.key_padding = emscripten::convertJSArrayToNumberVector<std::uint8_t>(m["keyPadding"]);
    if (kind == "local") mask.causal_offset = m["offset"].as<int>();
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

// ---- the translator --------------------------------------------------------------------

/// Owns one heed::Translator; JS creates it empty, then load()s bytes into it.
class TranslatorHandle {
public:
    /// bytes: Uint8Array (copied into WASM memory for the duration of parsing).
    val load(const val& bytes) {
        return guarded("BAD_MODEL", [&] {
            std::vector<std::uint8_t> data =
                emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
            translator_ = heed::Translator::load(data.data(), data.size());
            return val(true);
        });
    }

    /// texts: string[] (checked in JS: dense, strings, no lone surrogates); options: see
    /// options_from. -> (Translation | {error: {code, message}})[]
    val translate(const val& texts, const val& options) const {
        return guarded("BAD_INPUT", [&] {
            std::vector<heed::BatchItem> items = get().translate_batch(
                emscripten::vecFromJSArray<std::string>(texts), options_from(options));
            val out = val::array();
            for (std::size_t i = 0; i < items.size(); ++i) {
                val item = items[i].ok ? translation_val(items[i].translation, true) : val::object();
                if (!items[i].ok) item.set("error", failure("BAD_INPUT", items[i].error.c_str()));
                out.set(i, item);
            }
            return out;
        });
    }

    /// on_step(step, partial) -> bool (false stops), or null. `partial` views WASM memory.
    val translate_one(const std::string& text, const val& options, const val& on_step) const {
        return guarded("BAD_INPUT", [&] {
            heed::StepCallback callback;
            if (!on_step.isNull() && !on_step.isUndefined())
                callback = [&on_step](int step, const heed::Translation& partial) {
                    return on_step(step, translation_val(partial, false)).as<bool>();
                };
            return translation_val(get().translate_one(text, options_from(options), callback),
                                   true);
        });
    }

    /// block: 0 encoder self, 1 decoder self, 2 cross.
    val explain_head(const val& source_ids, const val& target_ids, int block, int layer,
                     int head) const {
        return guarded("BAD_INPUT", [&] {
            heed::HeadExplanation e =
                get().explain_head(ints_from(source_ids), ints_from(target_ids),
                                   static_cast<heed::AttentionBlock>(block), layer, head);
            val r = val::object();
            r.set("dk", e.dk);
            r.set("xq", tensor(e.xq));
            r.set("xkv", tensor(e.xkv));
            r.set("q", tensor(e.q));
            r.set("k", tensor(e.k));
            r.set("v", tensor(e.v));
            r.set("scores", tensor(e.scores));
            r.set("scaled", tensor(e.scaled));
            r.set("mask", tensor(e.mask));
            r.set("weights", tensor(e.weights));
            r.set("weightsUnscaled", tensor(e.weights_unscaled));
            r.set("output", tensor(e.output));
            r.set("concat", tensor(e.concat));
            r.set("projected", tensor(e.projected));
            return r;
        });
    }

    /// {config: JSON text, metadata: JSON text, parameters: number}
    val info() const {
        return guarded("BAD_MODEL", [&] {
            val r = val::object();
            r.set("config", val(get().config_json()));
            r.set("metadata", val(get().metadata_json()));
            r.set("parameters", double(get().parameter_count()));
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

// ---- attention primitives --------------------------------------------------------------

val result_val(const heed::AttentionResult& r) {
    val out = val::object();
    out.set("output", tensor(r.output));
    out.set("weights", tensor(r.weights));
    out.set("scores", tensor(r.scores));
    return out;
}

/// q, k, v: tensors; score: name; mask: see mask_from; params: {w?, u?, v?} tensors.
val attention(const val& q, const val& k, const val& v, const std::string& score,
              const val& mask, const val& params) {
    return guarded("BAD_INPUT", [&] {
        const heed::Mat qm = mat_from(q), km = mat_from(k), vm = mat_from(v);
        heed::AttentionParams p;
        if (!params["w"].isUndefined()) p.w = mat_from(params["w"]);
        if (!params["u"].isUndefined()) p.u = mat_from(params["u"]);
        if (!params["v"].isUndefined()) p.v = vec_from(params["v"]);
        return result_val(heed::attention(qm, km, vm, score_from(score),
                                          mask_from(mask, int(qm.shape(0)), int(km.shape(0))),
                                          &p));
    });
}

val linear_attention(const val& q, const val& k, const val& v, bool causal) {
    return guarded("BAD_INPUT", [&] {
        return result_val(heed::linear_attention(mat_from(q), mat_from(k), mat_from(v), causal));
    });
}

/// -> {positions: [L, D], similarity: [L, L]}
val sinusoidal_positions(int length, int d_model) {
    return guarded("BAD_INPUT", [&] {
        const heed::Mat pe = heed::sinusoidal_positions(length, d_model);
        val r = val::object();
        r.set("positions", tensor(pe));
        r.set("similarity", tensor(heed::position_similarity(pe)));
        return r;
    });
}

// ---- diagnostics -----------------------------------------------------------------------

/// {inUse: bytes allocated by malloc, size: bytes of linear memory} (leak tests).
val heap_stats() {
    struct mallinfo mi = mallinfo();
    val r = val::object();
    r.set("inUse", double(mi.uordblks));
    r.set("size", double(emscripten_get_heap_size()));
    return r;
}

/// The linear layer the model runs (y = x·Wᵀ + b), on random data, for the GEMM benchmark:
/// JS times run(); this class only owns the buffers.
class LinearBench {
public:
    LinearBench(int rows, int in_features, int out_features)
        : rows_(rows), x_(std::size_t(rows) * in_features), y_(std::size_t(rows) * out_features) {
        std::vector<float> w(std::size_t(in_features) * out_features), b(out_features);
        std::uint32_t s = 12345;
        auto next = [&s] { s = s * 1664525u + 1013904223u; return float(s >> 8) / 16777216.0f - 0.5f; };
        for (float& z : w) z = next();
        for (float& z : b) z = next();
        for (float& z : x_) z = next();
        linear_ = heed::PackedLinear(w.data(), b.data(), out_features, in_features);
    }
    void run(int repeats) {
        for (int r = 0; r < repeats; ++r) linear_.apply(x_.data(), rows_, y_.data());
    }
    double checksum() const {
        double s = 0;
        for (float z : y_) s += z;
        return s;
    }

private:
    int rows_;
    std::vector<float> x_, y_;
    heed::PackedLinear linear_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(heed) {
    emscripten::class_<TranslatorHandle>("Translator")
        .constructor<>()
        .function("load", &TranslatorHandle::load)
        .function("translate", &TranslatorHandle::translate)
        .function("translateOne", &TranslatorHandle::translate_one)
        .function("explainHead", &TranslatorHandle::explain_head)
        .function("info", &TranslatorHandle::info);
    emscripten::function("attention", &attention);
    emscripten::function("linearAttention", &linear_attention);
    emscripten::function("sinusoidalPositions", &sinusoidal_positions);
    emscripten::function("heapStats", &heap_stats);
    emscripten::class_<LinearBench>("LinearBench")
        .constructor<int, int, int>()
        .function("run", &LinearBench::run)
        .function("checksum", &LinearBench::checksum);
}
