// The single-core FMA peak of the target in use, measured by a register-only loop of
// independent multiply-add chains: the bound the GEMM and convolution benchmarks report
// against.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "FmaPeak.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 12 independent chains (enough to cover 4-cycle FMA latency on two pipes, few enough for 16
// registers), `iterations` steps of one MulAdd per chain. Returns the FLOPs done and stores a
// sum of the chains so the loop cannot be removed.
double FmaPeakLoop(size_t iterations, float* sink) {
    const hn::ScalableTag<float> d;
    constexpr int kChains = 12;
    using V = hn::Vec<decltype(d)>;
    const V m = hn::Set(d, 0.999999f), a = hn::Set(d, 1e-7f);
    V acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = hn::Set(d, float(c));
    for (size_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
        for (int c = 0; c < kChains; ++c) acc[c] = hn::MulAdd(acc[c], m, a);
    }
    V sum = acc[0];
    for (int c = 1; c < kChains; ++c) sum = hn::Add(sum, acc[c]);
    *sink = hn::GetLane(sum);
    return 2.0 * double(kChains) * double(hn::Lanes(d)) * double(iterations);
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>

#include "BenchUtil.h"

namespace bench {
HWY_EXPORT(FmaPeakLoop);

double FmaPeakRun(size_t iterations, float* sink) {
    return HWY_DYNAMIC_DISPATCH(FmaPeakLoop)(iterations, sink);
}

double FmaPeakGflops() {
    static const double peak = [] {
        // The best of many short runs (a few ms, about a scheduler time slice): a run that
        // shares its core with another process is low, the best one is not.
        float sink = 0.0f;
        double best = 0.0;
        for (int run = 0; run < 30; ++run) {
            const auto start = std::chrono::steady_clock::now();
            const double flops = FmaPeakRun(size_t(1) << 19, &sink);
            const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
            best = std::max(best, flops / seconds.count() * 1e-9);
        }
        benchmark::DoNotOptimize(sink);
        return best;
    }();
    return peak;
}

}  // namespace bench
#endif  // HWY_ONCE
