// Cost of argument validation on a 4 KiB call. Two calls of one element, through the public API
// and through the same kind of kernel driven directly (same Highway loop driver, same dynamic
// dispatch, no checks), differ by the validation alone; their difference is reported as a
// fraction of the direct 4 KiB call (timing two 4 KiB calls against each other would bury a
// nanosecond under the run-to-run noise of the kernel). The bar is 2%.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "validation_bench.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "scale/ScaleLayer-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct LeakyReluOp {
    float slope;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        return hn::MulAdd(hn::Set(d, slope), hn::Min(x, hn::Zero(d)), hn::Max(x, hn::Zero(d)));
    }
};

void ReluDirect(const float* src, size_t size, float slope, float* dst) {
    simd::HWY_NAMESPACE::UnaryLoop(src, size, dst, LeakyReluOp{slope});
}

// The library's own kernel (scale/ScaleLayer-inl.h) without the entry point's checks. (A
// kernel of the same ops with the layout fixed at compile time ran 1.5-2.5 ns faster than the
// library's, a difference that was then reported as validation.)
void ScaleDirect(const float* src, const float* scale, const float* bias, size_t channels,
                 size_t spatial, float* dst, SimdTensorFormatType format) {
    simd::HWY_NAMESPACE::ScaleLayerKernel(src, scale, bias, channels, spatial, dst, format);
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <string>
#include <vector>

#include "BenchUtil.h"

namespace bench {
HWY_EXPORT(ReluDirect);
HWY_EXPORT(ScaleDirect);

namespace {

// 25 repetitions reported by their minimum: the noise of a shared machine only adds time.
void MinimumOfRepetitions(benchmark::internal::Benchmark* b) {
    b->Repetitions(25)
        ->ComputeStatistics(
            "min",
            [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
        ->ReportAggregatesOnly(true);
}

constexpr size_t kElements = 1024;  // 4 KiB of input
constexpr size_t kChannels = 16;

// Registers Validation/<function>/{direct,api}/16 (one vector's worth: the kernel is a few
// instructions, so the difference is the validation) and Validation/<function>/direct/4KiB.
// Minimum over many repetitions: the noise of a shared machine only ever adds time.
template <class Api, class Direct>
void RegisterPair(const std::string& function, Api api, Direct direct) {
    const std::string base = "Validation/" + function + "/";
    for (size_t elements : {size_t(16), kElements}) {
        const bool small = elements == 16;
        const std::string size = small ? "16" : "4KiB";
        for (bool viaApi : {false, true}) {
            if (viaApi && !small) continue;
            const std::string name = base + (viaApi ? "api/" : "direct/") + size;
            benchmark::RegisterBenchmark(
                name.c_str(),
                [=](benchmark::State& state) {
                    Buffer<float> src(elements), dst(elements), s(kChannels), b(kChannels);
                    // One channel for the small call (one plane of 16), 16 planes of 64 for 4 KiB.
                    const size_t channels = small ? 1 : kChannels;
                    for (auto _ : state) {
                        if (viaApi)
                            api(src.data(), s.data(), b.data(), channels, dst.data());
                        else
                            direct(src.data(), s.data(), b.data(), channels, dst.data());
                        benchmark::ClobberMemory();
                    }
                    SetTraffic(state, 2 * elements * sizeof(float));
                    if (viaApi)
                        state.SetLabel("validation vs " + base + "direct/16 per " + base +
                                       "direct/4KiB");
                })
                ->Unit(benchmark::kNanosecond)
                ->Apply(MinimumOfRepetitions);
        }
    }
}

// The checks alone, against the cheapest exported call, with no dispatch and no kernel in
// either: `call` passes every check of the accepted path and returns before the kernel (at the
// zero-size test), or is rejected by the last check where the zero-size test comes first.
template <class Call>
void RegisterChecks(const std::string& function, const std::string& how, Call call) {
    const std::string name = "Validation/" + function + "/" + how;
    benchmark::RegisterBenchmark(
        name.c_str(),
        [=](benchmark::State& state) {
            Buffer<float> src(16), s(16), b(16), dst(16);
            for (auto _ : state) {
                call(src.data(), s.data(), b.data(), dst.data());
                benchmark::DoNotOptimize(SimdSynetGetLastError());
            }
            state.SetLabel("checks vs Validation/EmptyCall per Validation/" + function +
                           "/direct/4KiB");
        })
        ->Unit(benchmark::kNanosecond)
        ->Apply(MinimumOfRepetitions);
}

void RegisterAll() {
    benchmark::RegisterBenchmark("Validation/EmptyCall",
                                 [](benchmark::State& state) {
                                     for (auto _ : state) {
                                         benchmark::DoNotOptimize(SimdSynetGetLastError());
                                         benchmark::DoNotOptimize(SimdSynetGetLastError());
                                     }
                                 })
        ->Unit(benchmark::kNanosecond)
        ->Apply(MinimumOfRepetitions);
    // Relu32f returns on size 0 before its pointer checks: a NULL dst is its last check.
    RegisterChecks("Relu32f", "rejected-at-last-check",
                   [](const float* src, const float* s, const float*, float*) {
                       SimdSynetRelu32f(src, 16, s, nullptr);
                   });
    // ScaleLayerForward checks pointers on its fast path and tests for zero sizes last.
    RegisterChecks("ScaleLayerForward", "all-checks-passed",
                   [](const float* src, const float* s, const float* b, float* dst) {
                       SimdSynetScaleLayerForward(src, s, b, 1, 0, dst, SimdTensorFormatNchw);
                   });
    const float slope = 0.1f;
    RegisterPair(
        "Relu32f",
        [=](const float* src, const float*, const float*, size_t channels, float* dst) {
            SimdSynetRelu32f(src, channels * 64 / (channels == 1 ? 4 : 1), &slope, dst);
        },
        [=](const float* src, const float*, const float*, size_t channels, float* dst) {
            HWY_DYNAMIC_DISPATCH(ReluDirect)
            (src, channels * 64 / (channels == 1 ? 4 : 1), slope, dst);
        });
    RegisterPair(
        "ScaleLayerForward",
        [](const float* src, const float* s, const float* b, size_t channels, float* dst) {
            const size_t spatial = channels == 1 ? 16 : 64;
            SimdSynetScaleLayerForward(src, s, b, channels, spatial, dst, SimdTensorFormatNchw);
        },
        [](const float* src, const float* s, const float* b, size_t channels, float* dst) {
            const size_t spatial = channels == 1 ? 16 : 64;
            HWY_DYNAMIC_DISPATCH(ScaleDirect)
            (src, s, b, channels, spatial, dst, SimdTensorFormatNchw);
        });
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace bench
#endif  // HWY_ONCE
