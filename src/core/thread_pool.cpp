// The pool's hand-over: a run counter the workers watch, spinning a little before they sleep on
// a condition variable (woken only when one sleeps), a counter of parts to take, and a count of
// parts still running that the caller watches.
#include "core/thread_pool.h"

#include <chrono>
#include <cstdint>
#include <system_error>

namespace heed {
namespace {

using Clock = std::chrono::steady_clock;

// why: a decode step's products follow each other within microseconds (a layer norm, an
// attention row between them); a worker that slept on the condition variable takes tens of
// microseconds to wake (more under WebAssembly), longer than a small product, so both sides
// spin this long first.
constexpr auto kSpin = std::chrono::microseconds(200);
// why: spinning pays only while every thread has a core of its own. On a machine with fewer
// free cores than threads a spinning thread takes the core of the one it waits for (measured
// on a loaded 2-core machine: 450 us per hand-over under WebAssembly, which cannot yield,
// against 20 us for sleeping at once). A spinning thread that finds it was off its core for
// kPreempted between two clock reads sleeps this once; kStrikes such finds in a row, each
// within kChain of the one before, stop all spinning of its pool for kBackOff.
// Why a chain, not one: an idle virtual machine also takes a core away now and then (measured
// on this project's 2-vCPU machine, one 40-word sentence: gaps of 1 to 240 ms between finds,
// two under 1 ms in 75), and one find turning spinning off for 100 ms made 2 threads slower
// than 1 (medians 0.62x greedy, 0.98x beam 4); beside a busy process the finds come every
// 50-500 us (5,791 of 6,462 gaps under 500 us), so a chain of 4 still stops spinning at once.
constexpr auto kPreempted = std::chrono::microseconds(50);
constexpr auto kChain = std::chrono::microseconds(500);
constexpr int kStrikes = 4;
constexpr auto kBackOff = std::chrono::milliseconds(100);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

inline std::int64_t ticks(Clock::time_point t) { return t.time_since_epoch().count(); }

thread_local ThreadPool* t_current = nullptr;

}  // namespace

template <class Done>
bool ThreadPool::spin_until(Done&& done) {
    const Clock::time_point start = Clock::now();
    if (ticks(start) < calm_until_.load(std::memory_order_relaxed)) return done();
    Clock::time_point last = start;
    for (int i = 1;; ++i) {
        if (done()) return true;
        // why: after a short busy wait, yielding lets a thread that shares this core run
        if (i < 256)
            relax();
        else
            std::this_thread::yield();
        if (i % 64 != 0) continue;  // why: reading the clock costs more than a spin
        const Clock::time_point now = Clock::now();
        if (now - last > kPreempted) {
            if (preempted_again(now))
                calm_until_.store(ticks(now + kBackOff), std::memory_order_relaxed);
            return done();
        }
        if (now - start > kSpin) return done();
        last = now;
    }
}

bool ThreadPool::preempted_again(Clock::time_point now) {
    const std::int64_t t = ticks(now), chain = Clock::duration(kChain).count();
    const std::int64_t before = last_preempted_.exchange(t, std::memory_order_relaxed);
    // why: relaxed and racy on purpose: two threads counting one find twice only hurries a
    // back-off that their contention already calls for
    const int strikes =
        t - before < chain ? strikes_.fetch_add(1, std::memory_order_relaxed) + 1 : 1;
    if (strikes == 1) strikes_.store(1, std::memory_order_relaxed);
    if (strikes < kStrikes) return false;
    strikes_.store(0, std::memory_order_relaxed);
    return true;
}

ThreadPool::ThreadPool(int threads) {
    if (!kHaveThreads) return;
    try {
        for (int part = 1; part < threads; ++part)
            workers_.emplace_back([this, part] { work(part); });
    } catch (const std::system_error&) {
        // why: the system refused another thread; the pool works with those it has
    }
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true, std::memory_order_release);
        run_.store(std::uint64_t(++serial_) << 1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
}

void ThreadPool::run_erased(void (*fn)(void*, int), void* ctx, Parts parts) {
    if (workers_.empty()) {
        fn(ctx, 0);
        return;
    }
    const std::uint32_t count = std::uint32_t(threads()), serial = ++serial_;
    const bool taken = parts == Parts::Taken;
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(int(count) - 1, std::memory_order_relaxed);
    next_.store(std::uint64_t(serial) << 32 | (taken ? 1u : count), std::memory_order_release);
    run_.store(std::uint64_t(serial) << 1 | (taken ? 1u : 0u), std::memory_order_seq_cst);
    // why: the mutex and the notify only when a worker sleeps (counted under the mutex before
    // it rechecks run_; both sides seq_cst, so one of them sees the other): a hand-over to a
    // spinning worker is then two atomic stores, with no lock the worker may hold
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
        { std::lock_guard<std::mutex> lock(mutex_); }
        wake_.notify_all();
    }
    fn(ctx, 0);
    if (taken) take_parts(serial);
    const auto all_done = [this] { return pending_.load(std::memory_order_seq_cst) == 0; };
    if (spin_until(all_done)) return;
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeps_.store(true, std::memory_order_seq_cst);
    done_.wait(lock, all_done);
    caller_sleeps_.store(false, std::memory_order_relaxed);
}

void ThreadPool::take_parts(std::uint32_t serial) {
    const std::uint32_t count = std::uint32_t(threads());
    std::uint64_t next = next_.load(std::memory_order_acquire);
    // why: a worker late for a run the caller finished may meet the next run's counter; the
    // serial in its top half keeps it from taking a part that is not its run's
    while (std::uint32_t(next >> 32) == serial && std::uint32_t(next) < count) {
        if (!next_.compare_exchange_weak(next, next + 1, std::memory_order_acq_rel,
                                         std::memory_order_acquire))
            continue;
        fn_(ctx_, int(std::uint32_t(next)));
        part_done();
        next = next_.load(std::memory_order_acquire);
    }
}

void ThreadPool::part_done() {
    // why: as in run_erased: the caller is woken only when it went to sleep
    if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        caller_sleeps_.load(std::memory_order_seq_cst)) {
        { std::lock_guard<std::mutex> lock(mutex_); }
        done_.notify_one();
    }
}

void ThreadPool::work(int part) {
    std::uint64_t seen = 0;
    for (;;) {
        const auto started = [&] { return run_.load(std::memory_order_seq_cst) != seen; };
        if (!spin_until(started)) {
            std::unique_lock<std::mutex> lock(mutex_);
            sleepers_.fetch_add(1, std::memory_order_seq_cst);
            wake_.wait(lock, started);
            sleepers_.fetch_sub(1, std::memory_order_relaxed);
        }
        // why: one read gives the run and its kind together; a fixed run cannot end without
        // this worker's part, so its loop stays valid while the part runs
        seen = run_.load(std::memory_order_acquire);
        if (stop_.load(std::memory_order_acquire)) return;
        if (seen & 1u) {
            take_parts(std::uint32_t(seen >> 1));
        } else {
            fn_(ctx_, part);
            part_done();
        }
    }
}

ThreadPool* current_pool() { return t_current; }

PoolScope::PoolScope(ThreadPool* pool) : previous_(t_current) { t_current = pool; }
PoolScope::~PoolScope() { t_current = previous_; }

}  // namespace heed
