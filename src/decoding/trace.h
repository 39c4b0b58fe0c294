// The attention trace: what the translator saw while decoding one sentence, for the chosen
// hypothesis. Plain data (flat float arrays with their shapes); no tensors, no logic.
#pragma once

#include <string>
#include <vector>

#include "core/array.h"

namespace heed {

/// One of the top-k candidates the decoder weighed at a step.
struct Candidate {
    int id = 0;         ///< target vocabulary id
    std::string piece;  ///< its SentencePiece piece
    float prob = 0.0f;  ///< softmax probability at that step
};

/// Everything recorded for one decoding step of the chosen hypothesis.
struct StepTrace {
    int token = 0;               ///< the token chosen at this step
    float prob = 0.0f;           ///< its probability
    std::vector<Candidate> top;  ///< top-k candidates, most probable first
};

/// One hypothesis kept at one step of beam search (the beam tree): it extends node `parent`
/// of the previous step (-1 at step 0) with `token`; `logprob` is its total log-probability;
/// `finished`: it ended with EOS at this step and left the beam.
struct BeamNode {
    int token = 0;
    std::string piece;  ///< filled by the translator
    int parent = -1;
    float logprob = 0.0f;
    bool finished = false;
};

/// Attention of the chosen hypothesis. S = source length (with EOS), T = target steps.
struct AttentionTrace {
    Array encoder_self;  ///< [L_enc][H][S][S]
    Array decoder_self;  ///< [L_dec][H][T][T] (row t sees keys 0..t: causal)
    Array cross;         ///< [L_dec][H][T][S]
    /// SSRU decoders (no decoder self-attention: `decoder_self` is all zeros): each layer's
    /// forget gates f_t per step, [L_dec][T][D]; empty otherwise.
    Array forget;
    std::vector<StepTrace> steps;  ///< one per target token (T entries)
    /// Beam search only: the nodes kept at each step, and the chosen hypothesis's last node
    /// (its path back through `parent` is the translation); empty / -1 for greedy.
    std::vector<std::vector<BeamNode>> beam;
    int beam_winner = -1;
};

}  // namespace heed
