// Sinusoidal positions and their cosine similarity; plain loops, called once per model load
// (or per demo request), so clarity beats speed here.
#include "ops/positional_encoding.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"

namespace heed {

// PE(pos, 2k) = sin(ω_k pos), PE(pos, 2k+1) = cos(ω_k pos) with ω_k = 1/10000^(2k/d_model),
// k from 0 (Vaswani et al. 2017 §3.5).
Mat sinusoidal_positions(int length, int d_model) {
    if (length < 0 || d_model < 1)
        throw Error("sinusoidal_positions: need length >= 0 and d_model >= 1, got " +
                    std::to_string(length) + " and " + std::to_string(d_model));
    Mat pe = Mat::from_shape({std::size_t(length), std::size_t(d_model)});
    for (int pos = 0; pos < length; ++pos)
        for (int c = 0; c < d_model; c += 2) {
            // why: in float, pos / 10000^x loses digits for large pos; sin/cos of a wrong angle
            const double angle = double(pos) / std::pow(10000.0, double(c) / double(d_model));
            pe(pos, c) = float(std::sin(angle));
            if (c + 1 < d_model) pe(pos, c + 1) = float(std::cos(angle));
        }
    return pe;
}

Mat marian_positions(int length, int d_model) {
    if (length < 0 || d_model < 4 || d_model % 2)
        throw Error("marian_positions: need length >= 0 and an even d_model >= 4, got " +
                    std::to_string(length) + " and " + std::to_string(d_model));
    const int half = d_model / 2;
    // why: in float as Marian does, so the table is the one its models were trained with
    const float step = std::log(10000.0f) / (float(half) - 1.0f);
    Mat pe = Mat::from_shape({std::size_t(length), std::size_t(d_model)});
    for (int pos = 0; pos < length; ++pos)
        for (int i = 0; i < half; ++i) {
            const float angle = float(pos) * std::exp(float(i) * -step);
            pe(pos, i) = std::sin(angle);
            pe(pos, half + i) = std::cos(angle);
        }
    return pe;
}

// Why sinusoids: PE(i)ᵀPE(j) depends only on i - j and is large when i ≈ j (Vaswani et al. 2017
// §3.5, "attend by relative positions"); this is that dot product normalised to [-1, 1].
Mat position_similarity(const Mat& pe) {
    const std::size_t L = pe.shape(0), D = pe.shape(1);
    std::vector<double> norm(L, 0.0);
    for (std::size_t i = 0; i < L; ++i) {
        double s = 0;
        for (std::size_t d = 0; d < D; ++d) s += double(pe(i, d)) * pe(i, d);
        norm[i] = std::sqrt(s);
    }
    Mat sim = Mat::from_shape({L, L});
    for (std::size_t i = 0; i < L; ++i)
        for (std::size_t j = 0; j < L; ++j) {
            double dot = 0;
            for (std::size_t d = 0; d < D; ++d) dot += double(pe(i, d)) * pe(j, d);
            const double den = norm[i] * norm[j];
            sim(i, j) = den > 0 ? float(dot / den) : 0.0f;
        }
    return sim;
}

}  // namespace heed
