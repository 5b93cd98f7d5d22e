// Grouped convolution with few channels per group (NHWC) of the FP32 convolution framework, per
// Highway target: the creation function Convolution32fCreate (Convolution32f.cpp) calls.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_GROUPED_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_GROUPED_H_
#undef SIMD_SYNET_CONVOLUTION_GROUPED_H_
#else
#define SIMD_SYNET_CONVOLUTION_GROUPED_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// The grouped algorithm for NHWC `p` (validated) where it applies on this target, else NULL.
Convolution32f* GroupedNhwcCreate(size_t batch, const SimdConvolutionParameters& p);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
