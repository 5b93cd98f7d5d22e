// The separable form of one NCHW output row (and of the channel axis of 3D pooling), vectorised
// along the output row (lane i = output column dx + i): the vertical pass folds the window rows
// of every input column into a row padded with initial values on both sides, then the
// horizontal pass reads every window unclipped with strided loads, so padded borders need no
// scalar code. PoolRow chooses between it, a window of whole rows and direct reads.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_ROW_SEPARABLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_ROW_SEPARABLE_INL_H_
#undef SIMD_SYNET_POOLING_ROW_SEPARABLE_INL_H_
#else
#define SIMD_SYNET_POOLING_ROW_SEPARABLE_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/PoolShape.h"
#include "pooling/RowDirect-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Separable form of one output row, used whenever the entry point provided scratch: the
// vertical pass folds the window rows (and channel planes) of every input column into `tmp`,
// padded with initial values on both sides, so that the horizontal pass reads every window
// unclipped, with full vectors and no border cases. For the max pools the result equals the
// row-major fold (the fold does not depend on the order); for averages it re-associates the sum
// (LIN). `columns[dx]` holds the clipped window width of output column dx (excludePad
// averages only).
// The horizontal taps of one vector of output columns starting at tmp + dx*stride.
template <int kStride, int kKernel, class D, class Op>
HWY_INLINE hn::Vec<D> HorizontalTaps(D d, const Op& op, const typename Op::C* p, const Axis& ax) {
    // A compile-time kernel (kKernel > 0) unrolls the tap loops completely.
    const size_t K = kKernel > 0 ? size_t(kKernel) : ax.kernel;
    auto acc = op.Init(d);
    if constexpr (kStride == 1) {
        for (size_t k = 0; k < K; ++k) acc = op.Fold(acc, hn::LoadU(d, p + k));
    } else if constexpr (kStride == 2) {
        // One deinterleaving load serves two taps: columns k (even) and k + 1 (odd).
        size_t k = 0;
        for (; k + 2 <= K; k += 2) {
            hn::Vec<D> v0, v1;
            hn::LoadInterleaved2(d, p + k, v0, v1);
            acc = op.Fold(op.Fold(acc, v0), v1);
        }
        if (k < K) acc = op.Fold(acc, LoadStrided<2>(d, p + k, 2));
    } else if constexpr (kStride == 3) {
        size_t k = 0;
        for (; k + 3 <= K; k += 3) {
            hn::Vec<D> v0, v1, v2;
            hn::LoadInterleaved3(d, p + k, v0, v1, v2);
            acc = op.Fold(op.Fold(op.Fold(acc, v0), v1), v2);
        }
        for (; k < K; ++k) acc = op.Fold(acc, LoadStrided<3>(d, p + k, 3));
    } else {
        for (size_t k = 0; k < K; ++k)
            acc = op.Fold(acc, LoadStrided<kStride>(d, p + k, ax.stride));
    }
    return acc;
}

template <class D, class Op>
HWY_INLINE void HorizontalStore(D d, const Op& op, hn::Vec<D> acc, size_t rows,
                                const float* columns, size_t at, typename Op::T* dst) {
    if constexpr (Op::kAverage) {
        // Multiplies by reciprocals (division throughput is low): `columns` holds 1/width of
        // every window; the extra roundings stay within a few ulps.
        const auto scale = op.excludePad
                               ? hn::Mul(hn::Set(d, 1.0f / float(rows)), hn::LoadU(d, columns + at))
                               : hn::Set(d, 1.0f / op.kernelArea);
        hn::StoreU(hn::Mul(acc, scale), d, dst + at);
    } else {
        (void)rows;
        (void)columns;
        op.Store(d, acc, 1.0f, dst + at);
    }
}

// kCount (1 or 2) vectors of output columns from dx on; two independent accumulators overlap
// their dependency chains.
template <int kStride, int kKernel, int kCount, class D, class Op>
HWY_INLINE void HorizontalVectors(D d, const Op& op, const typename Op::C* tmp, const Axis& ax,
                                  size_t rows, const float* columns, size_t dx,
                                  typename Op::T* dst) {
    const size_t N = hn::Lanes(d);
    const auto a0 = HorizontalTaps<kStride, kKernel>(d, op, tmp + dx * ax.stride, ax);
    if constexpr (kCount == 2) {
        const auto a1 = HorizontalTaps<kStride, kKernel>(d, op, tmp + (dx + N) * ax.stride, ax);
        HorizontalStore(d, op, a1, rows, columns, dx + N, dst);
    }
    HorizontalStore(d, op, a0, rows, columns, dx, dst);
}

// Output columns [0, dst) with vectors of Lanes(d), the last one overlapping if needed.
// Returns the first column not written (only when dst < Lanes(d)).
template <int kStride, int kKernel, class D, class Op>
HWY_INLINE size_t HorizontalSpan(D d, const Op& op, const typename Op::C* tmp, const Axis& ax,
                                 size_t rows, const float* columns, size_t dx,
                                 typename Op::T* dst) {
    const size_t N = hn::Lanes(d);
    if (ax.dst < N) return dx;
    for (; dx + 2 * N <= ax.dst; dx += 2 * N)
        HorizontalVectors<kStride, kKernel, 2>(d, op, tmp, ax, rows, columns, dx, dst);
    for (; dx + N <= ax.dst; dx += N)
        HorizontalVectors<kStride, kKernel, 1>(d, op, tmp, ax, rows, columns, dx, dst);
    if (dx < ax.dst)
        HorizontalVectors<kStride, kKernel, 1>(d, op, tmp, ax, rows, columns, ax.dst - N, dst);
    return ax.dst;
}

template <int kStride, int kKernel, class Op>
HWY_INLINE void HorizontalPass(const Op& op, const typename Op::C* tmp, const Axis& ax, size_t rows,
                               const float* columns, typename Op::T* dst) {
    using C = typename Op::C;
    size_t dx = 0;
    // Gathers exist for 32-bit lanes only: UINT8 rows with strides above 4 use 1-lane vectors.
    if constexpr (kStride != 0 || sizeof(C) == 4) {
        dx = HorizontalSpan<kStride, kKernel>(hn::ScalableTag<C>(), op, tmp, ax, rows, columns, dx,
                                              dst);
        constexpr size_t kQuarter = HWY_LANES(C) / 4;
        if constexpr (kQuarter > 1)
            dx = HorizontalSpan<kStride, kKernel>(hn::CappedTag<C, kQuarter>(), op, tmp, ax, rows,
                                                  columns, dx, dst);
    }
    const hn::CappedTag<C, 1> d1;
    for (; dx < ax.dst; ++dx)
        HorizontalVectors<kStride, kKernel, 1>(d1, op, tmp, ax, rows, columns, dx, dst);
}

// Vertical pass of the separable form: tmp = padded row of the folded window rows. kRows > 0:
// one plane of exactly kRows rows (unrolled). The folds start from the initial value (a max
// window of -inf gives -FLT_MAX, as the reference's).
template <int kRows, class Op, class T>
HWY_INLINE void SeparableVertical(const Op& op, const Rows<T>& in, const Axis& ax,
                                  typename Op::C* tmp) {
    using C = typename Op::C;
    const hn::ScalableTag<C> d;
    const hn::CappedTag<C, 1> d1;
    const size_t N = hn::Lanes(d);
    const auto init = op.Init(d);
    const size_t reach = (ax.dst - 1) * ax.stride + ax.kernel;
    const size_t span = (ax.pad + ax.src > reach ? ax.pad + ax.src : reach) + ax.stride * N;
    // Left padding (the stores may run into the middle part, which is written next).
    for (size_t i = 0; i < ax.pad; i += N) hn::StoreU(init, d, tmp + i);
    C* middle = tmp + ax.pad;
    const auto column = [&](auto dv, size_t x) HWY_ATTR {
        const hn::Rebind<T, decltype(dv)> dtv;
        const T* p = in.base + x;
        auto acc = op.Init(dv);
        if constexpr (kRows > 0) {
            for (int r = 0; r < kRows; ++r)
                acc = op.Fold(acc, op.Widen(dv, hn::LoadU(dtv, p + r * in.rowStep)));
        } else {
            for (size_t c = 0; c < in.planes; ++c)
                for (size_t r = 0; r < in.rows; ++r)
                    acc = op.Fold(
                        acc, op.Widen(dv, hn::LoadU(dtv, p + c * in.planeStep + r * in.rowStep)));
        }
        hn::StoreU(acc, dv, middle + x);
    };
    const hn::Rebind<T, decltype(d)> dt;
    size_t x = 0;
    for (; x + 4 * N <= ax.src; x += 4 * N) {
        auto a0 = init, a1 = init, a2 = init, a3 = init;
        if constexpr (kRows > 0) {
            const T* p = in.base + x;
            for (int r = 0; r < kRows; ++r, p += in.rowStep) {
                a0 = op.Fold(a0, op.Widen(d, hn::LoadU(dt, p)));
                a1 = op.Fold(a1, op.Widen(d, hn::LoadU(dt, p + N)));
                a2 = op.Fold(a2, op.Widen(d, hn::LoadU(dt, p + 2 * N)));
                a3 = op.Fold(a3, op.Widen(d, hn::LoadU(dt, p + 3 * N)));
            }
        } else {
            for (size_t c = 0; c < in.planes; ++c) {
                const T* p = in.base + x + c * in.planeStep;
                for (size_t r = 0; r < in.rows; ++r, p += in.rowStep) {
                    a0 = op.Fold(a0, op.Widen(d, hn::LoadU(dt, p)));
                    a1 = op.Fold(a1, op.Widen(d, hn::LoadU(dt, p + N)));
                    a2 = op.Fold(a2, op.Widen(d, hn::LoadU(dt, p + 2 * N)));
                    a3 = op.Fold(a3, op.Widen(d, hn::LoadU(dt, p + 3 * N)));
                }
            }
        }
        hn::StoreU(a0, d, middle + x);
        hn::StoreU(a1, d, middle + x + N);
        hn::StoreU(a2, d, middle + x + 2 * N);
        hn::StoreU(a3, d, middle + x + 3 * N);
    }
    for (; x + N <= ax.src; x += N) column(d, x);
    if (x < ax.src) {
        if (ax.src >= N)
            column(d, ax.src - N);
        else
            for (; x < ax.src; ++x) column(d1, x);
    }
    // Right padding up to every element the horizontal pass reads (scratch has N to spare).
    for (size_t i = ax.pad + ax.src; i < span; i += N) hn::StoreU(init, d, tmp + i);
}

template <class Op, class T>
HWY_INLINE void SeparableRow(const Op& op, const Rows<T>& in, const Axis& ax, T* dst,
                             typename Op::C* tmp, const float* columns) {
    if (in.planes == 1 && in.rows == 3)
        SeparableVertical<3>(op, in, ax, tmp);
    else if (in.planes == 1 && in.rows == 2)
        SeparableVertical<2>(op, in, ax, tmp);
    else
        SeparableVertical<0>(op, in, ax, tmp);
    const size_t rows = in.rows;
    // The common kernels get fully unrolled tap loops.
    const size_t k = ax.kernel;
    switch (ax.stride) {
        case 1:
            if (k == 3) return HorizontalPass<1, 3>(op, tmp, ax, rows, columns, dst);
            return HorizontalPass<1, 0>(op, tmp, ax, rows, columns, dst);
        case 2:
            if (k == 2) return HorizontalPass<2, 2>(op, tmp, ax, rows, columns, dst);
            if (k == 3) return HorizontalPass<2, 3>(op, tmp, ax, rows, columns, dst);
            return HorizontalPass<2, 0>(op, tmp, ax, rows, columns, dst);
        case 3:
            return HorizontalPass<3, 0>(op, tmp, ax, rows, columns, dst);
        case 4:
            return HorizontalPass<4, 0>(op, tmp, ax, rows, columns, dst);
        default:
            return HorizontalPass<0, 0>(op, tmp, ax, rows, columns, dst);
    }
}

// One output row. `tmp` (may be null: then every window is read directly) is the padded row
// scratch of PoolRowScratch elements.
template <class Op, class T>
HWY_INLINE void PoolRow(const Op& op, const Rows<T>& in, const Axis& ax, T* dst,
                        typename Op::C* tmp, const float* columns) {
    if (ax.dst == 1 && in.rowStep == ax.src) {
        const PoolRange xr = ClipWindow(0, ax.stride, ax.pad, ax.kernel, ax.src);
        if (xr.begin == 0 && xr.end == ax.src) {
            ContiguousWindow(op, in, in.rows * ax.src, op.Area(in.rows, ax.src), dst);
            return;
        }
    }
    if (tmp) {
        SeparableRow(op, in, ax, dst, tmp, columns);
        return;
    }
    size_t left = (ax.pad + ax.stride - 1) / ax.stride;  // first column with an unclipped start
    if (left > ax.dst) left = ax.dst;
    for (size_t x = 0; x < left; ++x) RowColumn(op, in, ax, x, dst);
    size_t dx = left;
    switch (ax.stride) {
        case 1:
            dx = RowSpans<1>(op, in, ax, dx, dst);
            break;
        case 2:
            dx = RowSpans<2>(op, in, ax, dx, dst);
            break;
        case 3:
            dx = RowSpans<3>(op, in, ax, dx, dst);
            break;
        case 4:
            dx = RowSpans<4>(op, in, ax, dx, dst);
            break;
        default:
            // Gathers exist for 32-bit lanes only; BF16/UINT8 rows with strides above 4 use
            // 1-lane vectors.
            if constexpr (sizeof(T) == 4) dx = RowSpans<0>(op, in, ax, dx, dst);
            break;
    }
    for (; dx < ax.dst; ++dx) RowColumn(op, in, ax, dx, dst);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
