// A benchmark fixture: the model's linear layer (y = x·Wᵀ + b, W packed once) on seeded random
// data, for timing the GEMM from JavaScript (scripts/bench.mjs, bench/ort) through the bench-only
// module (bench/linear_bench_module.cpp). Not used to translate; not in the shipped heed.wasm.
#pragma once

#include <memory>

namespace heed {

class LinearBench {
  public:
    /// x [rows, in_features], W [out_features, in_features], b [out_features], filled from a
    /// fixed seed. `kernel`: 0 f32, 1 int8 (int16 activations, int32 dots), 2 int8 widened to
    /// f32 on the fly (LinearKernel); int8 weights are W quantised per row. 3 is no product: it
    /// reads out_features x in_features floats once per run, summed in eight SIMD accumulators,
    /// the least memory traffic any f32 one-row product must make (the read ceiling).
    LinearBench(int rows, int in_features, int out_features, int kernel = 0);
    ~LinearBench();
    /// Applies the layer `repeats` times (what the caller times).
    void run(int repeats);
    /// Sum of the last output, so the work cannot be optimised away.
    double checksum() const;

  private:
    struct Buffers;
    std::unique_ptr<Buffers> b_;
};

}  // namespace heed
