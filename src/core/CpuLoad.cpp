// The pool's cores on a shared machine. Parts are claimed, so a caller never waits for a worker
// that has not started, but one the scheduler takes off its core in the middle of a part makes
// the caller wait for the rest of a time slice, milliseconds against layers of 0.1-1 ms. With
// more runnable threads than cores that can happen in any region (resnet18 at 2 threads once
// took 82 ms against 39 at 1 beside a build), and the serial spells of ThreadPool.cpp start
// only after such regions have cost. /proc/loadavg says how many threads are runnable on the
// machine at this moment (0.4 us to read); those that are not ours take cores the pool would
// otherwise have. Linux only: elsewhere nothing is watched.
#include "core/CpuLoad.h"

#ifdef __linux__
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace simd {

size_t CoresLeft(size_t cpus, const uint32_t (&others)[kLoadSamples]) {
    uint32_t sorted[kLoadSamples];
    std::copy(others, others + kLoadSamples, sorted);
    std::nth_element(sorted, sorted + kLoadSamples / 2, sorted + kLoadSamples);
    const size_t median = sorted[kLoadSamples / 2];
    return cpus > median + 1 ? cpus - median : 1;
}

uint32_t OthersRunnable(const char* loadavg, size_t ours) {
    // The fourth field, "runnable/total".
    const char* field = loadavg;
    for (int skip = 0; skip < 3; ++skip) {
        field = std::strchr(field, ' ');
        if (field == nullptr) return 0;
        ++field;
    }
    char* end = nullptr;
    const unsigned long runnable = std::strtoul(field, &end, 10);
    if (end == field || *end != '/') return 0;
    return runnable > ours ? uint32_t(std::min<unsigned long>(runnable - ours, UINT32_MAX)) : 0;
}

namespace {

// 1 ms between samples: a decision covers the last ~5 ms, as long as a busy process keeps a
// core, while a sample costs 0.4 us.
constexpr int64_t kSampleMicroseconds = 1000;

class LoadWatch {
public:
    static LoadWatch& Instance() {
        static LoadWatch* watch = new LoadWatch;  // never destroyed, as the pool
        return *watch;
    }

    size_t CoresLeft(int64_t now, size_t ours) {
        if (!on_.load(std::memory_order_relaxed) || file_ < 0) return SIZE_MAX;
        if (now >= next_.load(std::memory_order_relaxed) && sampling_.try_lock()) {
            std::lock_guard<std::mutex> lock(sampling_, std::adopt_lock);
            if (now >= next_.load(std::memory_order_relaxed)) {
                next_.store(now + interval_, std::memory_order_relaxed);
                Sample(ours);
            }
        }
        return cores_.load(std::memory_order_relaxed);
    }

    bool SetOn(bool on) { return on_.exchange(on, std::memory_order_relaxed); }

private:
    LoadWatch() {
        const char* aware = std::getenv("SIMD_SYNET_LOAD_AWARE");
        on_.store(!(aware && std::strcmp(aware, "0") == 0), std::memory_order_relaxed);
#ifdef __linux__
        file_ = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
#endif
        interval_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::microseconds(kSampleMicroseconds))
                        .count();
    }

    // Called under sampling_ (only where file_ was opened).
    void Sample(size_t ours) {
#ifdef __linux__
        char line[128];
        const ssize_t got = pread(file_, line, sizeof(line) - 1, 0);
        if (got <= 0) return;
        line[got] = '\0';
        others_[slot_] = OthersRunnable(line, ours);
        slot_ = (slot_ + 1) % kLoadSamples;
        // The CPUs this process may run on (taskset, a container's cpuset), read each time as
        // they may change.
        size_t cpus = 0;
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = size_t(CPU_COUNT(&set));
        if (cpus == 0) cpus = size_t(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
        cores_.store(simd::CoresLeft(cpus, others_), std::memory_order_relaxed);
#else
        (void)ours;
#endif
    }

    std::atomic<bool> on_{true};
    int file_ = -1;
    int64_t interval_ = 0;
    std::atomic<int64_t> next_{0};
    std::mutex sampling_;
    uint32_t others_[kLoadSamples] = {};  // under sampling_
    size_t slot_ = 0;                     // under sampling_
    std::atomic<size_t> cores_{SIZE_MAX};
};

}  // namespace

size_t CoresLeftNow(int64_t now, size_t ours) {
    return LoadWatch::Instance().CoresLeft(now, ours);
}

bool SetLoadAware(bool on) {
    return LoadWatch::Instance().SetOn(on);
}

}  // namespace simd
