// Piecewise-linear activations: SimdSynetRelu32f, SimdSynetRestrictRange32f,
// SimdSynetHswish32f (SUPPLEMENT.md §3) and the per-channel SimdSynetPreluLayerForward (§4.3).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "activation/Relu.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/MinMax-inl.h"
#include "core/PerChannel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// max(0, x) + slope*min(x, 0), fused into one multiply-add.
struct ReluOp {
    float slope;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        return hn::MulAdd(hn::Set(d, slope), MinKeepNaN(d, x, 0.0f), MaxKeepNaN(d, x, 0.0f));
    }
};

struct RestrictRangeOp {
    float lower, upper;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        return MaxKeepNaN(d, MinKeepNaN(d, x, upper), lower);
    }
};

// (max(min(x, shift) + shift, 0)*scale)*x in the seed's order.
struct HswishOp {
    float shift, scale;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        const V sh = hn::Set(d, shift);
        return hn::Mul(
            hn::Mul(hn::Max(hn::Add(hn::Min(x, sh), sh), hn::Zero(d)), hn::Set(d, scale)), x);
    }
};

struct PreluOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 1;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x, V, V slope, V, V) const {
        return hn::MulAdd(slope, MinKeepNaN(d, x, 0.0f), MaxKeepNaN(d, x, 0.0f));
    }
};

void Relu32f(const float* src, size_t size, float slope, float* dst) {
    UnaryLoop(src, size, dst, ReluOp{slope});
}

void RestrictRange32f(const float* src, size_t size, float lower, float upper, float* dst) {
    UnaryLoop(src, size, dst, RestrictRangeOp{lower, upper});
}

void Hswish32f(const float* src, size_t size, float shift, float scale, float* dst) {
    UnaryLoop(src, size, dst, HswishOp{shift, scale});
}

void Prelu32f(const float* src, const float* slope, size_t channels, size_t spatial, size_t block,
              bool nhwc, float* dst) {
    ChannelArgs<float, float> args{src, nullptr, {slope, nullptr, nullptr}, dst};
    PerChannel(PreluOp{}, channels, spatial, block, nhwc, args);
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
HWY_EXPORT(Relu32f);
HWY_EXPORT(RestrictRange32f);
HWY_EXPORT(Hswish32f);
HWY_EXPORT(Prelu32f);
}  // namespace simd

SIMD_API void SimdSynetRelu32f(const float* src, size_t size, const float* slope, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !slope || !dst, "SimdSynetRelu32f: src, slope and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetRelu32f: size * sizeof(float) overflows size_t");
    const float s = *slope;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Relu32f)(src + b, e - b, s, dst + b);
    });
}

SIMD_API void SimdSynetRestrictRange32f(const float* src, size_t size, const float* lower,
                                        const float* upper, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !lower || !upper || !dst,
                 "SimdSynetRestrictRange32f: src, lower, upper and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetRestrictRange32f: size * sizeof(float) overflows size_t");
    SIMD_FAIL_IF(!(*lower <= *upper), "SimdSynetRestrictRange32f: lower must not exceed upper");
    const float lo = *lower, hi = *upper;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::RestrictRange32f)(src + b, e - b, lo, hi, dst + b);
    });
}

SIMD_API void SimdSynetHswish32f(const float* src, size_t size, const float* shift,
                                 const float* scale, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !shift || !scale || !dst,
                 "SimdSynetHswish32f: src, shift, scale and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetHswish32f: size * sizeof(float) overflows size_t");
    const float sh = *shift, sc = *scale;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Hswish32f)(src + b, e - b, sh, sc, dst + b);
    });
}

SIMD_API void SimdSynetPreluLayerForward(const float* src, const float* slope, size_t channels,
                                         size_t spatial, float* dst, SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetPreluLayerForward", channels, spatial, format, 1,
                                  &shape))
        return;
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !slope || !dst,
                 "SimdSynetPreluLayerForward: src, slope and dst must not be NULL");
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannelAt(channels, spatial, format, shape.block,
                               [&](size_t at, size_t c0, size_t n, size_t pixels) {
                                   SIMD_DISPATCH(simd::Prelu32f)
                                   (src + at, slope + c0, n, pixels, shape.block, nhwc, dst + at);
                               });
}
#endif  // HWY_ONCE
