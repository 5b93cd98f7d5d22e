// Tests of the helpers, formats, error slot and dispatch of src/core.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "TestUtil.h"
#include "core/Cache.h"
#include "core/CpuLoad.h"
#include "core/ScratchCache.h"
#include "core/ThreadPool.h"

namespace {

SIMD_SYNET_TARGET_SUITE(Core);

TEST_P(Core, IsaMatchesForcedTarget) {
    const int64_t target = GetParam();
    const std::string isa = SimdSynetIsa();
    switch (target) {
        case HWY_SCALAR:
        case HWY_EMU128:
            EXPECT_EQ(isa, "scalar");
            break;
        case HWY_NEON:
            EXPECT_EQ(isa, "neon");
            break;
        case HWY_SSE4:
            EXPECT_EQ(isa, "sse4");
            break;
        case HWY_AVX2:
            EXPECT_EQ(isa, "avx2");
            break;
        case HWY_AVX3:
            EXPECT_EQ(isa, "avx512");
            break;
        default:
            break;
    }
    const size_t alignment = SimdAlignment();
    EXPECT_EQ(alignment, target == HWY_AVX3 ? 64u : target == HWY_AVX2 ? 32u : 16u);
}

TEST_P(Core, SpecifyTensorFormatFollowsAlignment) {
    const size_t a = SimdAlignment();
    const SimdTensorFormatType image = SimdSynetSpecifyTensorFormat(SimdTensorFormatNchwXc);
    const SimdTensorFormatType filter = SimdSynetSpecifyTensorFormat(SimdTensorFormatOyxiXo);
    EXPECT_EQ(SimdSynetTensorAlignment(image), a / 4);
    EXPECT_EQ(SimdSynetTensorAlignment(filter), a / 4);
    EXPECT_EQ(SimdSynetSpecifyTensorFormat(SimdTensorFormatNchw), SimdTensorFormatUnknown);
    EXPECT_EQ(SimdSynetSpecifyTensorFormat(SimdTensorFormatNchw8c), SimdTensorFormatUnknown);
    EXPECT_EQ(SimdSynetSpecifyTensorFormat(SimdTensorFormatType(13)), SimdTensorFormatUnknown);
}

TEST(CoreHelpers, TensorAlignment) {
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatNchw), 1u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatNhwc), 1u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatOiyx), 1u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatYxio), 1u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatNchw4c), 4u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatOyxi4o), 4u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatNchw8c), 8u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatOyxi8o), 8u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatNchw16c), 16u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatOyxi16o), 16u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatNchwXc), 0u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatOyxiXo), 0u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatUnknown), 0u);
    EXPECT_EQ(SimdSynetTensorAlignment(SimdTensorFormatType(15)), 0u);
}

TEST(CoreHelpers, Align) {
    EXPECT_EQ(SimdAlign(0, 8), 0u);
    EXPECT_EQ(SimdAlign(1, 8), 8u);
    EXPECT_EQ(SimdAlign(8, 8), 8u);
    EXPECT_EQ(SimdAlign(17, 16), 32u);
    EXPECT_EQ(SimdAlign(5, 1), 5u);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdAlign(5, 3), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdAlign(SIZE_MAX, 16), 0u);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
}

TEST(CoreHelpers, AllocateAndFree) {
    for (size_t align : {1, 2, 16, 32, 64, 4096}) {
        void* p = SimdAllocate(100, align);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
        SimdFree(p);
    }
    EXPECT_EQ(SimdAllocate(100, 24), nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdAllocate(SIZE_MAX - 4096, 64), nullptr);
    SimdFree(nullptr);
    SimdRelease(nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

// The sysfs cache description the GEMM blocking and the depthwise block choice read: data and
// unified caches only (one level-1 entry, not the instruction cache too), plausible sizes.
TEST(CoreHelpers, CachesFromSysfs) {
    const std::vector<simd::SysfsCache> caches = simd::DataCachesFromSysfs();
    const size_t ways = simd::L1DataWays();
    EXPECT_GE(ways, 4u);
    EXPECT_LE(ways, 32u);
    if (caches.empty()) GTEST_SKIP() << "sysfs does not describe the caches here";
    size_t level1 = 0;
    for (const simd::SysfsCache& c : caches) {
        EXPECT_GE(c.level, 1u);
        EXPECT_LE(c.level, 4u);
        EXPECT_GE(c.bytes, size_t(4) << 10) << "level " << c.level;
        if (c.level != 1) continue;
        ++level1;
        if (c.ways >= 4 && c.ways <= 32) {
            EXPECT_EQ(ways, c.ways);
        }
    }
    EXPECT_EQ(level1, 1u);
}

TEST(CoreHelpers, Version) {
    EXPECT_STREQ(SimdVersion(), "0.1.0");
}

// Libraries built on this one (the network runtime) record their messages in the same slot.
TEST(CoreHelpers, SetLastErrorCopiesAndClears) {
    std::string message = "runtime: step 3 reads past the arena";
    SimdSynetSetLastError(message.c_str());
    message.assign(message.size(), 'x');  // the slot holds a copy
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    EXPECT_STREQ(SimdSynetGetLastError(), "runtime: step 3 reads past the arena");
    const std::string longer(5000, 'a');
    SimdSynetSetLastError(longer.c_str());
    EXPECT_EQ(std::string(SimdSynetGetLastError()), std::string(1023, 'a'));
    std::string seen = "unset";
    std::thread([&] { seen = SimdSynetGetLastError() ? "set" : "clear"; }).join();
    EXPECT_EQ(seen, "clear");
    SimdSynetSetLastError(nullptr);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_EQ(SimdAlign(5, 3), 0u);  // the library's own messages still replace it
    EXPECT_STRNE(SimdSynetGetLastError(), "");
}

TEST(CoreHelpers, LastErrorIsPerThread) {
    SimdAlign(5, 3);
    ASSERT_NE(SimdSynetGetLastError(), nullptr);
    const char* other = reinterpret_cast<const char*>(1);
    std::thread([&] { other = SimdSynetGetLastError(); }).join();
    EXPECT_EQ(other, nullptr);
    EXPECT_NE(SimdSynetGetLastError(), nullptr);
    SimdAlign(5, 4);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

// SIMD_SYNET_MAX_ISA is read once per process, so it is checked in a child process: a plain
// program (tests/isa_probe.cpp) that prints SimdSynetIsa(). SIMD_SYNET_ISA_PROBE is its command
// line (through the emulator when cross-compiled). The levels capped to are those of the
// architecture the test runs on.
TEST(CoreHelpers, MaxIsaEnvironmentCapsTheTarget) {
#if HWY_ARCH_ARM_A64
    const char* const vectorLevel = "neon";
#else
    const char* const vectorLevel = "sse4";
#endif
    for (const char* level : {"scalar", vectorLevel}) {
        const std::string cmd = std::string("SIMD_SYNET_MAX_ISA=") + level + " " +
                                SIMD_SYNET_ISA_PROBE + " | grep -qx " + level;
        EXPECT_EQ(std::system(cmd.c_str()), 0) << level;
    }
    // Unknown values are ignored rather than disabling everything.
    const std::string best = SimdSynetIsa();
    const std::string cmd =
        std::string("SIMD_SYNET_MAX_ISA=bogus ") + SIMD_SYNET_ISA_PROBE + " | grep -qx " + best;
    EXPECT_EQ(std::system(cmd.c_str()), 0);
}

// ---------------------------------------------------------------------------------------------
// Thread budget and pool (core/ThreadPool.h).

TEST(ThreadPool, BudgetIsClampedAndDefaultsToOne) {
    test::ThreadBudgetGuard guard;
    EXPECT_EQ(SimdGetThreadNumber(), 1u);
    SimdSetThreadNumber(0);
    EXPECT_EQ(SimdGetThreadNumber(), 1u);
    SimdSetThreadNumber(3);
    EXPECT_EQ(SimdGetThreadNumber(), 3u);
    SimdSetThreadNumber(size_t(1) << 40);
    EXPECT_EQ(SimdGetThreadNumber(), 256u);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

TEST(ThreadPool, PartRangesCoverEverythingOnce) {
    for (size_t count : {0u, 1u, 5u, 64u, 1001u})
        for (size_t parts : {1u, 2u, 3u, 7u, 64u}) {
            size_t next = 0;
            for (size_t part = 0; part < parts; ++part) {
                const auto range = simd::PartRange(count, part, parts);
                EXPECT_EQ(range.first, next);
                EXPECT_LE(range.second - range.first, count / parts + 1);
                next = range.second;
            }
            EXPECT_EQ(next, count);
        }
}

// Every part runs exactly once, on the calling thread when the budget is 1 and on at most as
// many distinct threads as the budget allows otherwise (parts are claimed: a caller whose
// workers are late may compute them all).
TEST(ThreadPool, EveryPartRunsOnceOnUpToBudgetThreads) {
    test::ThreadBudgetGuard guard;
    for (size_t budget : {1u, 2u, 4u}) {
        SimdSetThreadNumber(budget);
        for (size_t parts : {1u, 2u, 3u, 9u}) {
            std::vector<std::atomic<int>> runs(parts);
            std::vector<std::thread::id> ids(parts);
            simd::ParallelParts(parts, [&](size_t part, size_t count) {
                EXPECT_EQ(count, parts);
                runs[part].fetch_add(1);
                ids[part] = std::this_thread::get_id();
            });
            std::set<std::thread::id> distinct(ids.begin(), ids.end());
            for (size_t part = 0; part < parts; ++part) EXPECT_EQ(runs[part].load(), 1);
            if (budget == 1 || parts == 1) {
                EXPECT_EQ(ids[0], std::this_thread::get_id());
            }
            EXPECT_LE(distinct.size(), std::min(budget, parts)) << budget << " " << parts;
        }
    }
}

// Workers do take parts: each of two parts waits for the other to start, which only a second
// thread can do (bounded, so that a pool that never helps fails instead of hanging).
TEST(ThreadPool, WorkersComputePartsBesideTheCaller) {
    test::ThreadBudgetGuard guard;
    SimdSetThreadNumber(2);
    // A serial spell left by an oversubscribed test before this one ends within 40 ms.
    const auto spell = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (simd::ThreadBudget() != 2 && std::chrono::steady_clock::now() < spell)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(simd::ThreadBudget(), 2u);
    for (int round = 0; round < 20; ++round) {
        std::atomic<int> started{0};
        std::atomic<bool> together{true};
        simd::ParallelParts(2, [&](size_t, size_t) {
            started.fetch_add(1);
            const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (started.load() < 2)
                if (std::chrono::steady_clock::now() > end) {
                    together = false;
                    return;
                }
        });
        EXPECT_TRUE(together.load()) << "round " << round;
    }
}

// More parts than one job holds (65535) run in groups: each still once.
TEST(ThreadPool, ManyPartsRunOnce) {
    test::ThreadBudgetGuard guard;
    SimdSetThreadNumber(3);
    const size_t parts = 200000;
    std::vector<std::atomic<uint8_t>> runs(parts);
    simd::ParallelParts(parts, [&](size_t part, size_t count) {
        EXPECT_EQ(count, parts);
        runs[part].fetch_add(1);
    });
    for (size_t part = 0; part < parts; ++part) ASSERT_EQ(runs[part].load(), 1) << part;
}

// Oversubscribed: the whole process pinned to one core that two busy threads also want, and a
// budget of 4 (the pool soon runs serial spells). Every call completes, every part runs once,
// and part-wise results equal those of a budget of 1 (timing is for the benchmarks;
// test::Oversubscribe is shared with the framework tests).
TEST(ThreadPool, OversubscribedCallsCompleteWithTheSameResults) {
    test::ThreadBudgetGuard guard;
    const auto run = [](size_t budget) {
        SimdSetThreadNumber(budget);
        std::vector<double> sums(4 * 64);
        for (size_t round = 0; round < 64; ++round)
            simd::ParallelParts(4, [&](size_t part, size_t) {
                double sum = 0.0;
                for (size_t i = 1; i < 20000 + 1000 * part; ++i)
                    sum += 1.0 / double(i * (round + 1));
                sums[round * 4 + part] = sum;
            });
        return sums;
    };
    const std::vector<double> serial = run(1);
    test::Oversubscribe busy(2);
    EXPECT_EQ(run(4), serial);
    EXPECT_EQ(run(2), serial);
}

// ---------------------------------------------------------------------------------------------
// The pool's load watch (core/CpuLoad.h); the suite runs with it off (SIMD_SYNET_LOAD_AWARE=0).

TEST(CpuLoad, OthersRunnableReadsLoadavgLessThePool) {
    EXPECT_EQ(simd::OthersRunnable("0.50 0.40 0.30 3/250 12345\n", 1), 2u);
    EXPECT_EQ(simd::OthersRunnable("0.50 0.40 0.30 3/250 12345\n", 3), 0u);
    // A worker counted awake that has just blocked: more of ours than runnable threads.
    EXPECT_EQ(simd::OthersRunnable("0.50 0.40 0.30 3/250 12345\n", 5), 0u);
    EXPECT_EQ(simd::OthersRunnable("12.00 9.10 8.00 40/1250 99\n", 2), 38u);
    for (const char* bad : {"", "0.50 0.40 0.30", "0.50 0.40 0.30 x/250 1", "0.50 0.40 0.30 7 1"})
        EXPECT_EQ(simd::OthersRunnable(bad, 1), 0u) << bad;
}

TEST(CpuLoad, CoresLeftTakesTheMedianAndKeepsOne) {
    EXPECT_EQ(simd::CoresLeft(2, {0, 0, 0, 0, 0}), 2u);
    EXPECT_EQ(simd::CoresLeft(2, {0, 3, 0, 0, 1}), 2u);  // a kernel thread in two samples
    EXPECT_EQ(simd::CoresLeft(2, {1, 1, 0, 1, 0}), 1u);  // one busy process
    EXPECT_EQ(simd::CoresLeft(2, {2, 2, 1, 2, 0}), 1u);  // two: the caller still runs
    EXPECT_EQ(simd::CoresLeft(16, {2, 2, 3, 2, 2}), 14u);
    EXPECT_EQ(simd::CoresLeft(16, {40, 40, 40, 40, 40}), 1u);
    EXPECT_EQ(simd::CoresLeft(1, {0, 0, 0, 0, 0}), 1u);
}

// With the watch on, a process pinned to one core and one beside a busy thread per core both
// get a budget of 1; with it off, the budget set.
TEST(CpuLoad, BudgetIsTheCoresOthersLeave) {
#ifndef __linux__
    GTEST_SKIP() << "the load watch reads Linux's /proc/loadavg";
#endif
    test::ThreadBudgetGuard guard;
    struct AwareGuard {
        bool was = simd::SetLoadAware(true);
        ~AwareGuard() { simd::SetLoadAware(was); }
    } aware;
    SimdSetThreadNumber(4);
    // Samples come at most once a millisecond and a decision takes three of five (a serial
    // spell left by an earlier test ends within 40 ms).
    const auto budgetBecomes = [](size_t want) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (simd::ThreadBudget() != want && std::chrono::steady_clock::now() < end)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return simd::ThreadBudget();
    };
    {
        const test::Oversubscribe pinned(0);
        EXPECT_EQ(budgetBecomes(1), 1u) << "pinned to one core";
    }
    {
        std::atomic<bool> stop{false};
        std::vector<std::thread> busy;
        for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i)
            busy.emplace_back([&] {
                while (!stop.load(std::memory_order_relaxed)) {
                }
            });
        EXPECT_EQ(budgetBecomes(1), 1u) << "a busy thread per core";
        stop = true;
        for (auto& thread : busy) thread.join();
    }
    simd::SetLoadAware(false);
    EXPECT_EQ(budgetBecomes(4), 4u);
}

// A part that starts a parallel call of its own, and callers on several threads at once: the
// pool is busy, so those calls run serially on their caller, and nothing deadlocks.
TEST(ThreadPool, NestedAndConcurrentCallsComplete) {
    test::ThreadBudgetGuard guard;
    SimdSetThreadNumber(2);
    std::atomic<int> inner{0};
    simd::ParallelParts(2, [&](size_t, size_t) {
        simd::ParallelParts(3, [&](size_t, size_t) { inner.fetch_add(1); });
    });
    EXPECT_EQ(inner.load(), 6);
    std::atomic<long> total{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&] {
            for (int i = 0; i < 200; ++i)
                simd::ParallelParts(4, [&](size_t part, size_t) { total.fetch_add(part + 1); });
        });
    for (auto& caller : callers) caller.join();
    EXPECT_EQ(total.load(), 4L * 200 * 10);
}

// ---------------------------------------------------------------------------------------------
// Scratch of split calls (core/ScratchCache.h).

TEST(ScratchCache, BlocksGivenBackAreReusedAndHeldOnesAreDistinct) {
    const size_t floats = 123457;  // a size no other block of this process has
    float* first = nullptr;
    {
        const simd::CachedScratch a(floats);
        ASSERT_NE(a.data(), nullptr);
        first = a.data();
        const simd::CachedScratch b(floats);
        ASSERT_NE(b.data(), nullptr);
        EXPECT_NE(b.data(), first);
        std::fill(a.data(), a.data() + floats, 1.0f);  // the whole block is writable
        std::fill(b.data(), b.data() + floats, 2.0f);
        EXPECT_EQ(a.data()[floats - 1], 1.0f);
    }
    const simd::CachedScratch again(floats);
    const simd::CachedScratch other(floats);
    EXPECT_TRUE(again.data() == first || other.data() == first);
    EXPECT_NE(again.data(), other.data());
}

// "Thread" in its name puts it in scripts/tsan.sh's filter: the cache is shared by the parts.
TEST(ScratchCache, ThreadPartsGetDistinctScratchReusedAcrossCalls) {
    test::ThreadBudgetGuard guard;
    SimdSetThreadNumber(3);
    const size_t floats = size_t(1) << 20;  // larger than any other block here
    std::vector<float> own(floats);
    // One call of 3 parts: each part's scratch, or nothing when the pool ran a serial spell (a
    // busy machine: one part), which the test waits out.
    const auto call = [&]() -> std::vector<const float*> {
        std::vector<const float*> bufs(3, nullptr);
        std::atomic<int> clean{0}, split{1};
        EXPECT_TRUE(simd::ParallelPartsWithScratch(
            3, own.data(), floats, [&](size_t part, size_t parts, float* scratch) {
                if (parts != 3) {
                    split = 0;
                    return;
                }
                bufs[part] = scratch;
                std::fill(scratch, scratch + floats, float(part));
                bool mine = true;
                for (size_t i = 0; i < floats; ++i) mine = mine && scratch[i] == float(part);
                clean.fetch_add(mine ? 1 : 0);
            }));
        if (!split.load()) return {};
        EXPECT_EQ(clean.load(), 3);
        EXPECT_EQ(bufs[0], own.data());
        for (int i = 0; i < 3; ++i)
            for (int j = i + 1; j < 3; ++j) {  // no overlap between parts
                const bool apart = bufs[i] + floats <= bufs[j] || bufs[j] + floats <= bufs[i];
                EXPECT_TRUE(apart) << i << " " << j;
            }
        return bufs;
    };
    std::vector<const float*> first, second;
    for (int attempt = 0; attempt < 100 && second.empty(); ++attempt) {
        std::vector<const float*> bufs = call();
        if (bufs.empty()) {
            first.clear();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        } else {
            (first.empty() ? first : second) = bufs;
        }
    }
    ASSERT_FALSE(second.empty()) << "no two consecutive calls ran 3 parts";
    EXPECT_EQ(first[1], second[1]);  // the second call found the first call's block
}

}  // namespace
