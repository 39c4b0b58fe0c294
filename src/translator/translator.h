// The façade: load a model from bytes, translate text, optionally with the attention trace.
// Everything above (CLI, bindings) talks to this file only. Plain data and a pimpl: it includes
// no tensor, model or tokenizer header (the parts are in loaded_model.h, for this layer).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "decoding/trace.h"
#include "model/attention_cost.h"
#include "model/config.h"
#include "model/explanation.h"
#include "model/interventions.h"
#include "translator/call_budget.h"

namespace heed {

/// The accepted range of each TranslateOptions field, defined here once: the translator checks
/// them and the bindings hand them to JavaScript (limits()), which checks them before a call.
struct OptionLimits {
    int beam_size = 16;                ///< beam_size in 1..beam_size
    int max_length = 1024;             ///< max_length in 0..max_length
    float length_penalty = 10.0f;      ///< length_penalty in 0..length_penalty
    int top_k = 100;                   ///< top_k in 0..top_k
    int threads = 16;                  ///< threads in 1..threads
    float temperature = 100.0f;        ///< interventions.temperature in (0, temperature]
    int window = 4096;                 ///< interventions.window in -1..window
    int random_blocks = 64;            ///< interventions.sparse.random_blocks in 0..random_blocks
    int sparse_block = 256;            ///< interventions.sparse.block in 1..sparse_block
    int linear_features = 4096;        ///< interventions.linear.features in 1..linear_features
    std::uint32_t seed = 0xffffffffu;  ///< every seed in 0..seed (32 bits)
    /// interventions.ablate[i].layer below layers and .head below heads: the most any model
    /// file may have (ModelLimits); the model's own counts are checked against the model.
    int layers = std::max(ModelLimits::encoder_layers, ModelLimits::decoder_layers);
    int heads = ModelLimits::heads;
};
inline constexpr OptionLimits kOptionLimits{};

/// Options of one translate call (JavaScript: beam, maxLength, lengthPenalty, attention, topK).
struct TranslateOptions {
    int beam_size = 1;              ///< 1 = greedy; >1 = beam search with this many hypotheses
    int max_length = 0;             ///< max target tokens; 0 = auto (2 * source length + 10,
                                    ///< or as Bergamot's Marian 2 * for search_rules marian)
    float length_penalty = 1.0f;    ///< beam score = logprob / length^penalty (0 = none)
    bool return_attention = false;  ///< fill Translation::attention
    int top_k = 5;                  ///< candidates recorded per step when return_attention
    std::string to;                 ///< target language; "" = the model's first direction
    Interventions interventions;    ///< attention surgery (model/interventions.h); {} = none
    /// translate_texts() splits each text into sentences (sentence_splitter.h) and translates
    /// them one by one; false: each text is one sequence. translate(), translate_batch() and
    /// translate_one() always take their texts as they are.
    bool split = true;
    /// "What if": target ids the decoder must take first (a finished translation's ids up to
    /// some step, then another candidate); it continues on its own from there. Each must be a
    /// vocabulary id; empty = none.
    std::vector<int> forced_prefix;
    /// Output shortlist (JavaScript: shortlist; CLI: --shortlist): the decoder scores only the
    /// target pieces the model file's shortlist allows for the sentence's source pieces (its
    /// probabilities are then normalised over those). The model must have one for the target
    /// language. Attention is computed as without it.
    bool shortlist = false;
    /// The copy guard (JavaScript: copyGuard; CLI: --no-copy-guard turns it off): the output
    /// writes no letter of another script, emoji or symbol that the source lacks, and copies a
    /// run of them or a URL whole once it has begun it (decoding/copy_guard.h). Off: the
    /// model's own choices, as PyTorch's greedy search makes them. No guard for a model read
    /// through src/marian/ (Marian has none).
    bool copy_guard = true;
    /// Threads a call is decoded on: with at least as many sentences as threads each thread
    /// takes a share of the sentences; with fewer (one long sentence, a beam) every thread
    /// works inside each large matrix product (output columns shared out). Either way the
    /// same translations, bit for bit, as one thread. A WebAssembly build without pthreads
    /// uses one.
    int threads = 1;
};

/// One translated sentence.
struct Translation {
    std::string text;                        ///< detokenised target text
    std::vector<std::string> source_tokens;  ///< source pieces, EOS included
    std::vector<std::string> target_tokens;  ///< target pieces, EOS included when emitted
    std::vector<int> source_ids;             ///< ids of source_tokens
    std::vector<int> target_ids;             ///< ids of target_tokens
    std::vector<float> token_probs;          ///< probability of each target token
    float score = 0.0f;                      ///< sum of log-probabilities (beam: normalised)
    std::string to;                          ///< target language ("" if the model names none)
    /// true when decoding stopped at the length limit before the model emitted </s>: the
    /// translation may be missing its end
    bool truncated = false;
    bool has_attention = false;
    AttentionTrace attention;  ///< filled when options.return_attention
    /// Attention multiply-adds and state per block and layer for this sentence, as the call's
    /// interventions computed it (model/attention_cost.h); always filled.
    std::vector<AttentionCost> costs;
    /// Target pieces the decoder scored at each step: the shortlist's size, or the vocabulary.
    int output_size = 0;
};

/// One text of translate_batch(): its translation, or the message saying why it was refused.
struct BatchItem {
    bool ok = false;          ///< true: `translation` is set; false: `error` is
    Translation translation;  ///< the result when ok
    std::string error;        ///< the heed::Error message when the text was refused
};

/// One text of translate_texts(): its sentences' translations and the text they make together.
struct TextTranslation {
    bool ok = false;    ///< false: `error` says why (the first sentence refused), or `stopped`
    std::string error;  ///< the heed::Error message ("sentence i of n: ..." when n > 1)
    /// The step callback returned false while this text was translated: it and the texts after
    /// it are unfinished (ok false, no error).
    bool stopped = false;
    std::vector<TextSpan> spans;         ///< each sentence's bytes in the text (split_call())
    std::vector<Translation> sentences;  ///< one per span, in order (when ok)
    /// The translation: the sentences' texts with the text's own gaps (whitespace, line
    /// breaks) between them; one sentence: its translation as is.
    std::string text;
};

/// One decoding step of translate_one, as it happens (for animation). It carries this step's
/// attention rows only, so the work per step never grows with the whole trace: a listener that
/// wants the full trace keeps the rows (and `encoder_self`, sent with step 0).
struct StepEvent {
    int step = 0;       ///< index of the token just chosen (0-based)
    int sentence = 0;   ///< translate_texts(): which sentence of its text (0-based)
    int sentences = 1;  ///< translate_texts(): how many sentences the text has
    /// The best hypothesis so far, this step's token last (beam search: it may differ from the
    /// previous step's best in earlier tokens).
    std::vector<int> target_ids;
    std::vector<std::string> target_tokens;
    float prob = 0.0f;                             ///< probability of the token just chosen
    std::vector<Candidate> top;                    ///< the step's top-k candidates (when recording)
    const std::vector<int>* source_ids = nullptr;  ///< EOS included
    const std::vector<std::string>* source_tokens = nullptr;
    bool has_attention = false;  ///< the rows below are filled
    Array decoder_self;          ///< [L_dec][H][step+1]: this step's masked self-attention
    Array cross;                 ///< [L_dec][H][S]: this step's cross-attention
    Array forget;  ///< SSRU decoders: [L_dec][D], this step's forget gates; else empty
    const Array* encoder_self = nullptr;  ///< [L_enc][H][S][S], at step 0 only (else null)
};

/// Called after each decoding step of a single-sentence greedy/beam run; return false to abort.
using StepCallback = std::function<bool(const StepEvent& event)>;

/// How a model is held in memory (JavaScript: loadTranslator's `compute`; CLI: --compute).
struct LoadSettings {
    /// true (default): weights the file stores as I8 stay int8 in memory and are multiplied as
    /// int8 (activations rounded to int16 per row); false: widened to f32 at load, as before
    /// (the reference, about 4× the memory of those weights). F16/F32 weights are always f32.
    bool int8 = true;
};

struct LoadedModel;

/// A loaded model with its tokenizer. Not thread-safe; one translate call at a time.
class Translator {
  public:
    /// Parses and verifies a model file held in memory; throws heed::Error naming the problem.
    static std::unique_ptr<Translator> load(const std::uint8_t* bytes, std::size_t size,
                                            const LoadSettings& settings = {});
    /// Reads and loads a model file; throws heed::Error if unreadable or invalid.
    static std::unique_ptr<Translator> load_file(const std::string& path,
                                                 const LoadSettings& settings = {});
    ~Translator();

    /// Translates a batch of sentences. Throws heed::Error on empty, invalid UTF-8 or
    /// over-long text, or bad options.
    std::vector<Translation> translate(const std::vector<std::string>& texts,
                                       const TranslateOptions& options) const;
    /// Translates a batch where a refused text (empty, invalid UTF-8, too long) gives an error
    /// item instead of failing the others. Throws heed::Error for bad options or a batch over
    /// kMaxBatchTexts texts or kMaxBatchPieces source pieces in all.
    std::vector<BatchItem> translate_batch(const std::vector<std::string>& texts,
                                           const TranslateOptions& options) const;
    /// Translates whole texts, the one paragraph path of the CLI and the bindings: checks the
    /// call's budget (split_call(): throws heed::Error naming the limit, nothing translated),
    /// splits each text into sentences (unless options.split is false), translates them under
    /// the batch limits and joins each text's translation. A refused sentence makes its text an
    /// error item; the other texts are still translated. With `on_step`, sentences are
    /// translated one after the other, each step reported with its sentence; returning false
    /// stops the call (the unfinished texts come back `stopped`).
    std::vector<TextTranslation> translate_texts(const std::vector<std::string>& texts,
                                                 const TranslateOptions& options,
                                                 const StepCallback& on_step = {}) const;
    /// Translates one sentence, reporting each step to `on_step` (may be empty).
    Translation translate_one(const std::string& text, const TranslateOptions& options,
                              const StepCallback& on_step = {}) const;

    /// Every intermediate of one attention head, teacher-forced on a finished translation
    /// (source_ids / target_ids as returned in Translation). Throws heed::Error.
    /// `to`: the target language it was translated into (Translation::to; "" = default).
    HeadExplanation explain_head(const std::vector<int>& source_ids,
                                 const std::vector<int>& target_ids, AttentionBlock block,
                                 int layer, int head, const std::string& to = "") const;

    /// The model config as JSON text (as stored in the file) and the parameter count.
    std::string config_json() const;
    std::size_t parameter_count() const;
    /// Bytes the loaded weights occupy in memory, and whether any are held as int8.
    std::size_t weight_bytes() const;
    bool int8_weights() const;
    /// The file's "__metadata__" as a JSON object text (languages, model card fields, ...).
    std::string metadata_json() const;
    /// Target languages the model file has an output shortlist for.
    std::vector<std::string> shortlist_languages() const;
    /// Every direction the model translates in ("en-de", ...), its default first.
    const std::vector<std::string>& directions() const;
    /// Throws heed::Error naming the option unless it fits this model: the target language
    /// (listing the directions) and every ablated head's block, layer and head. translate()
    /// checks the same; this lets a caller check once, up front.
    void check_against_model(const TranslateOptions& options) const;

  private:
    explicit Translator(std::unique_ptr<LoadedModel> loaded);
    /// translate() on source ids already checked and tokenised (EOS included), on
    /// options.threads threads (sentences shared out, or the products of each).
    std::vector<Translation> translate_ids(std::vector<std::vector<int>> ids,
                                           const TranslateOptions& options) const;
    /// translate_ids() of one group of sentences, on the calling thread.
    std::vector<Translation> translate_group(std::vector<std::vector<int>> ids,
                                             const TranslateOptions& options) const;
    std::unique_ptr<LoadedModel> loaded_;
};

/// Throws heed::Error naming the first option out of range (translate() calls it too; the CLI
/// calls it once before reading any input).
void check_options(const TranslateOptions& options);

/// Longest text accepted, in bytes; longer input is rejected with a message (call_budget.h).
constexpr std::size_t kMaxTextBytes = kCallLimits.text_bytes;

/// Most texts in one translate_batch() call, and most source pieces in all of them: they bound
/// the memory of one batch (encoder outputs, KV caches, traces). Callers that split texts send
/// at most kChunkSentences sentences per batch, so the pieces limit (64 × 250 < 16,384) never
/// cuts a call that split_call() accepted.
constexpr std::size_t kMaxBatchTexts = kCallLimits.texts;
constexpr std::size_t kMaxBatchPieces = 16384;
/// Sentences translate_texts() hands to one translate_batch() call.
constexpr std::size_t kChunkSentences = 64;

/// Largest model file accepted, in bytes (1 GiB); a bigger one is refused before it is read.
constexpr std::size_t kMaxModelBytes = std::size_t(1) << 30;

/// Maximum source length in SentencePiece pieces; longer input is rejected with a message.
constexpr int kMaxSourceTokens = 250;

}  // namespace heed
