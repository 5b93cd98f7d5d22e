// Shared helpers of the test suite: target-parameterised fixtures, guarded buffers, random
// data and tolerance checks.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>
#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#endif

#include "SimdSynet.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"

namespace test {

// Every TEST_P of a suite declared with SIMD_SYNET_TARGET_SUITE runs once per Highway target
// that is both compiled into the library and supported by this CPU (the library and the tests
// are built with the same target set), with that target forced for the duration of the test.
#define SIMD_SYNET_TARGET_SUITE(suite) HWY_BEFORE_TEST(suite)

// A heap array with guard zones on both sides, filled with a sentinel, so that tests can
// assert that a kernel wrote nothing outside [0, size).
template <class T>
class Guarded {
public:
    static constexpr size_t kGuard = 64;
    explicit Guarded(size_t size = 0, T fill = T()) { Resize(size, fill); }
    void Resize(size_t size, T fill = T()) {
        size_ = size;
        storage_.assign(size + 2 * kGuard, Sentinel());
        for (size_t i = 0; i < size; ++i) storage_[kGuard + i] = fill;
    }
    T* data() { return storage_.data() + kGuard; }
    const T* data() const { return storage_.data() + kGuard; }
    size_t size() const { return size_; }
    T& operator[](size_t i) { return data()[i]; }
    const T& operator[](size_t i) const { return data()[i]; }
    std::vector<T> Vector() const { return std::vector<T>(data(), data() + size_); }
    // True when no guard element changed.
    bool GuardsIntact() const {
        const T s = Sentinel();
        for (size_t i = 0; i < kGuard; ++i)
            if (std::memcmp(&storage_[i], &s, sizeof(T)) != 0 ||
                std::memcmp(&storage_[kGuard + size_ + i], &s, sizeof(T)) != 0)
                return false;
        return true;
    }

private:
    static T Sentinel() {
        T value;
        std::memset(&value, 0xA5, sizeof(T));
        return value;
    }
    size_t size_ = 0;
    std::vector<T> storage_;
};

inline std::vector<float> RandomFloats(size_t n, float lo, float hi, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

inline void FillRandom(float* dst, size_t n, float lo, float hi, uint32_t seed) {
    const std::vector<float> v = RandomFloats(n, lo, hi, seed);
    std::copy(v.begin(), v.end(), dst);
}

inline void FillRandom(uint8_t* dst, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(rng() & 0xFF);
}

// Values that exercise special cases of transcendental kernels.
inline std::vector<float> SpecialFloats() {
    const float inf = std::numeric_limits<float>::infinity();
    const float denorm = std::numeric_limits<float>::denorm_min();
    return {0.0f,
            -0.0f,
            inf,
            -inf,
            std::numeric_limits<float>::quiet_NaN(),
            denorm,
            -denorm,
            1e-39f,
            -1e-39f,
            std::numeric_limits<float>::min(),
            -std::numeric_limits<float>::min(),
            1e-30f,
            -1e-30f,
            1e-7f,
            -1e-7f,
            0.5f,
            -0.5f,
            1.0f,
            -1.0f,
            10.0f,
            -10.0f,
            50.0f,
            -50.0f,
            87.0f,
            -87.0f,
            88.5f,
            -88.5f,
            89.0f,
            -89.0f,
            100.0f,
            -100.0f,
            1e10f,
            -1e10f,
            std::numeric_limits<float>::max(),
            -std::numeric_limits<float>::max()};
}

// Bit equality that treats every NaN as equal to every NaN (EXACT class).
inline bool SameValue(float a, float b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof(float)) == 0 || (a == 0.0f && b == 0.0f);
}

// |actual - ref| <= rel*scale + abs, where scale is the magnitude the error is measured against
// (|ref| for transcendental functions, the sum of |terms| for linear ones). NaN must match NaN
// and infinities must match exactly.
inline ::testing::AssertionResult Near(double actual, double ref, double scale, double rel,
                                       double abs) {
    if (std::isnan(ref))
        return std::isnan(actual) ? ::testing::AssertionSuccess()
                                  : ::testing::AssertionFailure() << "expected NaN, got " << actual;
    if (std::isinf(ref) || std::isinf(actual)) {
        if (actual == ref) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "expected " << ref << ", got " << actual;
    }
    const double err = std::fabs(actual - ref);
    const double bound = rel * std::fabs(scale) + abs;
    if (err <= bound) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << actual << ", expected " << ref << " (error "
                                         << err << " > bound " << bound << ")";
}

// Runs `check(i)` for i < n and stops at the first failure, naming the index.
template <class Check>
::testing::AssertionResult AllOf(size_t n, Check check) {
    for (size_t i = 0; i < n; ++i) {
        ::testing::AssertionResult r = check(i);
        if (!r) return ::testing::AssertionFailure() << "at index " << i << ": " << r.message();
    }
    return ::testing::AssertionSuccess();
}

// The layouts of the per-channel functions and their names for messages.
inline std::vector<SimdTensorFormatType> ImageFormats() {
    return {SimdTensorFormatNchw, SimdTensorFormatNhwc, SimdTensorFormatNchw4c,
            SimdTensorFormatNchw8c, SimdTensorFormatNchw16c};
}

// Channel counts that hit every SIMD tail.
inline std::vector<size_t> TailChannels() {
    return {1, 3, 7, 8, 15, 16, 17, 33};
}

// Per-channel shapes large enough to split over threads (core/ParallelElements.h), one for
// each way a call splits: one NCHW channel by pixels, few channels, channel blocks with a
// tail, many channels on few pixels.
struct ChannelsSpatial {
    size_t channels, spatial;
};
inline std::vector<ChannelsSpatial> SplitShapes() {
    return {{1, 70001}, {3, 40000}, {33, 3001}, {256, 196}};
}

// Oversubscribes the machine while in scope: every thread of the process (the pool's workers
// too) pinned to one core, and `busy` threads competing for it, spinning and yielding in short
// storms, so that the pool's workers run late and in any order. Threads made meanwhile inherit
// the pin. On destruction the busy threads stop and every thread gets its affinity back.
// Without sched_setaffinity (not Linux) only the busy threads compete.
class Oversubscribe {
public:
    explicit Oversubscribe(int busy) {
#ifdef __linux__
        if (sched_getaffinity(0, sizeof(saved_), &saved_) == 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
                if (CPU_ISSET(cpu, &saved_)) {
                    CPU_SET(cpu, &one);
                    break;
                }
            pinned_ = SetAll(one);
        }
#endif
        for (int i = 0; i < busy; ++i)
            threads_.emplace_back([this, i] {
                unsigned long n = 0;
                while (!stop_.load(std::memory_order_relaxed)) {
                    if ((++n + unsigned(i) * 7) % 4096 < 64) std::this_thread::yield();
                }
            });
    }
    ~Oversubscribe() {
        stop_ = true;
        for (auto& t : threads_) t.join();
#ifdef __linux__
        if (pinned_) SetAll(saved_);
#endif
    }
    Oversubscribe(const Oversubscribe&) = delete;
    Oversubscribe& operator=(const Oversubscribe&) = delete;

private:
#ifdef __linux__
    static bool SetAll(const cpu_set_t& set) {
        DIR* tasks = opendir("/proc/self/task");
        if (!tasks) return sched_setaffinity(0, sizeof(set), &set) == 0;
        while (const dirent* entry = readdir(tasks)) {
            const long tid = std::strtol(entry->d_name, nullptr, 10);
            if (tid > 0) sched_setaffinity(pid_t(tid), sizeof(set), &set);
        }
        closedir(tasks);
        return true;
    }
    cpu_set_t saved_;
    bool pinned_ = false;
#endif
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

// Restores the default thread budget (SimdSetThreadNumber(1)) when it goes out of scope, so a
// test that changes the budget leaves it as it found it, even after a failed assertion.
struct ThreadBudgetGuard {
    ~ThreadBudgetGuard() { SimdSetThreadNumber(1); }
};

}  // namespace test
