// Whole-vector lane shifts: the vector k elements further along an array, built from the two
// vectors at vector boundaries that hold it, for stencils that would otherwise load at x + 1,
// x + 2, ... (convolution/ConvolutionDepthwise.cpp).
//
// Why not an unaligned load: a load that crosses a 64-byte line is split in two, and Zen 5 runs
// split 512-bit loads at a fraction of the normal rate; a 3x3 stencil's taps at x + 1 and x + 2
// cross a line at almost every position. Measured on Zen 5 (L1-resident 3x3 stride-1 block of
// 4 rows): 76-86 GFLOP/s with three unaligned loads per row, 184 with two loads and two shifts.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_SHIFT_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_SHIFT_LANES_INL_H_
#undef SIMD_SYNET_CORE_SHIFT_LANES_INL_H_
#else
#define SIMD_SYNET_CORE_SHIFT_LANES_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether ShiftInLanes exists for vectors of D (at least one whole 128-bit block).
template <class D>
constexpr bool kCanShiftInLanes = (HWY_TARGET != HWY_SCALAR) &&
                                  (hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) >= 16);

// Lanes [k, k + N) of the concatenation lo, hi (lo's lane 0 first) of two N-lane vectors,
// 0 < k < N. Highway 1.0.3 shifts lanes across two vectors only within 128-bit blocks, so wider
// vectors first pair each block of lo with the next block: for 256 bits that pairing is
// ConcatLowerUpper; for 512 bits it is a one-block VALIGND, which no Highway 1.0.3 op expresses,
// so the whole shift is one raw VALIGND there.
template <int k, class D>
HWY_INLINE hn::Vec<D> ShiftInLanes(D d, hn::Vec<D> lo, hn::Vec<D> hi) {
    static_assert(kCanShiftInLanes<D>, "needs whole 128-bit blocks");
    constexpr size_t kBytes = hn::MaxLanes(D()) * sizeof(hn::TFromD<D>);
    static_assert(k > 0 && size_t(k) < hn::MaxLanes(D()), "shift within one vector");
#if HWY_TARGET == HWY_SCALAR
    (void)d;
    return lo;  // unreachable: the static_assert above rejects every scalar descriptor
#else
    if constexpr (kBytes == 16) {
        return hn::CombineShiftRightLanes<k>(d, hi, lo);
    } else if constexpr (kBytes == 32) {
        // mid = lo's upper block, hi's lower block: each block of lo (or of mid) then needs only
        // the lanes of the block after it.
        constexpr int kBlock = int(16 / sizeof(hn::TFromD<D>));
        const hn::Vec<D> mid = hn::ConcatLowerUpper(d, hi, lo);
        if constexpr (k < kBlock) return hn::CombineShiftRightLanes<k>(d, mid, lo);
        if constexpr (k == kBlock) return mid;
        if constexpr (k > kBlock) return hn::CombineShiftRightLanes<k - kBlock>(d, hi, mid);
    } else {
#if HWY_TARGET <= HWY_AVX3
        static_assert(sizeof(hn::TFromD<D>) == 4, "32-bit lanes");
        const hn::RebindToUnsigned<D> du;
        const hn::Vec512<uint32_t> shifted{
            _mm512_alignr_epi32(hn::BitCast(du, hi).raw, hn::BitCast(du, lo).raw, k)};
        return hn::BitCast(d, shifted);
#else
        static_assert(kBytes <= 32, "no wider vectors on this target");
        return lo;
#endif
    }
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
