// Benchmarks of SimdSynetInnerProductLayerForward. The weights dominate the traffic, so the bar
// is a loop that only streams the same weight bytes into a vector sum (compiled per target
// like the library and dispatched the same way): an inner product at that speed is as fast as
// reading its weights can be.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "innerproduct_bench.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Sum of n floats (n a multiple of 4 vectors), four accumulators so that only the loads bound it.
float StreamSumKernel(const float* p, size_t n) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i + 4 * L <= n; i += 4 * L) {
        s0 = hn::Add(s0, hn::LoadU(d, p + i + 0 * L));
        s1 = hn::Add(s1, hn::LoadU(d, p + i + 1 * L));
        s2 = hn::Add(s2, hn::LoadU(d, p + i + 2 * L));
        s3 = hn::Add(s3, hn::LoadU(d, p + i + 3 * L));
    }
    return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <string>

#include "BenchUtil.h"

namespace bench {
HWY_EXPORT(StreamSumKernel);
}  // namespace bench

namespace {

struct Shape {
    const char* name;
    size_t size, count;  // inputs, outputs
};
// A classifier head (4 MB of weights: beyond L2, inside L3), a small layer whose weights stay
// in L2, VGG-like fully connected layers (16 MiB of weights, L3-resident on server parts; the
// one with short rows is the shape of the issue comparing us with Simd) and a wide one beyond L3.
const Shape kShapes[] = {{"1024to1000", 1024, 1000},
                         {"256to256", 256, 256},
                         {"1024to4096", 1024, 4096},
                         {"4096to1024", 4096, 1024},
                         {"4096to4096", 4096, 4096}};

const int kRegistered = [] {
    for (const Shape& s : kShapes) {
        const Shape shape = s;
        const size_t weights = s.size * s.count;
        const size_t bytes = (weights + s.size + 2 * s.count) * sizeof(float);
        benchmark::RegisterBenchmark(
            (std::string("InnerProduct/InnerProductLayerForward/") + s.name).c_str(),
            [=](benchmark::State& state) {
                bench::Buffer<float> src(shape.size), weight(weights), bias(shape.count),
                    dst(shape.count);
                for (auto _ : state) {
                    SimdSynetInnerProductLayerForward(src.data(), weight.data(), bias.data(),
                                                      shape.count, shape.size, dst.data());
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, bytes);
                state.SetLabel(std::string("vs WeightStream/") + shape.name);
            })
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((std::string("WeightStream/") + s.name).c_str(),
                                     [=](benchmark::State& state) {
                                         bench::Buffer<float> weight(weights);
                                         for (auto _ : state) {
                                             float sum = HWY_DYNAMIC_DISPATCH(
                                                 bench::StreamSumKernel)(weight.data(), weights);
                                             benchmark::DoNotOptimize(sum);
                                         }
                                         bench::SetTraffic(state, weights * sizeof(float));
                                     })
            ->Unit(benchmark::kMicrosecond);
    }
    return 0;
}();

}  // namespace
#endif  // HWY_ONCE
