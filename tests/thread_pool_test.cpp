// The worker pool and the products shared out over it: every part runs once per run, many
// runs in a row (no lost hand-over), fixed and taken runs mixed, the caller taking a sleeping
// worker's part, parallel_ranges covers [0, n) once on aligned boundaries and never nests,
// and a packed linear layer (f32, int8, int8 widened) gives the same bits on 1, 2 and 3
// threads over odd shapes.
#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "ops/packed_linear.h"

namespace heed {
namespace {

TEST(ThreadPool, EveryPartRunsOncePerRunOverManyRuns) {
    for (int threads : {1, 2, 3, 5}) {
        ThreadPool pool(threads);
        ASSERT_EQ(pool.threads(), threads);
        std::vector<std::atomic<int>> count(threads);
        for (int run = 0; run < 5000; ++run) pool.run([&](int part) { ++count[part]; });
        for (int p = 0; p < threads; ++p) EXPECT_EQ(count[p].load(), 5000) << threads;
    }
}

TEST(ThreadPool, TakenPartsRunOncePerRunWhoeverTakesThem) {
    using Parts = ThreadPool::Parts;
    for (int threads : {2, 3, 5}) {
        ThreadPool pool(threads);
        std::vector<std::atomic<int>> count(threads);
        std::atomic<int> by_caller{0};
        const std::thread::id caller = std::this_thread::get_id();
        for (int run = 0; run < 5000; ++run) {
            // why: runs of both kinds in turn: a worker late for a taken run must neither take a
            // part of the next run nor run a fixed part twice
            const Parts kind = run % 3 == 0 ? Parts::Fixed : Parts::Taken;
            pool.run(
                [&](int part) {
                    ++count[part];
                    if (part > 0 && std::this_thread::get_id() == caller) ++by_caller;
                },
                kind);
        }
        for (int p = 0; p < threads; ++p) EXPECT_EQ(count[p].load(), 5000) << threads;
        std::printf("%d threads: %d of the workers' taken parts ran on the caller\n", threads,
                    by_caller.load());
    }
}

TEST(ThreadPool, TheCallerTakesTheWorkersPartsWhileTheySleep) {
    ThreadPool pool(2);
    std::atomic<int> by_caller{0};
    const std::thread::id caller = std::this_thread::get_id();
    for (int run = 0; run < 20; ++run) {
        // why: past the workers' spin time, so each run finds the worker asleep; the caller
        // takes part 1 unless the worker wakes before part 0 is done (which then takes 5 ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        pool.run(
            [&](int part) {
                if (part == 0) {
                    const auto t0 = std::chrono::steady_clock::now();
                    while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(5)) {
                    }
                } else if (std::this_thread::get_id() == caller) {
                    ++by_caller;
                }
            },
            ThreadPool::Parts::Taken);
    }
    EXPECT_GT(by_caller.load(), 0) << "a sleeping worker's part waited for it every time";
}

TEST(ThreadPool, ParallelRangesInsideParallelRangesStayOnTheirThread) {
    ThreadPool pool(2);
    PoolScope scope(&pool);
    std::vector<int> hits(64, 0);
    parallel_ranges(4, 1, 1e9, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b)
            parallel_ranges(16, 1, 1e9, [&](int i0, int i1) {
                for (int i = i0; i < i1; ++i) ++hits[std::size_t(b) * 16 + i];
            });
    });
    for (int h : hits) EXPECT_EQ(h, 1);
}

TEST(ThreadPool, WorkersHaveNoPoolOfTheirOwn) {
    ThreadPool pool(3);
    PoolScope scope(&pool);
    std::vector<ThreadPool*> seen(3, &pool);
    pool.run([&](int part) { seen[part] = part == 0 ? nullptr : current_pool(); });
    EXPECT_EQ(seen[1], nullptr);
    EXPECT_EQ(seen[2], nullptr);
    EXPECT_EQ(current_pool(), &pool);
}

TEST(ThreadPool, ScopesNestAndRestore) {
    ThreadPool a(2), b(2);
    EXPECT_EQ(current_pool(), nullptr);
    {
        PoolScope outer(&a);
        {
            PoolScope inner(&b);
            EXPECT_EQ(current_pool(), &b);
        }
        EXPECT_EQ(current_pool(), &a);
    }
    EXPECT_EQ(current_pool(), nullptr);
}

TEST(ThreadPool, ParallelRangesCoverEachElementOnceOnAlignedBoundaries) {
    ThreadPool pool(3);
    PoolScope scope(&pool);
    for (int n : {1, 7, 8, 9, 17, 24, 100, 16001}) {
        for (double work : {0.0, 1e9}) {
            std::vector<int> hits(n, 0);
            std::atomic<int> blocks{0};
            parallel_ranges(n, 8, work, [&](int begin, int end) {
                EXPECT_EQ(begin % 8, 0);
                EXPECT_TRUE(end % 8 == 0 || end == n);
                for (int i = begin; i < end; ++i) ++hits[i];
                ++blocks;
            });
            for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << n << " " << i;
            if (work == 0.0) {
                EXPECT_EQ(blocks.load(), 1) << "small work stays on one thread";
            } else if (n >= 24) {
                EXPECT_EQ(blocks.load(), 3) << n;
            }
        }
    }
}

/// y of a random layer on `threads` threads (1: no pool).
std::vector<float> apply_on(const PackedLinear& layer, const std::vector<float>& x, int rows,
                            int threads) {
    std::vector<float> y(std::size_t(rows) * layer.out_features(), -1.0f);
    ThreadPool pool(threads);
    PoolScope scope(threads > 1 ? &pool : nullptr);
    layer.apply(x.data(), rows, y.data());
    return y;
}

TEST(ThreadPool, APackedLinearGivesTheSameBitsOnOneTwoAndThreeThreads) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> q(-127, 127);
    for (int out : {9, 17, 333, 1001}) {
        for (int in : {5, 64, 130}) {
            std::vector<float> w(std::size_t(out) * in), bias(out), scales(out);
            std::vector<std::int8_t> wq(w.size());
            for (auto& v : w) v = u(rng);
            for (auto& v : wq) v = std::int8_t(q(rng));
            for (auto& v : bias) v = u(rng);
            for (auto& v : scales) v = 0.01f + 0.01f * std::fabs(u(rng));
            const PackedLinear layers[] = {
                PackedLinear(w.data(), bias.data(), out, in),
                PackedLinear(wq.data(), scales.data(), bias.data(), out, in, LinearKernel::Int8),
                PackedLinear(wq.data(), scales.data(), bias.data(), out, in,
                             LinearKernel::Int8Widen)};
            for (int rows : {1, 2, 3, 4, 5, 9}) {
                std::vector<float> x(std::size_t(rows) * in);
                for (auto& v : x) v = 3.0f * u(rng);
                for (const PackedLinear& layer : layers) {
                    const std::vector<float> one = apply_on(layer, x, rows, 1);
                    for (int threads : {2, 3}) {
                        const std::vector<float> many = apply_on(layer, x, rows, threads);
                        ASSERT_EQ(std::memcmp(one.data(), many.data(), one.size() * 4), 0)
                            << "kernel " << int(layer.kernel()) << " rows " << rows << " out "
                            << out << " in " << in << " threads " << threads;
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace heed
