// Milliseconds and multiply-adds of one attention head (d = 64) per variant — full softmax,
// window, sparse, FAVOR+, elu + 1 — for n = 64 .. 1024 synthetic queries, keys and values, and
// the n from which each variant is faster than full attention here. Measurement only: no
// assertions. MACs come from model/attention_cost.h (the engine's own formulas).
//
//   build/attention_variants [SECONDS_PER_POINT]      (native, built by CMake)
//   after scripts/build-wasm.sh, the same source in WASM under Node (one command line):
//   em++ -O3 -msimd128 -fexceptions -std=c++17 -Isrc -isystem build-wasm/include
//        bench/attention_variants.cpp build-wasm/libheed_core.a -sALLOW_MEMORY_GROWTH=1
//        -sENVIRONMENT=node -o /tmp/av.js && node --no-experimental-fetch /tmp/av.js
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "model/attention_cost.h"
#include "ops/attention.h"
#include "ops/linear_head.h"
#include "ops/random_features.h"

namespace {

using heed::bench::kClockName;
using heed::bench::now_seconds;

/// Best seconds per call: the fastest of several batches of ~5 ms after a warm-up.
double best_seconds(const std::function<void()>& fn, double budget) {
    const double w0 = now_seconds();
    int warm = 0;
    do {
        fn();
        ++warm;
    } while (warm < 2 || now_seconds() - w0 < budget / 5);
    const double per_call = (now_seconds() - w0) / warm;
    const int reps = std::max(1, int(5e-3 / per_call));
    double best = 1e30;
    const double t_end = now_seconds() + budget;
    for (int batch = 0; batch < 3 || now_seconds() < t_end; ++batch) {
        const double t0 = now_seconds();
        for (int r = 0; r < reps; ++r) fn();
        best = std::min(best, (now_seconds() - t0) / reps);
    }
    return best;
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    if (!(f >> a >> b >> c)) return "unknown";
    return a + " " + b + " " + c;
}

struct Variant {
    const char* name;
    heed::Interventions iv;  // what attention_costs() counts for it
};

}  // namespace

int main(int argc, char** argv) {
    const double budget = argc > 1 ? std::atof(argv[1]) : 0.3;  // seconds per measurement
    const int d = 64;
    const std::vector<int> sizes = {64, 128, 256, 512, 1024};
    std::vector<Variant> variants(8);
    variants[0].name = "full softmax";
    variants[1].name = "window w=8";
    variants[1].iv.window = 8;
    variants[2].name = "window w=32";
    variants[2].iv.window = 32;
    variants[3].name = "sparse w=8 g=2 rb=2x8";
    variants[3].iv.window = 8;
    variants[3].iv.sparse = {true, 2, 8, 1};
    variants[4].name = "FAVOR+ r=64";
    variants[4].iv.linear = {heed::LinearKind::Favor, 64, 1};
    variants[5].name = "FAVOR+ r=256";
    variants[5].iv.linear = {heed::LinearKind::Favor, 256, 1};
    variants[6].name = "elu+1";
    variants[6].iv.linear = {heed::LinearKind::Elu, 256, 1};
    variants.resize(7);

    heed::ModelConfig one_head;  // one encoder layer of one head of width d
    one_head.d_model = d;
    one_head.heads = 1;
    one_head.encoder_layers = 1;
    one_head.decoder_layers = 0;

    std::printf("attention_variants: one head, d = %d, non-causal self-attention, %s\n", d,
                kClockName);
    std::printf("load average (1, 5, 15 min) before: %s\n\n", load_average().c_str());
    std::printf("%-22s", "variant");
    for (int n : sizes) std::printf(" | n=%-4d ms     MMAC", n);
    std::printf("\n");

    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<std::vector<double>> ms(variants.size(), std::vector<double>(sizes.size()));
    std::vector<std::vector<double>> macs = ms;
    for (std::size_t si = 0; si < sizes.size(); ++si) {
        const int n = sizes[si];
        heed::Mat q = heed::Mat::from_shape({std::size_t(n), std::size_t(d)});
        heed::Mat k = q, v = q, out = q;
        for (heed::Mat* m : {&q, &k, &v})
            for (float& x : *m) x = normal(rng);
        std::vector<float> probs(std::size_t(n) * n);
        const heed::Mat omega64 = heed::draw_favor_projection(64, d, 1);
        const heed::Mat omega256 = heed::draw_favor_projection(256, d, 1);
        for (std::size_t vi = 0; vi < variants.size(); ++vi) {
            const heed::Interventions& iv = variants[vi].iv;
            macs[vi][si] = heed::attention_costs(one_head, iv, n, 0).at(0).macs;
            std::function<void()> run;
            std::vector<std::uint8_t> pattern;
            std::vector<float> scratch;
            if (iv.linear.enabled()) {
                heed::LinearHeadAttention a;
                a.q = heed::columns(q, 0, d);
                a.k = heed::columns(k, 0, d);
                a.v = heed::columns(v, 0, d);
                a.kind = iv.linear.kind;
                a.omega = iv.linear.features == 64 ? &omega64 : &omega256;
                a.scale = 0.125f;
                scratch.resize(heed::linear_head_scratch(a));
                run = [&, a] {
                    heed::linear_attend_head(a, scratch.data(), heed::out_columns(out, 0, d));
                };
            } else {
                heed::HeadAttention a;
                a.q = heed::columns(q, 0, d);
                a.k = heed::columns(k, 0, d);
                a.v = heed::columns(v, 0, d);
                a.scale = 0.125f;
                if (iv.sparse.enabled) {
                    pattern = heed::key_mask(iv, 0, n, n);
                    a.mask.blocked = pattern.data();
                    a.mask.skip_blocked = true;
                } else if (iv.window >= 0) {
                    a.mask.window = iv.window;
                }
                run = [&, a] { heed::attend_head(a, probs.data(), heed::out_columns(out, 0, d)); };
            }
            ms[vi][si] = 1e3 * best_seconds(run, budget);
        }
    }
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
        std::printf("%-22s", variants[vi].name);
        for (std::size_t si = 0; si < sizes.size(); ++si)
            std::printf(" | %9.3f %8.2f", ms[vi][si], macs[vi][si] / 1e6);
        std::printf("\n");
    }
    std::printf("\nfaster than full softmax from n =\n");
    for (std::size_t vi = 1; vi < variants.size(); ++vi) {
        int from = -1;
        for (std::size_t si = sizes.size(); si-- > 0;) {
            if (ms[vi][si] < ms[0][si])
                from = sizes[si];
            else
                break;  // why: "overtakes" = faster at this n and every larger n measured
        }
        if (from < 0)
            std::printf("  %-22s not within n <= %d\n", variants[vi].name, sizes.back());
        else
            std::printf("  %-22s %d\n", variants[vi].name, from);
    }
    std::printf("\nload average (1, 5, 15 min) after: %s\n", load_average().c_str());
    return 0;
}
