// The clock both benchmarks time with: thread CPU time where the platform has it (natively),
// else the wall clock (WASM). Benchmarks only; no test depends on it.
#pragma once

#include <chrono>
#include <ctime>

namespace heed::bench {

#if defined(CLOCK_THREAD_CPUTIME_ID) && !defined(__EMSCRIPTEN__)
// why: the machine is shared; thread CPU time leaves out the slices other processes take.
inline const char* const kClockName = "thread CPU time";
inline double now_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
#else
inline const char* const kClockName = "wall clock";
inline double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
#endif

}  // namespace heed::bench
