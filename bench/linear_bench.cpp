// The GEMM benchmark fixture: owns x, y and the packed layer; run() is the timed work.
#include "linear_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/simd128.h"
#include "ops/packed_linear.h"

namespace heed {

struct LinearBench::Buffers {
    int rows;
    std::vector<float> x, y;  // [rows, in], [rows, out]
    PackedLinear linear;
    std::vector<float> stream;  // kernel 3: [out * in] floats read once per run
    float stream_sum = 0;
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

/// Sum of `n` floats (n % 32 == 0) in eight f32x4 accumulators: no add waits on another's
/// latency, so the loop runs at the speed the memory delivers the floats.
float read_all(const float* p, std::size_t n) {
    v128_t acc[8];
    for (v128_t& a : acc) a = wasm_f32x4_splat(0.0f);
    for (std::size_t i = 0; i < n; i += 32)
        for (int q = 0; q < 8; ++q) acc[q] = wasm_f32x4_add(acc[q], wasm_v128_load(p + i + 4 * q));
    for (int q = 1; q < 8; ++q) acc[0] = wasm_f32x4_add(acc[0], acc[q]);
    return wasm_f32x4_extract_lane(acc[0], 0) + wasm_f32x4_extract_lane(acc[0], 1) +
           wasm_f32x4_extract_lane(acc[0], 2) + wasm_f32x4_extract_lane(acc[0], 3);
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
        kernel == 0 || kernel == 3
            ? PackedLinear(w.data(), bias.data(), out_features, in_features)
            : quantised(w, bias, out_features, in_features,
                        kernel == 1 ? LinearKernel::Int8 : LinearKernel::Int8Widen);
    b_.reset(new Buffers{rows,
                         random(std::size_t(rows) * in_features),
                         std::vector<float>(std::size_t(rows) * out_features),
                         std::move(layer),
                         {},
                         0.0f});
    if (kernel == 3) {  // why: rounded up to whole 32-float blocks (read_all's step)
        const std::size_t n = std::size_t(in_features) * out_features;
        b_->stream = random((n + 31) / 32 * 32);
    }
}

LinearBench::~LinearBench() = default;

void LinearBench::run(int repeats) {
    if (!b_->stream.empty()) {
        for (int r = 0; r < repeats; ++r)
            b_->stream_sum += read_all(b_->stream.data(), b_->stream.size());
        return;
    }
    for (int r = 0; r < repeats; ++r) b_->linear.apply(b_->x.data(), b_->rows, b_->y.data());
}

double LinearBench::checksum() const {
    if (!b_->stream.empty()) return b_->stream_sum;
    double s = 0;
    for (float z : b_->y) s += z;
    return s;
}

}  // namespace heed
