// Naive FP32 deconvolution (transposed convolution) reference, written straight from the
// scatter formula of SUPPLEMENT.md §9.1 and evaluated in double. Besides the outputs it
// returns, per output, the magnitude sum |src*w| + |bias| against which the ACC tolerance is
// measured. The activation is the §3.1 table of reference/Convolution.h.
// The BF16 framework (§9.2) is the same formula on operands rounded to BF16 (ABI.md rule).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "SimdSynet.h"
#include "reference/Bf16.h"
#include "reference/Convolution.h"

namespace ref {

// dst and magnitude receive batch*dstC*dstH*dstW values in the layout of p.srcF.
inline void Deconvolution32f(const SimdConvolutionParameters& p, size_t batch, const float* src,
                             const float* weight, const float* bias, const float* params,
                             std::vector<double>& dst, std::vector<double>& magnitude) {
    const size_t G = p.group, Cg = p.srcC / G, Dg = p.dstC / G;
    const bool nhwc = p.srcF == SimdTensorFormatNhwc;
    dst.assign(batch * p.dstC * p.dstH * p.dstW, 0.0);
    magnitude.assign(dst.size(), 0.0);
    auto srcAt = [&](size_t b, size_t c, size_t y, size_t x) {
        return nhwc ? src[((b * p.srcH + y) * p.srcW + x) * p.srcC + c]
                    : src[((b * p.srcC + c) * p.srcH + y) * p.srcW + x];
    };
    // W(sc, dl, ky, kx) of §9.1.
    auto weightAt = [&](size_t sc, size_t dl, size_t ky, size_t kx) {
        return nhwc ? weight[((sc * p.kernelY + ky) * p.kernelX + kx) * p.dstC + dl]
                    : weight[((sc * Dg + dl) * p.kernelY + ky) * p.kernelX + kx];
    };
    auto dstIndex = [&](size_t b, size_t c, size_t y, size_t x) {
        return nhwc ? ((b * p.dstH + y) * p.dstW + x) * p.dstC + c
                    : ((b * p.dstC + c) * p.dstH + y) * p.dstW + x;
    };
    for (size_t b = 0; b < batch; ++b)
        for (size_t g = 0; g < G; ++g)
            for (size_t ci = 0; ci < Cg; ++ci)
                for (size_t sy = 0; sy < p.srcH; ++sy)
                    for (size_t sx = 0; sx < p.srcW; ++sx)
                        for (size_t dl = 0; dl < Dg; ++dl)
                            for (size_t ky = 0; ky < p.kernelY; ++ky)
                                for (size_t kx = 0; kx < p.kernelX; ++kx) {
                                    const ptrdiff_t dy =
                                        ptrdiff_t(sy * p.strideY + ky * p.dilationY) -
                                        ptrdiff_t(p.padY);
                                    const ptrdiff_t dx =
                                        ptrdiff_t(sx * p.strideX + kx * p.dilationX) -
                                        ptrdiff_t(p.padX);
                                    if (dy < 0 || dy >= ptrdiff_t(p.dstH) || dx < 0 ||
                                        dx >= ptrdiff_t(p.dstW))
                                        continue;
                                    const double term = double(srcAt(b, g * Cg + ci, sy, sx)) *
                                                        double(weightAt(g * Cg + ci, dl, ky, kx));
                                    const size_t i =
                                        dstIndex(b, g * Dg + dl, size_t(dy), size_t(dx));
                                    dst[i] += term;
                                    magnitude[i] += std::fabs(term);
                                }
    for (size_t b = 0; b < batch; ++b)
        for (size_t c = 0; c < p.dstC; ++c)
            for (size_t y = 0; y < p.dstH; ++y)
                for (size_t x = 0; x < p.dstW; ++x) {
                    const size_t i = dstIndex(b, c, y, x);
                    const double bv = bias ? double(bias[c]) : 0.0;
                    dst[i] = ConvolutionActivate(dst[i] + bv, p.activation, params, c);
                    magnitude[i] += std::fabs(bv);
                }
}

// ---- BF16 (SUPPLEMENT.md §9.2, ABI.md "BF16") ----

// §9.2 before the final rounding: every input and weight value rounded to BF16, products summed
// (here in double), bias and activation; dst is the value that is stored as FP32 or rounded
// once to BF16. src holds the FP32 input values (a BF16 input is passed widened).
inline void Deconvolution16b(const SimdConvolutionParameters& p, size_t batch, const float* src,
                             size_t srcCount, const float* weight, size_t weightCount,
                             const float* bias, const float* params, std::vector<double>& dst,
                             std::vector<double>& magnitude) {
    std::vector<float> s(src, src + srcCount), w(weight, weight + weightCount);
    for (float& x : s) x = RoundBf16(x);
    for (float& x : w) x = RoundBf16(x);
    Deconvolution32f(p, batch, s.data(), w.data(), bias, params, dst, magnitude);
}

}  // namespace ref
