// Benchmarks of the Winograd input and output transforms (memory-bound helpers of the
// convolution) against the copy baseline of the same bytes read + written.
#include <string>

#include "BenchUtil.h"

namespace {

typedef void (*SetInputFn)(const float*, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
                           float*, size_t, SimdBool);
typedef void (*SetOutputFn)(const float*, size_t, float*, size_t, size_t, size_t, SimdBool);

struct Variant {
    const char* name;
    size_t block, kernel;  // square variants only
    SetInputFn setInput;
    SetOutputFn setOutput;
};

const Variant kVariants[] = {
    {"Kernel3x3Block4x4", 4, 3, SimdWinogradKernel3x3Block4x4SetInput,
     SimdWinogradKernel3x3Block4x4SetOutput},
    {"Kernel3x3Block2x2", 2, 3, SimdWinogradKernel3x3Block2x2SetInput,
     SimdWinogradKernel3x3Block2x2SetOutput},
};

// A 64-channel 56x56 image (a ResNet stage), padded by 1 so the output is 56x56 too.
constexpr size_t kChannels = 64, kSize = 56, kPad = 1;

// stridePad: floats added to the plane stride. With the exact stride C*T the planes of
// Kernel3x3Block2x2 (T = 784) start a multiple of 4 KiB apart, so their stores compete for the
// same cache sets; the "_stride+16" cases show what a padded stride gains.
void Register(const Variant& v, bool trans, size_t stridePad) {
    const size_t kStridePad = stridePad;
    const size_t tile = v.block + v.kernel - 1, count = tile * tile;
    const size_t tiles = (kSize + v.block - 1) / v.block;
    const size_t T = tiles * tiles;
    const size_t image = kChannels * kSize * kSize, planes = count * kChannels * T;
    const std::string layout = trans ? "Nhwc" : "Nchw";
    const std::string caseName =
        "C64_56x56_" + layout + (stridePad ? "_stride+" + std::to_string(stridePad) : "");
    const SetInputFn setInput = v.setInput;
    const SetOutputFn setOutput = v.setOutput;
    const SimdBool t = trans ? SimdTrue : SimdFalse;
    bench::RegisterWithBaseline(
        std::string("Winograd/") + v.name + "SetInput/" + caseName, caseName, 1, image * 4,
        planes * 4, [=](benchmark::State& state) {
            bench::Buffer<float> src(image), dst(planes + count * kStridePad);
            for (auto _ : state) {
                setInput(src.data(), kChannels, kSize, kSize, kPad, kPad, kPad, kPad, dst.data(),
                         kChannels * T + kStridePad, t);
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, (image + planes) * sizeof(float));
        });
    bench::RegisterWithBaseline(
        std::string("Winograd/") + v.name + "SetOutput/" + caseName, caseName, 1, planes * 4,
        image * 4, [=](benchmark::State& state) {
            bench::Buffer<float> src(planes + count * kStridePad), dst(image);
            for (auto _ : state) {
                setOutput(src.data(), kChannels * T, dst.data(), kChannels, kSize, kSize, t);
                benchmark::ClobberMemory();
            }
            bench::SetTraffic(state, (image + planes) * sizeof(float));
        });
}

const int kRegistered = [] {
    for (const Variant& v : kVariants)
        for (bool trans : {true, false})
            for (size_t pad : {0, 16}) Register(v, trans, pad);
    return 0;
}();

}  // namespace
