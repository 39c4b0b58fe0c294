// Greedy decoding: at every step each sentence takes its most probable next token. All
// sentences advance together as rows of one decoder step (batched GEMMs).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/thread_pool.h"
#include "decoding/copy_guard.h"
#include "decoding/search.h"
#include "decoding/utf8_guard.h"
#include "kernels/rowwise.h"

namespace heed {

void log_softmax(float* x, int n) {
    if (!current_pool()) {
        kernels::log_softmax_row_f32(x, n, x);
        return;
    }
    // why: greedy's one row is the vocabulary; its exponentials (the costly part, each on its
    // own) are made on the call's threads, the rest on this one in the one-pass order, so the
    // bits are those of log_softmax_row_f32 on any thread count
    thread_local std::vector<float> scratch;
    if (scratch.size() < std::size_t(n)) scratch.resize(std::size_t(n));
    // why: a pointer, as the lambda runs on other threads, whose thread_local is their own
    float* e = scratch.data();
    const float m = kernels::max_f32(x, n);
    parallel_ranges(n & ~3, 4, kSoftmaxWork * n,
                    [&](int i0, int i1) { kernels::exp_minus_f32(x + i0, i1 - i0, m, e + i0); });
    kernels::subtract_f32(x, n, kernels::log_sum_exp_f32(x, n, m, e), x);
}

void ban(float* logprobs, const OutputColumns& cols, const std::vector<int>* banned) {
    if (!banned) return;
    for (int id : *banned) {
        const int col = cols.column(id);
        if (col >= 0 && col < cols.size()) logprobs[col] = -INFINITY;
    }
}

void record_top_k(const float* logprobs, int n, int k, StepRecord& rec) {
    k = std::min(k, n);
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
        return logprobs[a] > logprobs[b] || (logprobs[a] == logprobs[b] && a < b);
    });
    while (k > 0 && logprobs[idx[k - 1]] == -INFINITY) --k;  // why: a banned piece is no candidate
    rec.top_ids.assign(idx.begin(), idx.begin() + k);
    rec.top_probs.resize(k);
    for (int i = 0; i < k; ++i) rec.top_probs[i] = std::exp(logprobs[idx[i]]);
}

std::vector<Hypothesis> greedy_search(const Model& model,
                                      const std::vector<const Memory*>& memories,
                                      const SearchOptions& opt, const SearchObserver& observer) {
    const ModelConfig& c = model.config();
    const OutputColumns cols{opt.output, c.target_vocab()};
    const int R = int(memories.size()), V = cols.size();
    std::vector<Hypothesis> hyps(R);
    if (R == 0) return hyps;
    DecoderState state(c, R, opt.max_length);
    state.set_interventions(opt.interventions);
    std::vector<float> logits(std::size_t(R) * V);
    std::vector<int> tokens(R, opt.start_id >= 0 ? opt.start_id : c.decoder_start_id);
    std::vector<char> done(R, 0);
    StepAttention trace;
    const auto limit = [&opt](int r) {
        return opt.row_max_length.empty() ? opt.max_length : opt.row_max_length[std::size_t(r)];
    };
    int live = R;
    for (int t = 0; t < opt.max_length && live > 0; ++t) {
        model.step(memories, tokens, state, logits.data(), opt.return_attention ? &trace : nullptr,
                   opt.output);
        for (int r = 0; r < R; ++r) {
            if (done[r]) continue;  // why: finished rows still ride along; their output is unused
            float* lp = logits.data() + std::size_t(r) * V;
            log_softmax(lp, V);
            ban(lp, cols, opt.banned);
            if (opt.bytes)
                keep_utf8(lp, cols, *opt.bytes, utf8_need(hyps[r].tokens, *opt.bytes),
                          limit(r) - t - 1);
            if (opt.texts && std::size_t(r) < opt.copy.size())
                keep_copy(lp, cols, *opt.texts, opt.copy[std::size_t(r)], hyps[r].tokens);
            const bool forced = t < int(opt.forced_prefix.size());
            const int col = forced ? cols.column(opt.forced_prefix[t]) : kernels::argmax_f32(lp, V);
            const int best = cols.id(col);
            Hypothesis& h = hyps[r];
            h.tokens.push_back(best);
            h.logprobs.push_back(lp[col]);
            h.score += lp[col];
            if (opt.return_attention) {
                StepRecord rec;
                rec.token = best;
                rec.prob = std::exp(lp[col]);
                record_top_k(lp, V, opt.top_k, rec);
                cols.to_ids(rec.top_ids);
                rec.self_attn = std::move(trace.self[r]);
                rec.cross_attn = std::move(trace.cross[r]);
                if (!trace.forget.empty()) rec.forget = std::move(trace.forget[r]);
                h.steps.push_back(std::move(rec));
            }
            tokens[r] = best;
            if (best == c.eos_id || t + 1 >= limit(r)) {
                done[r] = 1;
                --live;
            }
        }
        if (observer) {
            const Hypothesis& h = hyps[0];
            const SearchProgress progress{h.tokens, h.logprobs,
                                          h.steps.empty() ? nullptr : &h.steps.back()};
            if (!observer(progress)) break;
        }
    }
    return hyps;
}

}  // namespace heed
