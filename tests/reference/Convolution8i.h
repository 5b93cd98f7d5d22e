// Naive INT8 convolution reference, written from SUPPLEMENT.md §11 (and §7.4 for the FP32 ->
// UINT8 rule, §3.1 for the activations) step by step: quantize the input, convolve the integers
// with INT32 sums where padded taps contribute the input zero point, dequantize, activate,
// quantize the output. Every FP32 step is one FP32 operation (the tests are compiled with
// -ffp-contract=off), so the integer sums, the dequantized values and the UINT8 outputs of the
// activations §3.1 writes with +, *, min and max are the exact values the library must produce.
//
// Rules §11 leaves to the implementation, fixed by the library's documentation
// (include/SimdSynet.h, SimdSynetConvolution8iSetParams / Forward):
//  * a quantizer step below 1e-7 becomes 1; a filter whose largest |w'| is below 1e-30 gets the
//    weight scale 1 (its weights quantize to 0);
//  * bias' = bias - float(sum of w8 * z_src over the filter) / s (FP32 conversion, then division);
//  * 8iOverflow: within each kernel tap, the products of input channels 2j and 2j + 1 of the
//    group are summed in int16 with saturation (as x86 PMADDUBSW does) before the INT32 sum;
//    an odd last channel is added alone. 8iPrecise and 8iNarrowed sum exact products.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "SimdSynet.h"
#include "reference/Convolution.h"

namespace ref {

// The integer ranges of a compatibility value (§11).
struct Int8Ranges {
    bool narrowed, overflow;
    int uMax, iMin, iMax;
    explicit Int8Ranges(SimdSynetCompatibilityType c)
        : narrowed((c & SimdSynetCompatibility8iMask) == SimdSynetCompatibility8iNarrowed),
          overflow((c & SimdSynetCompatibility8iMask) == SimdSynetCompatibility8iOverflow),
          uMax(narrowed ? 180 : 255),
          iMin(narrowed ? -90 : -128),
          iMax(narrowed ? 90 : 127) {}
};

// §7.4: clamp(round_half_even(x*scale + shift), 0, upper), NaN -> 0, in FP32 steps.
inline uint8_t QuantizeTo8u(float x, float scale, float shift, int upper) {
    const float v = x * scale + shift;
    if (std::isnan(v) || v <= 0.0f) return 0;
    if (v >= float(upper)) return uint8_t(upper);
    return uint8_t(std::nearbyint(v));  // the default rounding mode: ties to even
}

// The quantizer of a tensor with per-channel statistics lo[c], hi[c] (§11).
struct Quantizer8i {
    std::vector<float> step;   // q_c
    std::vector<float> scale;  // 1/q_c
    int zero = 0;              // z
};

inline Quantizer8i MakeQuantizer8i(const float* lo, const float* hi, size_t n,
                                   const Int8Ranges& r) {
    Quantizer8i q;
    bool neg = false;
    for (size_t c = 0; c < n; ++c) neg = neg || lo[c] < 0.0f;
    q.zero = neg ? -r.iMin : 0;
    for (size_t c = 0; c < n; ++c) {
        float s = std::max(std::fabs(lo[c]), std::fabs(hi[c])) / float(neg ? r.iMax : r.uMax);
        if (s < 1e-7f) s = 1.0f;
        q.step.push_back(s);
        q.scale.push_back(1.0f / s);
    }
    return q;
}

// The quantized weights and output parameters of §11.
struct Weights8i {
    std::vector<int> w8;      // canonical order: [d][ky][kx][ci], ci inside the group
    std::vector<float> norm;  // 1/s_d
    std::vector<float> bias;  // bias'_d
};

// src: the input quantizer; weight in the layout of p.srcF (§8.2).
inline Weights8i QuantizeWeights8i(const SimdConvolutionParameters& p, const float* weight,
                                   const float* bias, const Quantizer8i& src, const Int8Ranges& r) {
    const size_t G = p.group, Cg = p.srcC / G, Dg = p.dstC / G, kY = p.kernelY, kX = p.kernelX;
    const bool nhwc = p.srcF == SimdTensorFormatNhwc;
    auto weightAt = [&](size_t d, size_t ci, size_t ky, size_t kx) {
        return nhwc ? weight[((ky * kX + kx) * Cg + ci) * p.dstC + d]
                    : weight[((d * Cg + ci) * kY + ky) * kX + kx];
    };
    Weights8i w;
    w.w8.resize(p.dstC * kY * kX * Cg);
    for (size_t d = 0; d < p.dstC; ++d) {
        const size_t g = d / Dg;
        float maxAbs = 0.0f;
        for (size_t ky = 0; ky < kY; ++ky)
            for (size_t kx = 0; kx < kX; ++kx)
                for (size_t ci = 0; ci < Cg; ++ci)
                    maxAbs = std::max(maxAbs,
                                      std::fabs(weightAt(d, ci, ky, kx) * src.step[g * Cg + ci]));
        const float s = maxAbs < 1e-30f ? 1.0f : float(r.iMax) / maxAbs;
        long long corr = 0;
        for (size_t ky = 0; ky < kY; ++ky)
            for (size_t kx = 0; kx < kX; ++kx)
                for (size_t ci = 0; ci < Cg; ++ci) {
                    const float scaled = weightAt(d, ci, ky, kx) * src.step[g * Cg + ci] * s;
                    const int q = int(
                        std::min(std::max(std::nearbyint(scaled), float(r.iMin)), float(r.iMax)));
                    w.w8[((d * kY + ky) * kX + kx) * Cg + ci] = q;
                    corr += (long long)q * src.zero;
                }
        w.norm.push_back(1.0f / s);
        w.bias.push_back((bias ? bias[d] : 0.0f) - float(corr) / s);
    }
    return w;
}

// §3.1 in FP32 operation by operation for the activations made of +, *, min and max; the
// others (Elu, Mish, Swish, Gelu) through the double reference, rounded to FP32.
inline float Activate8i(float x, SimdConvolutionActivationType type, const float* p, size_t c) {
    switch (type) {
        case SimdConvolutionActivationIdentity:
            return x;
        case SimdConvolutionActivationRelu:
            return std::max(0.0f, x);
        case SimdConvolutionActivationLeakyRelu:
            return std::max(0.0f, x) + p[0] * std::min(0.0f, x);
        case SimdConvolutionActivationRestrictRange:
            return std::min(std::max(p[0], x), p[1]);
        case SimdConvolutionActivationPrelu:
            return std::max(0.0f, x) + p[c] * std::min(0.0f, x);
        case SimdConvolutionActivationHswish:
            return std::max(std::min(x, p[0]) + p[0], 0.0f) * p[1] * x;
        case SimdConvolutionActivationHardSigmoid:
            return std::max(0.0f, std::min(x * p[0] + p[1], 1.0f));
        default:
            return float(ConvolutionActivate(double(x), type, p, c));
    }
}

// True when Activate8i is the exact FP32 evaluation of the §3.1 formula.
inline bool Activation8iIsExact(SimdConvolutionActivationType type) {
    return type != SimdConvolutionActivationElu && type != SimdConvolutionActivationMish &&
           type != SimdConvolutionActivationSwish && type != SimdConvolutionActivationGelu;
}

// The whole layer. src holds batch images of p.srcT (FP32 or UINT8) in p.srcF; stats are the
// four arrays of SetParams. Outputs: `pre` the dequantized values before the activation, `out`
// the activated FP32 values, `out8` their UINT8 quantization (filled when p.dstT is 8u), each
// batch*dstC*dstH*dstW in p.dstF.
struct Result8i {
    std::vector<float> pre, out;
    std::vector<uint8_t> out8;
};

inline Result8i Convolution8i(const SimdConvolutionParameters& p, size_t batch,
                              SimdSynetCompatibilityType compatibility, const void* src,
                              const float* weight, const float* bias, const float* params,
                              const float* const* stats) {
    const Int8Ranges r(compatibility);
    const Quantizer8i qs = MakeQuantizer8i(stats[0], stats[1], p.srcC, r);
    const Weights8i w = QuantizeWeights8i(p, weight, bias, qs, r);
    const bool dst8 = p.dstT == SimdTensorData8u;
    Quantizer8i qd;
    if (dst8) qd = MakeQuantizer8i(stats[2], stats[3], p.dstC, r);
    const size_t G = p.group, Cg = p.srcC / G, Dg = p.dstC / G;
    const bool nhwc = p.srcF == SimdTensorFormatNhwc;
    // The quantized input (UINT8 as given, or FP32 through §7.4).
    const size_t srcSize = batch * p.srcC * p.srcH * p.srcW;
    std::vector<int> u(srcSize);
    for (size_t i = 0; i < srcSize; ++i) {
        const size_t c = nhwc ? i % p.srcC : i / (p.srcH * p.srcW) % p.srcC;
        u[i] = p.srcT == SimdTensorData8u ? int(static_cast<const uint8_t*>(src)[i])
                                          : int(QuantizeTo8u(static_cast<const float*>(src)[i],
                                                             qs.scale[c], float(qs.zero), r.uMax));
    }
    auto srcAt = [&](size_t b, size_t c, ptrdiff_t y, ptrdiff_t x) {
        if (y < 0 || y >= ptrdiff_t(p.srcH) || x < 0 || x >= ptrdiff_t(p.srcW)) return qs.zero;
        return nhwc ? u[((b * p.srcH + size_t(y)) * p.srcW + size_t(x)) * p.srcC + c]
                    : u[((b * p.srcC + c) * p.srcH + size_t(y)) * p.srcW + size_t(x)];
    };
    Result8i res;
    const size_t dstSize = batch * p.dstC * p.dstH * p.dstW;
    res.pre.resize(dstSize);
    res.out.resize(dstSize);
    if (dst8) res.out8.resize(dstSize);
    for (size_t b = 0; b < batch; ++b)
        for (size_t d = 0; d < p.dstC; ++d)
            for (size_t dy = 0; dy < p.dstH; ++dy)
                for (size_t dx = 0; dx < p.dstW; ++dx) {
                    const size_t g = d / Dg;
                    int64_t sum = 0;
                    for (size_t ky = 0; ky < p.kernelY; ++ky)
                        for (size_t kx = 0; kx < p.kernelX; ++kx) {
                            const ptrdiff_t sy =
                                ptrdiff_t(dy * p.strideY + ky * p.dilationY) - ptrdiff_t(p.padY);
                            const ptrdiff_t sx =
                                ptrdiff_t(dx * p.strideX + kx * p.dilationX) - ptrdiff_t(p.padX);
                            const int* wt = &w.w8[((d * p.kernelY + ky) * p.kernelX + kx) * Cg];
                            auto product = [&](size_t ci) {
                                return srcAt(b, g * Cg + ci, sy, sx) * wt[ci];
                            };
                            for (size_t ci = 0; ci < Cg; ci += 2) {
                                if (ci + 1 == Cg) {
                                    sum += product(ci);
                                } else if (r.overflow) {
                                    const int pair = product(ci) + product(ci + 1);
                                    sum += std::min(std::max(pair, -32768), 32767);
                                } else {
                                    sum += product(ci) + product(ci + 1);
                                }
                            }
                        }
                    const float y = float(int32_t(sum)) * w.norm[d] + w.bias[d];
                    const float a = Activate8i(y, p.activation, params, d);
                    const size_t i = nhwc ? ((b * p.dstH + dy) * p.dstW + dx) * p.dstC + d
                                          : ((b * p.dstC + d) * p.dstH + dy) * p.dstW + dx;
                    res.pre[i] = y;
                    res.out[i] = a;
                    if (dst8) res.out8[i] = QuantizeTo8u(a, qd.scale[d], float(qd.zero), r.uMax);
                }
    return res;
}

}  // namespace ref
