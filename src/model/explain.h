// The one-head explainer: every intermediate of one attention head of the real model on a
// given (source, target) pair, recomputed teacher-forced. Cold path for the demo; not used
// by translation.
#pragma once

#include <vector>

#include "model/explanation.h"
#include "model/model.h"

namespace heed {

/// `source` includes EOS; `target` are the emitted target ids (the decoder inputs are the
/// start token followed by target[0..T-2]). Throws heed::Error for a bad layer/head.
HeadExplanation explain_head(const Model& model, const std::vector<int>& source,
                             const std::vector<int>& target, const HeadQuery& query);

}  // namespace heed
