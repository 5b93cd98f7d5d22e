// Activations built on exp/log/tanh (SUPPLEMENT.md §3): SimdSynetElu32f, SimdSynetSigmoid32f,
// SimdSynetSoftplus32f and SimdSynetTanh32f. The math itself lives in core/Math-inl.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "activation/Transcendental.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "activation/GroupLoop-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Functors have internal linkage: other families may name their own functors alike.
namespace {

// The kernels are group functors for GroupUnaryLoop: each step is applied to K independent
// vectors before the next step (see core/Math-inl.h).

// x >= 0 ? x : alpha*(e^x - 1). expm1 keeps small negative x accurate (e^x - 1 would lose
// the low bits to cancellation); below -40 it is -1 in FP32 anyway.
struct EluOp {
    float alpha;
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        V e[K];
        SIMD_SYNET_EACH(k, K)
        e[k] = MaxKeepNaN(d, MinKeepNaN(d, v[k], 0.0f), -math::kExpM1Bound);
        ExpM1Clamped(d, e);
        SIMD_SYNET_EACH(k, K)
        v[k] = hn::IfThenElse(hn::Ge(v[k], hn::Zero(d)), v[k], hn::Mul(hn::Set(d, alpha), e[k]));
    }
};

// 1/(1 + e^(-x*slope)): Exp saturates to 0 and +inf, so large |x| gives 1 and 0, never NaN.
struct SigmoidOp {
    float negSlope;  // -slope: -(x*slope) == x*(-slope) exactly
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        SIMD_SYNET_EACH(k, K) v[k] = hn::Mul(v[k], hn::Set(d, negSlope));
        Exp(d, v);
        SIMD_SYNET_EACH(k, K)
        v[k] = hn::Div(hn::Set(d, 1.0f), hn::Add(v[k], hn::Set(d, 1.0f)));
    }
};

// x > threshold ? x : log(1 + e^(beta*x))/beta, evaluated as
//     max(y, 0)/beta + log1p(e^-|y|)/beta with y = beta*x,
// where max(y, 0)/beta is x when y > 0 and 0 otherwise: nothing overflows, even when beta*x
// does (e^-|y| then vanishes), and log1p only sees arguments in [0, 1]. The factor 1/beta is
// folded into the coefficients of log1p(t)/t.
struct SoftplusOp {
    float beta, threshold;
    float log1pOverT[math::kLog1pUnitCount];  // coefficients of log1p(t)/(t*beta)
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        V y[K], t[K], p[K];
        SIMD_SYNET_EACH(k, K) y[k] = hn::Mul(v[k], hn::Set(d, beta));
        SIMD_SYNET_EACH(k, K)
        t[k] = MaxKeepNaN(d, hn::Or(y[k], hn::SignBit(d)), math::kExpLo);  // -|y|
        ExpClamped(d, t);
        Log1pUnitOverT(d, t, log1pOverT, p);
        SIMD_SYNET_EACH(k, K) {
            const V linear = hn::IfThenElseZero(hn::Gt(y[k], hn::Zero(d)), v[k]);
            const V soft = hn::MulAdd(t[k], p[k], linear);
            v[k] = hn::IfThenElse(hn::Gt(v[k], hn::Set(d, threshold)), v[k], soft);
        }
    }
};

struct TanhOp {
    float slope;
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        SIMD_SYNET_EACH(k, K) v[k] = hn::Mul(v[k], hn::Set(d, slope));
        Tanh(d, v);
    }
};

}  // namespace

void Elu32f(const float* src, size_t size, float alpha, float* dst) {
    GroupUnaryLoop(src, size, dst, EluOp{alpha});
}

void Sigmoid32f(const float* src, size_t size, float slope, float* dst) {
    GroupUnaryLoop(src, size, dst, SigmoidOp{-slope});
}

void Softplus32f(const float* src, size_t size, float beta, float threshold, float* dst) {
    SoftplusOp op;
    op.beta = beta;
    op.threshold = threshold;
    // 1/beta overflows only for |beta| < 2^-128, where log(2)/beta is beyond FP32 anyway.
    ScaledLog1pUnit(float(1.0 / double(beta)), op.log1pOverT);
    GroupUnaryLoop(src, size, dst, op);
}

void Tanh32f(const float* src, size_t size, float slope, float* dst) {
    GroupUnaryLoop(src, size, dst, TanhOp{slope});
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"
#include "core/ParallelElements.h"

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
    const float a = *alpha;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Elu32f)(src + b, e - b, a, dst + b);
    });
}

SIMD_API void SimdSynetSigmoid32f(const float* src, size_t size, const float* slope, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !slope || !dst,
                 "SimdSynetSigmoid32f: src, slope and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetSigmoid32f: size * sizeof(float) overflows size_t");
    const float a = *slope;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Sigmoid32f)(src + b, e - b, a, dst + b);
    });
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
    const float be = *beta, th = *threshold;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Softplus32f)(src + b, e - b, be, th, dst + b);
    });
}

SIMD_API void SimdSynetTanh32f(const float* src, size_t size, const float* slope, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !slope || !dst, "SimdSynetTanh32f: src, slope and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetTanh32f: size * sizeof(float) overflows size_t");
    const float a = *slope;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Tanh32f)(src + b, e - b, a, dst + b);
    });
}
#endif  // HWY_ONCE
