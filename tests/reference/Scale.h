// Naive references of the per-channel layers (SUPPLEMENT.md §2.1, §4.1, §4.2, §4.4), written
// from the pseudo-code: loops over (channel, pixel) with the offset formula of each layout.
// Values are computed in double together with the magnitude the LIN tolerance is measured
// against (the sum of the absolute values of every term, propagated through products).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "SimdSynet.h"
#include "reference/Layout.h"

namespace ref {

// A value computed in double and the magnitude of the terms it was computed from.
struct Lin {
    double value;
    double magnitude;
};

inline Lin In(float x) {
    return {double(x), std::fabs(double(x))};
}
inline Lin operator+(Lin a, Lin b) {
    return {a.value + b.value, a.magnitude + b.magnitude};
}
inline Lin operator-(Lin a, Lin b) {
    return {a.value - b.value, a.magnitude + b.magnitude};
}
inline Lin operator*(Lin a, Lin b) {
    return {a.value * b.value, a.magnitude * b.magnitude};
}
inline Lin operator-(Lin a) {
    return {-a.value, a.magnitude};
}
inline Lin Abs(Lin a) {
    return {std::fabs(a.value), a.magnitude};
}
// max(0, a) / min(0, a): the rounded operand may have the other sign when the exact one is
// within rounding of zero, so the magnitude of the operand carries over. NaN stays NaN
// (SUPPLEMENT leaves NaN open; SimdSynet.h documents this choice).
inline Lin Max0(Lin a) {
    return {std::isnan(a.value) ? a.value : std::max(0.0, a.value), a.magnitude};
}
inline Lin Min0(Lin a) {
    return {std::isnan(a.value) ? a.value : std::min(0.0, a.value), a.magnitude};
}

// Channels the loops run over: C rounded up to the block (rule 2.1-2).
inline size_t Aligned(SimdTensorFormatType format, size_t C) {
    return SimdAlign(C, SimdSynetTensorAlignment(format));
}

// Applies f(c, x) to every element of a one-input per-channel layer.
template <class F>
std::vector<Lin> PerChannel(const float* src, size_t C, size_t S, SimdTensorFormatType format,
                            F f) {
    const size_t CA = Aligned(format, C);
    std::vector<Lin> dst(CA * S);
    for (size_t c = 0; c < CA; ++c)
        for (size_t s = 0; s < S; ++s) {
            const size_t o = ImageOffset(format, C, S, c, s);
            dst[o] = f(c, In(src[o]));
        }
    return dst;
}

// §4.1: dst + bias[c].
inline std::vector<Lin> AddBias(const float* bias, size_t C, size_t S, const float* dst,
                                SimdTensorFormatType format) {
    return PerChannel(dst, C, S, format, [&](size_t c, Lin x) { return x + In(bias[c]); });
}

// §4.2: src*scale[c] (+ bias[c] when bias is not null).
inline std::vector<Lin> ScaleLayer(const float* src, const float* scale, const float* bias,
                                   size_t C, size_t S, SimdTensorFormatType format) {
    return PerChannel(src, C, S, format, [&](size_t c, Lin x) {
        const Lin v = x * In(scale[c]);
        return bias ? v + In(bias[c]) : v;
    });
}

// §4.4 type 0: x = src + bias; (x - |x|)*scale + max(0, x).
inline std::vector<Lin> Fused0(const float* src, const float* bias, const float* scale, size_t C,
                               size_t S, SimdTensorFormatType format) {
    return PerChannel(src, C, S, format, [&](size_t c, Lin v) {
        const Lin x = v + In(bias[c]);
        return (x - Abs(x)) * In(scale[c]) + Max0(x);
    });
}

// Type 1: x = src + bias0; max(0, -x)*scale1 + bias1 + max(0, x).
inline std::vector<Lin> Fused1(const float* src, const float* bias0, const float* scale1,
                               const float* bias1, size_t C, size_t S,
                               SimdTensorFormatType format) {
    return PerChannel(src, C, S, format, [&](size_t c, Lin v) {
        const Lin x = v + In(bias0[c]);
        return Max0(-x) * In(scale1[c]) + In(bias1[c]) + Max0(x);
    });
}

// Type 2: x = src*scale + bias; max(0, x) + min(0, x)*slope.
inline std::vector<Lin> Fused2(const float* src, const float* scale, const float* bias, size_t C,
                               size_t S, float slope, SimdTensorFormatType format) {
    return PerChannel(src, C, S, format, [&](size_t c, Lin v) {
        const Lin x = v * In(scale[c]) + In(bias[c]);
        return Max0(x) + Min0(x) * In(slope);
    });
}

// Type 3 (§16.1): x = src + second[c]; max(0, x) + min(0, x)*third[c].
inline std::vector<Lin> Fused3(const float* src, const float* second, const float* third, size_t C,
                               size_t S, SimdTensorFormatType format) {
    return PerChannel(src, C, S, format, [&](size_t c, Lin v) {
        const Lin x = v + In(second[c]);
        return Max0(x) + Min0(x) * In(third[c]);
    });
}

// Type 8: src0 + src1*src2[c].
inline std::vector<Lin> Fused8(const float* src0, const float* src1, const float* src2, size_t C,
                               size_t S, SimdTensorFormatType format) {
    const size_t CA = Aligned(format, C);
    std::vector<Lin> dst(CA * S);
    for (size_t c = 0; c < CA; ++c)
        for (size_t s = 0; s < S; ++s) {
            const size_t o = ImageOffset(format, C, S, c, s);
            dst[o] = In(src0[o]) + In(src1[o]) * In(src2[c]);
        }
    return dst;
}

// Type 4: output of 2*C channels (C a multiple of the block for blocked formats).
inline std::vector<Lin> Fused4(const float* src, const float* bias0, float scale1, float bias1,
                               size_t C, size_t S, SimdTensorFormatType format) {
    const size_t CA = Aligned(format, C);
    std::vector<Lin> dst(2 * CA * S);
    for (size_t c = 0; c < C; ++c)
        for (size_t s = 0; s < S; ++s) {
            const Lin x = In(src[ImageOffset(format, C, S, c, s)]) + In(bias0[c]);
            dst[ImageOffset(format, 2 * C, S, c, s)] = Max0(x);
            dst[ImageOffset(format, 2 * C, S, c + C, s)] = Max0(x * In(scale1) + In(bias1));
        }
    return dst;
}

// Type 9: concatenation of C0 + C1 channels; `copy` receives the plain concatenation.
inline std::vector<Lin> Fused9(const float* src0, const float* src1, const float* scale,
                               const float* bias, size_t C0, size_t C1, size_t S,
                               SimdTensorFormatType format, std::vector<float>* copy) {
    const size_t CT = C0 + C1, CA = Aligned(format, CT);
    std::vector<Lin> dst(CA * S);
    copy->assign(CA * S, 0.0f);
    for (size_t c = 0; c < CA; ++c)
        for (size_t s = 0; s < S; ++s) {
            const float v = c < C0 ? src0[ImageOffset(format, C0, S, c, s)]
                                   : src1[ImageOffset(format, C1, S, c - C0, s)];
            const size_t o = ImageOffset(format, CT, S, c, s);
            dst[o] = Max0(In(v) * In(scale[c]) + In(bias[c]));
            (*copy)[o] = v;
        }
    return dst;
}

}  // namespace ref
