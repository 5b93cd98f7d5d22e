// exp, expm1, log, log1p and tanh of FP32 vectors in plain Highway ops.
//
// Why not hwy/contrib/math: its Exp costs about twice as many vector operations (it converts
// float to int and back and builds 2^n in two steps), which halves the speed of sigmoid-like
// kernels, and it returns 0 for NaN. These versions are accurate to a few units in the last
// place (relative error below 5e-7, far inside the 1e-5 the activations promise) and give IEEE
// results for the special inputs: NaN -> NaN, overflow -> +inf, 0 -> -inf for log, and so on.
//
// Common scheme of the exponentials: n = round(x / ln 2) by adding a "magic" 1.5 * 2^23 (the
// FP32 adder rounds to an integer and leaves n in the low mantissa bits, so no float->int
// conversion is needed), r = x - n*ln2 by Cody-Waite reduction with a 9-bit high part (exact
// product with or without FMA), e^r by a polynomial on [-ln2/2, ln2/2], and 2^n by adding the
// exponent bias to the mantissa bits of the magic sum and shifting them into the exponent field.
//
// Coefficients are Chebyshev fits (mpmath.chebyfit, then rounded to FP32) of
// (e^r - 1)/r on [-ln2/2, ln2/2] and of log1p(f)/f on [sqrt(1/2) - 1, sqrt(2) - 1].
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_MATH_INL_H_
#undef SIMD_SYNET_CORE_MATH_INL_H_
#else
#define SIMD_SYNET_CORE_MATH_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace math {
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2 = 0.693147180559945309f;
// ln 2 = kLn2Hi + kLn2Lo; kLn2Hi has 9 significant bits so n*kLn2Hi is exact for |n| < 2^15.
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
// 1.5 * 2^23: x + kMagic rounds x to an integer held in the low mantissa bits.
constexpr float kMagic = 12582912.0f;
constexpr int32_t kMagicBits = 0x4B400000;
constexpr float kSqrtHalf = 0.707106781186547524f;
constexpr int32_t kSqrtHalfBits = 0x3F3504F3;

// (e^r - 1)/r ~ S0 + S1 r + ... + S5 r^5 on [-ln2/2, ln2/2], relative error 2.5e-8.
constexpr float kS0 = 1.0f, kS1 = 0.5f, kS2 = 1.666650474e-01f, kS3 = 4.166646674e-02f,
                kS4 = 8.369148709e-03f, kS5 = 1.393364160e-03f;
// log1p(f)/f ~ L0 + L1 f + ... + L7 f^7 on [sqrt(1/2) - 1, sqrt(2) - 1], relative error 2.2e-7.
constexpr float kL0 = 9.999999404e-01f, kL1 = -5.000037551e-01f, kL2 = 3.333460689e-01f,
                kL3 = -2.496890724e-01f, kL4 = 1.991334856e-01f, kL5 = -1.727820635e-01f,
                kL6 = 1.612624824e-01f, kL7 = -9.895350784e-02f;
}  // namespace math

// min(x, limit) and max(x, limit) that return x itself when x is NaN, so that clamping the
// input of a kernel never turns NaN into a number. On x86 MINPS/MAXPS return their second
// operand when either is NaN (an ISA guarantee; Highway maps Min/Max to them directly); other
// targets (the scalar one returns the non-NaN operand) compare and select.
template <class D, class V>
HWY_INLINE V MinKeepNaN(D d, V x, float limit) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    return hn::Min(hn::Set(d, limit), x);
#else
    return hn::IfThenElse(hn::Gt(x, hn::Set(d, limit)), hn::Set(d, limit), x);
#endif
}
template <class D, class V>
HWY_INLINE V MaxKeepNaN(D d, V x, float limit) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    return hn::Max(hn::Set(d, limit), x);
#else
    return hn::IfThenElse(hn::Lt(x, hn::Set(d, limit)), hn::Set(d, limit), x);
#endif
}

// The reduction shared by the exponentials: returns the magic sum t (n in its low mantissa
// bits) and r = x - n*ln2 in *r. |x| must stay below 2^21 (callers clamp).
template <class D, class V>
HWY_INLINE V ExpReduce(D d, V x, V* r) {
    const V t = hn::MulAdd(x, hn::Set(d, math::kLog2e), hn::Set(d, math::kMagic));
    const V n = hn::Sub(t, hn::Set(d, math::kMagic));
    *r = hn::MulAdd(n, hn::Set(d, -math::kLn2Lo), hn::MulAdd(n, hn::Set(d, -math::kLn2Hi), x));
    return t;
}

// 2^(n + bias - 127) from the magic sum t of ExpReduce.
template <int kBias, class D, class V>
HWY_INLINE V Pow2FromMagic(D d, V t) {
    const hn::RebindToSigned<D> di;
    // (kMagicBits + n + kBias) << 23: the magic's own bits shift out of the 32-bit lane.
    return hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::BitCast(di, t), hn::Set(di, kBias))));
}

// (e^r - 1)/r scaled by `scale` (1 or 2, applied to the coefficients at compile time).
template <class D, class V>
HWY_INLINE V ExpM1OverR(D d, V r, float scale) {
    V p = hn::MulAdd(hn::Set(d, math::kS5 * scale), r, hn::Set(d, math::kS4 * scale));
    p = hn::MulAdd(p, r, hn::Set(d, math::kS3 * scale));
    p = hn::MulAdd(p, r, hn::Set(d, math::kS2 * scale));
    p = hn::MulAdd(p, r, hn::Set(d, math::kS1 * scale));
    return hn::MulAdd(p, r, hn::Set(d, math::kS0 * scale));
}

// Lower and upper input bounds of Exp. Below kExpLo the result is 0 (the exact value is below
// 1.7e-38); above kExpHi it is +inf (the overflow threshold ln(FLT_MAX) is 88.72284).
constexpr float kExpLo = -87.5f;
constexpr float kExpHi = 88.8f;

// e^x for x already inside [kExpLo, kExpHi] (or NaN).
template <class D, class V>
HWY_INLINE V ExpClamped(D d, V x) {
    V r;
    const V t = ExpReduce(d, x, &r);
    // e^x = (2 e^r) * 2^(n-1): n reaches 128 just below the overflow threshold, and 2^(n-1)
    // keeps the biased exponent n + 126 inside [0, 254] for every clamped x. n = -126 gives
    // an all-zero pattern, i.e. 0, which is the intended flush below ~-87.
    const V twiceExpR = hn::MulAdd(r, ExpM1OverR(d, r, 2.0f), hn::Set(d, 2.0f));
    return hn::Mul(twiceExpR, Pow2FromMagic<126>(d, t));
}

// e^x for every x: NaN -> NaN, +inf and x > ln(FLT_MAX) -> +inf, -inf and x < -87.5 -> 0.
template <class D, class V>
HWY_INLINE V Exp(D d, V x) {
    return ExpClamped(d, MaxKeepNaN(d, MinKeepNaN(d, x, kExpHi), kExpLo));
}

// e^x - 1 for x inside [-kExpM1Bound, kExpM1Bound] (or NaN), accurate in relative terms near
// 0: with n = 0 the result is r*(e^r - 1)/r itself, with no cancellation against 1.
constexpr float kExpM1Bound = 40.0f;
template <class D, class V>
HWY_INLINE V ExpM1Clamped(D d, V x) {
    V r;
    const V t = ExpReduce(d, x, &r);
    const V scale = Pow2FromMagic<127>(d, t);  // 2^n, exact
    const V q = hn::Mul(r, ExpM1OverR(d, r, 1.0f));
    // 2^n e^r - 1 = 2^n (e^r - 1) + (2^n - 1); 2^n - 1 is exact for the small n that matter.
    return hn::MulAdd(scale, q, hn::Sub(scale, hn::Set(d, 1.0f)));
}

// log1p(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1].
template <class D, class V>
HWY_INLINE V Log1pReduced(D d, V f) {
    V p = hn::MulAdd(hn::Set(d, math::kL7), f, hn::Set(d, math::kL6));
    p = hn::MulAdd(p, f, hn::Set(d, math::kL5));
    p = hn::MulAdd(p, f, hn::Set(d, math::kL4));
    p = hn::MulAdd(p, f, hn::Set(d, math::kL3));
    p = hn::MulAdd(p, f, hn::Set(d, math::kL2));
    p = hn::MulAdd(p, f, hn::Set(d, math::kL1));
    p = hn::MulAdd(p, f, hn::Set(d, math::kL0));
    return hn::Mul(p, f);
}

// Natural logarithm for every x: 0 -> -inf, x < 0 -> NaN, +inf -> +inf, NaN -> NaN;
// denormals are scaled by 2^23 first.
template <class D, class V>
HWY_INLINE V Log(D d, V x) {
    const hn::RebindToSigned<D> di;
    using VI = hn::Vec<decltype(di)>;
    const auto tiny = hn::Lt(x, hn::Set(d, 1.17549435e-38f));  // below FLT_MIN, incl. <= 0
    const V xs = hn::IfThenElse(tiny, hn::Mul(x, hn::Set(d, 8388608.0f)), x);
    // x = 2^e * m with m in [sqrt(1/2), sqrt(2)): subtracting the bits of sqrt(1/2) makes the
    // exponent field step exactly where m crosses sqrt(1/2).
    const VI shifted = hn::Sub(hn::BitCast(di, xs), hn::Set(di, math::kSqrtHalfBits));
    const V e = hn::Sub(hn::ConvertTo(d, hn::ShiftRight<23>(shifted)),
                        hn::IfThenElseZero(tiny, hn::Set(d, 23.0f)));
    const V m = hn::BitCast(
        d, hn::Add(hn::And(shifted, hn::Set(di, 0x007FFFFF)), hn::Set(di, math::kSqrtHalfBits)));
    const V f = hn::Sub(m, hn::Set(d, 1.0f));  // exact (Sterbenz)
    V result = hn::MulAdd(e, hn::Set(d, math::kLn2), Log1pReduced(d, f));
    const V inf = hn::Inf(d);
    result = hn::IfThenElse(hn::Eq(x, inf), inf, result);
    result = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), result);
    // x < 0 and NaN fail x >= 0.
    return hn::IfThenElse(hn::Ge(x, hn::Zero(d)), result, hn::NaN(d));
}

// log(1 + t) for t in [0, 1] (or NaN, which propagates), without forming 1 + t: for
// t <= sqrt(2) - 1 it is log1p(t) directly, above it ln2 + log1p((t - 1)/2).
template <class D, class V>
HWY_INLINE V Log1pUnit(D d, V t) {
    const auto upper = hn::Gt(t, hn::Set(d, math::kSqrtHalf * 2.0f - 1.0f));
    const V f = hn::IfThenElse(upper, hn::MulAdd(t, hn::Set(d, 0.5f), hn::Set(d, -0.5f)), t);
    return hn::Add(Log1pReduced(d, f), hn::IfThenElseZero(upper, hn::Set(d, math::kLn2)));
}

// tanh(x) = sign(x) * E/(E + 2) with E = expm1(2|x|): accurate near 0 (no 1 - 2/(e+1)
// cancellation) and exactly +-1 for large |x| (2|x| is clamped at 40, where E/(E+2) rounds to 1;
// no inf/inf). NaN -> NaN, -0 -> -0.
template <class D, class V>
HWY_INLINE V Tanh(D d, V x) {
    const V a = hn::Abs(x);
    const V e = ExpM1Clamped(d, MinKeepNaN(d, hn::Add(a, a), kExpM1Bound));
    return hn::CopySignToAbs(hn::Div(e, hn::Add(e, hn::Set(d, 2.0f))), x);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CORE_MATH_INL_H_
