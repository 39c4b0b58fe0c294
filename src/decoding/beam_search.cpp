// Beam search (one sentence, K rows): each step extends every live hypothesis, keeps the 2K
// best (row, token) candidates, moves those ending in EOS to the finished list with a
// length-normalised score, and continues with the K best others. Stops once K hypotheses
// have finished or max_length is reached (live ones are then finished as they stand).
//
// Hypotheses are never copied: every kept candidate is one node of an arena (token, its
// log-probability, its parent node and, when recording, that step's attention rows), a live
// row is the index of its newest node, and the chosen hypothesis is read back once, at the end.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "decoding/search.h"
#include "decoding/utf8_guard.h"

namespace heed {
namespace {

float normalised(float logprob, std::size_t length, float penalty) {
    return penalty == 0.0f ? logprob : logprob / std::pow(float(length), penalty);
}

/// The `n` best flat indices of x[0, size) into `out`, best first; ties go to the lower index
/// (one pass with a heap of n whose top is the worst kept: most entries cost one comparison).
void best_n(const float* x, std::size_t size, std::size_t n, std::vector<std::size_t>& out) {
    const auto better = [x](std::size_t a, std::size_t b) {
        return x[a] > x[b] || (x[a] == x[b] && a < b);
    };
    out.clear();
    n = std::min(n, size);
    for (std::size_t i = 0; i < size; ++i) {
        if (out.size() < n) {
            out.push_back(i);
            std::push_heap(out.begin(), out.end(), better);
        } else if (n > 0 && better(i, out.front())) {
            std::pop_heap(out.begin(), out.end(), better);
            out.back() = i;
            std::push_heap(out.begin(), out.end(), better);
        }
    }
    std::sort_heap(out.begin(), out.end(), better);
}

/// One kept candidate: it extends node `parent` (-1: the start) with `token`.
struct Node {
    int parent = -1;
    int token = 0;
    float logprob = 0.0f;  ///< of this token
    int length = 1;        ///< tokens from the start up to this node
    int tree_pos = -1;     ///< index in its step's beam-tree nodes (when recording)
    StepRecord record;     ///< when recording
};

/// Tokens and log-probabilities from the start up to `node`.
void read_path(const std::vector<Node>& nodes, int node, std::vector<int>& tokens,
               std::vector<float>& logprobs) {
    tokens.clear();
    logprobs.clear();
    for (int n = node; n >= 0; n = nodes[n].parent) {
        tokens.push_back(nodes[n].token);
        logprobs.push_back(nodes[n].logprob);
    }
    std::reverse(tokens.begin(), tokens.end());
    std::reverse(logprobs.begin(), logprobs.end());
}

/// The hypothesis ending at `node`, its step records moved out of the arena.
Hypothesis take_path(std::vector<Node>& nodes, int node, float score, bool recording) {
    Hypothesis h;
    read_path(nodes, node, h.tokens, h.logprobs);
    h.score = score;
    if (recording) {
        for (int n = node; n >= 0; n = nodes[n].parent) h.steps.push_back(std::move(nodes[n].record));
        std::reverse(h.steps.begin(), h.steps.end());
        h.beam_node = nodes[node].tree_pos;
    }
    return h;
}

}  // namespace

Hypothesis beam_search(const Model& model, const Memory& memory, const SearchOptions& opt,
                       const SearchObserver& observer) {
    const ModelConfig& c = model.config();
    const OutputColumns cols{opt.output, c.vocab_size};
    const int K = opt.beam_size, V = cols.size();
    const bool recording = opt.return_attention;
    DecoderState state(c, K, opt.max_length);
    state.set_interventions(opt.interventions);
    const std::vector<const Memory*> memories(K, &memory);
    std::vector<float> logits(std::size_t(K) * V);
    std::vector<int> tokens(K, opt.start_id >= 0 ? opt.start_id : c.decoder_start_id);
    std::vector<Node> nodes;
    std::vector<int> live(K, -1);  // each row's newest node
    std::vector<std::pair<int, float>> finished;  // (node, normalised score)
    std::vector<float> live_score(K, -std::numeric_limits<float>::infinity());
    live_score[0] = 0.0f;  // why: all rows start identical; only row 0 may expand at step 0
    StepAttention trace;
    std::vector<std::size_t> order;
    std::vector<std::vector<BeamNode>> tree;  // the beam tree (when recording)
    std::vector<int> parents, next, next_tokens;
    std::vector<float> next_score, row_lp;
    std::vector<int> best_tokens, tail;
    std::vector<float> best_logprobs;

    for (int t = 0; t < opt.max_length; ++t) {
        model.step(memories, tokens, state, logits.data(), recording ? &trace : nullptr,
                   opt.output);
        for (int r = 0; r < K; ++r) {
            float* lp = logits.data() + std::size_t(r) * V;
            log_softmax(lp, V);
            ban(lp, cols, opt.banned);
            if (opt.bytes) {
                tail.clear();  // why: a character is at most four bytes; its last pieces suffice
                for (int n = live[r]; n >= 0 && tail.size() < 4; n = nodes[n].parent)
                    tail.insert(tail.begin(), nodes[n].token);
                keep_utf8(lp, cols, *opt.bytes, utf8_need(tail, *opt.bytes), opt.max_length - t - 1);
            }
            for (int v = 0; v < V; ++v) lp[v] += live_score[r];  // candidate totals
        }
        // what if: only the forced token may extend a row (its probability stays the model's)
        const bool forced = t < int(opt.forced_prefix.size());
        if (forced) {
            const int f = cols.column(opt.forced_prefix[t]);
            for (int r = 0; r < K; ++r) {
                float* row = logits.data() + std::size_t(r) * V;
                const float kept = row[f];
                std::fill(row, row + V, -std::numeric_limits<float>::infinity());
                row[f] = kept;
            }
        }
        // the 2K best (row, token) pairs; ties go to the lower flat index
        best_n(logits.data(), logits.size(), 2 * std::size_t(K), order);
        const std::size_t n_cand = order.size();
        parents.clear();
        next.clear();
        next_tokens.clear();
        next_score.clear();
        if (recording) tree.emplace_back();
        for (std::size_t i = 0; i < n_cand && int(next.size()) < K; ++i) {
            const int r = int(order[i] / V), v = cols.id(int(order[i] % V));
            const float total = logits[order[i]];
            if (!std::isfinite(total)) break;
            Node n;
            n.parent = live[r];
            n.token = v;
            n.logprob = total - live_score[r];
            n.length = live[r] < 0 ? 1 : nodes[live[r]].length + 1;
            if (recording) {
                StepRecord& rec = n.record;
                rec.token = v;
                rec.prob = std::exp(n.logprob);
                if (!forced) {
                    row_lp.assign(logits.begin() + std::size_t(r) * V,
                                  logits.begin() + std::size_t(r + 1) * V);
                    for (float& x : row_lp) x -= live_score[r];
                    record_top_k(row_lp.data(), V, opt.top_k, rec);
                    cols.to_ids(rec.top_ids);
                } else {  // why: the forced step's row was masked; its candidates are its own
                    rec.top_ids = {v};
                    rec.top_probs = {rec.prob};
                }
                rec.self_attn = trace.self[r];    // this step's rows only
                rec.cross_attn = trace.cross[r];
                n.tree_pos = int(tree[t].size());
                tree[t].push_back(BeamNode{v, {}, n.parent < 0 ? -1 : nodes[n.parent].tree_pos,
                                           total, v == c.eos_id});
            }
            const int id = int(nodes.size());
            nodes.push_back(std::move(n));
            if (v == c.eos_id) {
                if (int(finished.size()) < K)
                    finished.emplace_back(id, normalised(total, nodes[id].length,
                                                         opt.length_penalty));
                continue;
            }
            next.push_back(id);
            parents.push_back(r);
            next_tokens.push_back(v);
            next_score.push_back(total);
        }
        if (recording && tree.back().empty()) tree.pop_back();
        if (int(finished.size()) >= K || next.empty()) break;
        // pad the beam (only at the start can fewer than K survive)
        while (int(next.size()) < K) {
            next.push_back(next.back());
            parents.push_back(parents.back());
            next_tokens.push_back(next_tokens.back());
            next_score.push_back(-std::numeric_limits<float>::infinity());
        }
        state.reorder(parents);
        live = next;
        tokens = next_tokens;
        live_score = next_score;
        if (observer) {
            read_path(nodes, live[0], best_tokens, best_logprobs);
            const SearchProgress progress{best_tokens, best_logprobs,
                                          recording ? &nodes[live[0]].record : nullptr};
            if (!observer(progress)) break;
        }
    }
    if (int(finished.size()) < K) {
        // why: live rows never end in EOS (those went to `finished`), so none is counted twice
        for (int r = 0; r < K; ++r) {
            if (!std::isfinite(live_score[r]) || live[r] < 0) continue;
            finished.emplace_back(
                live[r], normalised(live_score[r], nodes[live[r]].length, opt.length_penalty));
        }
    }
    if (finished.empty()) return Hypothesis{};
    const auto best = std::max_element(
        finished.begin(), finished.end(),
        [](const std::pair<int, float>& a, const std::pair<int, float>& b) {
            return a.second < b.second;
        });
    Hypothesis h = take_path(nodes, best->first, best->second, recording);
    h.beam = std::move(tree);
    return h;
}

}  // namespace heed
