// Benchmarks of the per-channel layers against bench::RegisterWithBaseline's baselines: a copy
// of the same bytes with the same read/write mix, or for the L1-resident cases a
// load -> multiply-add -> store loop over the same bytes (in L1 that mix is slower than a copy
// on current cores, docs: highway-performance.md).
#include <string>

#include "BenchUtil.h"

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

void RegisterScale() {
    for (const Shape& shape : {kBig, kL2, kL1})
        for (const Layout& layout : kLayouts) {
            RegisterUnary("ScaleLayerForward", shape, layout,
                          [](const float* src, Params& p, size_t C, size_t S, float* dst,
                             SimdTensorFormatType f) {
                              SimdSynetScaleLayerForward(src, p.a.data(), p.b.data(), C, S, dst, f);
                          });
        }
}

void RegisterFused() {
    for (const Layout& layout : kLayouts) {
        const Shape& shape = kBig;
        const std::string caseName = CaseName(shape, layout);
        const size_t n = Elements(shape), bytes = n * sizeof(float);
        // In place: reads and writes back one buffer, measured against the same load -> add ->
        // store loop over one buffer (a copy between two buffers is a different access pattern:
        // its reads and writes go to different lines).
        const std::string inPlaceName = "InPlace/LoadAddStore/" + caseName;
        benchmark::RegisterBenchmark(("Scale/AddBias/" + caseName).c_str(), [=](benchmark::State&
                                                                                    state) {
            bench::Buffer<float> dst(n);
            Params p(shape.channels);
            for (auto _ : state) {
                SimdSynetAddBias(p.a.data(), shape.channels, shape.spatial, dst.data(),
                                 layout.format);
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, 2 * bytes);
            state.SetLabel("vs " + inPlaceName);
        })->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(inPlaceName.c_str(), [=](benchmark::State& state) {
            bench::Buffer<float> data(n);
            for (auto _ : state) {
                bench::LoadAddStore(data.data(), n);
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, 2 * bytes);
        })->Unit(benchmark::kMicrosecond);
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
        // Two inputs of half the channels each, two outputs of all of them.
        bench::RegisterWithBaseline(
            "Scale/FusedLayerForward9/" + caseName, caseName, 2, bytes / 2, 2 * bytes,
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
            });
    }
}

const int kRegistered = [] {
    RegisterScale();
    RegisterFused();
    return 0;
}();

}  // namespace
