// Tails made of partial vectors: the last n < Lanes(DF()) elements of a row are covered by at
// most one partial vector each of 8, 4, 2 and 1 lanes (only widths narrower than a full
// vector), so a 21-element row on AVX-512 costs 16 + 4 + 1 lanes in three steps instead of
// one full vector and five 1-lane steps. Partial vectors load and store exactly their lanes,
// so nothing outside the arrays is touched. Shared by the softmax, LRN and inner-product
// kernels.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_SOFTMAX_PARTIAL_TAIL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_SOFTMAX_PARTIAL_TAIL_INL_H_
#undef SIMD_SYNET_SOFTMAX_PARTIAL_TAIL_INL_H_
#else
#define SIMD_SYNET_SOFTMAX_PARTIAL_TAIL_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

template <size_t kCap, class Step>
HWY_INLINE void PartialTailStep(size_t& i, size_t n, const Step& step) {
    const hn::CappedTag<float, kCap> dc;
    // Only widths that exist as such on this target and are narrower than a full vector.
    if (hn::Lanes(dc) == kCap && kCap < hn::Lanes(DF()) && n - i >= kCap) {
        step(dc, i);
        i += kCap;
    }
}

// Calls step(dc, offset) for partial-vector descriptors dc covering [i, n); requires
// n - i < Lanes(DF()). On the scalar target (one-lane vectors) there is never a tail.
template <class Step>
HWY_INLINE void PartialTail(size_t i, size_t n, const Step& step) {
    PartialTailStep<8>(i, n, step);
    PartialTailStep<4>(i, n, step);
    PartialTailStep<2>(i, n, step);
    PartialTailStep<1>(i, n, step);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_SOFTMAX_PARTIAL_TAIL_INL_H_
