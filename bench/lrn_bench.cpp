// Benchmarks of SimdSynetLrnLayerCrossChannels against the copy baseline of the same traffic
// (one read of src, one write of dst).
#include <string>

#include "BenchUtil.h"

namespace {

struct Shape {
    const char* name;
    size_t channels, spatial, half;
};
// GoogLeNet-like maps (64 channels of 56x56, local size 5) and a small 16x16x96 one.
const Shape kShapes[] = {{"64x56x56h2", 64, 56 * 56, 2}, {"96x16x16h2", 96, 16 * 16, 2}};

const int kRegistered = [] {
    for (const Shape& s : kShapes)
        for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
            const std::string layout = format == SimdTensorFormatNchw ? "Nchw" : "Nhwc";
            const std::string caseName = std::string(s.name) + "/" + layout;
            const size_t n = s.channels * s.spatial;
            const Shape shape = s;
            bench::RegisterWithBaseline(
                "Lrn/LrnLayerCrossChannels/" + caseName, caseName, 1, n * 4, n * 4,
                [=](benchmark::State& state) {
                    bench::Buffer<float> src(n), dst(n);
                    const float k[3] = {1.0f, 1e-4f / 5, -0.75f};
                    for (auto _ : state) {
                        SimdSynetLrnLayerCrossChannels(src.data(), shape.half, shape.channels,
                                                       shape.spatial, k, dst.data(), format);
                        benchmark::ClobberMemory();
                    }
                    bench::SetTraffic(state, 2 * n * sizeof(float));
                    state.counters["elements_per_ns"] = benchmark::Counter(
                        double(state.iterations()) * double(n) * 1e-9, benchmark::Counter::kIsRate);
                });
        }
    return 0;
}();

}  // namespace
