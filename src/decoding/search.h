// Search over the decoder's step API: greedy (batched over sentences) and beam search, both
// optionally recording, for the chosen hypothesis, every step's attention rows and top-k.
// Not tokenisation or text (see translator/).
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "decoding/trace.h"
#include "model/model.h"

namespace heed {

struct BytePieces;  // decoding/utf8_guard.h

/// The bytes each target id writes, for the copy guard (decoding/copy_guard.h): "▁" as a
/// space, a byte piece (<0xNN>) its one byte, control and unknown pieces nothing; and the ids
/// whose text holds a character to copy (must_copy), with those characters.
struct PieceTexts {
    std::vector<std::string> text;             ///< per target id
    std::vector<int> copied_ids;               ///< ascending
    std::vector<std::u32string> copied_chars;  ///< per copied_ids entry
};

/// One span to copy whole (decoding/copy_guard.h): its bytes, and how many of its first bytes
/// a hypothesis must have written before the guard holds it to the rest (a whole first
/// character; for a URL, the scheme and one character after "://", so that "https://" alone
/// commits to no URL).
struct CopySpan {
    std::string text;
    std::size_t trigger = 1;
};

/// What the copy guard holds one sentence to: the spans it must copy whole once begun, and the
/// characters to copy (must_copy) its source has, ascending: no other may be written.
struct CopyRules {
    std::vector<CopySpan> spans;
    std::u32string chars;
};

/// Search settings (the translator fills them from TranslateOptions).
struct SearchOptions {
    int beam_size = 1;    ///< 1 = greedy
    int max_length = 64;  ///< max target tokens, EOS included
    /// Greedy: each sentence's own limit (at most max_length), one per memory; empty =
    /// max_length for every sentence. A sentence stops at its limit as it would alone.
    std::vector<int> row_max_length;
    /// How a beam narrows (the model's search_rules; the bans are `banned`'s). Heed: the 2K best
    /// candidates are weighed, those ending in </s> are set aside and K others go on, until K
    /// have ended. Marian (as Marian's beam search): the beam keeps its w best candidates
    /// whatever they end in (w = K less the hypotheses already ended), and one ending in </s>
    /// leaves it, so w narrows by one; it ends when w is 0. Both end at max_length, where the
    /// live hypotheses end as they stand; the best score / length^penalty wins, the length
    /// counting </s>.
    SearchRules rules = SearchRules::Heed;
    float length_penalty = 1.0f;    ///< final beam score = logprob / length^penalty
    bool return_attention = false;  ///< keep per-step attention rows and top-k candidates
    int top_k = 5;                  ///< candidates kept per step when return_attention
    int start_id = -1;              ///< first decoder input; -1 = the config's decoder_start_id
    const Interventions* interventions = nullptr;  ///< attention surgery; null = none
    /// Target ids the search must take first, whatever their probability ("what if"); the
    /// model's probability of each is still recorded. Empty = none.
    std::vector<int> forced_prefix;
    /// Output shortlist: the logits of these target ids only (each forced id among them);
    /// null = the whole vocabulary. Must outlive the search.
    const OutputLayer* output = nullptr;
    /// Target ids the search never chooses (ascending; the model's start and control pieces but
    /// </s>, or <unk> alone for a Marian model): their log-probability (after the softmax over
    /// every column) is -inf, so they are neither taken nor listed as candidates.
    /// Null = none. Must outlive the search.
    const std::vector<int>* banned = nullptr;
    /// The byte-fallback pieces: with them, no hypothesis writes bytes that are not valid
    /// UTF-8 (decoding/utf8_guard.h). Null = no constraint. Must outlive the search.
    const BytePieces* bytes = nullptr;
    /// What each target id writes, for the copy guard (decoding/copy_guard.h): with it, a
    /// hypothesis writes no character to copy that its source lacks, and one that has begun a
    /// span of `copy` writes the rest of it. Null = no guard. Must outlive the search.
    const PieceTexts* texts = nullptr;
    /// The guard's rules, one per sentence (greedy: per memory; beam search: the first); a
    /// sentence without is not guarded.
    std::vector<CopyRules> copy;
};

/// The columns of the logits a search scores: the whole vocabulary, or an output layer's ids.
struct OutputColumns {
    const OutputLayer* layer = nullptr;
    int vocab = 0;
    int size() const { return layer ? int(layer->ids.size()) : vocab; }
    int id(int column) const { return layer ? layer->ids[column] : column; }
    /// The column of target id `id` (-1 when the shortlist lacks it).
    int column(int id) const {
        if (!layer) return id;
        auto it = std::lower_bound(layer->ids.begin(), layer->ids.end(), id);
        return it != layer->ids.end() && *it == id ? int(it - layer->ids.begin()) : -1;
    }
    /// Top-k columns recorded by record_top_k, as target ids.
    void to_ids(std::vector<int>& columns) const {
        for (int& c : columns) c = id(c);
    }
};

/// What was recorded at one step of a hypothesis.
struct StepRecord {
    int token = 0;
    float prob = 0.0f;
    std::vector<int> top_ids;  ///< top-k ids, most probable first
    std::vector<float> top_probs;
    std::vector<float> self_attn;   ///< [L][H][t+1]
    std::vector<float> cross_attn;  ///< [L][H][S]
    std::vector<float> forget;      ///< SSRU decoders: [L][D] forget gates; else empty
};

/// A finished (or length-capped) target sequence.
struct Hypothesis {
    std::vector<int> tokens;        ///< target ids, EOS included when emitted
    std::vector<float> logprobs;    ///< log-probability of each token
    float score = 0.0f;             ///< sum of logprobs (greedy) or normalised (beam)
    std::vector<StepRecord> steps;  ///< per token, when recording
    /// Beam search, when recording: every step's kept nodes and this hypothesis's last node.
    std::vector<std::vector<BeamNode>> beam;
    int beam_node = -1;
};

/// What a search reports after each step: the current best hypothesis's tokens and
/// log-probabilities, and, when recording, its newest step (that step's rows only).
struct SearchProgress {
    const std::vector<int>& tokens;
    const std::vector<float>& logprobs;
    const StepRecord* last;  ///< null unless options.return_attention
};

/// Called after each step; return false to stop early (the search then returns what it has).
/// Its cost per step does not grow with the whole trace: it sees one step's rows.
using SearchObserver = std::function<bool(const SearchProgress& best)>;

/// Greedy decoding of several sentences at once (one decoder row each).
std::vector<Hypothesis> greedy_search(const Model& model,
                                      const std::vector<const Memory*>& memories,
                                      const SearchOptions& options,
                                      const SearchObserver& observer = {});

/// Beam search of one sentence with options.beam_size rows.
Hypothesis beam_search(const Model& model, const Memory& memory, const SearchOptions& options,
                       const SearchObserver& observer = {});

/// A log-softmax entry's cost in multiply-adds (an exponential, a sum, a subtraction), for
/// parallel_ranges.
inline constexpr double kSoftmaxWork = 8;

/// log-softmax of one row of logits in place (its exponentials shared out over the current
/// pool, the same bits on any thread count); returns nothing. (Shared by both searches.)
void log_softmax(float* logits, int n);

/// Sets the log-probability of each of `banned` (target ids; null = none) in one row over
/// `cols` to -inf. (Shared by both searches.)
void ban(float* logprobs, const OutputColumns& cols, const std::vector<int>* banned);

/// Fills `rec.top_ids/top_probs` with the k most probable tokens of a log-prob row (never
/// one whose log-probability is -inf).
void record_top_k(const float* logprobs, int n, int k, StepRecord& rec);

}  // namespace heed
