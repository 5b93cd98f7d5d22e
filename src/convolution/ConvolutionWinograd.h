// Winograd algorithm of the FP32 convolution framework (ConvolutionWinograd.cpp): the per-target
// creation function that Convolution32fCreate (Convolution32f.cpp, compiled for the same
// targets) calls before its GEMM fallback.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_WINOGRAD_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_WINOGRAD_H_
#undef SIMD_SYNET_CONVOLUTION_WINOGRAD_H_
#else
#define SIMD_SYNET_CONVOLUTION_WINOGRAD_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// A Winograd context for a 3x3, stride 1, dilation 1, group 1 convolution with pads of at most
// 2 when it is measured to beat the implicit GEMM on such a shape; nullptr otherwise (also for
// every other shape). The environment variable SIMD_SYNET_WINOGRAD=0 disables it, =1 takes it
// for every applicable shape (tests, benchmarks).
Convolution32f* CreateConvolutionWinograd(size_t batch, const SimdConvolutionParameters& p);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
