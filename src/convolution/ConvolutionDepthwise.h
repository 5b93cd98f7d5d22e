// Depthwise convolution (group == srcC == dstC) of the FP32 convolution framework, per Highway
// target: the creation functions Convolution32fCreate (Convolution32f.cpp) calls. Both
// translation units compile the same targets, so each target's Convolution32fCreate calls its
// own target's functions directly.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_DEPTHWISE_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_DEPTHWISE_H_
#undef SIMD_SYNET_CONVOLUTION_DEPTHWISE_H_
#else
#define SIMD_SYNET_CONVOLUTION_DEPTHWISE_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// The depthwise algorithm for NHWC or NCHW `p` (validated; group == srcC == dstC).
Convolution32f* DepthwiseNhwcCreate(size_t batch, const SimdConvolutionParameters& p);
Convolution32f* DepthwiseNchwCreate(size_t batch, const SimdConvolutionParameters& p);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
