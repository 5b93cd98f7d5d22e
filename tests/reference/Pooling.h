// Naive references of the pooling functions, written from SUPPLEMENT.md §5 (window rule,
// §5.1-§5.4) and the BF16 rounding of ABI.md. Max pooling folds m = max(v, m) with
// max(a, b) = a > b ? a : b starting from -FLT_MAX (0 for UINT8), except that a NaN v always
// wins, so that a window holding a NaN gives NaN (SUPPLEMENT leaves NaN open; the header
// documents this choice). Averages are summed in double. Windows entirely outside
// the input are empty: the folds leave their initial value (average 0 / area, max -FLT_MAX,
// UINT8 0, BF16 the rounding of -FLT_MAX, 0xFF80).
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>
#include "reference/Bf16.h"

namespace ref {

struct Pool {
    size_t srcC, srcH, srcW;
    size_t kernelC, kernelY, kernelX;
    size_t strideC, strideY, strideX;
    size_t padC, padY, padX;
    size_t dstC, dstH, dstW;
    bool nhwc;
    size_t SrcSize() const { return srcC * srcH * srcW; }
    size_t DstSize() const { return dstC * dstH * dstW; }
    size_t Src(size_t c, size_t y, size_t x) const {
        return nhwc ? (y * srcW + x) * srcC + c : (c * srcH + y) * srcW + x;
    }
    size_t Dst(size_t c, size_t y, size_t x) const {
        return nhwc ? (y * dstW + x) * dstC + c : (c * dstH + y) * dstW + x;
    }
};

// y0 = d*stride - pad (signed); y1 = min(y0 + kernel, size); y0 = max(y0, 0). The window
// [y0, y1) is empty when y1 <= y0 (y1 < y0 for a window starting past the input).
inline void Window(size_t d, size_t stride, size_t pad, size_t kernel, size_t size,
                   ptrdiff_t* begin, ptrdiff_t* end) {
    ptrdiff_t b = ptrdiff_t(d * stride) - ptrdiff_t(pad);
    ptrdiff_t e = b + ptrdiff_t(kernel);
    if (e > ptrdiff_t(size)) e = ptrdiff_t(size);
    if (b < 0) b = 0;
    *begin = b;
    *end = e;
}

// §5.1: value and the magnitude (sum of |terms| / area) the LIN tolerance is measured against.
// An empty window gives 0 / area: 0, or NaN (0/0) with excludePad.
inline void Average(const Pool& p, const float* src, bool excludePad, std::vector<double>* dst,
                    std::vector<double>* magnitude) {
    dst->assign(p.DstSize(), 0.0);
    magnitude->assign(p.DstSize(), 0.0);
    for (size_t c = 0; c < p.dstC; ++c)
        for (size_t dy = 0; dy < p.dstH; ++dy)
            for (size_t dx = 0; dx < p.dstW; ++dx) {
                ptrdiff_t y0, y1, x0, x1;
                Window(dy, p.strideY, p.padY, p.kernelY, p.srcH, &y0, &y1);
                Window(dx, p.strideX, p.padX, p.kernelX, p.srcW, &x0, &x1);
                double sum = 0, mag = 0;
                for (ptrdiff_t y = y0; y < y1; ++y)
                    for (ptrdiff_t x = x0; x < x1; ++x) {
                        sum += src[p.Src(c, size_t(y), size_t(x))];
                        mag += std::abs(double(src[p.Src(c, size_t(y), size_t(x))]));
                    }
                const ptrdiff_t rows = y1 > y0 ? y1 - y0 : 0, cols = x1 > x0 ? x1 - x0 : 0;
                const double area =
                    excludePad ? double(rows * cols) : double(p.kernelY) * double(p.kernelX);
                (*dst)[p.Dst(c, dy, dx)] = sum / area;
                (*magnitude)[p.Dst(c, dy, dx)] = mag / area;
            }
}

// §5.2/§5.3 (3D formula, which covers 2D): max over channels [c0, c1), rows, columns.
inline std::vector<float> Max32f(const Pool& p, const float* src) {
    std::vector<float> dst(p.DstSize());
    for (size_t dc = 0; dc < p.dstC; ++dc)
        for (size_t dy = 0; dy < p.dstH; ++dy)
            for (size_t dx = 0; dx < p.dstW; ++dx) {
                ptrdiff_t c0, c1, y0, y1, x0, x1;
                Window(dc, p.strideC, p.padC, p.kernelC, p.srcC, &c0, &c1);
                Window(dy, p.strideY, p.padY, p.kernelY, p.srcH, &y0, &y1);
                Window(dx, p.strideX, p.padX, p.kernelX, p.srcW, &x0, &x1);
                float m = -FLT_MAX;
                for (ptrdiff_t c = c0; c < c1; ++c)
                    for (ptrdiff_t y = y0; y < y1; ++y)
                        for (ptrdiff_t x = x0; x < x1; ++x) {
                            const float v = src[p.Src(size_t(c), size_t(y), size_t(x))];
                            m = std::isnan(v) || v > m ? v : m;
                        }
                dst[p.Dst(dc, dy, dx)] = m;
            }
    return dst;
}

// §5.4 BF16: widened to FP32, folded like Max32f, rounded back.
inline std::vector<uint16_t> Max16b(const Pool& p, const uint16_t* src) {
    std::vector<float> wide(p.SrcSize());
    for (size_t i = 0; i < wide.size(); ++i) wide[i] = Bf16ToFloat(src[i]);
    const std::vector<float> m = Max32f(p, wide.data());
    std::vector<uint16_t> dst(m.size());
    for (size_t i = 0; i < m.size(); ++i) dst[i] = FloatToBf16(m[i]);
    return dst;
}

// §5.4 UINT8: maximum starting from 0.
inline std::vector<uint8_t> Max8u(const Pool& p, const uint8_t* src) {
    std::vector<uint8_t> dst(p.DstSize());
    for (size_t c = 0; c < p.dstC; ++c)
        for (size_t dy = 0; dy < p.dstH; ++dy)
            for (size_t dx = 0; dx < p.dstW; ++dx) {
                ptrdiff_t y0, y1, x0, x1;
                Window(dy, p.strideY, p.padY, p.kernelY, p.srcH, &y0, &y1);
                Window(dx, p.strideX, p.padX, p.kernelX, p.srcW, &x0, &x1);
                uint8_t m = 0;
                for (ptrdiff_t y = y0; y < y1; ++y)
                    for (ptrdiff_t x = x0; x < x1; ++x) {
                        const uint8_t v = src[p.Src(c, size_t(y), size_t(x))];
                        m = v > m ? v : m;
                    }
                dst[p.Dst(c, dy, dx)] = m;
            }
    return dst;
}

}  // namespace ref
