// The taps of 3x3 kernels with one column of left padding along NCHW rows, per Highway target:
// the three tap vectors of one vector of output columns. Stride 2 reads two source vectors and
// deinterleaves them in registers; stride 1 reads the vectors one column left and right of the
// outputs' own, with the padding zero shifted in at the row's ends. Shared by the depthwise
// NCHW convolution (ConvolutionDepthwise.cpp) and the NCHW row convolution of first layers
// (ConvolutionNchwRows.cpp).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_ROW_TAPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_ROW_TAPS_INL_H_
#undef SIMD_SYNET_CONVOLUTION_ROW_TAPS_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_ROW_TAPS_INL_H_
#endif

#include <cstddef>

#include "core/ShiftLanes-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {
namespace hn = hwy::HWY_NAMESPACE;

// The three taps of output columns [x0, x0 + lanes) of a 3x3 stride-2 kernel with one column
// of left padding in source row `row`: source columns 2x - 1 (left), 2x (mid), 2x + 1 (right).
// mid and right are the even and odd lanes of the two vectors at 2 x0; left is right moved up
// one lane, its lowest lane the last of the vector before (aligned, just read by the previous
// column vector) or the padding zero at x0 = 0 (kFirst).
template <class V>
struct Taps3 {
    V left, mid, right;
};
template <bool kFirst, class DV>
HWY_INLINE Taps3<hn::Vec<DV>> Taps3x3s2(DV dv, const float* HWY_RESTRICT row, size_t x0) {
    constexpr size_t L = hn::MaxLanes(DV());
    const float* s = row + 2 * x0;
    if constexpr (L == 1) {
        return {kFirst ? hn::Zero(dv) : hn::LoadU(dv, s - 1), hn::LoadU(dv, s),
                hn::LoadU(dv, s + 1)};
    } else {
#if HWY_TARGET != HWY_SCALAR  // whose 1-lane vectors have no ConcatEven / ConcatOdd
        const auto lo = hn::LoadU(dv, s), hi = hn::LoadU(dv, s + L);
        const auto right = hn::ConcatOdd(dv, hi, lo);
        return {ShiftInLanes<int(L) - 1>(dv, kFirst ? hn::Zero(dv) : hn::LoadU(dv, s - L), right),
                hn::ConcatEven(dv, hi, lo), right};
#endif
    }
}

// The three taps of output columns [x0, x0 + lanes) of a 3x3 stride-1 kernel with one column
// of padding on each side (output row as wide as the source row): source columns x - 1, x and
// x + 1. kFirst (x0 = 0): the left tap is the own vector moved up one lane after the padding
// zero; kLast (x0 + lanes = the row's width): the right tap is the own vector moved down one
// lane before the padding zero. Elsewhere both are loads one column off.
template <bool kFirst, bool kLast, class DV>
HWY_INLINE Taps3<hn::Vec<DV>> Taps3x3s1(DV dv, const float* HWY_RESTRICT row, size_t x0) {
    constexpr size_t L = hn::MaxLanes(DV());
    const float* s = row + x0;
    const auto mid = hn::LoadU(dv, s);
    if constexpr (L == 1) {
        return {kFirst ? hn::Zero(dv) : hn::LoadU(dv, s - 1), mid,
                kLast ? hn::Zero(dv) : hn::LoadU(dv, s + 1)};
    } else {
#if HWY_TARGET != HWY_SCALAR  // whose 1-lane vectors cannot shift lanes in
        const auto left =
            kFirst ? ShiftInLanes<int(L) - 1>(dv, hn::Zero(dv), mid) : hn::LoadU(dv, s - 1);
        const auto right = kLast ? ShiftInLanes<1>(dv, mid, hn::Zero(dv)) : hn::LoadU(dv, s + 1);
        return {left, mid, right};
#endif
    }
}

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
