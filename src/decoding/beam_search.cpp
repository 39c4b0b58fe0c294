// Beam search (one sentence, K rows): each step extends every live hypothesis, keeps the best
// (row, token) candidates, moves those ending in EOS to the finished list with a
// length-normalised score, and continues with the others. Heed's rule weighs 2K candidates and
// goes on with K until K hypotheses have finished; Marian's keeps K less the finished ones,
// so the beam narrows with each finished hypothesis until none is left. Both stop at
// max_length (live ones are then finished as they stand).
//
// Hypotheses are never copied: every kept candidate is one node of an arena (token, its
// log-probability, its parent node and, when recording, that step's attention rows), a live
// row is the index of its newest node, and the chosen hypothesis is read back once, at the end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "core/thread_pool.h"
#include "decoding/copy_guard.h"
#include "decoding/search.h"
#include "decoding/utf8_guard.h"
#include "kernels/rowwise.h"

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
    if (n == 0) return;
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back(i);
        std::push_heap(out.begin(), out.end(), better);
    }
    // why: a later index beats the heap's worst only by a greater value (it loses ties), so the
    // scan skips, four values a compare, everything not above that value
    for (std::size_t i = n;; ++i) {
        i = kernels::next_above_f32(x, i, size, x[out.front()]);
        if (i >= size) break;
        std::pop_heap(out.begin(), out.end(), better);
        out.back() = i;
        std::push_heap(out.begin(), out.end(), better);
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
        for (int n = node; n >= 0; n = nodes[n].parent)
            h.steps.push_back(std::move(nodes[n].record));
        std::reverse(h.steps.begin(), h.steps.end());
        h.beam_node = nodes[node].tree_pos;
    }
    return h;
}

/// One beam search, its state as members and each step's parts as named methods.
class Beam {
  public:
    Beam(const Model& model, const Memory& memory, const SearchOptions& opt,
         const SearchObserver& observer)
        : model_(model),
          c_(model.config()),
          opt_(opt),
          observer_(observer),
          cols_{opt.output, c_.target_vocab()},
          K_(opt.beam_size),
          V_(cols_.size()),
          recording_(opt.return_attention),
          state_(c_, K_, opt.max_length),
          memories_(std::size_t(K_), &memory),
          logits_(std::size_t(K_) * std::size_t(V_)),
          tokens_(std::size_t(K_), opt.start_id >= 0 ? opt.start_id : c_.decoder_start_id),
          live_(std::size_t(K_), -1),
          live_score_(std::size_t(K_), -std::numeric_limits<float>::infinity()) {
        state_.set_interventions(opt.interventions);
        live_score_[0] = 0.0f;  // why: all rows start identical; only row 0 may expand at step 0
    }

    Hypothesis run() {
        for (int t = 0; t < opt_.max_length; ++t) {
            model_.step(memories_, tokens_, state_, logits_.data(), recording_ ? &trace_ : nullptr,
                        opt_.output);
            score_rows(t);
            const bool forced = t < int(opt_.forced_prefix.size());
            if (forced) force(t);
            select(t, forced);
            if (int(finished_.size()) >= K_ || next_.empty()) break;
            advance();
            if (!report()) break;
        }
        return best();
    }

  private:
    /// Each row's log-probabilities (bans and the UTF-8 guard applied) plus its hypothesis's
    /// score: the candidate totals.
    void score_rows(int t) {
        // why: the rows' log-softmaxes are independent (each the same bits on any thread), so
        // they are shared out over the call's pool when it has one; the rest reads shared
        // scratch and stays on this thread
        parallel_ranges(K_, 1, kSoftmaxWork * K_ * V_, [this](int r0, int r1) {
            for (int r = r0; r < r1; ++r) log_softmax(row(r), V_);
        });
        for (int r = 0; r < K_; ++r) {
            float* lp = row(r);
            ban(lp, cols_, opt_.banned);
            const bool copy = opt_.texts && !opt_.copy.empty();
            if (opt_.bytes || copy) {
                // why: a character is at most four bytes, so its last pieces suffice, unless a
                // span to copy needs the whole text
                const std::size_t need = copy && !opt_.copy[0].spans.empty() ? SIZE_MAX : 4;
                tail_.clear();
                for (int n = live_[r]; n >= 0 && tail_.size() < need; n = nodes_[n].parent)
                    tail_.insert(tail_.begin(), nodes_[n].token);
            }
            if (opt_.bytes)
                keep_utf8(lp, cols_, *opt_.bytes, utf8_need(tail_, *opt_.bytes),
                          opt_.max_length - t - 1);
            if (copy) keep_copy(lp, cols_, *opt_.texts, opt_.copy[0], tail_);
            for (int v = 0; v < V_; ++v) lp[v] += live_score_[r];
        }
    }

    /// What if: only the forced token may extend a row (its probability stays the model's).
    void force(int t) {
        const int f = cols_.column(opt_.forced_prefix[t]);
        for (int r = 0; r < K_; ++r) {
            float* lp = row(r);
            const float kept = lp[f];
            std::fill(lp, lp + V_, -std::numeric_limits<float>::infinity());
            lp[f] = kept;
        }
    }

    /// The best (row, token) candidates (ties to the lower flat index) become nodes: those
    /// ending in EOS finish, the others go on. Heed's rule: of the 2K best, the K best others go
    /// on. Marian's: the K - finished best, whatever they end in (Marian's beam search takes the
    /// beam's own width of best candidates and then drops those ending in EOS from the beam).
    void select(int t, bool forced) {
        const std::size_t width = opt_.rules == SearchRules::Marian
                                      ? std::size_t(K_) - finished_.size()
                                      : 2 * std::size_t(K_);
        best_n(logits_.data(), logits_.size(), width, order_);
        parents_.clear();
        next_.clear();
        next_tokens_.clear();
        next_score_.clear();
        if (recording_) tree_.emplace_back();
        for (std::size_t i = 0; i < order_.size() && int(next_.size()) < K_; ++i) {
            const int r = int(order_[i] / V_), v = cols_.id(int(order_[i] % V_));
            const float total = logits_[order_[i]];
            if (!std::isfinite(total)) break;
            const int id = add_node(t, r, v, total, forced);
            if (v == c_.eos_id) {
                if (int(finished_.size()) < K_)
                    finished_.emplace_back(
                        id, normalised(total, nodes_[id].length, opt_.length_penalty));
                continue;
            }
            next_.push_back(id);
            parents_.push_back(r);
            next_tokens_.push_back(v);
            next_score_.push_back(total);
        }
        if (recording_ && tree_.back().empty()) tree_.pop_back();
    }

    /// The node extending row r's hypothesis with token v (total: the new hypothesis's
    /// log-probability); when recording, its step record and its place in the beam tree.
    int add_node(int t, int r, int v, float total, bool forced) {
        Node n;
        n.parent = live_[r];
        n.token = v;
        n.logprob = total - live_score_[r];
        n.length = live_[r] < 0 ? 1 : nodes_[live_[r]].length + 1;
        if (recording_) {
            StepRecord& rec = n.record;
            rec.token = v;
            rec.prob = std::exp(n.logprob);
            if (!forced) {
                row_lp_.assign(row(r), row(r) + V_);
                for (float& x : row_lp_) x -= live_score_[r];
                record_top_k(row_lp_.data(), V_, opt_.top_k, rec);
                cols_.to_ids(rec.top_ids);
            } else {  // why: the forced step's row was masked; its candidates are its own
                rec.top_ids = {v};
                rec.top_probs = {rec.prob};
            }
            rec.self_attn = trace_.self[r];  // this step's rows only
            rec.cross_attn = trace_.cross[r];
            if (!trace_.forget.empty()) rec.forget = trace_.forget[r];
            n.tree_pos = int(tree_[t].size());
            tree_[t].push_back(BeamNode{
                v, {}, n.parent < 0 ? -1 : nodes_[n.parent].tree_pos, total, v == c_.eos_id});
        }
        nodes_.push_back(std::move(n));
        return int(nodes_.size()) - 1;
    }

    /// The kept candidates become the live rows (padded to K: only at the start can fewer
    /// than K survive), the decoder's caches following their parents.
    void advance() {
        while (int(next_.size()) < K_) {
            next_.push_back(next_.back());
            parents_.push_back(parents_.back());
            next_tokens_.push_back(next_tokens_.back());
            next_score_.push_back(-std::numeric_limits<float>::infinity());
        }
        state_.reorder(parents_);
        live_ = next_;
        tokens_ = next_tokens_;
        live_score_ = next_score_;
    }

    /// Tells the observer the best live hypothesis; false: it asked to stop.
    bool report() {
        if (!observer_) return true;
        read_path(nodes_, live_[0], best_tokens_, best_logprobs_);
        const SearchProgress progress{best_tokens_, best_logprobs_,
                                      recording_ ? &nodes_[live_[0]].record : nullptr};
        return observer_(progress);
    }

    /// The best finished hypothesis (live rows finish as they stand when fewer than K ended).
    Hypothesis best() {
        if (int(finished_.size()) < K_) {
            // why: live rows never end in EOS (those went to `finished`), so none counts twice
            for (int r = 0; r < K_; ++r) {
                if (!std::isfinite(live_score_[r]) || live_[r] < 0) continue;
                finished_.emplace_back(live_[r], normalised(live_score_[r], nodes_[live_[r]].length,
                                                            opt_.length_penalty));
            }
        }
        if (finished_.empty()) return Hypothesis{};
        const auto best =
            std::max_element(finished_.begin(), finished_.end(),
                             [](const std::pair<int, float>& a, const std::pair<int, float>& b) {
                                 return a.second < b.second;
                             });
        Hypothesis h = take_path(nodes_, best->first, best->second, recording_);
        h.beam = std::move(tree_);
        return h;
    }

    float* row(int r) { return logits_.data() + std::size_t(r) * std::size_t(V_); }

    const Model& model_;
    const ModelConfig& c_;
    const SearchOptions& opt_;
    const SearchObserver& observer_;
    const OutputColumns cols_;
    const int K_, V_;
    const bool recording_;
    DecoderState state_;
    const std::vector<const Memory*> memories_;
    std::vector<float> logits_;
    std::vector<int> tokens_;
    std::vector<Node> nodes_;                      // the arena of kept candidates
    std::vector<int> live_;                        // each row's newest node
    std::vector<float> live_score_;                // each row's log-probability
    std::vector<std::pair<int, float>> finished_;  // (node, normalised score)
    std::vector<std::vector<BeamNode>> tree_;      // the beam tree (when recording)
    StepAttention trace_;
    std::vector<std::size_t> order_;
    std::vector<int> parents_, next_, next_tokens_, tail_, best_tokens_;
    std::vector<float> next_score_, row_lp_, best_logprobs_;
};

}  // namespace

Hypothesis beam_search(const Model& model, const Memory& memory, const SearchOptions& opt,
                       const SearchObserver& observer) {
    return Beam(model, memory, opt, observer).run();
}

}  // namespace heed
