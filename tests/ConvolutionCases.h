// Shared pieces of the convolution-family tests (convolution, deconvolution): the activation
// list, their parameters, a readable shape description and random layer data.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "SimdSynet.h"
#include "TestUtil.h"

namespace convtest {

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
