// The convolution layers the benchmarks run (issue set (a)-(h) and the 7x7 pointwise layers of
// regnet_x_400mf and resnet50 (i, j); batch 1, ReLU), shared by the
// library's benchmarks and the optional oneDNN comparison, and the timing of the side-by-side
// comparisons.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "BenchUtil.h"
#include "SimdSynet.h"

namespace bench {

struct Layer {
    const char* name;
    size_t srcC, srcH, srcW, dstC, k, stride, pad, group;
};

inline const Layer kLayers[] = {
    {"a_3x3s1_64-64_56", 64, 56, 56, 64, 3, 1, 1, 1},
    {"b_1x1_256-64_56", 256, 56, 56, 64, 1, 1, 0, 1},
    {"c_1x1_64-256_56", 64, 56, 56, 256, 1, 1, 0, 1},
    {"d_dw3x3s1_256_56", 256, 56, 56, 256, 3, 1, 1, 256},
    {"e_3x3s2_3-32_224", 3, 224, 224, 32, 3, 2, 1, 1},
    {"f_3x3s1_256-256_14", 256, 14, 14, 256, 3, 1, 1, 1},
    {"g_1x1_1024-1000_1", 1024, 1, 1, 1000, 1, 1, 0, 1},
    {"h_dw3x3s2_128_112", 128, 112, 112, 128, 3, 2, 1, 128},
    {"i_1x1_400-400_7", 400, 7, 7, 400, 1, 1, 0, 1},
    {"j_1x1_2048-512_7", 2048, 7, 7, 512, 1, 1, 0, 1},
    {"k_3x3s1_512-512_7", 512, 7, 7, 512, 3, 1, 1, 1},
};

// The layer's parameters in `format` (NCHW or NHWC), ReLU activation.
inline SimdConvolutionParameters LayerParameters(const Layer& layer, SimdTensorFormatType format) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcC = layer.srcC;
    p.srcH = layer.srcH;
    p.srcW = layer.srcW;
    p.srcT = p.dstT = SimdTensorData32f;
    p.srcF = p.dstF = format;
    p.dstC = layer.dstC;
    p.kernelY = p.kernelX = layer.k;
    p.strideY = p.strideX = layer.stride;
    p.dilationY = p.dilationX = 1;
    p.padY = p.padX = p.padH = p.padW = layer.pad;
    p.group = layer.group;
    p.activation = SimdConvolutionActivationRelu;
    p.dstH = (p.srcH + 2 * layer.pad - layer.k) / layer.stride + 1;
    p.dstW = (p.srcW + 2 * layer.pad - layer.k) / layer.stride + 1;
    return p;
}

// Best of five runs of ten calls of f (seconds per call), in the calling thread's CPU time:
// on a shared machine, time the thread spends descheduled would otherwise count as its own.
template <class F>
inline double BestSecondsPerCall(const F& f) {
    const auto now = [] {
        timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
    };
    double best = 1e9;
    for (int run = 0; run < 5; ++run) {
        const int calls = 10;
        const double start = now();
        for (int i = 0; i < calls; ++i) f();
        best = std::min(best, (now() - start) / calls);
    }
    return best;
}

// Seconds per call of the FP32 framework on the layer (winograd: "" keeps the default, "0" or
// "1" sets SIMD_SYNET_WINOGRAD for the Init); 0 when Init fails. *isWinograd (optional): whether
// the context runs Winograd.
inline double Fp32SecondsPerCall(const Layer& layer, SimdTensorFormatType format,
                                 const char* winograd, bool* isWinograd = nullptr) {
    const SimdConvolutionParameters p = LayerParameters(layer, format);
    if (*winograd) setenv("SIMD_SYNET_WINOGRAD", winograd, 1);
    void* context = SimdSynetConvolution32fInit(1, &p, nullptr);
    if (*winograd) unsetenv("SIMD_SYNET_WINOGRAD");
    if (!context) return 0.0;
    std::vector<float> weight(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC, 0.01f);
    AlignedVector<float> bias(p.dstC, 0.1f), src(p.srcC * p.srcH * p.srcW, 0.5f);
    AlignedVector<float> dst(p.dstC * p.dstH * p.dstW);
    SimdSynetConvolution32fSetParams(context, weight.data(), nullptr, bias.data(), nullptr);
    AlignedVector<float> buf(SimdSynetConvolution32fExternalBufferSize(context));
    const double best = BestSecondsPerCall(
        [&] { SimdSynetConvolution32fForward(context, src.data(), buf.data(), dst.data()); });
    if (isWinograd)
        *isWinograd =
            std::string(SimdSynetConvolution32fInfo(context)).find("winograd") != std::string::npos;
    SimdRelease(context);
    return best;
}

}  // namespace bench
