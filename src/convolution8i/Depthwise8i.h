// Depthwise INT8 convolution (group == srcC == dstC), per Highway target: the creation functions
// Convolution8iCreate (Convolution8i.cpp) calls. Both translation units compile the same
// targets, so each target's Convolution8iCreate calls its own target's function directly.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION8I_DEPTHWISE8I_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION8I_DEPTHWISE8I_H_
#undef SIMD_SYNET_CONVOLUTION8I_DEPTHWISE8I_H_
#else
#define SIMD_SYNET_CONVOLUTION8I_DEPTHWISE8I_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution8i/Convolution8i.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// The depthwise algorithm for `p` (validated; group == srcC == dstC), or NULL where this
// target has none (the scalar fallback: the direct algorithm covers it).
Convolution8i* Depthwise8iCreate(size_t batch, const SimdConvolutionParameters& p,
                                 SimdSynetCompatibilityType compatibility);

// DepthwiseNchw8i.cpp: NCHW 3x3, stride 1 or 2, no dilation, on the channel planes; NULL for
// other shapes and on the scalar fallback.
Convolution8i* DepthwiseNchw8iCreate(size_t batch, const SimdConvolutionParameters& p,
                                     SimdSynetCompatibilityType compatibility);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
