// Shared pieces of the convolution-family tests (convolution, deconvolution, INT8): layer shapes
// and their parameter structs, the activation list, their parameters, a readable shape
// description and random layer data.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "SimdSynet.h"
#include "TestUtil.h"

namespace convtest {

// A layer's geometry: channels, image, kernel, stride, dilation, pads (top, left, bottom, right)
// and groups.
struct Shape {
    size_t srcC, dstC, srcH, srcW, kY, kX, sY, sX, dY, dX, padY, padX, padH, padW, group;
};

// The description of a layer of shape s in `format` (both tensors), with dstH/dstW by the
// convolution size rule (the deconvolution tests replace them by theirs).
inline SimdConvolutionParameters ConvolutionParameters(
    const Shape& s, SimdTensorFormatType format, SimdConvolutionActivationType act,
    SimdTensorDataType srcT = SimdTensorData32f, SimdTensorDataType dstT = SimdTensorData32f) {
    SimdConvolutionParameters p;
    std::memset(&p, 0, sizeof(p));
    p.srcC = s.srcC;
    p.srcH = s.srcH;
    p.srcW = s.srcW;
    p.srcT = srcT;
    p.srcF = format;
    p.dstC = s.dstC;
    p.dstT = dstT;
    p.dstF = format;
    p.kernelY = s.kY;
    p.kernelX = s.kX;
    p.strideY = s.sY;
    p.strideX = s.sX;
    p.dilationY = s.dY;
    p.dilationX = s.dX;
    p.padY = s.padY;
    p.padX = s.padX;
    p.padH = s.padH;
    p.padW = s.padW;
    p.group = s.group;
    p.activation = act;
    p.dstH = (s.srcH + s.padY + s.padH - (s.dY * (s.kY - 1) + 1)) / s.sY + 1;
    p.dstW = (s.srcW + s.padX + s.padW - (s.dX * (s.kX - 1) + 1)) / s.sX + 1;
    return p;
}

inline const SimdConvolutionActivationType kActivations[] = {
    SimdConvolutionActivationIdentity,    SimdConvolutionActivationRelu,
    SimdConvolutionActivationLeakyRelu,   SimdConvolutionActivationRestrictRange,
    SimdConvolutionActivationPrelu,       SimdConvolutionActivationElu,
    SimdConvolutionActivationHswish,      SimdConvolutionActivationMish,
    SimdConvolutionActivationHardSigmoid, SimdConvolutionActivationSwish,
    SimdConvolutionActivationGelu};

inline std::vector<float> ActivationParams(SimdConvolutionActivationType act, size_t dstC) {
    switch (act) {
        case SimdConvolutionActivationLeakyRelu:
            return {0.1f};
        case SimdConvolutionActivationRestrictRange:
            return {-0.5f, 0.7f};
        case SimdConvolutionActivationPrelu:
            return test::RandomFloats(dstC, -0.5f, 0.5f, 7);
        case SimdConvolutionActivationElu:
            return {1.1f};
        case SimdConvolutionActivationHswish:
            return {3.0f, 1.0f / 6.0f};
        case SimdConvolutionActivationMish:
            return {20.0f};
        case SimdConvolutionActivationHardSigmoid:
            return {0.2f, 0.5f};
        case SimdConvolutionActivationSwish:
            return {1.3f};
        default:
            return {};
    }
}

inline std::string Describe(const SimdConvolutionParameters& p, size_t batch) {
    char s[256];
    std::snprintf(s, sizeof(s),
                  "%s b%zu %zux%zux%zu -> %zux%zux%zu k%zux%zu s%zux%zu d%zux%zu p%zu,%zu,%zu,%zu "
                  "g%zu act%d",
                  p.srcF == SimdTensorFormatNhwc ? "nhwc" : "nchw", batch, p.srcC, p.srcH, p.srcW,
                  p.dstC, p.dstH, p.dstW, p.kernelY, p.kernelX, p.strideY, p.strideX, p.dilationY,
                  p.dilationX, p.padY, p.padX, p.padH, p.padW, p.group, int(p.activation));
    return s;
}

struct Data {
    std::vector<float> src, weight, bias, params;
};

inline Data MakeData(const SimdConvolutionParameters& p, size_t batch, uint32_t seed) {
    Data data;
    data.src = test::RandomFloats(batch * p.srcC * p.srcH * p.srcW, -1.0f, 1.0f, seed);
    data.weight = test::RandomFloats(p.kernelY * p.kernelX * p.srcC / p.group * p.dstC, -1.0f, 1.0f,
                                     seed + 1);
    data.bias = test::RandomFloats(p.dstC, -1.0f, 1.0f, seed + 2);
    data.params = ActivationParams(p.activation, p.dstC);
    return data;
}

}  // namespace convtest
