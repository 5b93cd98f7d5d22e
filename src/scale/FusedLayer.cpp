// Fused per-channel layers that map one tensor (or two of the same shape) onto one of the
// same shape: SimdSynetFusedLayerForward0/1/2/3/8 (SUPPLEMENT.md §4.4). Types 4 and 9 change
// the channel count and live in FusedConcat.cpp.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scale/FusedLayer.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/MinMax-inl.h"
#include "core/PerChannel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// x = src + bias; (x - |x|)*scale + max(0, x).
struct Fused0Op {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 2;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V src, V, V bias, V scale, V) const {
        const V x = hn::Add(src, bias);
        return hn::MulAdd(hn::Sub(x, hn::Abs(x)), scale, MaxKeepNaN(d, x, 0.0f));
    }
};

// x = src + bias0; (max(0, -x)*scale1 + bias1) + max(0, x).
struct Fused1Op {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 3;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V src, V, V bias0, V scale1, V bias1) const {
        const V x = hn::Add(src, bias0);
        return hn::Add(hn::MulAdd(MaxKeepNaN(d, hn::Neg(x), 0.0f), scale1, bias1),
                       MaxKeepNaN(d, x, 0.0f));
    }
};

// x = src*scale + bias; max(0, x) + min(0, x)*slope with one slope for the whole tensor.
struct Fused2Op {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 2;
    float slope;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V src, V, V scale, V bias, V) const {
        const V x = hn::MulAdd(src, scale, bias);
        return hn::MulAdd(MinKeepNaN(d, x, 0.0f), hn::Set(d, slope), MaxKeepNaN(d, x, 0.0f));
    }
};

// x = src + bias; max(0, x) + min(0, x)*slope[c].
struct Fused3Op {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 2;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V src, V, V bias, V slope, V) const {
        const V x = hn::Add(src, bias);
        return hn::MulAdd(MinKeepNaN(d, x, 0.0f), slope, MaxKeepNaN(d, x, 0.0f));
    }
};

// src0 + src1*scale.
struct Fused8Op {
    static constexpr int kInputs = 2;
    static constexpr int kParams = 1;
    template <class D, class V>
    HWY_INLINE V operator()(D, V src0, V src1, V scale, V, V) const {
        return hn::MulAdd(src1, scale, src0);
    }
};

void Fused0(const float* src, const float* bias, const float* scale, size_t channels,
            size_t spatial, size_t block, bool nhwc, float* dst) {
    ChannelArgs<float, float> args{src, nullptr, {bias, scale, nullptr}, dst};
    PerChannel(Fused0Op{}, channels, spatial, block, nhwc, args);
}

void Fused1(const float* src, const float* bias0, const float* scale1, const float* bias1,
            size_t channels, size_t spatial, size_t block, bool nhwc, float* dst) {
    ChannelArgs<float, float> args{src, nullptr, {bias0, scale1, bias1}, dst};
    PerChannel(Fused1Op{}, channels, spatial, block, nhwc, args);
}

void Fused2(const float* src, const float* scale, const float* bias, float slope, size_t channels,
            size_t spatial, size_t block, bool nhwc, float* dst) {
    ChannelArgs<float, float> args{src, nullptr, {scale, bias, nullptr}, dst};
    PerChannel(Fused2Op{slope}, channels, spatial, block, nhwc, args);
}

void Fused3(const float* src, const float* bias, const float* slope, size_t channels,
            size_t spatial, size_t block, bool nhwc, float* dst) {
    ChannelArgs<float, float> args{src, nullptr, {bias, slope, nullptr}, dst};
    PerChannel(Fused3Op{}, channels, spatial, block, nhwc, args);
}

void Fused8(const float* src0, const float* src1, const float* scale, size_t channels,
            size_t spatial, size_t block, bool nhwc, float* dst) {
    ChannelArgs<float, float> args{src0, src1, {scale, nullptr, nullptr}, dst};
    PerChannel(Fused8Op{}, channels, spatial, block, nhwc, args);
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
HWY_EXPORT(Fused0);
HWY_EXPORT(Fused1);
HWY_EXPORT(Fused2);
HWY_EXPORT(Fused3);
HWY_EXPORT(Fused8);

}  // namespace simd

SIMD_API void SimdSynetFusedLayerForward0(const float* src, const float* bias, const float* scale,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward0", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !bias || !scale || !dst,
                 "SimdSynetFusedLayerForward0: src, bias, scale and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(
        channels, spatial, format, shape.block, [&](size_t at, size_t c0, size_t n, size_t pixels) {
            SIMD_DISPATCH(simd::Fused0)
            (src + at, bias + c0, scale + c0, n, pixels, shape.block, nhwc, dst + at);
        });
}

SIMD_API void SimdSynetFusedLayerForward1(const float* src, const float* bias0, const float* scale1,
                                          const float* bias1, size_t channels, size_t spatial,
                                          float* dst, SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward1", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !bias0 || !scale1 || !bias1 || !dst,
                 "SimdSynetFusedLayerForward1: src, bias0, scale1, bias1 and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(
        channels, spatial, format, shape.block, [&](size_t at, size_t c0, size_t n, size_t pixels) {
            SIMD_DISPATCH(simd::Fused1)
            (src + at, bias0 + c0, scale1 + c0, bias1 + c0, n, pixels, shape.block, nhwc, dst + at);
        });
}

SIMD_API void SimdSynetFusedLayerForward2(const float* src, const float* scale, const float* bias,
                                          size_t channels, size_t spatial, const float* slope,
                                          float* dst, SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward2", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !scale || !bias || !slope || !dst,
                 "SimdSynetFusedLayerForward2: src, scale, bias, slope and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(
        channels, spatial, format, shape.block, [&](size_t at, size_t c0, size_t n, size_t pixels) {
            SIMD_DISPATCH(simd::Fused2)
            (src + at, scale + c0, bias + c0, *slope, n, pixels, shape.block, nhwc, dst + at);
        });
}

// SUPPLEMENT.md §16.1: the second argument is the bias, the third the slope.
SIMD_API void SimdSynetFusedLayerForward3(const float* src, const float* scale, const float* bias,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward3", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !scale || !bias || !dst,
                 "SimdSynetFusedLayerForward3: src, scale, bias and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(
        channels, spatial, format, shape.block, [&](size_t at, size_t c0, size_t n, size_t pixels) {
            SIMD_DISPATCH(simd::Fused3)
            (src + at, scale + c0, bias + c0, n, pixels, shape.block, nhwc, dst + at);
        });
}

SIMD_API void SimdSynetFusedLayerForward8(const float* src0, const float* src1, const float* src2,
                                          size_t channels, size_t spatial, float* dst,
                                          SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward8", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src0 || !src1 || !src2 || !dst,
                 "SimdSynetFusedLayerForward8: src0, src1, src2 and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(
        channels, spatial, format, shape.block, [&](size_t at, size_t c0, size_t n, size_t pixels) {
            SIMD_DISPATCH(simd::Fused8)
            (src0 + at, src1 + at, src2 + c0, n, pixels, shape.block, nhwc, dst + at);
        });
}
#endif  // HWY_ONCE
