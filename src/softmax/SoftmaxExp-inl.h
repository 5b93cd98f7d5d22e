// Exponential for softmax: e^x only for x <= 0 (inputs minus their row maximum) or NaN, within
// the softmax tolerance (|err| <= 1e-5 |ref| + 1e-6) rather than to full precision, so it is
// one vector operation shorter than the general Exp of core/Math-inl.h: no upper clamp and 2^n
// comes straight from the reduction's magic sum with a single shift.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_SOFTMAX_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_SOFTMAX_EXP_INL_H_
#undef SIMD_SYNET_SOFTMAX_EXP_INL_H_
#else
#define SIMD_SYNET_SOFTMAX_EXP_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

namespace softmax_exp {
// Lower clamp: n = round(x log2e) stays >= -126 and e^r 2^n stays a normal number (the exact
// value e^-87.33 is 1.2e-38, about FLT_MIN); every clamped term is < 1e-37 of its row maximum.
constexpr float kLo = -87.33f;
// 1.5 * 2^23 + 127: x log2e + kMagicBiased holds n + 127 in its low mantissa bits, so shifting
// its bits left by 23 gives the exponent field of 2^n directly (bit 22 of the magic shifts out).
constexpr float kMagicBiased = 12583039.0f;
// (e^r - 1)/r ~ kPoly[0] + kPoly[1] r + ... on [-ln2/2, ln2/2], fitted for the relative error
// of 1 + r q(r) (least squares iterated toward equal ripple): 9.2e-8 in exact arithmetic.
constexpr float kPoly[] = {9.999997071e-01f, 4.999914949e-01f, 1.666763632e-01f, 4.189793312e-02f,
                           8.290306889e-03f};
}  // namespace softmax_exp

// v = e^v for v <= 0 or NaN (NaN stays NaN: it propagates through the multiplications).
// Operations per vector: clamp, 3 (4 without FMA) for the reduction, 5 multiply-adds, a shift
// and a multiply.
template <size_t K, class D, class V>
HWY_INLINE void SoftmaxExp(D d, V (&v)[K]) {
    const hn::RebindToUnsigned<D> du;
    const V log2e = hn::Set(d, math::kLog2e), magic = hn::Set(d, softmax_exp::kMagicBiased);
    V t[K], r[K];
    SIMD_SYNET_EACH(k, K) {
        v[k] = MaxKeepNaN(d, v[k], softmax_exp::kLo);
        t[k] = hn::MulAdd(v[k], log2e, magic);
    }
    SIMD_SYNET_EACH(k, K) {
        const V n = hn::Sub(t[k], magic);  // exact: |n| <= 126
        if (math::kFusedMulAdd) {
            // One rounding of ln2: error n (kLn2 - ln2) <= 126 * 2e-9 absolute in r.
            r[k] = hn::MulAdd(n, hn::Set(d, -math::kLn2), v[k]);
        } else {
            r[k] = hn::MulAdd(n, hn::Set(d, -math::kLn2Hi), v[k]);
            r[k] = hn::MulAdd(n, hn::Set(d, -math::kLn2Lo), r[k]);
        }
    }
    V p[K];
    SIMD_SYNET_EACH(k, K) p[k] = hn::Set(d, softmax_exp::kPoly[4]);
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, softmax_exp::kPoly[3]));
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, softmax_exp::kPoly[2]));
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, softmax_exp::kPoly[1]));
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, softmax_exp::kPoly[0]));
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, 1.0f));
    SIMD_SYNET_EACH(k, K) {
        // 2^n with n + 127 in [1, 127]: a normal power of two (NaN t gives some finite power,
        // and p is NaN then anyway).
        const V pow2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(du, t[k])));
        v[k] = hn::Mul(p[k], pow2);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
