// Exponential for softmax: e^x only for x <= 0 (inputs minus their row maximum) or NaN, within
// the softmax tolerance (|err| <= 1e-5 |ref| + 1e-6) rather than to full precision. No upper
// clamp, and 2^n comes straight from the reduction's magic sum by a shift. Where a vector holds
// 8 or 16 lanes (AVX2, AVX-512) the reduction goes to multiples of ln2/8 or ln2/16 with a
// register table of 2^(j/S), so a polynomial of degree 2 or 3 suffices; narrower vectors use a
// degree-5 polynomial on [-ln2/2, ln2/2]. All variants stay below 1e-6 relative.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_SOFTMAX_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_SOFTMAX_EXP_INL_H_
#undef SIMD_SYNET_SOFTMAX_EXP_INL_H_
#else
#define SIMD_SYNET_SOFTMAX_EXP_INL_H_
#endif

#include <cstddef>
#include <cstdint>

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
// 1.5 * 2^23 without the exponent bias: the low bits of x S log2e + kMagic hold S m + j as a
// two's complement number (the table variant).
constexpr float kMagic = 12582912.0f;
// (e^r - 1)/r for the table variants, fitted the same way on [-ln2/2S, ln2/2S].
constexpr float kPoly16[] = {1.000058532e+00f, 5.000001192e-01f};
constexpr float kPoly8[] = {1.000000000e+00f, 5.000647902e-01f, 1.666429639e-01f};
}  // namespace softmax_exp

// v = e^v for v <= 0 or NaN (NaN stays NaN: it propagates through the multiplications), by a
// degree-5 polynomial on [-ln2/2, ln2/2]: the variant for vectors too narrow for a table.
// Operations per vector: clamp, 3 (4 without FMA) for the reduction, 5 multiply-adds, a shift
// and a multiply.
template <size_t K, class D, class V>
HWY_INLINE void SoftmaxExpPolynomial(D d, V (&v)[K]) {
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

// The same with a table of 2^(j/S) for S = kSize (8 or 16) lanes, looked up in registers:
// x = (S m + j) ln2/S + r with 0 <= j < S and |r| <= ln2/(2S), so e^x = 2^m 2^(j/S) e^r and e^r
// needs only a degree-2 (S = 16) or degree-3 (S = 8) polynomial. Per vector: clamp, 3 for the
// reduction, 2 or 3 multiply-adds, a mask, a lane permutation, a shift, an integer add and a
// multiply; 2 to 3 fewer multiply-adds than the polynomial variant, and those are the operations
// that limit the softmax kernels (measured on Zen4).
//
// The table holds the bits of 2^(j/S) minus j << (23 - log2 S): the reduction's magic sum has
// S m + j in its low bits, so shifting them left by 23 - log2 S and adding gives the bits of
// 2^m 2^(j/S) directly (m >= -126 after the clamp: a normal number).
template <size_t kSize, size_t K, class D, class V>
HWY_INLINE void SoftmaxExpTable(D d, V (&v)[K]) {
    const hn::RebindToSigned<D> di;
    constexpr int kShift = kSize == 16 ? 19 : 20;
    static_assert(kSize == 8 || kSize == 16, "table of 8 or 16 lanes");
    static_assert(hn::MaxLanes(D()) == kSize, "one table per vector");
    alignas(64) static constexpr int32_t kTable16[16] = {
        0x3F800000, 0x3F7DAAC3, 0x3F7B95C2, 0x3F79C3D3, 0x3F7837F0, 0x3F76F532,
        0x3F75FED7, 0x3F75583F, 0x3F7504F3, 0x3F7508A4, 0x3F75672A, 0x3F76248C,
        0x3F7744FD, 0x3F78CCDF, 0x3F7AC0C7, 0x3F7D257D};
    alignas(32) static constexpr int32_t kTable8[8] = {0x3F800000, 0x3F7B95C2, 0x3F7837F0,
                                                       0x3F75FED7, 0x3F7504F3, 0x3F75672A,
                                                       0x3F7744FD, 0x3F7AC0C7};
    const auto table = hn::Load(di, kSize == 16 ? kTable16 : kTable8);
    const V scale = hn::Set(d, float(kSize) * math::kLog2e);
    const V magic = hn::Set(d, softmax_exp::kMagic);
    // float(ln2)/S is exact, so the error of n ln2/S is n (kLn2 - ln2)/S <= 126 * 2e-9.
    const V ln2 = hn::Set(d, -math::kLn2 / float(kSize));
    V t[K], r[K];
    SIMD_SYNET_EACH(k, K) {
        v[k] = MaxKeepNaN(d, v[k], softmax_exp::kLo);
        t[k] = hn::MulAdd(v[k], scale, magic);
    }
    SIMD_SYNET_EACH(k, K) r[k] = hn::MulAdd(hn::Sub(t[k], magic), ln2, v[k]);
    V p[K];
    if (kSize == 16) {
        // 1 + r q(r) with q of degree 1: 4.8e-7 relative on [-ln2/32, ln2/32].
        SIMD_SYNET_EACH(k, K)
        p[k] = hn::MulAdd(hn::Set(d, softmax_exp::kPoly16[1]), r[k],
                          hn::Set(d, softmax_exp::kPoly16[0]));
    } else {
        // q of degree 2: 8.6e-8 relative on [-ln2/16, ln2/16].
        SIMD_SYNET_EACH(k, K)
        p[k] = hn::MulAdd(hn::Set(d, softmax_exp::kPoly8[2]), r[k],
                          hn::Set(d, softmax_exp::kPoly8[1]));
        SIMD_SYNET_EACH(k, K)
        p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, softmax_exp::kPoly8[0]));
    }
    SIMD_SYNET_EACH(k, K) p[k] = hn::MulAdd(p[k], r[k], hn::Set(d, 1.0f));
    SIMD_SYNET_EACH(k, K) {
        const auto bits = hn::BitCast(di, t[k]);
        const auto index = hn::IndicesFromVec(di, hn::And(bits, hn::Set(di, int32_t(kSize - 1))));
        const auto power = hn::Add(hn::TableLookupLanes(table, index), hn::ShiftLeft<kShift>(bits));
        // NaN input: p is NaN, so is the product whatever the power.
        v[k] = hn::Mul(hn::BitCast(d, power), p[k]);
    }
}

// v = e^v for v <= 0 or NaN, to the softmax tolerance: the table variant where a vector holds
// the table (AVX2, AVX-512 and their 8-lane partial vectors; all have FMA), else the polynomial.
template <size_t K, class D, class V>
HWY_INLINE void SoftmaxExp(D d, V (&v)[K]) {
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    constexpr size_t kLanes = hn::MaxLanes(D());
    if constexpr (math::kFusedMulAdd && (kLanes == 8 || kLanes == 16)) {
        SoftmaxExpTable<kLanes>(d, v);
        return;
    }
#endif
    SoftmaxExpPolynomial(d, v);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
