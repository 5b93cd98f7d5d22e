// Benchmarks of the normalization family against the copy baseline of the same traffic.
//
// Every function reads its input at least twice (statistics, then the normalization) and writes
// it once; the traffic counted (and the baseline's) is two reads plus one write of the tensor,
// even where a third pass re-reads cache-resident rows.
#include <cstring>
#include <string>

#include "BenchUtil.h"

namespace {

struct Shape {
    const char* name;
    size_t channels, spatial;
};
// V2/16bV2: a transformer layer norm (768 channels, 14x14 tokens); V3: instance norm of a
// 64x56x56 feature map; V1: SSD's conv4_3 L2 normalization (512 x 38x38).
const Shape kTransformer = {"768x196", 768, 196};
const Shape kInstance = {"64x56x56", 64, 56 * 56};
const Shape kSsd = {"512x38x38", 512, 38 * 38};

using Fp32Call = void (*)(const float* src, size_t channels, size_t spatial, const float* scale,
                          const float* shift, SimdTensorFormatType format, float* dst);

void RegisterFp32(const std::string& function, const Shape& shape, SimdTensorFormatType format,
                  Fp32Call call) {
    const size_t n = shape.channels * shape.spatial;
    const std::string layout = format == SimdTensorFormatNhwc ? "Nhwc" : "Nchw";
    const std::string caseName = layout + shape.name;
    bench::RegisterWithBaseline("Normalization/" + function + "/" + caseName, caseName, 2,
                                n * sizeof(float), n * sizeof(float), [=](benchmark::State& state) {
                                    bench::Buffer<float> src(n), dst(n), scale(shape.channels),
                                        shift(shape.channels);
                                    for (auto _ : state) {
                                        call(src.data(), shape.channels, shape.spatial,
                                             scale.data(), shift.data(), format, dst.data());
                                        benchmark::ClobberMemory();
                                    }
                                    bench::SetTraffic(state, 3 * n * sizeof(float));
                                });
}

void RegisterBf16(const Shape& shape) {
    const size_t n = shape.channels * shape.spatial;
    const std::string caseName = std::string("Nhwc") + shape.name;
    bench::RegisterWithBaseline(
        "Normalization/NormalizeLayerForward16bV2/" + caseName, caseName, 2, n * sizeof(uint16_t),
        n * sizeof(uint16_t), [=](benchmark::State& state) {
            bench::Buffer<uint16_t> src(n), dst(n);
            bench::Buffer<float> scale(shape.channels), shift(shape.channels);
            // Ordinary BF16 values (the buffer's default fill would be denormal patterns).
            for (size_t i = 0; i < n; ++i) {
                const float v = float((i * 7919u) % 251u) / 8.0f - 15.0f;
                uint32_t bits;
                std::memcpy(&bits, &v, sizeof(bits));
                src.data()[i] = uint16_t(bits >> 16);
            }
            const float eps = 1e-5f;
            for (auto _ : state) {
                SimdSynetNormalizeLayerForward16bV2(src.data(), 1, shape.channels, shape.spatial,
                                                    scale.data(), shift.data(), &eps,
                                                    SimdTensorFormatNhwc, nullptr, dst.data());
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, 3 * n * sizeof(uint16_t));
        });
}

const float kEps = 1e-5f;

void V1PerPixel(const float* src, size_t c, size_t s, const float* scale, const float*,
                SimdTensorFormatType f, float* dst) {
    SimdSynetNormalizeLayerForward(src, 1, c, s, scale, &kEps, SimdFalse, f, nullptr, dst);
}
void V1Across(const float* src, size_t c, size_t s, const float* scale, const float*,
              SimdTensorFormatType f, float* dst) {
    SimdSynetNormalizeLayerForward(src, 1, c, s, scale, &kEps, SimdTrue, f, nullptr, dst);
}
void V2(const float* src, size_t c, size_t s, const float* scale, const float* shift,
        SimdTensorFormatType f, float* dst) {
    SimdSynetNormalizeLayerForwardV2(src, 1, c, s, scale, shift, &kEps, f, nullptr, dst);
}
void V3(const float* src, size_t c, size_t s, const float* scale, const float* shift,
        SimdTensorFormatType f, float* dst) {
    SimdSynetNormalizeLayerForwardV3(src, 1, c, s, scale, shift, &kEps, f, nullptr, dst);
}
void V4(const float* src, size_t c, size_t s, const float* scale, const float* shift,
        SimdTensorFormatType f, float* dst) {
    SimdSynetNormalizeLayerForwardV4(src, 1, c, s, scale, shift, &kEps, f, nullptr, dst);
}

const int kRegistered = [] {
    for (SimdTensorFormatType f : {SimdTensorFormatNhwc, SimdTensorFormatNchw}) {
        RegisterFp32("NormalizeLayerForwardV2", kTransformer, f, V2);
        RegisterFp32("NormalizeLayerForwardV3", kInstance, f, V3);
        RegisterFp32("NormalizeLayerForward", kSsd, f, V1PerPixel);
        RegisterFp32("NormalizeLayerForwardAcross", kSsd, f, V1Across);
        for (const Shape& shape : {kTransformer, kInstance, kSsd})
            RegisterFp32("NormalizeLayerForwardV4", shape, f, V4);
    }
    RegisterBf16(kTransformer);
    return 0;
}();

}  // namespace
