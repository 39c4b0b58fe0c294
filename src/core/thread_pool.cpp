// The pool's hand-over: a generation counter the workers watch, spinning a little before they
// sleep on a condition variable, and a count of parts still running that the caller watches.
#include "core/thread_pool.h"

#include <chrono>

namespace heed {
namespace {

// why: a decode step's products follow each other within microseconds (a layer norm, an
// attention row between them); a worker that slept on the condition variable takes tens of
// microseconds to wake, longer than a small product, so both sides spin this long first.
constexpr auto kSpin = std::chrono::microseconds(200);

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/// Spins until `done()` or kSpin has passed; -> done().
template <class Done>
bool spin_until(Done&& done) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 1;; ++i) {
        if (done()) return true;
        // why: on a machine with fewer free cores than threads the thread we wait for may be
        // off its core; after a short busy wait, yielding lets it run here
        if (i < 256)
            relax();
        else
            std::this_thread::yield();
        // why: reading the clock costs more than a spin, so only every 64th
        if (i % 64 == 0 && std::chrono::steady_clock::now() - start > kSpin) return done();
    }
}

thread_local ThreadPool* t_current = nullptr;

}  // namespace

ThreadPool::ThreadPool(int threads) {
    if (!kHaveThreads) return;
    for (int part = 1; part < threads; ++part) workers_.emplace_back([this, part] { work(part); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true, std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
}

void ThreadPool::run_erased(void (*fn)(void*, int), void* ctx) {
    if (workers_.empty()) {
        fn(ctx, 0);
        return;
    }
    fn_ = fn;
    ctx_ = ctx;
    pending_.store(int(workers_.size()), std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    fn(ctx, 0);
    const auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
    if (spin_until(all_done)) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, all_done);
}

void ThreadPool::work(int part) {
    unsigned seen = 0;
    for (;;) {
        const auto started = [&] { return generation_.load(std::memory_order_acquire) != seen; };
        if (!spin_until(started)) {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, started);
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load(std::memory_order_acquire)) return;
        fn_(ctx_, part);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(mutex_);
            done_.notify_one();
        }
    }
}

ThreadPool* current_pool() { return t_current; }

PoolScope::PoolScope(ThreadPool* pool) : previous_(t_current) { t_current = pool; }
PoolScope::~PoolScope() { t_current = previous_; }

}  // namespace heed
