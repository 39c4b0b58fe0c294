// The encoder-decoder Transformer (Vaswani et al. 2017): Model::encode once per sentence,
// Model::step once per target token with a KV cache. Not the search (see decoding/).
//
// Axis letters: R rows (hypotheses decoded together), S source length, T target steps,
// D model dim, H heads, Dh head dim, F feed-forward dim, V vocabulary, L layers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "model/config.h"
#include "model/interventions.h"
#include "model/linear_surgery.h"
#include "model/weights.h"

namespace heed {

class BlockAttention;

/// The encoder's output for one sentence, with every decoder layer's cross-attention keys and
/// values computed once (never recomputed per step).
struct Memory {
    int length = 0;             ///< S
    Mat states;                 ///< [S, D] final encoder states
    std::vector<Mat> cross_kv;  ///< per decoder layer: [S, 2D] (K | V)
};

/// Optional recordings of a forward pass (attention, and the normalised block inputs the
/// one-head explainer needs). Filled only for the parts requested.
struct EncoderTrace {
    std::vector<float> self_attn;   ///< [L][H][S][S]
    std::vector<Mat> block_inputs;  ///< per layer: [S, D] query-side input of self-attention
};

/// Per-step attention of every row: self [L][R][H][t+1] and cross [L][R][H][S_r] flattened
/// row-major per layer then row (rows may have different S).
struct StepAttention {
    std::vector<std::vector<float>> self;   ///< [R] -> [L][H][t+1]
    std::vector<std::vector<float>> cross;  ///< [R] -> [L][H][S_r]
    /// SSRU decoders: [R] -> [L][D], each layer's forget gate f_t (1: keep the past, 0: take
    /// this step's input); empty otherwise. `self` is then all zeros: nothing attends.
    std::vector<std::vector<float>> forget;
    std::vector<Mat> self_inputs;   ///< per layer [R, D]: LN'd self-attention input (explainer)
    std::vector<Mat> cross_inputs;  ///< per layer [R, D]: LN'd cross-attention query input
    bool want_inputs = false;
};

/// Incremental decoding state of R rows: self-attention KV caches sized once for `max_len`
/// steps, and every scratch buffer the step needs (no allocation per token).
class DecoderState {
  public:
    DecoderState(const ModelConfig& config, int rows, int max_len);
    ~DecoderState();
    int rows() const { return rows_; }
    int max_len() const { return max_len_; }
    int length() const { return length_; }  ///< steps done so far
    /// Beam re-selection: new row r continues old row parents[r] (caches are copied).
    void reorder(const std::vector<int>& parents);
    /// Attention surgery for every later step (null: none); must outlive the state's use.
    void set_interventions(const Interventions* interventions);

  private:
    friend class Model;
    int rows_, max_len_, length_ = 0;
    std::vector<std::vector<float>> cache_;  ///< per layer: [R, max_len, 2D] (K | V)
    std::vector<std::vector<float>> cell_;   ///< SSRU decoders, per layer: [R, D] state c_t
    std::vector<float> cache_tmp_;
    Mat x_, h_, qkv_, q_, attn_, proj_, ffn_;  ///< [R, *] scratch
    std::vector<float> token_;                 ///< [D] one token's embedding row
    /// Every attention block of the steps, under the interventions (block_attention.h).
    std::unique_ptr<BlockAttention> attention_;
};

/// The decoder's output restricted to some target ids (a shortlist's selection): the logits
/// of these rows only, in this order.
struct OutputLayer {
    std::vector<int> ids;  ///< sorted target ids
    PackedLinear layer;    ///< those rows of the output projection
};

/// Weights plus the forward pass.
class Model {
  public:
    Model(ModelConfig config, ModelWeights weights);
    const ModelConfig& config() const { return config_; }
    const ModelWeights& weights() const { return weights_; }

    /// Encodes source ids (EOS included) -> Memory. Records attention when `trace` is given;
    /// `interventions` (null: none) changes how it attends (attention surgery).
    Memory encode(const std::vector<int>& src, EncoderTrace* trace = nullptr,
                  const Interventions* interventions = nullptr) const;

    /// One decoder step for R rows: consumes each row's previous token (`tokens[r]`) at
    /// position state.length(), writes logits [R, V] (or [R, output->ids.size()] when an
    /// output layer is given); row r attends to *memories[r].
    void step(const std::vector<const Memory*>& memories, const std::vector<int>& tokens,
              DecoderState& state, float* logits, StepAttention* trace = nullptr,
              const OutputLayer* output = nullptr) const;

    /// The output projection's rows `ids` (sorted vocabulary ids), for step().
    OutputLayer output_layer(std::vector<int> ids) const;

  private:
    ModelConfig config_;
    ModelWeights weights_;
};

}  // namespace heed
