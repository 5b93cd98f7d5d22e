// NCHW row convolution of the FP32 convolution framework (first layers: 3x3 stride 1 or 2 over
// a few input channels), per Highway target: the creation function Convolution32fCreate
// (Convolution32f.cpp) calls. Both translation units compile the same targets, so each target's
// Convolution32fCreate calls its own target's function directly.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_NCHW_ROWS_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_NCHW_ROWS_H_
#undef SIMD_SYNET_CONVOLUTION_NCHW_ROWS_H_
#else
#define SIMD_SYNET_CONVOLUTION_NCHW_ROWS_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// True when the NCHW row convolution serves `p` (validated, NCHW): group 1, 3x3, dilation 1,
// one column of left padding, and either stride 2 with every tap column of an output inside
// the image (2 dstW <= srcW) or stride 1 with one pad column on each side (dstW == srcW); at
// most 8 input channels, on targets with vectors of 8 lanes or more. Convolution32fCreate asks
// Winograd first.
bool NchwRowsFits(const SimdConvolutionParameters& p);
Convolution32f* NchwRowsCreate(size_t batch, const SimdConvolutionParameters& p);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
