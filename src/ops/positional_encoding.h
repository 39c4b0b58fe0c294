// Sinusoidal position encodings (Vaswani et al. 2017) and the position-to-position cosine
// similarity the demo plots. Not learned positions (those are weights) and not relative ones.
#pragma once

#include "core/tensor.h"

namespace heed {

/// [length, d_model] with PE(pos, 2i) = sin(pos / 10000^(2i/d_model)) and
/// PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)); an odd d_model ends with a sin column.
/// Angles are computed in double. Throws heed::Error for length < 0 or d_model < 1.
Mat sinusoidal_positions(int length, int d_model);

/// [length, d_model] as Marian computes its sinusoids (in float): the first half of each row
/// sin(pos·r_i), the second cos(pos·r_i), r_i = exp(-i·ln(10000)/(d_model/2 − 1)) for
/// i < d_model/2. Throws heed::Error unless d_model is even and at least 4.
Mat marian_positions(int length, int d_model);

/// [L, L] cosine similarity between the rows of `pe` ([L, D]); a zero row has similarity 0.
Mat position_similarity(const Mat& pe);

}  // namespace heed
