// A small pool of worker threads that shares out one loop at a time between itself and the
// calling thread, started once per translate call and reused by every matrix product of it
// (starting a thread costs far more than one decode step's products). Not a task queue: one
// loop at a time, each thread one part of it, the caller included (for a product's columns,
// whichever thread is free first takes the next part).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace heed {

/// Whether this build can start threads (a WebAssembly build without pthreads cannot).
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
inline constexpr bool kHaveThreads = false;
#else
inline constexpr bool kHaveThreads = true;
#endif

/// `threads` - 1 workers beside the thread that made the pool, which takes part too.
class ThreadPool {
  public:
    /// Starts threads - 1 workers (none where kHaveThreads is false: then threads() is 1;
    /// fewer when the system refuses a thread).
    explicit ThreadPool(int threads);
    /// Stops and joins the workers.
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return int(workers_.size()) + 1; }

    /// Who runs which part of a run.
    enum class Parts {
        /// part i on worker i: for long parts (a batch's sentences), each thread keeps its own
        Fixed,
        /// part 0 on the calling thread, every other part on whichever thread takes it first,
        /// the caller included once its own is done: for short parts (a product's columns), so
        /// a worker that starts late (woken, or off its core) leaves its part to the caller
        /// instead of keeping it waiting
        Taken,
    };

    /// Calls f(part) for every part in 0..threads()-1, part 0 on the calling thread and the
    /// others as `parts` says; returns when every part is done. `f` must not throw. Only the
    /// thread that made the pool calls run(), one run at a time.
    template <class F>
    void run(F&& f, Parts parts = Parts::Fixed) {
        using Fn = std::remove_reference_t<F>;
        run_erased([](void* ctx, int part) { (*static_cast<Fn*>(ctx))(part); }, &f, parts);
    }

  private:
    void run_erased(void (*fn)(void*, int), void* ctx, Parts parts);
    void work(int part);
    /// Runs parts of run `serial` taken from next_ until none is left (Parts::Taken).
    void take_parts(std::uint32_t serial);
    /// Counts one part done; wakes the caller if it sleeps and this was the last.
    void part_done();
    /// Spins until done() or the spin time has passed (at once while spinning is off); -> done().
    template <class Done>
    bool spin_until(Done&& done);
    /// Counts a find that this thread was off its core; -> whether it makes a chain long
    /// enough to stop spinning (see kStrikes in thread_pool.cpp).
    bool preempted_again(std::chrono::steady_clock::time_point now);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::uint32_t serial_ = 0;  ///< the runs so far (and the stop), the caller's count
    /// serial_ << 1 | (this run's parts are taken): what the workers watch
    std::atomic<std::uint64_t> run_{0};
    /// serial_ << 32 | the next part to take: a part is taken only from its own run
    std::atomic<std::uint64_t> next_{0};
    std::atomic<int> pending_{0};  ///< parts 1.. of this run not done yet
    std::atomic<bool> stop_{false};
    std::atomic<int> sleepers_{0};            ///< workers asleep on wake_ (or about to be)
    std::atomic<bool> caller_sleeps_{false};  ///< the caller asleep on done_ (or about to be)
    void (*fn_)(void*, int) = nullptr;        ///< this run's loop, type-erased (no allocation)
    void* ctx_ = nullptr;
    /// Steady-clock ticks before which nobody spins (a thread was seen off its core).
    std::atomic<std::int64_t> calm_until_{0};
    std::atomic<std::int64_t> last_preempted_{0};  ///< ticks of the last find off its core
    std::atomic<int> strikes_{0};                  ///< finds in a row, each within kChain
};

/// The pool the calling thread's products may share out, or null (work on this thread alone).
/// Set for a scope by PoolScope; a pool's workers have none, so work never nests.
ThreadPool* current_pool();

/// Makes `pool` (null: none) the calling thread's current_pool() until the scope ends.
class PoolScope {
  public:
    explicit PoolScope(ThreadPool* pool);
    ~PoolScope();
    PoolScope(const PoolScope&) = delete;
    PoolScope& operator=(const PoolScope&) = delete;

  private:
    ThreadPool* previous_;
};

/// Multiply-adds one extra thread must get before sharing a product pays for the hand-over
/// (measured: bench/thread_pool_bench, see thread_pool.cpp).
inline constexpr double kParallelMinWork = 1 << 15;

/// Splits [0, n) into up to current_pool()->threads() blocks with boundaries on multiples of
/// `align` and calls f(begin, end) on each non-empty block, in parallel, when `work`
/// (multiply-adds in all) gives each extra thread at least kParallelMinWork; otherwise calls
/// f(0, n) on this thread. Which element lands in which block never changes a result as long
/// as f computes each element on its own. Inside f nothing is shared out again (a nested
/// parallel_ranges runs on its thread alone).
template <class F>
void parallel_ranges(int n, int align, double work, F&& f) {
    ThreadPool* pool = current_pool();
    const int units = (n + align - 1) / align;
    int parts = pool ? std::min(pool->threads(), units) : 1;
    while (parts > 1 && work < kParallelMinWork * (parts - 1)) --parts;
    if (parts <= 1) {
        f(0, n);
        return;
    }
    pool->run(
        [&](int part) {
            if (part >= parts) return;
            // why: parts may run on the caller, whose pool is busy with this run
            PoolScope no_nesting(nullptr);
            const int u0 = int(std::ptrdiff_t(units) * part / parts);
            const int u1 = int(std::ptrdiff_t(units) * (part + 1) / parts);
            const int begin = u0 * align, end = std::min(n, u1 * align);
            if (begin < end) f(begin, end);
        },
        ThreadPool::Parts::Taken);
}

}  // namespace heed
