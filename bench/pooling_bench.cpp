// Benchmarks of the pooling family against the copy baseline of the same traffic (bytes of
// src read once + bytes of dst written), single thread; the 3x3 FP32 pools also with a budget
// of 2 threads ("/t2").
#include <cstdint>
#include <string>

#include "BenchUtil.h"

namespace {

struct Case {
    const char* name;
    size_t C, H, W, kernel, stride, pad, dstH, dstW;
};
// 3x3 stride 2 pad 1 (ceil-free ResNet stem pool; the left/top windows are clipped), 2x2
// stride 2, and global average pooling of the last ResNet-50 stage.
const Case k3x3{"64x112x112-3x3s2p1", 64, 112, 112, 3, 2, 1, 56, 56};
const Case k2x2{"64x112x112-2x2s2", 64, 112, 112, 2, 2, 0, 56, 56};
const Case kGlobal{"1024x7x7-global", 1024, 7, 7, 7, 1, 0, 1, 1};

struct Layout {
    const char* name;
    SimdTensorFormatType format;
};
const Layout kNchw{"Nchw", SimdTensorFormatNchw};
const Layout kNhwc{"Nhwc", SimdTensorFormatNhwc};

// `call(src, dst, case, format)` runs one pooling call on buffers of element type T.
template <class T, class Call>
void Register(const std::string& function, const Case& c, const Layout& layout, Call call,
              size_t threads = 1) {
    const size_t srcSize = c.C * c.H * c.W, dstSize = c.C * c.dstH * c.dstW;
    const std::string caseName = std::string(c.name) + "-" + layout.name;
    const size_t readBytes = srcSize * sizeof(T), writeBytes = dstSize * sizeof(T);
    const std::string suffix = threads > 1 ? "/t" + std::to_string(threads) : "";
    bench::RegisterWithBaseline("Pooling/" + function + "/" + caseName + suffix, caseName, 1,
                                readBytes, writeBytes, [=](benchmark::State& state) {
                                    bench::Buffer<T> src(srcSize), dst(dstSize);
                                    SimdSetThreadNumber(threads);
                                    for (auto _ : state) {
                                        call(src.data(), dst.data(), c, layout.format);
                                        benchmark::ClobberMemory();
                                    }
                                    SimdSetThreadNumber(1);
                                    bench::SetTraffic(state, readBytes + writeBytes);
                                });
}

void Average(const float* s, float* d, const Case& c, SimdTensorFormatType f) {
    SimdSynetPoolingAverage(s, c.C, c.H, c.W, c.kernel, c.kernel, c.stride, c.stride, c.pad, c.pad,
                            d, c.dstH, c.dstW, SimdTrue, f);
}
void Max32f(const float* s, float* d, const Case& c, SimdTensorFormatType f) {
    SimdSynetPoolingMax32f(s, c.C, c.H, c.W, 1, c.kernel, c.kernel, 1, c.stride, c.stride, 0, c.pad,
                           c.pad, d, c.C, c.dstH, c.dstW, f);
}
void Max16b(const uint16_t* s, uint16_t* d, const Case& c, SimdTensorFormatType f) {
    SimdSynetPoolingMax16b(s, c.C, c.H, c.W, c.kernel, c.kernel, c.stride, c.stride, c.pad, c.pad,
                           d, c.dstH, c.dstW, f);
}
void Max8u(const uint8_t* s, uint8_t* d, const Case& c, SimdTensorFormatType f) {
    SimdSynetPoolingMax8u(s, c.C, c.H, c.W, c.kernel, c.kernel, c.stride, c.stride, c.pad, c.pad, d,
                          c.dstH, c.dstW, f);
}

const int kRegistered = [] {
    for (const Layout& layout : {kNhwc, kNchw}) {
        for (const Case& c : {k3x3, k2x2}) {
            Register<float>("Max32f", c, layout, Max32f);
            Register<float>("Average", c, layout, Average);
        }
        Register<float>("Average", kGlobal, layout, Average);
        Register<float>("Max32f", k3x3, layout, Max32f, 2);
        Register<float>("Average", k3x3, layout, Average, 2);
    }
    Register<uint16_t>("Max16b", k3x3, kNhwc, Max16b);
    Register<uint8_t>("Max8u", k3x3, kNhwc, Max8u);
    Register<uint16_t>("Max16b", k3x3, kNchw, Max16b);
    Register<uint8_t>("Max8u", k3x3, kNchw, Max8u);
    return 0;
}();

}  // namespace
