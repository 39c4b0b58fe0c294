// GFLOP/s of the SIMD128 GEMM against the scalar reference on the linear layers of a 256-wide
// model (d 256, FFN 1024, vocab 8000). Measurement only: no assertions. Uses kernels/ alone,
// so the same source also builds with em++ to time the WASM code in Node.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "kernels/gemm.h"

namespace {

using heed::bench::kClockName;
using heed::bench::now_seconds;

/// Best seconds per call of `fn`: the fastest of many ~2 ms batches filling `budget` seconds,
/// after a warm-up. why: on a shared machine (and on the wall clock) the minimum over short
/// batches tracks the undisturbed speed.
template <class Fn>
double best_seconds(Fn&& fn, double budget) {
    // warm caches and (under V8) tier the code up before the clock starts
    const double w0 = now_seconds();
    int warm = 0;
    do {
        fn();
        ++warm;
    } while (warm < 3 || now_seconds() - w0 < budget / 5);
    const double per_call = (now_seconds() - w0) / warm;
    const int reps = std::max(1, int(2e-3 / per_call));
    double best = 1e30;
    const double t_end = now_seconds() + budget;
    for (int batch = 0; batch < 5 || now_seconds() < t_end; ++batch) {
        const double t0 = now_seconds();
        for (int r = 0; r < reps; ++r) fn();
        best = std::min(best, (now_seconds() - t0) / reps);
    }
    return best;
}

float g_sink = 0;  // why: keeps the timed calls observable to the optimiser

std::vector<float> random_vec(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

double gflops(double flops, double seconds) { return flops / seconds / 1e9; }

/// Linear layers y = x·Wᵀ + b of the model: W packed once (PackedLinear::apply's one call).
void bench_layers(double budget, std::mt19937& rng) {
    using namespace heed::kernels;
    const int layers[][2] = {{256, 256}, {256, 1024}, {1024, 256}, {256, 8000}};  // in -> out
    std::printf("linear layers y[M,out] = x[M,in]·Wᵀ + b, W packed once\n");
    std::printf("%4s %5s %5s  %12s %12s %7s\n", "M", "in", "out", "simd GFLOP/s", "ref GFLOP/s",
                "ratio");
    for (int M : {1, 20, 64}) {
        for (const auto& layer : layers) {
            const int K = layer[0], N = layer[1];
            const std::vector<float> x = random_vec(std::size_t(M) * K, rng);
            const std::vector<float> w = random_vec(std::size_t(N) * K, rng);
            const std::vector<float> bias = random_vec(std::size_t(N), rng);
            std::vector<float> y(std::size_t(M) * N);
            std::vector<float> packed(packed_b_size(K, N));
            pack_b_f32(K, N, w.data(), K, /*b_transposed=*/true, packed.data());
            const double t_simd = best_seconds(
                [&] {
                    gemm_f32_4x8_simd128(M, N, K, x.data(), K, packed.data(), bias.data(), y.data(),
                                         N, false);
                    g_sink += y[0];
                },
                budget);
            const double t_ref = best_seconds(
                [&] {
                    gemm_f32_ref(M, N, K, x.data(), K, w.data(), K, true, bias.data(), y.data(), N,
                                 false);
                    g_sink += y[0];
                },
                budget);
            const double flops = 2.0 * M * N * K;
            std::printf("%4d %5d %5d  %12.2f %12.2f %6.1fx\n", M, K, N, gflops(flops, t_simd),
                        gflops(flops, t_ref), t_ref / t_simd);
        }
    }
}

/// Activation products (attention's Q·Kᵀ and P·V on one head of a [T, 256] buffer, Dh = 64):
/// the in-place paths against packing B on every call, the choice ops/matmul makes.
void bench_activations(double budget, std::mt19937& rng) {
    using namespace heed::kernels;
    struct Shape {
        int M, N, K;
        bool bt;
    };
    const Shape shapes[] = {{1, 20, 64, true},   {1, 64, 64, true},     {4, 20, 64, true},
                            {20, 20, 64, true},  {64, 64, 64, true},    {1, 64, 20, false},
                            {1, 64, 64, false},  {4, 64, 20, false},    {20, 64, 20, false},
                            {64, 64, 64, false}, {64, 1024, 256, false}};
    const int ld = 256;
    std::printf("\nactivation products C[M,N] = A·B (B [K,N] or [N,K]ᵀ, ld %d), GFLOP/s\n", ld);
    std::printf("%4s %5s %5s %4s  %12s %12s %12s\n", "M", "N", "K", "B", "in-place", "pack+4x8",
                "ref");
    for (const Shape& s : shapes) {
        const int lda = std::max(ld, s.K), ldb = std::max(ld, s.bt ? s.K : s.N);
        const int ldc = std::max(ld, s.N);
        const std::vector<float> a = random_vec(std::size_t(s.M) * lda, rng);
        const std::vector<float> b = random_vec(std::size_t(s.bt ? s.N : s.K) * ldb, rng);
        std::vector<float> c(std::size_t(s.M) * ldc), packed(packed_b_size(s.K, s.N));
        std::vector<float> tail(std::size_t(s.K) * kGemmNr);
        const double t_direct = best_seconds(
            [&] {
                if (s.bt)
                    gemm_f32_nt_dot_simd128(s.M, s.N, s.K, a.data(), lda, b.data(), ldb, nullptr,
                                            c.data(), ldc, false);
                else
                    gemm_f32_nn_simd128(s.M, s.N, s.K, a.data(), lda, b.data(), ldb, nullptr,
                                        c.data(), ldc, false, tail.data());
                g_sink += c[0];
            },
            budget);
        const double t_pack = best_seconds(
            [&] {
                pack_b_f32(s.K, s.N, b.data(), ldb, s.bt, packed.data());
                gemm_f32_4x8_simd128(s.M, s.N, s.K, a.data(), lda, packed.data(), nullptr, c.data(),
                                     ldc, false);
                g_sink += c[0];
            },
            budget);
        const double t_ref = best_seconds(
            [&] {
                gemm_f32_ref(s.M, s.N, s.K, a.data(), lda, b.data(), ldb, s.bt, nullptr, c.data(),
                             ldc, false);
                g_sink += c[0];
            },
            budget);
        const double flops = 2.0 * s.M * s.N * s.K;
        std::printf("%4d %5d %5d %4s  %12.2f %12.2f %12.2f\n", s.M, s.N, s.K, s.bt ? "NK" : "KN",
                    gflops(flops, t_direct), gflops(flops, t_pack), gflops(flops, t_ref));
    }
}

}  // namespace

int main(int argc, char** argv) {
    const double budget = argc > 1 ? std::atof(argv[1]) : 0.5;  // seconds per timed cell
    std::printf("best ~2 ms batch over %.2f s per cell (%s), after warm-up\n", budget, kClockName);
    std::mt19937 rng(42);
    bench_layers(budget, rng);
    if (argc <= 2 || std::string(argv[2]) != "--layers-only") bench_activations(budget, rng);
    return g_sink == 12345.0f;
}
