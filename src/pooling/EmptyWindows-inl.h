// Outputs of windows that hold no input element (SUPPLEMENT.md §5: windows entirely in the
// padding, or past the input where the caller's dst sizes reach that far). Such a window is the
// fold of nothing, the operation's initial value, stored as any window result: 0 for averages
// (0 / (kernelY*kernelX); the entry points reject excludePad averages over empty windows, whose
// area would be 0), -FLT_MAX for FP32 max, 0 for UINT8 max, 0xFF80 for BF16 max (-FLT_MAX
// rounded). The kernels compute the non-empty windows only (PoolShape.h, NonEmptyWindows) and
// fill the others here, out of line, so that the paths of the usual shapes keep their code.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_EMPTY_WINDOWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_EMPTY_WINDOWS_INL_H_
#undef SIMD_SYNET_POOLING_EMPTY_WINDOWS_INL_H_
#else
#define SIMD_SYNET_POOLING_EMPTY_WINDOWS_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/PoolShape.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// `count` contiguous outputs of empty windows. StoreInverse with 1: the initial value of the
// average (0) scaled by anything is 0.
template <class Op, class T>
HWY_NOINLINE void FillEmpty(const Op& op, size_t count, T* dst) {
    using C = typename Op::C;
    const hn::ScalableTag<C> d;
    const hn::CappedTag<C, 1> d1;
    const size_t N = hn::Lanes(d);
    size_t i = 0;
    for (; i + N <= count; i += N) op.StoreInverse(d, op.Init(d), 1.0f, dst + i);
    for (; i < count; ++i) op.StoreInverse(d1, op.Init(d1), 1.0f, dst + i);
}

// NCHW: every output plane outside `planes` (3D channel windows; all planes in 2D) and the rows
// outside `rows` of the others.
template <class Op, class T>
HWY_INLINE void FillEmptyNchw(const Op& op, const PoolShape& s, PoolRange planes, PoolRange rows,
                              T* dst) {
    if (planes.begin == 0 && planes.end == s.dstC && rows.begin == 0 && rows.end == s.dstH) return;
    const size_t plane = s.dstH * s.dstW;
    for (size_t dc = 0; dc < s.dstC; ++dc) {
        T* out = dst + dc * plane;
        if (dc < planes.begin || dc >= planes.end) {
            FillEmpty(op, plane, out);
            continue;
        }
        if (rows.begin > 0) FillEmpty(op, rows.begin * s.dstW, out);
        if (rows.end < s.dstH) FillEmpty(op, (s.dstH - rows.end) * s.dstW, out + rows.end * s.dstW);
    }
}

// NHWC: every output row outside `rows` and the pixels outside `columns` of the others (all
// dstC channels of a pixel: in 3D, an empty spatial window leaves every channel window empty).
template <class Op, class T>
HWY_INLINE void FillEmptyNhwc(const Op& op, const PoolShape& s, PoolRange rows, PoolRange columns,
                              T* dst) {
    if (rows.begin == 0 && rows.end == s.dstH && columns.begin == 0 && columns.end == s.dstW)
        return;
    const size_t row = s.dstW * s.dstC;
    for (size_t dy = 0; dy < s.dstH; ++dy) {
        T* out = dst + dy * row;
        if (dy < rows.begin || dy >= rows.end) {
            FillEmpty(op, row, out);
            continue;
        }
        if (columns.begin > 0) FillEmpty(op, columns.begin * s.dstC, out);
        if (columns.end < s.dstW)
            FillEmpty(op, (s.dstW - columns.end) * s.dstC, out + columns.end * s.dstC);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
