// Bias and activation epilogues of the FP32 convolution family (SUPPLEMENT.md §3.1), per
// Highway target: the convolution, deconvolution and merged-convolution contexts apply them to
// each finished block while it is still in cache.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_ACTIVATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_ACTIVATE_INL_H_
#undef SIMD_SYNET_CONVOLUTION_ACTIVATE_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_ACTIVATE_INL_H_
#endif

#include <cstddef>
#include <type_traits>

#include "SimdSynet.h"
#include "core/Math-inl.h"
#include "core/VectorSteps-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {
namespace hn = hwy::HWY_NAMESPACE;

struct Act {
    SimdConvolutionActivationType type;
    float p0, p1;
};

// erf(x): for |x| < 0.5 its Maclaurin series up to x^13 (truncation below 1e-9 relative);
// above, 1 - t*P(t)*exp(-x^2) with t = 1/(1 + p|x|) (Abramowitz-Stegun 7.1.26, absolute error
// below 1.5e-7, i.e. 3e-7 relative since erf(0.5) = 0.52); |x| is clamped at 6 (erf = 1 in FP32).
template <class D, class V>
HWY_INLINE V Erf(D d, V x) {
    const V a = hn::Min(hn::Abs(x), hn::Set(d, 6.0f));
    const V z = hn::Mul(x, x);
    // Series: 2/sqrt(pi) * x * sum (-1)^n z^n / (n! (2n + 1)).
    V s = hn::Set(d, 1.0f / 9360.0f);
    s = hn::MulAdd(s, z, hn::Set(d, -1.0f / 1320.0f));
    s = hn::MulAdd(s, z, hn::Set(d, 1.0f / 216.0f));
    s = hn::MulAdd(s, z, hn::Set(d, -1.0f / 42.0f));
    s = hn::MulAdd(s, z, hn::Set(d, 1.0f / 10.0f));
    s = hn::MulAdd(s, z, hn::Set(d, -1.0f / 3.0f));
    s = hn::MulAdd(s, z, hn::Set(d, 1.0f));
    const V small = hn::Mul(hn::Mul(s, x), hn::Set(d, 1.12837916709551257f));
    const V t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(a, hn::Set(d, 0.3275911f), hn::Set(d, 1.0f)));
    V q = hn::Set(d, 1.061405429f);
    q = hn::MulAdd(q, t, hn::Set(d, -1.453152027f));
    q = hn::MulAdd(q, t, hn::Set(d, 1.421413741f));
    q = hn::MulAdd(q, t, hn::Set(d, -0.284496736f));
    q = hn::MulAdd(q, t, hn::Set(d, 0.254829592f));
    q = hn::Mul(q, t);
    V e[1] = {hn::Neg(hn::Mul(a, a))};
    Exp(d, e);
    const V large = hn::CopySignToAbs(hn::NegMulAdd(q, e[0], hn::Set(d, 1.0f)), x);
    return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, 0.5f)), small, large);
}

// The activation of x (bias already added); `slope` is the per-channel negative slope of
// LeakyRelu/Prelu (unused otherwise).
template <class D, class V>
HWY_INLINE V Activate(D d, V x, V slope, const Act& act) {
    const V zero = hn::Zero(d), one = hn::Set(d, 1.0f);
    switch (act.type) {
        case SimdConvolutionActivationIdentity:
            return x;
        case SimdConvolutionActivationRelu:
            return MaxKeepNaN(d, x, 0.0f);
        case SimdConvolutionActivationLeakyRelu:
        case SimdConvolutionActivationPrelu:
            return hn::MulAdd(slope, MinKeepNaN(d, x, 0.0f), MaxKeepNaN(d, x, 0.0f));
        case SimdConvolutionActivationRestrictRange:
            return MinKeepNaN(d, MaxKeepNaN(d, x, act.p0), act.p1);
        case SimdConvolutionActivationElu: {
            V e[1] = {MinKeepNaN(d, x, 0.0f)};
            Exp(d, e);
            return hn::IfThenElse(hn::Ge(x, zero), x,
                                  hn::Mul(hn::Set(d, act.p0), hn::Sub(e[0], one)));
        }
        case SimdConvolutionActivationHswish: {
            const V shift = hn::Set(d, act.p0);
            return hn::Mul(
                hn::Mul(hn::Max(hn::Add(hn::Min(x, shift), shift), zero), hn::Set(d, act.p1)), x);
        }
        case SimdConvolutionActivationMish: {
            V e[1] = {x};
            Exp(d, e);
            const V a = hn::Add(e[0], one);
            const V q = hn::MulAdd(a, a, one);
            const V y = hn::Mul(x, hn::Sub(one, hn::Div(hn::Set(d, 2.0f), q)));
            return hn::IfThenElse(hn::Gt(x, hn::Set(d, act.p0)), x, y);
        }
        case SimdConvolutionActivationHardSigmoid:
            return MaxKeepNaN(
                d, MinKeepNaN(d, hn::MulAdd(x, hn::Set(d, act.p0), hn::Set(d, act.p1)), 1.0f),
                0.0f);
        case SimdConvolutionActivationSwish: {
            V e[1] = {hn::Mul(hn::Set(d, -act.p0), x)};
            Exp(d, e);
            return hn::Div(x, hn::Add(one, e[0]));
        }
        case SimdConvolutionActivationGelu:
        default: {
            const V erf = Erf(d, hn::Mul(x, hn::Set(d, 0.70710678118654752f)));
            return hn::Mul(hn::Mul(x, hn::Add(one, erf)), hn::Set(d, 0.5f));
        }
    }
}

// x[p*stride + i] = Activate(x[p*stride + i] + bias[i] (+ add[p*stride + i])) for pixels
// p < pixels and channels i < n (NHWC: a block of pixels, `stride` floats apart); slope may be
// NULL when the activation does not read it, bias NULL when it is already in x, add NULL when
// there is no residual. One call per
// block: a call per pixel cost the BF16 deconvolution's gather 15-17% on 64 channels.
inline HWY_NOINLINE void BiasActivatePixels(float* x, size_t pixels, size_t stride, size_t n,
                                            const float* bias, const float* slope, const Act& act,
                                            const float* add = nullptr) {
    for (size_t p = 0; p < pixels; ++p, x += stride) {
        ForEachVectorStep(hn::ScalableTag<float>(), n, [&](auto d, size_t i) HWY_ATTR {
            const auto s = slope ? hn::LoadU(d, slope + i) : hn::Zero(d);
            auto v = hn::LoadU(d, x + i);
            if (bias) v = hn::Add(v, hn::LoadU(d, bias + i));
            if (add) v = hn::Add(v, hn::LoadU(d, add + i));
            hn::StoreU(Activate(d, v, s, act), d, x + i);
        });
        if (add) add += stride;
    }
}

// BiasActivatePixels on one pixel: x[i] = Activate(x[i] + bias[i]) for i < n.
inline void BiasActivateChannels(float* x, size_t n, const float* bias, const float* slope,
                                 const Act& act) {
    BiasActivatePixels(x, 1, n, n, bias, slope, act);
}

// x[i] = Activate(x[i] + bias (+ add[i])) for i < n (NCHW: a run of one channel's plane); add
// is NULL when there is no residual.
inline HWY_NOINLINE void BiasActivatePlane(float* x, size_t n, float bias, float slope,
                                           const Act& act, const float* add = nullptr) {
    const hn::ScalableTag<float> d;
    const hn::CappedTag<float, 1> d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    const auto b = hn::Set(d, bias), s = hn::Set(d, slope);
    for (; i + L <= n; i += L) {
        auto v = hn::Add(hn::LoadU(d, x + i), b);
        if (add) v = hn::Add(v, hn::LoadU(d, add + i));
        hn::StoreU(Activate(d, v, s, act), d, x + i);
    }
    for (; i < n; ++i) {
        auto v = hn::Add(hn::LoadU(d1, x + i), hn::Set(d1, bias));
        if (add) v = hn::Add(v, hn::LoadU(d1, add + i));
        hn::StoreU(Activate(d1, v, hn::Set(d1, slope), act), d1, x + i);
    }
}

// True for the activations that are a few arithmetic operations (no exp, erf or division),
// cheap enough to apply inside a GEMM micro-kernel's store.
inline bool ActivationIsCheap(SimdConvolutionActivationType type) {
    return type == SimdConvolutionActivationIdentity || type == SimdConvolutionActivationRelu ||
           type == SimdConvolutionActivationLeakyRelu || type == SimdConvolutionActivationPrelu ||
           type == SimdConvolutionActivationRestrictRange ||
           type == SimdConvolutionActivationHswish || type == SimdConvolutionActivationHardSigmoid;
}

// The activations that ActivateKind (and a ConvEpilogueOf) writes out at compile time; kCheap
// decides at run time among all the cheap ones (Hswish and HardSigmoid take that one).
enum class EpilogueKind { kIdentity, kRelu, kSlope, kRange, kCheap };

// Activate(x) for the activations of kKind, written out at compile time (kCheap: a switch over
// the cheap ones; any other activation leaves x as it is). slope() gives the negative slope
// vector; only LeakyRelu and Prelu call it.
template <EpilogueKind kKind, class D, class V, class SlopeF>
HWY_INLINE V ActivateKind(D d, V x, const Act& act, const SlopeF& slope) {
    const V zero = hn::Zero(d);
    if constexpr (kKind == EpilogueKind::kIdentity) {
        return x;
    } else if constexpr (kKind == EpilogueKind::kRelu) {
        return MaxKeepNaN(d, x, 0.0f);
    } else if constexpr (kKind == EpilogueKind::kSlope) {
        return hn::MulAdd(slope(), MinKeepNaN(d, x, 0.0f), MaxKeepNaN(d, x, 0.0f));
    } else if constexpr (kKind == EpilogueKind::kRange) {
        return MinKeepNaN(d, MaxKeepNaN(d, x, act.p0), act.p1);
    } else {
        switch (act.type) {
            case SimdConvolutionActivationRelu:
                return MaxKeepNaN(d, x, 0.0f);
            case SimdConvolutionActivationLeakyRelu:
            case SimdConvolutionActivationPrelu:
                return hn::MulAdd(slope(), MinKeepNaN(d, x, 0.0f), MaxKeepNaN(d, x, 0.0f));
            case SimdConvolutionActivationRestrictRange:
            case SimdConvolutionActivationHswish:
            case SimdConvolutionActivationHardSigmoid:
                return Activate(d, x, zero, act);
            default:
                return x;
        }
    }
}

// Calls f(std::integral_constant<EpilogueKind, kind>()) with the kind that writes out `type`
// (kCheap for every other activation, cheap or not).
template <class F>
HWY_INLINE void WithEpilogueKind(SimdConvolutionActivationType type, const F& f) {
    using K = EpilogueKind;
    switch (type) {
        case SimdConvolutionActivationIdentity:
            return f(std::integral_constant<K, K::kIdentity>());
        case SimdConvolutionActivationRelu:
            return f(std::integral_constant<K, K::kRelu>());
        case SimdConvolutionActivationLeakyRelu:
        case SimdConvolutionActivationPrelu:
            return f(std::integral_constant<K, K::kSlope>());
        case SimdConvolutionActivationRestrictRange:
            return f(std::integral_constant<K, K::kRange>());
        default:
            return f(std::integral_constant<K, K::kCheap>());
    }
}

// GEMM epilogue (gemm/Gemm-inl.h) of a convolution tile whose columns are output channels
// [c, c + cols): bias, with kAdd the residual at the same place of `add` as the value's in
// `dst`, and a cheap activation (ActivationIsCheap) applied in registers before the final
// store, partial tiles included. Only the cheap cases are written out here, so the
// micro-kernel that inlines this stays small; the others are applied by a pass over each
// finished block.
template <EpilogueKind kKind, bool kAdd = false>
struct ConvEpilogueOf {
    const float* bias;   // bias of the tile's first channel
    const float* slope;  // its negative slope (LeakyRelu, Prelu), or NULL
    Act act;
    const float* add = nullptr;  // kAdd: the residual of dst[i] is add[i]
    const float* dst = nullptr;
    // The values of channels [at, at + lanes) of the tile, stored at p.
    template <class V>
    HWY_INLINE V At(V x, size_t at, const float* p) const {
        const hn::DFromV<V> d;
        V v = hn::Add(x, hn::LoadU(d, bias + at));
        if constexpr (kAdd) v = hn::Add(v, hn::LoadU(d, add + (p - dst)));
        (void)p;
        return ActivateKind<kKind>(d, v, act, [&]() HWY_ATTR { return hn::LoadU(d, slope + at); });
    }
    // Vector v of a whole tile row, stored at p.
    template <class V>
    HWY_INLINE V Vector(V x, size_t v, const float* p) const {
        return At(x, v * hn::Lanes(hn::DFromV<V>()), p);
    }
};
using ConvEpilogue = ConvEpilogueOf<EpilogueKind::kCheap>;

// True when WithConvEpilogue adds a residual in registers for this activation: the kinds
// written out with kAdd are the identity and ReLU (residual blocks end in one of them); with
// the others a pass over each finished block adds it, so the micro-kernels are not compiled
// once more per kind.
inline bool ResidualFusesWith(SimdConvolutionActivationType type) {
    return type == SimdConvolutionActivationIdentity || type == SimdConvolutionActivationRelu;
}

// Calls tile(epilogue) with the epilogue written out for act.type: one switch per tile instead
// of one per stored vector (GCC kept the switch in the store of every vector of a tile; on
// Zen 5 that was ~12% more instructions for a 1x1 64->256 layer, K = 64). With `add` (only
// where ResidualFusesWith(act.type)) the epilogue adds add[p - dst] to the value stored at p.
template <class F>
HWY_INLINE void WithConvEpilogue(const float* bias, const float* slope, const Act& act,
                                 const F& tile, const float* add = nullptr,
                                 const float* dst = nullptr) {
    using K = EpilogueKind;
    if (add) {
        if (act.type == SimdConvolutionActivationRelu)
            return tile(ConvEpilogueOf<K::kRelu, true>{bias, slope, act, add, dst});
        return tile(ConvEpilogueOf<K::kIdentity, true>{bias, slope, act, add, dst});
    }
    WithEpilogueKind(act.type, [&](auto kind) HWY_ATTR {
        tile(ConvEpilogueOf<decltype(kind)::value>{bias, slope, act});
    });
}

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
