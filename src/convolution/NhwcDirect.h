// The NHWC direct convolution of the FP32 convolution framework (Convolution32f.cpp), per
// Highway target, for other families that run convolutions as parts of their own algorithms
// (the stride phases of a deconvolution). Both translation units compile the same targets, so
// each target calls its own target's function directly.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_NHWC_DIRECT_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_NHWC_DIRECT_H_
#undef SIMD_SYNET_CONVOLUTION_NHWC_DIRECT_H_
#else
#define SIMD_SYNET_CONVOLUTION_NHWC_DIRECT_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// The NHWC direct algorithm (own GEMM core, never Winograd) for NHWC `p` (validated).
Convolution32f* NhwcDirectConvolutionCreate(size_t batch, const SimdConvolutionParameters& p);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
