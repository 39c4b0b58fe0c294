// The GEMM benchmark fixture: owns x, y and the packed layer; run() is the timed work.
#include "translator/linear_bench.h"

#include <random>
#include <vector>

#include "ops/linear.h"

namespace heed {

struct LinearBench::Buffers {
    int rows;
    std::vector<float> x, y;  // [rows, in], [rows, out]
    PackedLinear linear;
};

LinearBench::LinearBench(int rows, int in_features, int out_features) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    auto random = [&](std::size_t n) {
        std::vector<float> v(n);
        for (float& z : v) z = uniform(rng);
        return v;
    };
    const std::vector<float> w = random(std::size_t(in_features) * out_features);  // [out, in]
    const std::vector<float> bias = random(std::size_t(out_features));             // [out]
    b_.reset(new Buffers{rows, random(std::size_t(rows) * in_features),
                         std::vector<float>(std::size_t(rows) * out_features),
                         PackedLinear(w.data(), bias.data(), out_features, in_features)});
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
