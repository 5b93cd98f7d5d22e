// exp, expm1, log, log1p and tanh of FP32 vectors in plain Highway ops.
//
// Why not hwy/contrib/math: its Exp costs about twice as many vector operations (float->int
// conversion and a two-step 2^n), which halves the speed of sigmoid-like kernels, and it returns
// 0 for NaN. These versions have a relative error below 1e-6 (far inside the 1e-5 the
// activations promise) and give IEEE results for the special inputs: NaN -> NaN, overflow ->
// +inf, 0 -> -inf for log, and so on.
//
// Groups of vectors: every function transforms K independent vectors in place, operation by
// operation (v[0..K) step 1, then v[0..K) step 2, ...). Each vector is one long dependency chain
// (softplus: ~20 multiply-adds of 4 cycles each), and the out-of-order window of current x86
// cores appears to hold only a few such chains when they come one after another in program order;
// GCC does not interleave them itself on x86. Written in lockstep, K chains run side by side
// (activation/GroupLoop-inl.h uses K = 8, or 4 with 512-bit vectors) and the kernels get much
// closer to the multiply-add throughput (softplus on AVX2 on Zen4: about 1.8 -> 2.4
// elements/ns). K = 1 gives the plain single-vector function (tails).
//
// Scheme of the exponentials: n = round(x / ln 2) by adding a "magic" 1.5 * 2^23 (the FP32 adder
// rounds to an integer and leaves n in the low mantissa bits, so no float->int conversion is
// needed); r = x - n*ln2 in [-ln2/2, ln2/2]; e^r by a polynomial (Horner: fewest operations);
// 2^n by adding the exponent bias to the bits of the magic sum and shifting them into the
// exponent field.
//
// Coefficients are Chebyshev fits (mpmath.chebyfit, rounded to FP32) of (e^r - 1)/r on
// [-ln2/2, ln2/2], log1p(f)/f on [sqrt(1/2) - 1, sqrt(2) - 1] and log1p(t)/t on [0, 1].
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_MATH_INL_H_
#undef SIMD_SYNET_CORE_MATH_INL_H_
#else
#define SIMD_SYNET_CORE_MATH_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "core/MinMax-inl.h"
#include "hwy/highway.h"

// `for (k = 0; k < K; ++k)`, fully unrolled: the body is one operation on vector k of a group.
#ifndef SIMD_SYNET_EACH
#define SIMD_SYNET_EACH(k, K) _Pragma("GCC unroll 16") for (size_t k = 0; k < (K); ++k)
#endif

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace math {
// Whether hn::MulAdd is a fused multiply-add on this target (Highway emulates it with a
// multiply and an add on SSE4, the scalar fallback, 32-bit Arm and WebAssembly).
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || \
    (HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128)
constexpr bool kFusedMulAdd = true;
#else
constexpr bool kFusedMulAdd = false;
#endif

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2 = 0.693147180559945309f;
// ln 2 = kLn2Hi + kLn2Lo; kLn2Hi has 9 significant bits so n*kLn2Hi is exact for |n| < 2^15
// even without FMA (Cody-Waite).
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
// 1.5 * 2^23: x + kMagic rounds x to an integer held in the low mantissa bits.
constexpr float kMagic = 12582912.0f;
constexpr int32_t kSqrtHalfBits = 0x3F3504F3;

// (e^r - 1)/r ~ kExp[0] + kExp[1] r + ... on [-ln2/2, ln2/2]; relative error 5e-7.
constexpr float kExp[] = {1.0f, 4.999937117e-01f, 1.666657776e-01f, 4.187564552e-02f,
                          8.363173343e-03f};
// log1p(f)/f on [sqrt(1/2) - 1, sqrt(2) - 1]; relative error 2.2e-7.
constexpr float kLog[] = {9.999999404e-01f, -5.000037551e-01f, 3.333460689e-01f, -2.496890724e-01f,
                          1.991334856e-01f, -1.727820635e-01f, 1.612624824e-01f, -9.895350784e-02f};
// log1p(t)/t on [0, 1]; relative error 2.4e-7.
constexpr float kLog1pUnit[] = {9.999997616e-01f,  -4.999717474e-01f, 3.327192962e-01f,
                                -2.447477430e-01f, 1.768747717e-01f,  -1.068500280e-01f,
                                4.349390045e-02f,  -8.371152915e-03f};
constexpr size_t kLog1pUnitCount = sizeof(kLog1pUnit) / sizeof(kLog1pUnit[0]);

// Input bounds of Exp. Below kExpLo the result is 0 (the exact value is below 1.7e-38); above
// kExpHi it is +inf (the overflow threshold ln(FLT_MAX) is 88.72284).
constexpr float kExpLo = -87.5f;
constexpr float kExpHi = 88.8f;
// Input bound of ExpM1Clamped: beyond +-40, tanh and expm1 + 1 are 1 and 0 in FP32.
constexpr float kExpM1Bound = 40.0f;
}  // namespace math

// p[k] = c[0] + c[1] x[k] + ... + c[N-1] x[k]^(N-1) (Horner), each coefficient multiplied by
// `scale` (folded into the constants when the scale is a compile-time value).
template <size_t K, size_t N, class D, class V>
HWY_INLINE void Horner(D d, const V (&x)[K], const float* c, float scale, V (&p)[K]) {
    SIMD_SYNET_EACH(k, K) p[k] = hn::Set(d, c[N - 1] * scale);
    _Pragma("GCC unroll 16") for (size_t i = N - 1; i > 0; --i) {
        const V ci = hn::Set(d, c[i - 1] * scale);
        SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], x[k], ci);
    }
}

// The reduction shared by the exponentials: t[k] = magic sum (n in its low mantissa bits) and
// r[k] = x[k] - n*ln2. |x| must stay below 2^21 (callers clamp to |x| < 90).
template <size_t K, class D, class V>
HWY_INLINE void ExpReduce(D d, const V (&x)[K], V (&t)[K], V (&r)[K]) {
    const V log2e = hn::Set(d, math::kLog2e), magic = hn::Set(d, math::kMagic);
    SIMD_SYNET_EACH(k, K) t[k] = hn::MulAdd(x[k], log2e, magic);
    V n[K];
    SIMD_SYNET_EACH(k, K) n[k] = hn::Sub(t[k], magic);
    if (math::kFusedMulAdd) {
        // One rounding: the error is n*(kLn2 - ln2) <= 128 * 2e-9, i.e. 2.4e-7 relative.
        SIMD_SYNET_EACH(k, K) r[k] = hn::MulAdd(n[k], hn::Set(d, -math::kLn2), x[k]);
    } else {
        SIMD_SYNET_EACH(k, K) r[k] = hn::MulAdd(n[k], hn::Set(d, -math::kLn2Hi), x[k]);
        SIMD_SYNET_EACH(k, K) r[k] = hn::MulAdd(n[k], hn::Set(d, -math::kLn2Lo), r[k]);
    }
}

// 2^(n + kBias - 127) from the magic sum t of ExpReduce.
template <int kBias, class D, class V>
HWY_INLINE V Pow2FromMagic(D d, V t) {
    const hn::RebindToUnsigned<D> du;
    // (bits(magic) + n + kBias) << 23: the magic's own bits (lowest set bit 22) shift out.
    return hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::BitCast(du, t), hn::Set(du, kBias))));
}

// v = e^v for v already inside [kExpLo, kExpHi] (or NaN).
template <size_t K, class D, class V>
HWY_INLINE void ExpClamped(D d, V (&v)[K]) {
    V t[K], r[K], p[K];
    ExpReduce(d, v, t, r);
    // e^x = (2 e^r) * 2^(n-1): n reaches 128 just below the overflow threshold, and 2^(n-1)
    // keeps the biased exponent n + 126 inside [0, 254] for every clamped x. n = -126 gives an
    // all-zero pattern, i.e. exactly 0, never a denormal.
    Horner<K, 5>(d, r, math::kExp, 2.0f, p);
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(r[k], p[k], hn::Set(d, 2.0f));
    SIMD_SYNET_EACH(k, K) v[k] = hn::Mul(p[k], Pow2FromMagic<126>(d, t[k]));
}

// v = e^v for every input: NaN -> NaN, +inf and v > ln(FLT_MAX) -> +inf, -inf and v < -87.5 -> 0.
template <size_t K, class D, class V>
HWY_INLINE void Exp(D d, V (&v)[K]) {
    SIMD_SYNET_EACH(k, K)
    v[k] = MaxKeepNaN(d, MinKeepNaN(d, v[k], math::kExpHi), math::kExpLo);
    ExpClamped(d, v);
}

// v = e^v - 1 for v inside [-kExpM1Bound, kExpM1Bound] (or NaN), accurate in relative terms near
// 0: with n = 0 the result is r*(e^r - 1)/r itself, with no cancellation against 1.
template <size_t K, class D, class V>
HWY_INLINE void ExpM1Clamped(D d, V (&v)[K]) {
    V t[K], r[K], p[K];
    ExpReduce(d, v, t, r);
    Horner<K, 5>(d, r, math::kExp, 1.0f, p);
    SIMD_SYNET_EACH(k, K) p[k] = hn::Mul(r[k], p[k]);
    // 2^n e^r - 1 = 2^n (e^r - 1) + (2^n - 1); 2^n - 1 is exact for the small n that matter.
    SIMD_SYNET_EACH(k, K) {
        const V scale = Pow2FromMagic<127>(d, t[k]);  // 2^n, exact
        v[k] = hn::MulAdd(scale, p[k], hn::Sub(scale, hn::Set(d, 1.0f)));
    }
}

// v = log(v) for every input: 0 -> -inf, v < 0 -> NaN, +inf -> +inf, NaN -> NaN; denormals
// are scaled by 2^23 first.
template <size_t K, class D, class V>
HWY_INLINE void Log(D d, V (&v)[K]) {
    const hn::RebindToSigned<D> di;
    V e[K], f[K], p[K];
    SIMD_SYNET_EACH(k, K) {
        const auto tiny = hn::Lt(v[k], hn::Set(d, 1.17549435e-38f));  // below FLT_MIN, incl. <= 0
        const V xs = hn::IfThenElse(tiny, hn::Mul(v[k], hn::Set(d, 8388608.0f)), v[k]);
        // x = 2^e * m with m in [sqrt(1/2), sqrt(2)): subtracting the bits of sqrt(1/2) makes
        // the exponent field step exactly where m crosses sqrt(1/2).
        const auto shifted = hn::Sub(hn::BitCast(di, xs), hn::Set(di, math::kSqrtHalfBits));
        e[k] = hn::Sub(hn::ConvertTo(d, hn::ShiftRight<23>(shifted)),
                       hn::IfThenElseZero(tiny, hn::Set(d, 23.0f)));
        const V m = hn::BitCast(d, hn::Add(hn::And(shifted, hn::Set(di, 0x007FFFFF)),
                                           hn::Set(di, math::kSqrtHalfBits)));
        f[k] = hn::Sub(m, hn::Set(d, 1.0f));  // exact (Sterbenz)
    }
    Horner<K, 8>(d, f, math::kLog, 1.0f, p);
    SIMD_SYNET_EACH(k, K) {
        V result = hn::MulAdd(e[k], hn::Set(d, math::kLn2), hn::Mul(f[k], p[k]));
        const V inf = hn::Inf(d);
        result = hn::IfThenElse(hn::Eq(v[k], inf), inf, result);
        result = hn::IfThenElse(hn::Eq(v[k], hn::Zero(d)), hn::Neg(inf), result);
        // x < 0 and NaN fail x >= 0.
        v[k] = hn::IfThenElse(hn::Ge(v[k], hn::Zero(d)), result, hn::NaN(d));
    }
}

// p[k] = log1p(t[k])/t[k] * factor for t in [0, 1] (or NaN, which propagates), where
// `coefficients` holds the kLog1pUnitCount values math::kLog1pUnit[i] * factor (filled by
// ScaledLog1pUnit): log(1 + t) * factor = t * p.
inline void ScaledLog1pUnit(float factor, float* coefficients) {
    for (size_t i = 0; i < math::kLog1pUnitCount; ++i)
        coefficients[i] = math::kLog1pUnit[i] * factor;
}
template <size_t K, class D, class V>
HWY_INLINE void Log1pUnitOverT(D d, const V (&t)[K], const float* coefficients, V (&p)[K]) {
    Horner<K, math::kLog1pUnitCount>(d, t, coefficients, 1.0f, p);
}

// v = tanh(v) = sign(v) * E/(E + 2) with E = expm1(2|v|): accurate near 0 (no 1 - 2/(e+1)
// cancellation) and exactly +-1 for large |v| (2|v| is clamped at 40, where E/(E+2) rounds to 1;
// no inf/inf). NaN -> NaN, -0 -> -0.
template <size_t K, class D, class V>
HWY_INLINE void Tanh(D d, V (&v)[K]) {
    V e[K];
    SIMD_SYNET_EACH(k, K) {
        const V a = hn::Abs(v[k]);
        e[k] = MinKeepNaN(d, hn::Add(a, a), math::kExpM1Bound);
    }
    ExpM1Clamped(d, e);
    SIMD_SYNET_EACH(k, K)
    v[k] = hn::CopySignToAbs(hn::Div(e[k], hn::Add(e[k], hn::Set(d, 2.0f))), v[k]);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CORE_MATH_INL_H_
