// Benchmarks of the per-channel layers against baselines of the same traffic:
//  - "Copy/<mix>/<case>" (bench::RegisterWithBaseline): a plain copy of the same bytes;
//  - "MulAddLoop/<case>": dst[i] = src[i]*a + b over the same bytes, 4x unrolled, dynamically
//    dispatched like the library. In L1 a load -> FMA -> store stream is slower than a copy on
//    this core (docs: highway-performance.md), so it is the bar of the L1-resident cases;
//  - "Stream2to1/<case>" (dst = src0 + src1) and "Stream1to2/<case>" (dst0 = dst1 = src):
//    vectorised, dispatched streams for the two-input and two-output layers, because
//    CopyMix's unequal mixes are compiled for the static target (scalar in this build).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scale_bench.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The loops assume n is a multiple of 4 vectors (true for every case below).
void MulAddLoop(const float* src, size_t n, float a, float b, float* dst) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const auto va = hn::Set(d, a), vb = hn::Set(d, b);
    for (size_t i = 0; i + 4 * L <= n; i += 4 * L) {
        const auto r0 = hn::MulAdd(hn::LoadU(d, src + i + 0 * L), va, vb);
        const auto r1 = hn::MulAdd(hn::LoadU(d, src + i + 1 * L), va, vb);
        const auto r2 = hn::MulAdd(hn::LoadU(d, src + i + 2 * L), va, vb);
        const auto r3 = hn::MulAdd(hn::LoadU(d, src + i + 3 * L), va, vb);
        hn::StoreU(r0, d, dst + i + 0 * L);
        hn::StoreU(r1, d, dst + i + 1 * L);
        hn::StoreU(r2, d, dst + i + 2 * L);
        hn::StoreU(r3, d, dst + i + 3 * L);
    }
}

void Stream2to1(const float* src0, const float* src1, size_t n, float* dst) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    for (size_t i = 0; i + 4 * L <= n; i += 4 * L) {
        for (size_t k = 0; k < 4; ++k)
            hn::StoreU(hn::Add(hn::LoadU(d, src0 + i + k * L), hn::LoadU(d, src1 + i + k * L)), d,
                       dst + i + k * L);
    }
}

void Stream1to2(const float* src, size_t n, float* dst0, float* dst1) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    for (size_t i = 0; i + 4 * L <= n; i += 4 * L) {
        for (size_t k = 0; k < 4; ++k) {
            const auto v = hn::LoadU(d, src + i + k * L);
            hn::StoreU(v, d, dst0 + i + k * L);
            hn::StoreU(v, d, dst1 + i + k * L);
        }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <string>

#include "BenchUtil.h"

namespace bench {
HWY_EXPORT(MulAddLoop);
HWY_EXPORT(Stream2to1);
HWY_EXPORT(Stream1to2);
}  // namespace bench

namespace {

struct Shape {
    const char* name;
    size_t channels, spatial;
};
// Beyond L2: a ResNet stage (256 channels of 56x56, 3.2 MB per tensor).
// L2-resident: 256 KiB working set (128 KiB in + 128 KiB out).
// L1-resident: 16 KiB working set (8 KiB in + 8 KiB out).
const Shape kBig{"256x56x56", 256, 56 * 56};
const Shape kL2{"64x512", 64, 512};
const Shape kL1{"32x64", 32, 64};

struct Layout {
    const char* name;
    SimdTensorFormatType format;
};
const Layout kLayouts[] = {{"Nchw", SimdTensorFormatNchw},
                           {"Nhwc", SimdTensorFormatNhwc},
                           {"Nchw8c", SimdTensorFormatNchw8c}};

std::string CaseName(const Shape& shape, const Layout& layout) {
    return std::string(shape.name) + "-" + layout.name;
}

size_t Elements(const Shape& shape) {
    return shape.channels * shape.spatial;
}

// Per-channel arrays of `channels` values (channels is a multiple of every block here).
struct Params {
    bench::Buffer<float> a, b, c;
    explicit Params(size_t channels) : a(channels), b(channels), c(channels) {}
};

// One-input one-output layer: dst = f(src) with n floats each.
template <class Call>
void RegisterUnary(const std::string& function, const Shape& shape, const Layout& layout,
                   Call call) {
    const size_t n = Elements(shape), bytes = n * sizeof(float);
    const std::string caseName = CaseName(shape, layout);
    bench::RegisterWithBaseline("Scale/" + function + "/" + caseName, caseName, 1, bytes, bytes,
                                [=](benchmark::State& state) {
                                    bench::Buffer<float> src(n), dst(n);
                                    Params params(shape.channels);
                                    for (auto _ : state) {
                                        call(src.data(), params, shape.channels, shape.spatial,
                                             dst.data(), layout.format);
                                        benchmark::ClobberMemory();
                                    }
                                    bench::SetTraffic(state, 2 * bytes);
                                });
}

void RegisterMulAddLoop(const std::string& caseName, size_t n) {
    benchmark::RegisterBenchmark(("MulAddLoop/" + caseName).c_str(), [=](benchmark::State& state) {
        bench::Buffer<float> src(n), dst(n);
        for (auto _ : state) {
            HWY_DYNAMIC_DISPATCH(bench::MulAddLoop)(src.data(), n, 1.5f, 0.25f, dst.data());
            benchmark::ClobberMemory();
        }
        bench::SetTraffic(state, 2 * n * sizeof(float));
    })->Unit(benchmark::kMicrosecond);
}

void RegisterScale() {
    for (const Shape& shape : {kBig, kL2, kL1})
        for (const Layout& layout : kLayouts) {
            RegisterUnary("ScaleLayerForward", shape, layout,
                          [](const float* src, Params& p, size_t C, size_t S, float* dst,
                             SimdTensorFormatType f) {
                              SimdSynetScaleLayerForward(src, p.a.data(), p.b.data(), C, S, dst, f);
                          });
            RegisterMulAddLoop(CaseName(shape, layout), Elements(shape));
        }
}

void RegisterFused() {
    for (const Layout& layout : kLayouts) {
        const Shape& shape = kBig;
        const std::string caseName = CaseName(shape, layout);
        const size_t n = Elements(shape), bytes = n * sizeof(float);
        // In place: reads and writes the tensor once, like a copy.
        RegisterUnary("AddBias", shape, layout,
                      [](const float*, Params& p, size_t C, size_t S, float* dst,
                         SimdTensorFormatType f) { SimdSynetAddBias(p.a.data(), C, S, dst, f); });
        RegisterUnary("FusedLayerForward2", shape, layout,
                      [](const float* src, Params& p, size_t C, size_t S, float* dst,
                         SimdTensorFormatType f) {
                          const float slope = 0.1f;
                          SimdSynetFusedLayerForward2(src, p.a.data(), p.b.data(), C, S, &slope,
                                                      dst, f);
                      });
        // Two inputs, one output.
        bench::RegisterWithBaseline("Scale/FusedLayerForward8/" + caseName, caseName, 2, bytes,
                                    bytes, [=](benchmark::State& state) {
                                        bench::Buffer<float> src0(n), src1(n), dst(n);
                                        Params p(shape.channels);
                                        for (auto _ : state) {
                                            SimdSynetFusedLayerForward8(src0.data(), src1.data(),
                                                                        p.a.data(), shape.channels,
                                                                        shape.spatial, dst.data(),
                                                                        layout.format);
                                            benchmark::ClobberMemory();
                                        }
                                        bench::SetTraffic(state, 3 * bytes);
                                    });
        benchmark::RegisterBenchmark(("Stream2to1/" + caseName).c_str(), [=](benchmark::State&
                                                                                 state) {
            bench::Buffer<float> src0(n), src1(n), dst(n);
            for (auto _ : state) {
                HWY_DYNAMIC_DISPATCH(bench::Stream2to1)(src0.data(), src1.data(), n, dst.data());
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, 3 * bytes);
        })->Unit(benchmark::kMicrosecond);
        // One input, two outputs: Fused4 (2*C channels out) and Fused9 with the copy.
        bench::RegisterWithBaseline("Scale/FusedLayerForward4/" + caseName, caseName, 1, bytes,
                                    2 * bytes, [=](benchmark::State& state) {
                                        bench::Buffer<float> src(n), dst(2 * n);
                                        Params p(shape.channels);
                                        const float scale1 = -1.0f, bias1 = 0.0f;
                                        for (auto _ : state) {
                                            SimdSynetFusedLayerForward4(
                                                src.data(), p.a.data(), &scale1, &bias1,
                                                shape.channels, shape.spatial, dst.data(),
                                                layout.format);
                                            benchmark::ClobberMemory();
                                        }
                                        bench::SetTraffic(state, 3 * bytes);
                                    });
        benchmark::RegisterBenchmark(
            ("Scale/FusedLayerForward9/" + caseName).c_str(),
            [=](benchmark::State& state) {
                const size_t half = n / 2;
                bench::Buffer<float> src0(half), src1(half), dst0(n), dst1(n);
                Params p(shape.channels);
                for (auto _ : state) {
                    SimdSynetFusedLayerForward9(
                        src0.data(), src1.data(), p.a.data(), p.b.data(), shape.channels / 2,
                        shape.channels / 2, shape.spatial, dst0.data(), dst1.data(), layout.format);
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, 3 * bytes);
            })
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("Stream1to2/" + caseName).c_str(), [=](benchmark::State&
                                                                                 state) {
            bench::Buffer<float> src(n), dst0(n), dst1(n);
            for (auto _ : state) {
                HWY_DYNAMIC_DISPATCH(bench::Stream1to2)(src.data(), n, dst0.data(), dst1.data());
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, 3 * bytes);
        })->Unit(benchmark::kMicrosecond);
    }
}

const int kRegistered = [] {
    RegisterScale();
    RegisterFused();
    return 0;
}();

}  // namespace
#endif  // HWY_ONCE
