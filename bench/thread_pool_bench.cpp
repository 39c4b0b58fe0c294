// What sharing one product over the call's pool costs and gains: the hand-over alone (an empty
// loop shared by 2 threads, back to back and after a gap of one-thread work as between a decode
// step's products), then one-row products of the model's shapes on 1 and on 2 threads. Built
// natively (build/thread_pool_bench) and, with `scripts/build-wasm.sh --bench`, in the pthreads
// WebAssembly build (node --no-experimental-fetch build-wasm-mt/thread_pool_bench.js), so the
// two hand-overs can be compared; kParallelMinWork (src/core/thread_pool.h) is the break-even
// this shows. Wall clock, medians; measurement only, no assertions; the load average is printed
// beside the figures (WebAssembly has no /proc/loadavg: print it from the shell around the run).
//
//   build/thread_pool_bench [--rounds N]      (default 15)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "linear_bench.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a.empty() ? "unknown (no /proc/loadavg here)" : a + " " + b + " " + c;
}

/// About `us` microseconds of work on this thread alone (what a step does between products).
volatile double g_sink = 0;
void busy(double us) {
    const Clock::time_point t0 = Clock::now();
    double x = 1;
    while (seconds_since(t0) * 1e6 < us) x = x * 1.0000001 + 1e-9;
    g_sink = g_sink + x;
}

/// Microseconds per pool.run() of an empty loop, with `gap_us` of one-thread work between runs
/// (the gap itself not counted).
double hand_over_us(heed::ThreadPool& pool, double gap_us, int runs) {
    double total = 0;
    for (int i = 0; i < runs; ++i) {
        if (gap_us > 0) busy(gap_us);
        const Clock::time_point t0 = Clock::now();
        pool.run([](int) {});
        total += seconds_since(t0);
    }
    return total / runs * 1e6;
}

struct Shape {
    int in, out;
    const char* what;
};

}  // namespace

int main(int argc, char** argv) {
    int rounds = 15;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rounds" && i + 1 < argc) {
            rounds = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "thread_pool_bench: unknown argument '%s' (expected --rounds N)\n",
                         a.c_str());
            return 2;
        }
    }
#ifdef __EMSCRIPTEN__
    const char* build = "pthreads WebAssembly build";
#else
    const char* build = "native build";
#endif
    std::printf("%s, wall clock, median of %d rounds; load average %s at the start\n", build,
                rounds, load_average().c_str());
    heed::ThreadPool pool(2);
    if (pool.threads() < 2) {
        std::printf("no second thread could be started: nothing to compare\n");
        return 1;
    }
    std::printf("hand-over (pool.run of an empty loop on 2 threads), microseconds each:\n");
    for (double gap : {0.0, 20.0, 100.0, 400.0}) {
        std::vector<double> v;
        const int runs = gap > 100 ? 200 : 2000;
        for (int r = 0; r < rounds; ++r) v.push_back(hand_over_us(pool, gap, runs));
        std::printf("  after %5.0f us of one-thread work: %8.2f us\n", gap, median(v));
    }

    // why: the one-row products of a decode step of models/multi.heed (d 256, FFN 2,048, a
    // shortlist of ~1,300 pieces); 256x128 is the smallest that parallel_ranges shares
    const Shape shapes[] = {{256, 128, "(at the sharing threshold)"},
                            {256, 256, "(attention projection)"},
                            {256, 512, "(keys and values of a layer)"},
                            {256, 1344, "(shortlisted logits)"},
                            {256, 2048, "(FFN, first)"},
                            {2048, 256, "(FFN, second)"}};
    std::printf(
        "one-row product x.W^T on 1 and 2 threads (multiply-adds per extra thread in "
        "brackets; kParallelMinWork %.0f), microseconds each:\n",
        heed::kParallelMinWork);
    for (int kernel : {1, 0}) {
        for (const Shape& s : shapes) {
            heed::LinearBench bench(1, s.in, s.out, kernel);
            const double macs = double(s.in) * s.out;
            const int repeats = std::max(20, int(4e7 / macs));
            std::vector<double> t1, t2;
            for (int r = -1; r < rounds; ++r) {  // round -1: warm-up
                Clock::time_point t0 = Clock::now();
                bench.run(repeats);
                if (r >= 0) t1.push_back(seconds_since(t0) / repeats * 1e6);
                heed::PoolScope scope(&pool);
                t0 = Clock::now();
                bench.run(repeats);
                if (r >= 0) t2.push_back(seconds_since(t0) / repeats * 1e6);
            }
            const double a = median(t1), b = median(t2);
            std::printf("  %-4s %4dx%-4d %-29s 1 thread %8.2f, 2 threads %8.2f: %.2fx (%6.0f)\n",
                        kernel == 1 ? "int8" : "f32", s.in, s.out, s.what, a, b, a / b, macs / 2);
        }
    }
    std::printf("load average %s at the end\n", load_average().c_str());
    return 0;
}
