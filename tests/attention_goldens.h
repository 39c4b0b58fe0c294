// Readers for tests/data/attention_goldens.json (PyTorch references written by
// models/goldens/make_attention_goldens.py) and the -inf-aware comparison run against them.
// Shared by attention_test.cpp and multi_head_attention_test.cpp; not a JSON library.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/attention.h"
#include "test_util.h"

namespace heed::test {

using nlohmann::json;

/// Tolerance of every golden comparison: float64 references computed from float32 inputs.
constexpr double kGoldenRtol = 1e-5, kGoldenAtol = 1e-6;

// ---- golden loading -----------------------------------------------------------------------

/// The whole golden file, parsed once per test binary.
inline const json& goldens() {
    static const json doc =
        json::parse(read_text(std::string(HEED_TEST_DATA) + "/attention_goldens.json"));
    return doc;
}

/// JSON nested lists -> row-major floats (null, the generator's -inf, -> -inf) and the shape.
inline void flatten(const json& j, std::vector<float>& out, std::vector<std::size_t>& shape,
                    std::size_t depth = 0) {
    if (!j.is_array()) {
        out.push_back(j.is_null() ? -std::numeric_limits<float>::infinity() : j.get<float>());
        return;
    }
    if (shape.size() == depth) shape.push_back(j.size());
    for (const json& e : j) flatten(e, out, shape, depth + 1);
}

/// JSON nested lists -> a fixed-rank tensor T (Vec, Mat, Tensor3); throws on another rank.
template <class T>
T to_tensor(const json& j) {
    std::vector<float> flat;
    std::vector<std::size_t> shape;
    flatten(j, flat, shape);
    typename T::shape_type s{};
    if (shape.size() != s.size()) throw std::runtime_error("golden has the wrong rank");
    std::copy(shape.begin(), shape.end(), s.begin());
    T t = T::from_shape(s);
    std::copy(flat.begin(), flat.end(), t.begin());
    return t;
}

inline Vec to_vec(const json& j) { return to_tensor<Vec>(j); }
inline Mat to_mat(const json& j) { return to_tensor<Mat>(j); }
inline Tensor3 to_t3(const json& j) { return to_tensor<Tensor3>(j); }

/// A golden's {kind, window, causal_offset, key_padding, custom} -> AttentionMask.
inline AttentionMask to_mask(const json& j) {
    static const std::map<std::string, MaskKind> kinds = {{"none", MaskKind::None},
                                                          {"causal", MaskKind::Causal},
                                                          {"key_padding", MaskKind::KeyPadding},
                                                          {"local_window", MaskKind::LocalWindow},
                                                          {"custom", MaskKind::Custom}};
    AttentionMask m;
    m.kind = kinds.at(j["kind"].get<std::string>());
    m.window = j["window"].get<int>();
    m.causal_offset = j["causal_offset"].get<int>();
    m.key_padding = j["key_padding"].get<std::vector<std::uint8_t>>();
    if (m.kind == MaskKind::Custom) m.custom = xt::cast<std::uint8_t>(to_mat(j["custom"]));
    return m;
}

/// A golden's score name ("dot", "scaled_dot", "general", "additive") -> ScoreFunction.
inline ScoreFunction to_score(const std::string& s) {
    if (s == "dot") return ScoreFunction::Dot;
    if (s == "scaled_dot") return ScoreFunction::ScaledDot;
    if (s == "general") return ScoreFunction::General;
    if (s == "additive") return ScoreFunction::Additive;
    throw std::runtime_error("unknown score " + s);
}

// ---- comparison, with a running record of the worst error against PyTorch -----------------

/// The worst error against PyTorch over one test binary, printed when the binary ends.
struct ErrorRecord : ::testing::Environment {
    explicit ErrorRecord(std::string label) : label(std::move(label)) {}
    std::string label;  ///< the binary's name, printed in brackets
    double max_abs = 0, max_rel = 0;
    int compared = 0;
    void TearDown() override {
        std::printf(
            "[%s] %d tensors vs PyTorch: max abs err %.3g, max rel err %.3g "
            "(rel over |ref| >= 1e-3)\n",
            label.c_str(), compared, max_abs, max_rel);
    }
};

/// Registers a binary's ErrorRecord with Google Test, which owns it. Call once per binary.
inline ErrorRecord* add_error_record(const char* label) {
    return static_cast<ErrorRecord*>(::testing::AddGlobalTestEnvironment(new ErrorRecord(label)));
}

/// allclose at the golden tolerance that also accepts matching -inf entries (masked scores)
/// and adds the error to `record`.
template <class A, class B>
::testing::AssertionResult close_to_ref(const A& got, const B& want, ErrorRecord& record) {
    if (got.shape() != want.shape()) return ::testing::AssertionFailure() << "shape mismatch";
    A g = got;
    B w = want;
    for (std::size_t i = 0; i < g.size(); ++i) {
        const bool gi = std::isinf(g.flat(i)) && g.flat(i) < 0;
        const bool wi = std::isinf(w.flat(i)) && w.flat(i) < 0;
        if (gi != wi)
            return ::testing::AssertionFailure() << "-inf mismatch at flat index " << i << ": got "
                                                 << g.flat(i) << ", want " << w.flat(i);
        if (gi) g.flat(i) = w.flat(i) = 0;
        const double d = std::fabs(double(g.flat(i)) - double(w.flat(i)));
        record.max_abs = std::max(record.max_abs, d);
        if (std::fabs(w.flat(i)) >= 1e-3)
            record.max_rel = std::max(record.max_rel, d / std::fabs(double(w.flat(i))));
    }
    ++record.compared;
    return ::heed::test::allclose(g, w, kGoldenRtol, kGoldenAtol);  // why: not xt::allclose
}

}  // namespace heed::test
