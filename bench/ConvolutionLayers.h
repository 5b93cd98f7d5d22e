// The convolution layers the benchmarks run (issue set (a)-(h), batch 1, ReLU), shared by the
// library's benchmark and the optional oneDNN comparison.
#pragma once

#include <cstring>

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

}  // namespace bench
