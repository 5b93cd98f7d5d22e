// Benchmarks of the conversion family against the copy baseline of the same traffic.
#include <string>

#include "BenchUtil.h"

namespace {

struct Shape {
    const char* name;
    size_t channels, height, width;
};

const char* FormatName(SimdTensorFormatType format) {
    switch (format) {
        case SimdTensorFormatNchw:
            return "Nchw";
        case SimdTensorFormatNhwc:
            return "Nhwc";
        case SimdTensorFormatNchw16c:
            return "Nchw16c";
        default:
            return "Other";
    }
}

// Dequantization: 1 byte read, 4 bytes written per element. The shapes put the working set
// (input + output) in L1 (~16 KiB), L2 (~256 KiB) and memory (4 M elements, 20 MiB).
const Shape k8uTo32fShapes[] = {
    {"16KiB", 16, 14, 14}, {"256KiB", 16, 56, 56}, {"4M", 16, 512, 512}};
// Quantization: 4 bytes read, 1 written; 3x224x224 is a network input.
const Shape k32fTo8uShapes[] = {
    {"16KiB", 3, 32, 32}, {"256KiB", 3, 128, 128}, {"3x224x224", 3, 224, 224}};

void RegisterQuantize() {
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        for (const Shape& s : k8uTo32fShapes) {
            const size_t n = s.channels * s.height * s.width;
            const std::string name =
                std::string("Conversion/Convert8uTo32f/") + FormatName(format) + "/" + s.name;
            bench::RegisterWithBaseline(name, s.name, 1, n, n * 4, [=](benchmark::State& state) {
                bench::Buffer<uint8_t> src(n);
                bench::Buffer<float> dst(n), scale(s.channels), shift(s.channels);
                for (auto _ : state) {
                    SimdSynetConvert8uTo32f(src.data(), 1, s.channels, s.height, s.width, format,
                                            scale.data(), shift.data(), dst.data(),
                                            SimdSynetCompatibilityDefault);
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, n * 5);
            });
        }
        for (const Shape& s : k32fTo8uShapes) {
            const size_t n = s.channels * s.height * s.width;
            const std::string name =
                std::string("Conversion/Convert32fTo8u/") + FormatName(format) + "/" + s.name;
            bench::RegisterWithBaseline(name, s.name, 1, n * 4, n, [=](benchmark::State& state) {
                bench::Buffer<float> src(n), scale(s.channels), shift(s.channels);
                bench::Buffer<uint8_t> dst(n);
                for (size_t c = 0; c < s.channels; ++c) scale.data()[c] = 7.0f;
                for (auto _ : state) {
                    SimdSynetConvert32fTo8u(src.data(), 1, s.channels, s.height, s.width, format,
                                            scale.data(), shift.data(), dst.data(),
                                            SimdSynetCompatibilityDefault);
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, n * 5);
            });
        }
    }
}

// Image input: a 224x224 Bgr24 image (3 bytes per pixel read, 12 written).
void RegisterSetInput() {
    const size_t width = 224, height = 224, pixels = width * height;
    for (SimdTensorFormatType format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
        const std::string name =
            std::string("Conversion/SetInput/Bgr24To") + FormatName(format) + "/224x224";
        bench::RegisterWithBaseline(
            name, "224x224", 1, pixels * 3, pixels * 12, [=](benchmark::State& state) {
                bench::Buffer<uint8_t> src(pixels * 3);
                bench::Buffer<float> dst(pixels * 3);
                const float lower[3] = {-2.0f, -2.0f, -2.0f}, upper[3] = {2.0f, 2.0f, 2.0f};
                for (auto _ : state) {
                    SimdSynetSetInput(src.data(), width, height, width * 3, SimdPixelFormatBgr24,
                                      lower, upper, dst.data(), 3, format);
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, pixels * 15);
            });
    }
}

// Layout changes of a 64x56x56 feature map (784 KiB each way).
void RegisterConvertImage() {
    const size_t channels = 64, spatial = 56 * 56, n = channels * spatial;
    const SimdTensorFormatType pairs[][2] = {{SimdTensorFormatNchw, SimdTensorFormatNhwc},
                                             {SimdTensorFormatNhwc, SimdTensorFormatNchw},
                                             {SimdTensorFormatNchw, SimdTensorFormatNchw16c},
                                             {SimdTensorFormatNchw16c, SimdTensorFormatNhwc}};
    for (const auto& pair : pairs) {
        const SimdTensorFormatType from = pair[0], to = pair[1];
        const std::string name = std::string("Conversion/ConvertImage/") + FormatName(from) + "To" +
                                 FormatName(to) + "/64x56x56";
        bench::RegisterWithBaseline(
            name, "64x56x56", 1, n * 4, n * 4, [=](benchmark::State& state) {
                bench::Buffer<float> src(n), dst(n);
                for (auto _ : state) {
                    SimdSynetConvertImage(1, channels, spatial, src.data(), from, dst.data(), to);
                    benchmark::ClobberMemory();
                }
                bench::SetTraffic(state, n * 8);
            });
    }
}

const int kRegistered = [] {
    RegisterQuantize();
    RegisterSetInput();
    RegisterConvertImage();
    return 0;
}();

}  // namespace
