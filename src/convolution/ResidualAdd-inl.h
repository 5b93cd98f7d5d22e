// The residual of SimdSynetConvolution32fForwardAdd for the algorithms whose kernels keep their
// own epilogues (depthwise, grouped, NCHW rows): they run with the identity activation, then
// this pass adds the residual and applies the context's activation. The GEMM-based algorithms
// (NHWC direct, NCHW GEMM, Winograd) add it in their epilogues instead.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_RESIDUAL_ADD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_RESIDUAL_ADD_INL_H_
#undef SIMD_SYNET_CONVOLUTION_RESIDUAL_ADD_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_RESIDUAL_ADD_INL_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Activate-inl.h"
#include "convolution/Convolution32f.h"
#include "core/ParallelElements.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {
namespace hn = hwy::HWY_NAMESPACE;

// dst = Activate(dst + add) for the whole output of context c (bias already in dst), split over
// the threads as element-wise work is (each value is computed the same way in any part).
inline void AddActivateOutput(const Convolution32f& c, const float* add, float* dst) {
    const SimdConvolutionParameters& p = c.p_;
    const Act act{p.activation, c.param0_, c.param1_};
    const float* slopes = c.slope_.empty() ? nullptr : c.slope_.data();
    const size_t C = p.dstC, pixels = p.dstH * p.dstW;
    if (p.dstF == SimdTensorFormatNhwc) {
        // The batch as one run of pixels.
        ParallelPerChannel(C, c.batch_ * pixels, SimdTensorFormatNhwc, 1,
                           [&](size_t, size_t, size_t p0, size_t n) {
                               BiasActivatePixels(dst + p0 * C, n, C, C, nullptr, slopes, act,
                                                  add + p0 * C);
                           });
        return;
    }
    // NCHW: the batch's planes, channel b*C + c of plane index.
    ParallelPerChannel(
        c.batch_ * C, pixels, SimdTensorFormatNchw, 1,
        [&](size_t c0, size_t n, size_t p0, size_t count) {
            for (size_t i = c0; i < c0 + n; ++i) {
                float* x = dst + i * pixels + p0;
                const float* a = add + i * pixels + p0;
                const float slope = slopes ? slopes[i % C] : 0.0f;
                ForEachVectorStep(hn::ScalableTag<float>(), count, [&](auto d, size_t j) HWY_ATTR {
                    const auto v = hn::Add(hn::LoadU(d, x + j), hn::LoadU(d, a + j));
                    hn::StoreU(Activate(d, v, hn::Set(d, slope), act), d, x + j);
                });
            }
        });
}

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
