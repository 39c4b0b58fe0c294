// FAVOR+ random projections and feature maps; elu + 1. Scalar loops: the feature projection
// of a head is small next to the model's own linear layers, and stays exact across builds.
#include "ops/random_features.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "ops/matmul.h"

namespace heed {

std::uint64_t GaussianSource::bits() {
    state_ += kSplitmix64Gamma;
    return splitmix64(state_);
}

// Box–Muller (polar-free form): two uniforms in (0, 1] give two independent N(0, 1) draws.
double GaussianSource::next() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    const double u1 = (double(bits() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = double(bits() >> 11) * 0x1.0p-53;          // [0, 1)
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * 3.14159265358979323846 * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
}

Mat draw_favor_projection(int r, int d, std::uint64_t seed, bool orthogonal) {
    if (r < 1 || d < 1) throw Error("FAVOR+ needs at least one feature and one dimension");
    GaussianSource g(splitmix64(seed));
    Mat omega = Mat::from_shape({std::size_t(r), std::size_t(d)});  // [r, d]
    std::vector<double> block(std::size_t(d) * d);                  // [d, d] rows
    for (int first = 0; first < r; first += d) {
        const int rows = std::min(d, r - first);
        for (double& x : block) x = g.next();
        if (orthogonal) {
            // modified Gram–Schmidt on the block's rows ...
            for (int i = 0; i < d; ++i) {
                double* bi = block.data() + std::size_t(i) * d;
                for (int j = 0; j < i; ++j) {
                    const double* bj = block.data() + std::size_t(j) * d;
                    double dot = 0;
                    for (int c = 0; c < d; ++c) dot += bi[c] * bj[c];
                    for (int c = 0; c < d; ++c) bi[c] -= dot * bj[c];
                }
                double norm = 0;
                for (int c = 0; c < d; ++c) norm += bi[c] * bi[c];
                norm = std::sqrt(norm);
                for (int c = 0; c < d; ++c) bi[c] = norm > 0 ? bi[c] / norm : 0.0;
            }
            // ... then each unit row gets the norm of an independent N(0, I_d) draw (χ_d)
            for (int i = 0; i < d; ++i) {
                double chi = 0;
                for (int c = 0; c < d; ++c) {
                    const double z = g.next();
                    chi += z * z;
                }
                chi = std::sqrt(chi);
                for (int c = 0; c < d; ++c) block[std::size_t(i) * d + c] *= chi;
            }
        }
        for (int i = 0; i < rows; ++i)
            for (int c = 0; c < d; ++c)
                omega(std::size_t(first + i), std::size_t(c)) =
                    float(block[std::size_t(i) * d + c]);
    }
    return omega;
}

void favor_log_features(const RowsView& x, const Mat& omega, float scale, float* out) noexcept {
    const int r = int(omega.shape(0)), d = x.cols;
    if (x.rows <= 0) return;
    // [n, r] = x·ωᵀ through the GEMM kernel (the same arithmetic natively and in WASM)
    matmul_raw(x.data, x.stride, omega.data(), d, /*b_transposed=*/true, out, r, x.rows, r, d);
    const float root = std::sqrt(scale);  // x' = x·scale^{1/2}, so x'qᵀx'k = scale·qᵀk
    for (int i = 0; i < x.rows; ++i) {
        const float* xi = x.data + std::size_t(i) * x.stride;
        float half_norm = 0;
        for (int c = 0; c < d; ++c) half_norm += xi[c] * xi[c];
        half_norm *= 0.5f * scale;  // ‖x'‖²/2
        float* o = out + std::size_t(i) * r;
        for (int f = 0; f < r; ++f) o[f] = root * o[f] - half_norm;
    }
}

void exp_features(float* a, std::size_t count, int r, float shift) noexcept {
    const float norm = 1.0f / std::sqrt(float(r));
    for (std::size_t i = 0; i < count; ++i) a[i] = std::exp(a[i] - shift) * norm;
}

float max_of(const float* a, std::size_t count) noexcept {
    float m = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < count; ++i) m = std::max(m, a[i]);
    return m;
}

// The stabiliser of the Performer's implementation: exp(ωᵀx − ‖x‖²/2 − m). For queries m is
// per row, for keys one m for all rows; both rescale φ(q_i)ᵀφ(k_j) by a factor that does not
// depend on j, so out_i = Σ_j φ(q_i)ᵀφ(k_j) v_j / Σ_j φ(q_i)ᵀφ(k_j) is unchanged.
float favor_features(const RowsView& x, const Mat& omega, float scale, bool per_row,
                     float* out) noexcept {
    const int r = int(omega.shape(0));
    favor_log_features(x, omega, scale, out);
    if (per_row) {
        for (int i = 0; i < x.rows; ++i) {
            float* o = out + std::size_t(i) * r;
            exp_features(o, std::size_t(r), r, max_of(o, std::size_t(r)));
        }
        return 0.0f;
    }
    const std::size_t n = std::size_t(x.rows) * r;
    const float shift = n ? max_of(out, n) : 0.0f;
    exp_features(out, n, r, shift);
    return shift;
}

void elu_features(const RowsView& x, float* out) noexcept {
    for (int i = 0; i < x.rows; ++i) {
        const float* xi = x.data + std::size_t(i) * x.stride;
        float* o = out + std::size_t(i) * x.cols;
        for (int c = 0; c < x.cols; ++c) o[c] = xi[c] > 0 ? xi[c] + 1.0f : std::exp(xi[c]);
    }
}

}  // namespace heed
