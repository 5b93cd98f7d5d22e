// The INT8 dot products of the INT8 convolution, per Highway target. Each 32-bit lane of `a`
// holds four unsigned input bytes and the same lane of `w` four signed weights; a Dot adds the
// four products to the lane of the INT32 accumulator:
//
//   DotVnni      VPDPBUSD (AVX512_VNNI, EVEX): exact. Defined in Kernels8i.h, inside the
//                functions compiled with the avx512vnni target attribute (see
//                core/CpuFeatures.h for why Highway's own target cannot be used).
//   DotMaddubs   PMADDUBSW + PMADDWD(1): the two pairs (bytes 0-1, 2-3) are summed in int16 with
//                saturation, which is exact in 8iNarrowed (180 * 90 * 2 < 2^15) and the defined
//                rule of 8iOverflow. x86 SSE4/AVX2/AVX-512 through raw intrinsics (Highway
//                1.0.3 has no op for either instruction).
//   DotSplit     8iPrecise on AVX2/AVX-512 without VNNI: a = (a & 0x7F) + (a & 0x80), each part
//                through PMADDUBSW, whose pairs then always fit int16 (127 * 128 * 2 and
//                128 * 128 * 2): exact at two PMADDUBSW per word.
//   DotWiden<S>  every other SIMD target (NEON, and SSE4 in 8iPrecise and 8iOverflow so that
//                the x86 tests run it): the bytes widened to int16 lanes, exact int16 products
//                (|u8 * s8| <= 32640), pairs summed exactly (S = false) or with saturation.
//   DotScalar<S> the scalar target (1-lane vectors cannot be viewed as int16 pairs).
//
// Each Dot has Prepare(a), done once per input word vector, and Apply(acc, prepared, w).
//
// Accumulators are Acc32, GCC vectors of int32, not Highway's int32 vectors: on x86 those hold
// an __m512i/__m256i/__m128i (vectors of int64 to GCC), and a loop-carried value that changes
// between the two element types at every add made GCC 12 keep each accumulator of a register
// tile in two registers and spill both on every step (the 6x4 VNNI tile: 52 stack accesses per
// step, and the same with PMADDUBSW); with int32 vectors the loops are loads, broadcasts and
// dot products only.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION8I_DOT8I_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION8I_DOT8I_INL_H_
#undef SIMD_SYNET_CONVOLUTION8I_DOT8I_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION8I_DOT8I_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv8i {
namespace hn = hwy::HWY_NAMESPACE;

using D32 = hn::ScalableTag<int32_t>;
using V32 = hn::Vec<D32>;
using Raw32 = decltype(V32().raw);

#if HWY_TARGET == HWY_SCALAR
using Acc32 = int32_t;
HWY_INLINE Acc32 ToAcc(V32 v) {
    return v.raw;
}
HWY_INLINE V32 FromAcc(Acc32 a) {
    return V32{a};
}
#elif HWY_TARGET == HWY_EMU128
// The emulated vectors hold an array, which only GCC converts to a vector by a cast.
typedef int32_t Acc32 __attribute__((vector_size(sizeof(Raw32))));
HWY_INLINE Acc32 ToAcc(V32 v) {
    Acc32 a;
    hwy::CopyBytes<sizeof(a)>(v.raw, &a);
    return a;
}
HWY_INLINE V32 FromAcc(Acc32 a) {
    V32 v;
    hwy::CopyBytes<sizeof(a)>(&a, v.raw);
    return v;
}
#else
typedef int32_t Acc32 __attribute__((vector_size(sizeof(Raw32))));
HWY_INLINE Acc32 ToAcc(V32 v) {
    return (Acc32)v.raw;
}
HWY_INLINE V32 FromAcc(Acc32 a) {
    return V32{(Raw32)a};
}
#endif

// The x86 SIMD targets: PMADDUBSW and the raw conversions and packs (re-evaluated per target).
#undef SIMD_SYNET_INT8_X86
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3)
#define SIMD_SYNET_INT8_X86 1
#else
#define SIMD_SYNET_INT8_X86 0
#endif

#if SIMD_SYNET_INT8_X86
// Per lane: sat16(a0*w0 + a1*w1) + sat16(a2*w2 + a3*w3).
HWY_INLINE V32 PairSums(V32 a, V32 w) {
#if HWY_TARGET == HWY_AVX3
    return V32{_mm512_madd_epi16(_mm512_maddubs_epi16(a.raw, w.raw), _mm512_set1_epi16(1))};
#elif HWY_TARGET == HWY_AVX2
    return V32{_mm256_madd_epi16(_mm256_maddubs_epi16(a.raw, w.raw), _mm256_set1_epi16(1))};
#else
    return V32{_mm_madd_epi16(_mm_maddubs_epi16(a.raw, w.raw), _mm_set1_epi16(1))};
#endif
}

struct DotMaddubs {
    using A = V32;
    static HWY_INLINE A Prepare(V32 a) { return a; }
    static HWY_INLINE Acc32 Apply(Acc32 acc, const A& a, V32 w) {
        return acc + ToAcc(PairSums(a, w));
    }
};

struct DotSplit {
    struct A {
        V32 low, high;
    };
    static HWY_INLINE A Prepare(V32 a) {
        const D32 d;
        return {hn::And(a, hn::Set(d, 0x7F7F7F7F)), hn::And(a, hn::Set(d, int32_t(0x80808080u)))};
    }
    static HWY_INLINE Acc32 Apply(Acc32 acc, const A& a, V32 w) {
        return acc + ToAcc(PairSums(a.low, w)) + ToAcc(PairSums(a.high, w));
    }
};
#endif

#if HWY_TARGET != HWY_SCALAR
template <bool kSaturate>
struct DotWiden {
    using D16 = hn::Repartition<int16_t, D32>;
    using DU16 = hn::Repartition<uint16_t, D32>;
    struct A {
        hn::Vec<D16> even, odd;  // input bytes 0 and 2, 1 and 3 of each lane, as int16
    };
    static HWY_INLINE A Prepare(V32 a) {
        const D16 d16;
        const DU16 du16;
        const auto u = hn::BitCast(du16, a);
        return {hn::BitCast(d16, hn::And(u, hn::Set(du16, 0xFF))),
                hn::BitCast(d16, hn::ShiftRight<8>(u))};
    }
    static HWY_INLINE Acc32 Apply(Acc32 acc, const A& a, V32 w) {
        const D16 d16;
        const D32 d32;
        const auto w16 = hn::BitCast(d16, w);
        const auto even = hn::Mul(a.even, hn::ShiftRight<8>(hn::ShiftLeft<8>(w16)));
        const auto odd = hn::Mul(a.odd, hn::ShiftRight<8>(w16));
        // Low and high int16 of each lane, sign-extended.
        const auto low = [&](hn::Vec<D16> x) HWY_ATTR {
            return hn::ShiftRight<16>(hn::ShiftLeft<16>(hn::BitCast(d32, x)));
        };
        const auto high = [&](hn::Vec<D16> x)
                              HWY_ATTR { return hn::ShiftRight<16>(hn::BitCast(d32, x)); };
        if (kSaturate) {
            const auto pairs = hn::SaturatedAdd(even, odd);  // (byte 0, 1), (byte 2, 3)
            return acc + ToAcc(hn::Add(low(pairs), high(pairs)));
        }
        return acc + ToAcc(hn::Add(hn::Add(low(even), high(even)), hn::Add(low(odd), high(odd))));
    }
};
#else
template <bool kSaturate>
struct DotScalar {
    using A = V32;
    static HWY_INLINE A Prepare(V32 a) { return a; }
    static HWY_INLINE Acc32 Apply(Acc32 acc, const A& a, V32 w) {
        const uint32_t ua = uint32_t(hn::GetLane(a)), uw = uint32_t(hn::GetLane(w));
        int32_t p[4];
        for (int j = 0; j < 4; ++j)
            p[j] = int32_t((ua >> (8 * j)) & 0xFF) * int32_t(int8_t(uint8_t(uw >> (8 * j))));
        auto pair = [](int32_t x) {
            return kSaturate ? (x < -32768 ? -32768 : (x > 32767 ? 32767 : x)) : x;
        };
        return acc + pair(p[0] + p[1]) + pair(p[2] + p[3]);
    }
};
#endif

}  // namespace conv8i
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
