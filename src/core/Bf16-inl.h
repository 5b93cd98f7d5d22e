// Loads and stores of FP32 and BF16 values as FP32 vectors (ABI.md "BF16": a BF16 value is the
// upper half of an FP32 pattern; FP32 -> BF16 rounds to nearest even, a NaN stays a NaN).
// Overloaded on the element type, so a kernel templated on the tensor type reads and writes
// either with the same code. Shared by the families that take BF16 tensors (normalization,
// deconvolution).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_BF16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_BF16_INL_H_
#undef SIMD_SYNET_CORE_BF16_INL_H_
#else
#define SIMD_SYNET_CORE_BF16_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D>
HWY_INLINE hn::Vec<D> LoadF(D d, const float* p) {
    return hn::LoadU(d, p);
}
// BF16 -> FP32 is exact: the 16 bits become the upper half of the FP32 pattern.
template <class D>
HWY_INLINE hn::Vec<D> LoadF(D d, const uint16_t* p) {
    const hn::Rebind<uint16_t, D> du16;
    const hn::RebindToUnsigned<D> du32;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
}
template <class D>
HWY_INLINE void StoreF(D d, hn::Vec<D> v, float* p) {
    hn::StoreU(v, d, p);
}
// FP32 -> BF16, round to nearest even (add 0x7FFF plus the lowest kept bit, keep the upper half).
// A NaN keeps its upper half with the quiet bit set: the rounding add could carry a NaN payload
// into the sign bit or turn it into an infinity.
template <class D>
HWY_INLINE void StoreF(D, hn::Vec<D> v, uint16_t* p) {
    const hn::Rebind<uint16_t, D> du16;
    const hn::RebindToUnsigned<D> du32;
    const hn::RebindToSigned<D> di32;
    const auto bits = hn::BitCast(du32, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
    const auto rounded = hn::ShiftRight<16>(hn::Add(hn::Add(bits, hn::Set(du32, 0x7FFFu)), lsb));
    const auto quiet = hn::ShiftRight<16>(hn::Or(bits, hn::Set(du32, 0x00400000u)));
    const auto result = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), quiet, rounded);
    // Every lane is below 2^16, so the saturating demotion is exact.
    hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, result)), du16, p);
}

// v rounded to BF16 by the same rule, kept as FP32 (the lower 16 bits are zero): the value a
// BF16 store followed by a load would give, without the round trip through memory.
template <class D>
HWY_INLINE hn::Vec<D> RoundToBf16(D d, hn::Vec<D> v) {
    const hn::RebindToUnsigned<D> du32;
    const auto bits = hn::BitCast(du32, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
    const auto rounded = hn::Add(hn::Add(bits, hn::Set(du32, 0x7FFFu)), lsb);
    const auto quiet = hn::Or(bits, hn::Set(du32, 0x00400000u));
    const auto result = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), quiet, rounded);
    return hn::BitCast(d, hn::And(result, hn::Set(du32, 0xFFFF0000u)));
}

// dst[i] = src[i] converted (FP32 -> FP32 copies, FP32 -> BF16 rounds, BF16 -> FP32 widens).
template <class S, class T>
HWY_INLINE void ConvertRow(const S* src, size_t n, T* dst) {
    const hn::ScalableTag<float> d;
    const hn::CappedTag<float, 1> d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + 2 * L <= n; i += 2 * L) {
        StoreF(d, LoadF(d, src + i), dst + i);
        StoreF(d, LoadF(d, src + i + L), dst + i + L);
    }
    for (; i + L <= n; i += L) StoreF(d, LoadF(d, src + i), dst + i);
    for (; i < n; ++i) StoreF(d1, LoadF(d1, src + i), dst + i);
}

// dst[i] = the FP32 value of src[i] rounded to BF16 (in place allowed).
HWY_INLINE void RoundRowToBf16(const float* src, size_t n, float* dst) {
    const hn::ScalableTag<float> d;
    const hn::CappedTag<float, 1> d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(RoundToBf16(d, hn::LoadU(d, src + i)), d, dst + i);
    for (; i < n; ++i) hn::StoreU(RoundToBf16(d1, hn::LoadU(d1, src + i)), d1, dst + i);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
