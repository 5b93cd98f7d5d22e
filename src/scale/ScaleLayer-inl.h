// The per-channel affine kernels of scale/ScaleLayer.cpp, per Highway target. A header so that
// the validation bench drives the very kernel the public entry point dispatches to, and the
// two calls differ by the entry point's checks alone.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_SCALE_SCALE_LAYER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_SCALE_SCALE_LAYER_INL_H_
#undef SIMD_SYNET_SCALE_SCALE_LAYER_INL_H_
#else
#define SIMD_SYNET_SCALE_SCALE_LAYER_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Format.h"
#include "core/PerChannel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct AddBiasOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 1;
    template <class D, class V>
    HWY_INLINE V operator()(D, V x, V, V bias, V, V) const {
        return hn::Add(x, bias);
    }
};

// Without a bias the result is the product itself: adding +0 would turn -0 into +0.
struct ScaleOnlyOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 1;
    template <class D, class V>
    HWY_INLINE V operator()(D, V x, V, V scale, V, V) const {
        return hn::Mul(x, scale);
    }
};

// dst = src * scale (+ bias) per channel, in the layout of `format` (validated by the caller).
HWY_INLINE void ScaleLayerKernel(const float* src, const float* scale, const float* bias,
                                 size_t channels, size_t spatial, float* dst,
                                 SimdTensorFormatType format) {
    ChannelArgs<float, float> args{src, nullptr, {scale, bias, nullptr}, dst};
    const size_t block = ImageBlock(format);
    const bool nhwc = format == SimdTensorFormatNhwc;
    if (bias)
        PerChannel(AffineOp{}, channels, spatial, block, nhwc, args);
    else
        PerChannel(ScaleOnlyOp{}, channels, spatial, block, nhwc, args);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
