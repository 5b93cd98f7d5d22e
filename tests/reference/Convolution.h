// Naive FP32 convolution reference, written straight from SUPPLEMENT.md §8.2 and the activation
// table of §3.1, evaluated in double. Besides the outputs it returns, per output, the magnitude
// sum |src*w| + |bias| against which the ACC tolerance is measured.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "SimdSynet.h"

namespace ref {

// §3.1 in double; p: the activation parameters, c: the output channel (Prelu).
inline double ConvolutionActivate(double x, SimdConvolutionActivationType type, const float* p,
                                  size_t c) {
    switch (type) {
        case SimdConvolutionActivationIdentity:
            return x;
        case SimdConvolutionActivationRelu:
            return std::max(0.0, x);
        case SimdConvolutionActivationLeakyRelu:
            return std::max(0.0, x) + double(p[0]) * std::min(0.0, x);
        case SimdConvolutionActivationRestrictRange:
            return std::min(std::max(double(p[0]), x), double(p[1]));
        case SimdConvolutionActivationPrelu:
            return std::max(0.0, x) + double(p[c]) * std::min(0.0, x);
        case SimdConvolutionActivationElu:
            return x >= 0 ? x : double(p[0]) * (std::exp(x) - 1.0);
        case SimdConvolutionActivationHswish:
            return std::max(std::min(x, double(p[0])) + double(p[0]), 0.0) * double(p[1]) * x;
        case SimdConvolutionActivationMish:
            return x > double(p[0]) ? x : x * std::tanh(std::log1p(std::exp(x)));
        case SimdConvolutionActivationHardSigmoid:
            return std::max(0.0, std::min(x * double(p[0]) + double(p[1]), 1.0));
        case SimdConvolutionActivationSwish:
            return x / (1.0 + std::exp(-double(p[0]) * x));
        case SimdConvolutionActivationGelu:
            return x * (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0;
    }
    return x;
}

// dst and magnitude receive batch*dstC*dstH*dstW values in the layout of p.srcF. add: NULL, or
// a residual in that layout added before the activation (SimdSynetConvolution32fForwardAdd).
inline void Convolution32f(const SimdConvolutionParameters& p, size_t batch, const float* src,
                           const float* weight, const float* bias, const float* params,
                           std::vector<double>& dst, std::vector<double>& magnitude,
                           const float* add = nullptr) {
    const size_t G = p.group, Cg = p.srcC / G, Dg = p.dstC / G;
    const bool nhwc = p.srcF == SimdTensorFormatNhwc;
    dst.assign(batch * p.dstC * p.dstH * p.dstW, 0.0);
    magnitude.assign(dst.size(), 0.0);
    auto srcAt = [&](size_t b, size_t c, size_t y, size_t x) {
        return nhwc ? src[((b * p.srcH + y) * p.srcW + x) * p.srcC + c]
                    : src[((b * p.srcC + c) * p.srcH + y) * p.srcW + x];
    };
    auto weightAt = [&](size_t dc, size_t ci, size_t ky, size_t kx) {
        return nhwc ? weight[((ky * p.kernelX + kx) * Cg + ci) * p.dstC + dc]
                    : weight[((dc * Cg + ci) * p.kernelY + ky) * p.kernelX + kx];
    };
    for (size_t b = 0; b < batch; ++b)
        for (size_t dc = 0; dc < p.dstC; ++dc)
            for (size_t dy = 0; dy < p.dstH; ++dy)
                for (size_t dx = 0; dx < p.dstW; ++dx) {
                    const size_t g = dc / Dg;
                    double sum = 0, mag = 0;
                    for (size_t ci = 0; ci < Cg; ++ci)
                        for (size_t ky = 0; ky < p.kernelY; ++ky)
                            for (size_t kx = 0; kx < p.kernelX; ++kx) {
                                const ptrdiff_t sy = ptrdiff_t(dy * p.strideY + ky * p.dilationY) -
                                                     ptrdiff_t(p.padY);
                                const ptrdiff_t sx = ptrdiff_t(dx * p.strideX + kx * p.dilationX) -
                                                     ptrdiff_t(p.padX);
                                if (sy < 0 || sy >= ptrdiff_t(p.srcH) || sx < 0 ||
                                    sx >= ptrdiff_t(p.srcW))
                                    continue;
                                const double term =
                                    double(srcAt(b, g * Cg + ci, size_t(sy), size_t(sx))) *
                                    double(weightAt(dc, ci, ky, kx));
                                sum += term;
                                mag += std::fabs(term);
                            }
                    const double bv = bias ? double(bias[dc]) : 0.0;
                    const size_t i = nhwc ? ((b * p.dstH + dy) * p.dstW + dx) * p.dstC + dc
                                          : ((b * p.dstC + dc) * p.dstH + dy) * p.dstW + dx;
                    const double av = add ? double(add[i]) : 0.0;
                    dst[i] = ConvolutionActivate(sum + bv + av, p.activation, params, dc);
                    magnitude[i] = mag + std::fabs(bv) + std::fabs(av);
                }
}

}  // namespace ref
