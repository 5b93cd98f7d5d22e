// Per-channel affine layers: SimdSynetAddBias (SUPPLEMENT.md §4.1) and
// SimdSynetScaleLayerForward (§4.2).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scale/ScaleLayer.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/PerChannel-inl.h"
#include "core/Format.h"
#include "scale/ScaleLayer-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

void AddBias(const float* bias, size_t channels, size_t spatial, size_t block, bool nhwc,
             float* dst) {
    ChannelArgs<float, float> args{dst, nullptr, {bias, nullptr, nullptr}, dst};
    PerChannel(AddBiasOp{}, channels, spatial, block, nhwc, args);
}

// Takes the public arguments unchanged, so that the entry point ends in a tail jump here and
// keeps its own frame empty: that frame was most of the validation cost of a small call.
void ScaleLayer(const float* src, const float* scale, const float* bias, size_t channels,
                size_t spatial, float* dst, SimdTensorFormatType format) {
    ScaleLayerKernel(src, scale, bias, channels, spatial, dst, format);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/ParallelElements.h"
#include "core/Validate.h"

namespace simd {
HWY_EXPORT(AddBias);
HWY_EXPORT(ScaleLayer);
}  // namespace simd

SIMD_API void SimdSynetAddBias(const float* bias, size_t channels, size_t spatial, float* dst,
                               SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetAddBias", channels, spatial, format, 1, &shape)) return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!bias || !dst, "SimdSynetAddBias: bias and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(channels, spatial, format, shape.block,
                               [&](size_t at, size_t c0, size_t n, size_t pixels) {
                                   SIMD_DISPATCH(simd::AddBias)
                                   (bias + c0, n, pixels, shape.block, nhwc, dst + at);
                               });
}

namespace {

// Cold path of SimdSynetScaleLayerForward: the fast check failed or a pointer is NULL. Decides
// whether the call is an error (and which) or a no-op on zero sizes.
HWY_NOINLINE void ScaleLayerForwardRejected(const float* src, const float* scale, size_t channels,
                                            size_t spatial, float* dst,
                                            SimdTensorFormatType format) {
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetScaleLayerForward", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !scale || !dst,
                 "SimdSynetScaleLayerForward: src, scale and dst must not be NULL");
    SIMD_DISPATCH(simd::ScaleLayer)(src, scale, nullptr, channels, spatial, dst, format);
}

// Accepted calls large enough to split over the thread budget.
HWY_NOINLINE void ScaleLayerForwardSplit(const float* src, const float* scale, const float* bias,
                                         size_t channels, size_t spatial, float* dst,
                                         SimdTensorFormatType format) {
    simd::ParallelPerChannelAt(channels, spatial, format, simd::ImageBlock(format),
                               [&](size_t at, size_t c0, size_t n, size_t pixels) {
                                   SIMD_DISPATCH(simd::ScaleLayer)
                                   (src + at, scale + c0, bias ? bias + c0 : nullptr, n, pixels,
                                    dst + at, format);
                               });
}

}  // namespace

// The accepted path is branches and one tail jump into the kernel: no call, no frame (the
// validation bench measures it against a bare exported call); calls worth splitting over
// threads leave it by one more branch.
SIMD_API void SimdSynetScaleLayerForward(const float* src, const float* scale, const float* bias,
                                         size_t channels, size_t spatial, float* dst,
                                         SimdTensorFormatType format) {
    simd::ClearLastError();
    if (HWY_UNLIKELY(!simd::PerChannelFastCheck(channels, spatial, format) || !src || !scale ||
                     !dst))
        return ScaleLayerForwardRejected(src, scale, channels, spatial, dst, format);
    if (HWY_UNLIKELY(channels == 0 || spatial == 0)) return;
    if (HWY_UNLIKELY(channels * spatial >= simd::kSplitElements && simd::ThreadBudget() > 1))
        return ScaleLayerForwardSplit(src, scale, bias, channels, spatial, dst, format);
    SIMD_DISPATCH(simd::ScaleLayer)(src, scale, bias, channels, spatial, dst, format);
}
#endif  // HWY_ONCE
