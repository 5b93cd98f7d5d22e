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

// The outputs of empty windows in a block of outer x inner x unit elements whose windows hold
// input elements only inside outerWindows x innerWindows (NCHW: planes x rows x dstW, the planes
// of 3D channel windows; NHWC: rows x pixels x dstC, all channels of a pixel, since in 3D an
// empty spatial window leaves every channel window empty).
template <class Op, class T>
HWY_INLINE void FillEmptyOutside(const Op& op, size_t outer, PoolRange outerWindows, size_t inner,
                                 PoolRange innerWindows, size_t unit, T* dst) {
    if (outerWindows.begin == 0 && outerWindows.end == outer && innerWindows.begin == 0 &&
        innerWindows.end == inner)
        return;
    const size_t step = inner * unit;
    for (size_t o = 0; o < outer; ++o) {
        T* out = dst + o * step;
        if (o < outerWindows.begin || o >= outerWindows.end) {
            FillEmpty(op, step, out);
            continue;
        }
        if (innerWindows.begin > 0) FillEmpty(op, innerWindows.begin * unit, out);
        if (innerWindows.end < inner)
            FillEmpty(op, (inner - innerWindows.end) * unit, out + innerWindows.end * unit);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
