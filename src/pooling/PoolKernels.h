// The dispatched pooling kernels, one per element type and operation, per Highway target:
// defined in PoolKernels.cpp, exported and dispatched by the entry points of Pooling.cpp. Both
// translation units compile the same targets. `scratch` is the memory the entry point sized
// for the call (see Scratch in Pooling.cpp), or null.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_POOL_KERNELS_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_POOL_KERNELS_H_
#undef SIMD_SYNET_POOLING_POOL_KERNELS_H_
#else
#define SIMD_SYNET_POOLING_POOL_KERNELS_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "pooling/PoolShape.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void PoolingAverageKernel(const float* src, const PoolShape& s, float* dst, void* scratch);
void PoolingMax32fKernel(const float* src, const PoolShape& s, float* dst, void* scratch);
void PoolingMax16bKernel(const uint16_t* src, const PoolShape& s, uint16_t* dst, void* scratch);
void PoolingMax8uKernel(const uint8_t* src, const PoolShape& s, uint8_t* dst, void* scratch);

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
