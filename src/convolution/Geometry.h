// Shape numbers of one convolution (SUPPLEMENT.md §8.1) that every algorithm of the FP32
// convolution family uses; target-independent.
#pragma once

#include <cstddef>

#include "SimdSynet.h"

namespace simd {

// One output extent of the size rule (§8.1), or 0 when the kernel does not fit. Callers bound
// the operands (about 2^30 each) so that nothing overflows.
inline size_t OutputExtent(size_t src, size_t padBefore, size_t padAfter, size_t kernel,
                           size_t dilation, size_t stride) {
    const size_t extent = dilation * (kernel - 1) + 1;
    const size_t padded = src + padBefore + padAfter;
    if (padded < extent) return 0;
    return (padded - extent) / stride + 1;
}

struct ConvGeometry {
    size_t srcC, srcH, srcW, dstC, dstH, dstW, kY, kX, dY, dX, sY, sX, padY, padX, G, Cg, Dg;
    size_t srcImage, dstImage, pixels;
    explicit ConvGeometry(const SimdConvolutionParameters& p)
        : srcC(p.srcC),
          srcH(p.srcH),
          srcW(p.srcW),
          dstC(p.dstC),
          dstH(p.dstH),
          dstW(p.dstW),
          kY(p.kernelY),
          kX(p.kernelX),
          dY(p.dilationY),
          dX(p.dilationX),
          sY(p.strideY),
          sX(p.strideX),
          padY(p.padY),
          padX(p.padX),
          G(p.group),
          Cg(p.srcC / p.group),
          Dg(p.dstC / p.group) {
        srcImage = srcC * srcH * srcW;
        dstImage = dstC * dstH * dstW;
        pixels = dstH * dstW;
    }
    // 1x1, stride 1, no padding: the image itself is the GEMM operand.
    bool Pointwise() const {
        return kY == 1 && kX == 1 && sY == 1 && sX == 1 && padY == 0 && padX == 0 && srcH == dstH &&
               srcW == dstW;
    }
    // Source row of output row dy and kernel row ky, or -1 when it falls in the padding.
    ptrdiff_t SrcY(size_t dy, size_t ky) const {
        const ptrdiff_t sy = ptrdiff_t(dy * sY + ky * dY) - ptrdiff_t(padY);
        return sy >= 0 && sy < ptrdiff_t(srcH) ? sy : -1;
    }
    ptrdiff_t SrcX0(size_t dx, size_t kx) const {
        return ptrdiff_t(dx * sX + kx * dX) - ptrdiff_t(padX);
    }
};

inline size_t RoundUp(size_t a, size_t b) {
    return (a + b - 1) / b * b;
}

}  // namespace simd
