// The GEMM benchmark fixture: owns x, y and the packed layer; run() is the timed work.
#include "linear_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/packed_linear.h"

namespace heed {

struct LinearBench::Buffers {
    int rows;
    std::vector<float> x, y;  // [rows, in], [rows, out]
    PackedLinear linear;
};

namespace {

/// W quantised per row as the model file stores it (scale = max|row| / 127).
PackedLinear quantised(const std::vector<float>& w, const std::vector<float>& bias, int out, int in,
                       LinearKernel kernel) {
    std::vector<std::int8_t> q(w.size());
    std::vector<float> scales(out);
    for (int r = 0; r < out; ++r) {
        float amax = 0;
        for (int k = 0; k < in; ++k) amax = std::max(amax, std::fabs(w[std::size_t(r) * in + k]));
        scales[r] = amax > 0 ? amax / 127.0f : 1.0f;
        for (int k = 0; k < in; ++k)
            q[std::size_t(r) * in + k] =
                std::int8_t(std::nearbyint(w[std::size_t(r) * in + k] / scales[r]));
    }
    return PackedLinear(q.data(), scales.data(), bias.data(), out, in, kernel);
}

}  // namespace

LinearBench::LinearBench(int rows, int in_features, int out_features, int kernel) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    auto random = [&](std::size_t n) {
        std::vector<float> v(n);
        for (float& z : v) z = uniform(rng);
        return v;
    };
    const std::vector<float> w = random(std::size_t(in_features) * out_features);  // [out, in]
    const std::vector<float> bias = random(std::size_t(out_features));             // [out]
    PackedLinear layer =
        kernel == 0 ? PackedLinear(w.data(), bias.data(), out_features, in_features)
                    : quantised(w, bias, out_features, in_features,
                                kernel == 1 ? LinearKernel::Int8 : LinearKernel::Int8Widen);
    b_.reset(new Buffers{rows, random(std::size_t(rows) * in_features),
                         std::vector<float>(std::size_t(rows) * out_features), std::move(layer)});
}

LinearBench::~LinearBench() = default;

void LinearBench::run(int repeats) {
    for (int r = 0; r < repeats; ++r) b_->linear.apply(b_->x.data(), b_->rows, b_->y.data());
}

double LinearBench::checksum() const {
    double s = 0;
    for (float z : b_->y) s += z;
    return s;
}

}  // namespace heed
