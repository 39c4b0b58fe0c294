// check_options(): every TranslateOptions field against its bound (OptionLimits), before any
// work and before any model is involved (the CLI calls it once before reading input).
#include <cmath>
#include <string>

#include "core/error.h"
#include "translator/translator.h"

namespace heed {

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
    if (!std::isfinite(iv.temperature) || iv.temperature <= 0 || iv.temperature > l.temperature)
        throw Error("interventions.temperature must be a number in (0, " +
                    std::to_string(int(l.temperature)) + "], got " +
                    std::to_string(iv.temperature));
    if (iv.window < -1 || iv.window > l.window)
        throw Error("interventions.window must be -1 (none) or 0.." + std::to_string(l.window) +
                    ", got " + std::to_string(iv.window));
    if (iv.sparse.random_blocks < 0 || iv.sparse.random_blocks > l.random_blocks)
        throw Error("interventions.sparse.randomBlocks must be 0.." +
                    std::to_string(l.random_blocks) + ", got " +
                    std::to_string(iv.sparse.random_blocks));
    if (iv.sparse.block < 1 || iv.sparse.block > l.sparse_block)
        throw Error("interventions.sparse.block must be 1.." + std::to_string(l.sparse_block) +
                    ", got " + std::to_string(iv.sparse.block));
    const LinearAttention& lin = iv.linear;
    if (lin.features < 1 || lin.features > l.linear_features)
        throw Error("interventions.linear.features must be an integer in [1, " +
                    std::to_string(l.linear_features) + "], got " + std::to_string(lin.features));
    if (lin.enabled() && iv.masks_keys())
        throw Error(
            "interventions.linear replaces the softmax, so it cannot be combined with "
            "interventions.window or interventions.sparse (choose one)");
    if (lin.kind == LinearKind::Elu && iv.temperature != 1.0f)
        throw Error(
            "interventions.temperature must be 1 with interventions.linear.kind 'elu' "
            "(elu + 1 has no softmax scale to change)");
}

}  // namespace heed
