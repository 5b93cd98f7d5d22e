// What one parallel region of the pool (core/ThreadPool.h) costs, which decides how small a
// layer may be and still gain from a split (ThreadPartsFor):
// - Region/threads:N/hot: back-to-back regions of empty parts, the workers still spinning
//   (layers run one after another: the usual case inside a network);
// - Region/threads:N/cold: a region after 2 ms of idleness, the workers asleep on the condition
//   variable (the first layer of a run);
// - Split/work_us:W: a region whose total work is W us of arithmetic, split over the budget:
//   compare with threads:1 to see from which W a split pays.
// Run with SIMD_SYNET_BENCH_THREADS=2 (or more) and the cores free; timing only, no checks.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "SimdSynet.h"
#include "core/ThreadPool.h"

namespace {

size_t BenchThreads() {
    const char* env = std::getenv("SIMD_SYNET_BENCH_THREADS");
    const long n = env ? std::strtol(env, nullptr, 10) : 2;
    return n > 0 ? size_t(n) : 2;
}

void BM_RegionHot(benchmark::State& state) {
    SimdSetThreadNumber(size_t(state.range(0)));
    std::vector<size_t> sink(64 * 16);
    for (auto _ : state) {
        simd::ParallelParts(size_t(state.range(0)),
                            [&](size_t part, size_t) { sink[part * 16]++; });
        benchmark::ClobberMemory();
    }
    state.SetLabel("time of one region of empty parts");
    SimdSetThreadNumber(1);
}

void BM_RegionCold(benchmark::State& state) {
    SimdSetThreadNumber(size_t(state.range(0)));
    std::vector<size_t> sink(64 * 16);
    for (auto _ : state) {
        state.PauseTiming();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        state.ResumeTiming();
        simd::ParallelParts(size_t(state.range(0)),
                            [&](size_t part, size_t) { sink[part * 16]++; });
        benchmark::ClobberMemory();
    }
    state.SetLabel("time of one region, workers asleep");
    SimdSetThreadNumber(1);
}

// `iterations` steps of a dependent floating-point chain.
double Work(size_t iterations) {
    double x = 1.0;
    for (size_t i = 0; i < iterations; ++i) x = x * 0.999999 + 1e-7;
    return x;
}

void BM_Split(benchmark::State& state) {
    const size_t threads = size_t(state.range(0)), us = size_t(state.range(1));
    // Calibrate: iterations per microsecond on this core.
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(Work(1000000));
    const double perUs =
        1e6 /
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    const size_t total = size_t(perUs * double(us));
    SimdSetThreadNumber(threads);
    std::vector<double> out(threads * 8);
    for (auto _ : state) {
        simd::ParallelParts(threads, [&](size_t part, size_t parts) {
            const auto r = simd::PartRange(total, part, parts);
            out[part * 8] = Work(r.second - r.first);
        });
        benchmark::ClobberMemory();
    }
    state.SetLabel("time of the split work; compare with threads:1");
    SimdSetThreadNumber(1);
}

const bool kRegistered = [] {
    const long threads = long(BenchThreads());
    for (long t : {1L, threads}) {
        benchmark::RegisterBenchmark("Region/hot", BM_RegionHot)->Arg(t)->ArgName("threads");
        benchmark::RegisterBenchmark("Region/cold", BM_RegionCold)
            ->Arg(t)
            ->ArgName("threads")
            ->Iterations(200);
        for (long us : {2L, 5L, 10L, 20L, 50L})
            benchmark::RegisterBenchmark("Split", BM_Split)
                ->Args({t, us})
                ->ArgNames({"threads", "work_us"});
    }
    return true;
}();

}  // namespace
