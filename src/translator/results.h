// Hypotheses into what the façade hands out: Translations (text, pieces, probabilities, the
// attention trace, the call's fields) and step events. Internal to the translator layer.
#pragma once

#include <string>
#include <vector>

#include "decoding/search.h"
#include "model/model.h"
#include "tokenizer/vocabulary.h"
#include "translator/loaded_model.h"
#include "translator/translator.h"

namespace heed {

/// One sentence ready for the search: its source ids (EOS included), the encoder's output and,
/// when recording, the encoder's attention.
struct Prepared {
    std::vector<int> ids;
    Memory memory;
    EncoderTrace trace;
};

/// The Translation of hypothesis `h` of sentence `p`: text, pieces, probabilities, and the
/// attention trace (steps, beam tree) when `with_attention`.
Translation to_translation(const LoadedModel& m, const Prepared& p, const Hypothesis& h,
                           bool with_attention);

/// A translation's fields that come from its call, not its hypothesis: the target language,
/// the attention costs of the call's interventions and the output layer's size.
Translation finish(Translation t, const LoadedModel& m, const TranslateOptions& o,
                   const OutputLayer* output);

/// translate_one's step event: the best hypothesis's tokens (pieces of the target tokenizer
/// `tok`) and its newest rows only.
StepEvent step_event(const Vocabulary& tok, const ModelConfig& c,
                     const std::vector<int>& source_ids,
                     const std::vector<std::string>& source_tokens, const Array& encoder_self,
                     const SearchProgress& best);

}  // namespace heed
