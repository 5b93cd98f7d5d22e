// SimdSynetGelu32f: GELU as transformers use it, exact (erf) and with the tanh approximation.
// An addition beyond the seeds; the convolution epilogue has its own erf GELU
// (convolution/Activate-inl.h), which this does not share: it keeps relative accuracy for
// negative x, where 1 + erf(x/sqrt 2) cancels.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "activation/Gelu.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "activation/GroupLoop-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

namespace {

// Below these inputs GELU is below 1e-16 in magnitude (erf form: 0.5*|x|*erfc(6); tanh form:
// e^(2u) < 1e-37) and is returned as -0: the formulas would give -inf * 0 = NaN at -inf.
constexpr float kErfZeroBelow = -8.5f;
constexpr float kTanhZeroBelow = -10.0f;

// x * (1 + erf(z))/2 with z = x/sqrt 2. For |z| < 0.5 erf(z) by its Maclaurin series up to
// z^13 (truncation below 1e-9 relative). Above, erfc(|z|) = t*P(t)*e^(-z^2) with
// t = 1/(1 + p|z|) (Abramowitz-Stegun 7.1.26, absolute error below 1.5e-7), and GELU is
// x*(1 - erfc/2) for x > 0 and x*erfc/2 for x < 0: no cancellation on either side.
struct GeluErfOp {
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        const V one = hn::Set(d, 1.0f), half = hn::Set(d, 0.5f);
        V z[K], e[K], t[K];
        SIMD_SYNET_EACH(k, K) z[k] = hn::Mul(v[k], hn::Set(d, 0.70710678118654752f));
        SIMD_SYNET_EACH(k, K) e[k] = hn::Neg(hn::Mul(z[k], z[k]));
        Exp(d, e);
        SIMD_SYNET_EACH(k, K)
        t[k] = hn::Div(one, hn::MulAdd(hn::Abs(z[k]), hn::Set(d, 0.3275911f), one));
        SIMD_SYNET_EACH(k, K) {
            V q = hn::Set(d, 1.061405429f);
            q = hn::MulAdd(q, t[k], hn::Set(d, -1.453152027f));
            q = hn::MulAdd(q, t[k], hn::Set(d, 1.421413741f));
            q = hn::MulAdd(q, t[k], hn::Set(d, -0.284496736f));
            q = hn::MulAdd(q, t[k], hn::Set(d, 0.254829592f));
            const V halfErfc = hn::Mul(hn::Mul(hn::Mul(q, t[k]), e[k]), half);
            const V positive = hn::Mul(v[k], hn::Sub(one, halfErfc));
            const V negative = hn::Mul(v[k], halfErfc);
            const V large = hn::IfThenElse(hn::Gt(v[k], hn::Zero(d)), positive, negative);
            const V zz = hn::Mul(z[k], z[k]);
            V s = hn::Set(d, 1.0f / 9360.0f);
            s = hn::MulAdd(s, zz, hn::Set(d, -1.0f / 1320.0f));
            s = hn::MulAdd(s, zz, hn::Set(d, 1.0f / 216.0f));
            s = hn::MulAdd(s, zz, hn::Set(d, -1.0f / 42.0f));
            s = hn::MulAdd(s, zz, hn::Set(d, 1.0f / 10.0f));
            s = hn::MulAdd(s, zz, hn::Set(d, -1.0f / 3.0f));
            s = hn::MulAdd(s, zz, one);
            const V erf = hn::Mul(hn::Mul(s, z[k]), hn::Set(d, 1.12837916709551257f));
            const V small = hn::Mul(hn::Mul(v[k], hn::Add(one, erf)), half);
            const V y = hn::IfThenElse(hn::Lt(hn::Abs(z[k]), half), small, large);
            v[k] = hn::IfThenElse(hn::Lt(v[k], hn::Set(d, kErfZeroBelow)), hn::Set(d, -0.0f), y);
        }
    }
};

// x * (1 + tanh(u))/2 with u = sqrt(2/pi)*(x + 0.044715*x^3), evaluated as x/(1 + e^(-2u)):
// the same value without the cancellation of 1 + tanh(u) for negative x.
struct GeluTanhOp {
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        const V one = hn::Set(d, 1.0f);
        V e[K];
        SIMD_SYNET_EACH(k, K) {
            const V inner = hn::MulAdd(hn::Mul(v[k], v[k]), hn::Set(d, 0.044715f), one);
            e[k] = hn::Mul(hn::Mul(v[k], inner), hn::Set(d, -1.5957691216057308f));
        }
        Exp(d, e);
        SIMD_SYNET_EACH(k, K) {
            const V y = hn::Div(v[k], hn::Add(one, e[k]));
            v[k] = hn::IfThenElse(hn::Lt(v[k], hn::Set(d, kTanhZeroBelow)), hn::Set(d, -0.0f), y);
        }
    }
};

}  // namespace

void Gelu32f(const float* src, size_t size, bool tanh, float* dst) {
    if (tanh)
        GroupUnaryLoop(src, size, dst, GeluTanhOp{});
    else
        GroupUnaryLoop(src, size, dst, GeluErfOp{});
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
HWY_EXPORT(Gelu32f);
}  // namespace simd

SIMD_API void SimdSynetGelu32f(const float* src, size_t size, SimdBool approximate, float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !dst, "SimdSynetGelu32f: src and dst must not be NULL");
    SIMD_FAIL_IF(approximate != SimdFalse && approximate != SimdTrue,
                 "SimdSynetGelu32f: approximate must be SimdFalse or SimdTrue");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetGelu32f: size * sizeof(float) overflows size_t");
    const bool tanh = approximate == SimdTrue;
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::Gelu32f)(src + b, e - b, tanh, dst + b);
    });
}
#endif  // HWY_ONCE
