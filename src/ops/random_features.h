// Feature maps of kernelised (linear) attention: FAVOR+ positive random features (Choromanski
// et al. 2021) and elu(x) + 1 (Katharopoulos et al. 2020), on strided rows of one head.
// Not the attention itself (linear_head.h folds features into key/value sums).
#pragma once

#include <cstdint>

#include "core/splitmix64.h"
#include "core/tensor.h"
#include "ops/attention.h"

namespace heed {

/// A portable Gaussian source (splitmix64 + Box–Muller in double), so a seed draws the same ω
/// natively and in WebAssembly (std::normal_distribution differs between standard libraries).
class GaussianSource {
  public:
    explicit GaussianSource(std::uint64_t seed) : state_(seed) {}
    double next();  ///< one N(0, 1) draw

  private:
    std::uint64_t bits();
    std::uint64_t state_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

/// ω [r, d] for FAVOR+: orthogonal random features (Choromanski et al. 2021 §3, "Orthogonal
/// random features"): blocks of d rows orthogonalised by Gram–Schmidt from Gaussian draws, each
/// row then given the norm of an independent N(0, I_d) vector, so every ω_i is marginally
/// N(0, I_d) (the estimator stays unbiased) while rows within a block are exactly orthogonal.
/// `orthogonal` false: plain i.i.d. N(0, I_d) rows. r >= 1, d >= 1.
Mat draw_favor_projection(int r, int d, std::uint64_t seed, bool orthogonal = true);

/// Log-features of FAVOR+ (Choromanski et al. 2021 Lemma 1, positive features):
/// out[i, f] = ω_fᵀx'_i − ‖x'_i‖²/2 with x'_i = √scale · x_i, so that with
/// φ(x) = exp(out − shift)/√r, E_ω[φ(q)ᵀφ(k)] = exp(scale·qᵀk)·exp(−shift_q − shift_k).
/// x [n, d] strided, omega [r, d], out [n, r] dense. Does not allocate.
void favor_log_features(const RowsView& x, const Mat& omega, float scale, float* out) noexcept;

/// φ = exp(a − shift)/√r in place over `count` log-features (`r` features per row).
void exp_features(float* a, std::size_t count, int r, float shift) noexcept;

/// The largest of `count` values (the FAVOR+ stabiliser of a key set).
float max_of(const float* a, std::size_t count) noexcept;

/// FAVOR+ features of n rows with the paper's stabiliser: `per_row` subtracts each row's own
/// max log-feature (queries: a per-query constant cancels in the row normalisation); otherwise
/// one max over all rows is subtracted (keys: a constant shared by every key cancels too).
/// Returns the shift used (0 when per_row). out [n, r].
float favor_features(const RowsView& x, const Mat& omega, float scale, bool per_row,
                     float* out) noexcept;

/// φ(x) = elu(x) + 1 of n rows x [n, d] into out [n, d] (Katharopoulos et al. 2020 §3.2.1).
void elu_features(const RowsView& x, float* out) noexcept;

}  // namespace heed
