// Beam search (one sentence, K rows): each step extends every live hypothesis, keeps the 2K
// best (row, token) candidates, moves those ending in EOS to the finished list with a
// length-normalised score, and continues with the K best others. Stops once K hypotheses
// have finished or max_length is reached (live ones are then finished as they stand).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "decoding/search.h"

namespace heed {
namespace {

float normalised(float logprob, std::size_t length, float penalty) {
    return penalty == 0.0f ? logprob : logprob / std::pow(float(length), penalty);
}

}  // namespace

Hypothesis beam_search(const Model& model, const Memory& memory, const SearchOptions& opt,
                       const SearchObserver& observer) {
    const ModelConfig& c = model.config();
    const int K = opt.beam_size, V = c.vocab_size;
    DecoderState state(c, K, opt.max_length);
    state.set_interventions(opt.interventions);
    const std::vector<const Memory*> memories(K, &memory);
    std::vector<float> logits(std::size_t(K) * V);
    std::vector<int> tokens(K, opt.start_id >= 0 ? opt.start_id : c.decoder_start_id);
    std::vector<Hypothesis> live(K), finished;
    std::vector<float> live_score(K, -std::numeric_limits<float>::infinity());
    live_score[0] = 0.0f;  // why: all rows start identical; only row 0 may expand at step 0
    StepAttention trace;
    std::vector<std::size_t> order(std::size_t(K) * V);
    // beam tree (when recording): the nodes of each step, and each live row's node
    std::vector<std::vector<BeamNode>> tree;
    std::vector<int> live_node(K, -1);

    for (int t = 0; t < opt.max_length; ++t) {
        model.step(memories, tokens, state, logits.data(), opt.return_attention ? &trace : nullptr);
        for (int r = 0; r < K; ++r) {
            float* lp = logits.data() + std::size_t(r) * V;
            log_softmax(lp, V);
            for (int v = 0; v < V; ++v) lp[v] += live_score[r];  // candidate totals
        }
        // what if: only the forced token may extend a row (its probability stays the model's)
        std::vector<float> forced_lp;
        if (t < int(opt.forced_prefix.size())) {
            const int f = opt.forced_prefix[t];
            forced_lp.resize(K);
            for (int r = 0; r < K; ++r) {
                float* row = logits.data() + std::size_t(r) * V;
                forced_lp[r] = row[f];
                std::fill(row, row + V, -std::numeric_limits<float>::infinity());
                row[f] = forced_lp[r];
            }
        }
        // the 2K best (row, token) pairs; ties go to the lower flat index
        const std::size_t n_cand = std::min<std::size_t>(2 * K, order.size());
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + n_cand, order.end(),
                          [&](std::size_t a, std::size_t b) {
                              return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                          });
        std::vector<Hypothesis> next;
        std::vector<int> parents, next_tokens;
        std::vector<float> next_score;
        for (std::size_t i = 0; i < n_cand && int(next.size()) < K; ++i) {
            const int r = int(order[i] / V), v = int(order[i] % V);
            const float total = logits[order[i]];
            if (!std::isfinite(total)) break;
            Hypothesis h = live[r];
            const float token_lp = total - live_score[r];
            h.tokens.push_back(v);
            h.logprobs.push_back(token_lp);
            if (opt.return_attention) {
                StepRecord rec;
                rec.token = v;
                rec.prob = std::exp(token_lp);
                if (forced_lp.empty()) {
                    std::vector<float> row_lp(logits.begin() + std::size_t(r) * V,
                                              logits.begin() + std::size_t(r + 1) * V);
                    for (float& x : row_lp) x -= live_score[r];
                    record_top_k(row_lp.data(), V, opt.top_k, rec);
                } else {  // why: the forced step's row was masked; its candidates are its own
                    rec.top_ids = {v};
                    rec.top_probs = {rec.prob};
                }
                rec.self_attn = trace.self[r];
                rec.cross_attn = trace.cross[r];
                h.steps.push_back(std::move(rec));
            }
            if (opt.return_attention) {
                if (int(tree.size()) <= t) tree.emplace_back();
                h.beam_node = int(tree[t].size());
                tree[t].push_back(
                    BeamNode{v, {}, t == 0 ? -1 : live_node[r], total, v == c.eos_id});
            }
            if (v == c.eos_id) {
                if (int(finished.size()) < K) {
                    h.score = normalised(total, h.tokens.size(), opt.length_penalty);
                    finished.push_back(std::move(h));
                }
                continue;
            }
            next.push_back(std::move(h));
            parents.push_back(r);
            next_tokens.push_back(v);
            next_score.push_back(total);
        }
        if (int(finished.size()) >= K || next.empty()) break;
        // pad the beam (only at the start can fewer than K survive)
        while (int(next.size()) < K) {
            next.push_back(next.back());
            parents.push_back(parents.back());
            next_tokens.push_back(next_tokens.back());
            next_score.push_back(-std::numeric_limits<float>::infinity());
        }
        state.reorder(parents);
        for (int r = 0; r < K; ++r) live_node[r] = next[r].beam_node;
        live = std::move(next);
        tokens = next_tokens;
        live_score = next_score;
        if (observer && !observer(live[0])) break;
    }
    if (int(finished.size()) < K) {
        // why: live rows never end in EOS (those went to `finished`), so none is counted twice
        for (int r = 0; r < K; ++r) {
            if (!std::isfinite(live_score[r]) || live[r].tokens.empty()) continue;
            Hypothesis h = live[r];
            h.score = normalised(live_score[r], h.tokens.size(), opt.length_penalty);
            finished.push_back(std::move(h));
        }
    }
    if (finished.empty()) return Hypothesis{};
    Hypothesis best = *std::max_element(
        finished.begin(), finished.end(),
        [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
    best.beam = std::move(tree);
    return best;
}

}  // namespace heed
