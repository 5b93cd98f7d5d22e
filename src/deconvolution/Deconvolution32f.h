// FP32 and BF16 deconvolution frameworks (SUPPLEMENT.md §9.1, §9.2): the context shared by
// every algorithm and the shape numbers of a transposed convolution. The per-target algorithms
// (Algorithms.h, one translation unit each) derive from it; the entry points call its virtual
// functions, so the target and the algorithm are chosen once, at Init.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"

namespace simd {

// A deconvolution context keeps exactly what a convolution context keeps (bias, activation
// parameters, re-ordered weights, own scratch, Info string) and is driven the same way
// (SetParams copies bias/params then calls PackWeights; Forward picks the scratch then calls
// Run), so it shares that base rather than repeating it.
// The BF16 framework (bf16 true) runs the same algorithms: its inputs and weights are rounded
// to BF16 (src and dst then point to tensors of p_.srcT / p_.dstT, 32f or 16b, passed through
// the float pointers of Run), its products are the exact FP32 products of those BF16 values.
class Deconvolution32f : public Convolution32f {
public:
    Deconvolution32f(size_t batch, const SimdConvolutionParameters& conv, SimdGemm32fNNPtr gemm,
                     bool bf16)
        : Convolution32f(batch, conv, gemm),
          bf16_(bf16),
          srcBf16_(conv.srcT == SimdTensorData16b),
          dstBf16_(conv.dstT == SimdTensorData16b) {}
    // Rounding of inputs and weights to BF16 (the 16b framework); BF16 source / destination.
    const bool bf16_, srcBf16_, dstBf16_;
    bool TakesResidual() const final { return false; }

protected:
    // Never called: the convolution's ForwardAdd refuses contexts that do not TakesResidual().
    void RunAdd(const float*, float*, const float*, float*) const final {
        throw std::logic_error("a deconvolution context takes no residual");
    }
};

// Shape numbers of one deconvolution. Source pixel (sy, sx) and tap (ky, kx) reach output
// pixel (sy*sY + ky*dY - padY, sx*sX + kx*dX - padX) when that lies inside the output.
struct DeconvGeometry {
    size_t srcC, srcH, srcW, dstC, dstH, dstW, kY, kX, dY, dX, sY, sX, padY, padX, G, Cg, Dg, K;
    size_t srcImage, dstImage, srcPlane, dstPlane;
    explicit DeconvGeometry(const SimdConvolutionParameters& p)
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
          Dg(p.dstC / p.group),
          K(p.kernelY * p.kernelX) {
        srcPlane = srcH * srcW;
        dstPlane = dstH * dstW;
        srcImage = srcC * srcPlane;
        dstImage = dstC * dstPlane;
    }
    // Source rows [first, second) that reach some output row of [dy0, dy1) (empty when none).
    std::pair<size_t, size_t> SourceRows(size_t dy0, size_t dy1) const {
        // sy*sY >= dy0 + padY - (kY - 1)*dY and sy*sY <= dy1 - 1 + padY.
        const ptrdiff_t low = ptrdiff_t(dy0 + padY) - ptrdiff_t((kY - 1) * dY);
        size_t lo = low <= 0 ? 0 : (size_t(low) + sY - 1) / sY;
        size_t hi = std::min(srcH, (dy1 - 1 + padY) / sY + 1);
        lo = std::min(lo, hi);
        return {lo, hi};
    }
    // Output rows below this one receive nothing from source rows >= sy.
    size_t FinishedBelow(size_t sy) const {
        const size_t reach = sy * sY;
        return reach <= padY ? 0 : std::min(dstH, reach - padY);
    }
    // One past the last output row that source rows < sy (sy >= 1) reach.
    size_t TouchedBelow(size_t sy) const {
        const size_t reach = (sy - 1) * sY + (kY - 1) * dY + 1;
        return reach <= padY ? 0 : std::min(dstH, reach - padY);
    }
    // Stride equal to the kernel, dense, no crop: every output pixel has exactly one tap and
    // source pixel (sy, sx) owns the output patch [sy*kY, +kY) x [sx*kX, +kX).
    bool DisjointPatches() const {
        return sY == kY && sX == kX && dY == 1 && dX == 1 && padY == 0 && padX == 0 &&
               dstH == srcH * kY && dstW == srcW * kX;
    }
};

}  // namespace simd
