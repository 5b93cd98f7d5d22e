// Activations built on exp/log/tanh (SUPPLEMENT.md §3): SimdSynetElu32f, SimdSynetSigmoid32f,
// SimdSynetSoftplus32f and SimdSynetTanh32f. The math itself lives in core/Math-inl.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "activation/Transcendental.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// x >= 0 ? x : alpha*(e^x - 1). expm1 keeps small negative x accurate (e^x - 1 would lose
// the low bits to cancellation); below -40 it is -1 in FP32 anyway.
struct EluOp {
    float alpha;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        const V negative = MaxKeepNaN(d, MinKeepNaN(d, x, 0.0f), -kExpM1Bound);
        const V e = hn::Mul(hn::Set(d, alpha), ExpM1Clamped(d, negative));
        return hn::IfThenElse(hn::Ge(x, hn::Zero(d)), x, e);
    }
};

// 1/(1 + e^(-x*slope)): Exp saturates to 0 and +inf, so large |x| gives 1 and 0, never NaN.
struct SigmoidOp {
    float negSlope;  // -slope: -(x*slope) == x*(-slope) exactly
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        const V e = Exp(d, hn::Mul(x, hn::Set(d, negSlope)));
        return hn::Div(hn::Set(d, 1.0f), hn::Add(e, hn::Set(d, 1.0f)));
    }
};

// x > threshold ? x : log(1 + e^(beta*x))/beta, evaluated as
//     max(y, 0)/beta + log1p(e^-|y|)/beta with y = beta*x,
// where max(y, 0)/beta is x when y > 0 and 0 otherwise: nothing overflows, even when beta*x
// does (the e^-|y| term then vanishes) and the logarithm's argument stays in [1, 2].
struct SoftplusOp {
    float beta, invBeta, threshold;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        const V y = hn::Mul(x, hn::Set(d, beta));
        const V negAbsY = hn::Or(y, hn::SignBit(d));
        const V e = ExpClamped(d, MaxKeepNaN(d, negAbsY, kExpLo));
        const V linear = hn::IfThenElseZero(hn::Gt(y, hn::Zero(d)), x);
        const V soft = hn::MulAdd(Log1pUnit(d, e), hn::Set(d, invBeta), linear);
        return hn::IfThenElse(hn::Gt(x, hn::Set(d, threshold)), x, soft);
    }
};

struct TanhOp {
    float slope;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        return Tanh(d, hn::Mul(x, hn::Set(d, slope)));
    }
};

void Elu32f(const float* src, size_t size, float alpha, float* dst) {
    UnaryLoop(src, size, dst, EluOp{alpha});
}

void Sigmoid32f(const float* src, size_t size, float slope, float* dst) {
    UnaryLoop(src, size, dst, SigmoidOp{-slope});
}

void Softplus32f(const float* src, size_t size, float beta, float threshold, float* dst) {
    // 1/beta overflows only for |beta| < 2^-128; dividing is not worth a second kernel there,
    // the result of such a beta is beyond FP32 anyway (log 2 / beta).
    UnaryLoop(src, size, dst, SoftplusOp{beta, float(1.0 / double(beta)), threshold});
}

void Tanh32f(const float* src, size_t size, float slope, float* dst) {
    UnaryLoop(src, size, dst, TanhOp{slope});
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(Elu32f);
HWY_EXPORT(Sigmoid32f);
HWY_EXPORT(Softplus32f);
HWY_EXPORT(Tanh32f);
}  // namespace simd

SIMD_API void SimdSynetElu32f(const float* src, size_t size, const float* alpha, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !alpha || !dst, "SimdSynetElu32f: src, alpha and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetElu32f: size * sizeof(float) overflows size_t");
    HWY_DYNAMIC_DISPATCH(simd::Elu32f)(src, size, *alpha, dst);
}

SIMD_API void SimdSynetSigmoid32f(const float* src, size_t size, const float* slope, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !slope || !dst,
                 "SimdSynetSigmoid32f: src, slope and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetSigmoid32f: size * sizeof(float) overflows size_t");
    HWY_DYNAMIC_DISPATCH(simd::Sigmoid32f)(src, size, *slope, dst);
}

SIMD_API void SimdSynetSoftplus32f(const float* src, size_t size, const float* beta,
                                   const float* threshold, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !beta || !threshold || !dst,
                 "SimdSynetSoftplus32f: src, beta, threshold and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetSoftplus32f: size * sizeof(float) overflows size_t");
    SIMD_FAIL_IF(*beta == 0.0f, "SimdSynetSoftplus32f: beta must not be 0");
    HWY_DYNAMIC_DISPATCH(simd::Softplus32f)(src, size, *beta, *threshold, dst);
}

SIMD_API void SimdSynetTanh32f(const float* src, size_t size, const float* slope, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !slope || !dst, "SimdSynetTanh32f: src, slope and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetTanh32f: size * sizeof(float) overflows size_t");
    HWY_DYNAMIC_DISPATCH(simd::Tanh32f)(src, size, *slope, dst);
}
#endif  // HWY_ONCE
