// Naive references of the conversion functions, written from the seed 003 formulas and
// SUPPLEMENT.md §2.1, §2.2, §7.1-§7.5. EXACT/Q8 ones are evaluated in FP32 operation by
// operation (the tests are compiled with -ffp-contract=off); LIN ones in double, returning the
// magnitude against which the tolerance is measured.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "SimdSynet.h"
#include "reference/Layout.h"

namespace ref {

// §7.4: upper = isNarrowed ? 180 : 255; v = src*scale + shift (FP32 product, then FP32 sum);
// r = round half to even (NaN -> 0); dst = r < 0 ? 0 : (r > upper ? upper : r).
inline uint8_t Convert32fTo8u(float src, float scale, float shift, int compatibility) {
    const float upper =
        (compatibility & SimdSynetCompatibility8iMask) == SimdSynetCompatibility8iNarrowed ? 180.0f
                                                                                           : 255.0f;
    const float product = src * scale;
    const float v = product + shift;
    if (std::isnan(v)) return 0;
    const float r = std::nearbyint(v);  // default rounding mode: nearest, ties to even
    if (r < 0.0f) return 0;
    if (r > upper) return static_cast<uint8_t>(upper);
    return static_cast<uint8_t>(r);
}

// §7.5: float(src)*scale + shift; magnitude |src*scale| + |shift|.
inline double Convert8uTo32f(uint8_t src, float scale, float shift, double* magnitude) {
    const double product = double(src) * double(scale);
    *magnitude = std::fabs(product) + std::fabs(double(shift));
    return product + double(shift);
}

// Channel of element `offset` of a (channels, spatial) image in an Nchw or Nhwc layout.
inline size_t ChannelOf(size_t offset, size_t channels, size_t spatial, bool nhwc) {
    return nhwc ? offset % channels : offset / spatial % channels;
}

// §7.3: gray(b, g, r) = (1868*b + 9617*g + 4899*r + 8192) >> 14.
inline int Gray(int b, int g, int r) {
    return (1868 * b + 9617 * g + 4899 * r + 8192) >> 14;
}

// §7.3: sample of output channel c (of `channels`) for pixel p of a source in `format`.
inline int SetInputSample(const uint8_t* p, SimdPixelFormatType format, size_t channels, size_t c) {
    int b, g, r;
    switch (format) {
        case SimdPixelFormatGray8:
            b = g = r = p[0];
            break;
        case SimdPixelFormatBgr24:
        case SimdPixelFormatBgra32:
            b = p[0];
            g = p[1];
            r = p[2];
            break;
        default:  // Rgb24, Rgba32
            b = p[2];
            g = p[1];
            r = p[0];
            break;
    }
    if (channels == 1) return format == SimdPixelFormatGray8 ? p[0] : Gray(b, g, r);
    return c == 0 ? b : (c == 1 ? g : r);
}

// §7.3: float(v)*k + lower with k = (upper - lower)/255 computed in FP32; magnitude for LIN.
inline double SetInputValue(int v, float lower, float upper, double* magnitude) {
    const float k = (upper - lower) / 255.0f;
    const double product = double(v) * double(k);
    *magnitude = std::fabs(product) + std::fabs(double(lower));
    return product + double(lower);
}

// §7.1 reference: batch images; per-image sizes SimdAlign(C, A(format))*S. The caller fills
// dst beforehand; this writes every element a conforming implementation must write.
inline void ConvertImage(size_t batch, size_t C, size_t S, const float* src,
                         SimdTensorFormatType srcFormat, float* dst,
                         SimdTensorFormatType dstFormat) {
    const size_t srcCA = SimdAlign(C, SimdSynetTensorAlignment(srcFormat));
    const size_t dstCA = SimdAlign(C, SimdSynetTensorAlignment(dstFormat));
    for (size_t b = 0; b < batch; ++b) {
        const float* s0 = src + b * srcCA * S;
        float* d0 = dst + b * dstCA * S;
        if (srcFormat == dstFormat) {
            for (size_t i = 0; i < srcCA * S; ++i) d0[i] = s0[i];
            continue;
        }
        for (size_t c = 0; c < dstCA; ++c)
            for (size_t s = 0; s < S; ++s)
                d0[ImageOffset(dstFormat, C, S, c, s)] =
                    c < C ? s0[ImageOffset(srcFormat, C, S, c, s)] : 0.0f;
    }
}

// §2.2: offset of weight (o, i, k) in a filter layout (O outputs, I inputs, K kernel points).
inline size_t FilterOffset(SimdTensorFormatType format, size_t O, size_t I, size_t K, size_t o,
                           size_t i, size_t k) {
    switch (format) {
        case SimdTensorFormatOiyx:
            return (o * I + i) * K + k;
        case SimdTensorFormatYxio:
            return (k * I + i) * O + o;
        default: {
            const size_t N = SimdSynetTensorAlignment(format);
            return (((o / N) * K + k) * I + i) * N + o % N;
        }
    }
}

// §7.2 reference.
inline void ConvertFilter(size_t O, size_t I, size_t K, const float* src,
                          SimdTensorFormatType srcFormat, float* dst,
                          SimdTensorFormatType dstFormat) {
    if (srcFormat == dstFormat) {
        const size_t n = SimdAlign(O, SimdSynetTensorAlignment(srcFormat)) * I * K;
        for (size_t j = 0; j < n; ++j) dst[j] = src[j];
        return;
    }
    const size_t OA = SimdAlign(O, SimdSynetTensorAlignment(dstFormat));
    for (size_t o = 0; o < OA; ++o)
        for (size_t i = 0; i < I; ++i)
            for (size_t k = 0; k < K; ++k)
                dst[FilterOffset(dstFormat, O, I, K, o, i, k)] =
                    o < O ? src[FilterOffset(srcFormat, O, I, K, o, i, k)] : 0.0f;
}

}  // namespace ref
