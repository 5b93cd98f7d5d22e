// One row of output windows read in place from the input: the row geometry shared by the NCHW
// kernels and the channel axis of 3D pooling (Rows, Axis), strided loads (stride 1: plain
// loads, 2-4: LoadInterleaved2/3/4, larger: gathers for 32-bit lanes), vectors of unclipped
// windows (RowVectors), 1-lane clipped windows (RowColumn) and windows of whole contiguous rows
// (ContiguousWindow). Used where the entry point gave no padded-row scratch (absurd pads or
// strides) and for the clipped columns of the faster paths.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_ROW_DIRECT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_ROW_DIRECT_INL_H_
#undef SIMD_SYNET_POOLING_ROW_DIRECT_INL_H_
#else
#define SIMD_SYNET_POOLING_ROW_DIRECT_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/PoolShape.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements p[0], p[stride], ..., one per lane. kStride 1-4 are fixed strides (LoadInterleaved
// reads kStride*N elements from p); 0 means any stride through a gather (FP32 only), which reads
// exactly the lanes' elements.
template <int kStride, class DT>
HWY_INLINE hn::Vec<DT> LoadStrided(DT dt, const hn::TFromD<DT>* p, size_t stride) {
    if constexpr (kStride == 1 || DT::kPrivateN == 1) {
        (void)stride;
        return hn::LoadU(dt, p);
    } else if constexpr (kStride == 2) {
        hn::Vec<DT> v0, v1;
        hn::LoadInterleaved2(dt, p, v0, v1);
        return v0;
    } else if constexpr (kStride == 3) {
        hn::Vec<DT> v0, v1, v2;
        hn::LoadInterleaved3(dt, p, v0, v1, v2);
        return v0;
    } else if constexpr (kStride == 4) {
        hn::Vec<DT> v0, v1, v2, v3;
        hn::LoadInterleaved4(dt, p, v0, v1, v2, v3);
        return v0;
    } else {
        const hn::RebindToSigned<DT> di;
        return hn::GatherIndex(dt, p, hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(stride))));
    }
}

// The input of one NCHW output row: `planes` channel planes `planeStep` apart (several in 3D
// channel pooling), each contributing `rows` rows `rowStep` apart, starting at `base` (column 0
// of the first row of the window).
template <class T>
struct Rows {
    const T* base;
    size_t planes, planeStep, rows, rowStep;
};

// One axis of an NCHW output row (or of the channel axis of 3D pooling in NHWC).
struct Axis {
    size_t src, kernel, stride, pad, dst;
};

// Output columns from dx on, one vector of Lanes(d) columns at a time, as long as the windows
// are unclipped and every strided load stays inside the input row; the last vector may overlap
// the previous one. Returns the first column not written.
template <int kStride, class D, class Op, class T>
HWY_INLINE size_t RowVectors(D d, const Op& op, const Rows<T>& in, const Axis& ax, size_t dx,
                             T* dst) {
    const size_t N = hn::Lanes(d);
    if (ax.dst < N) return dx;
    const size_t reach = kStride == 0 ? (N - 1) * ax.stride + 1 : size_t(kStride) * N;
    // A vector at column x reads input columns [x*stride - pad, ... + kernel - 1 + reach).
    const ptrdiff_t limit = ptrdiff_t(ax.src + ax.pad + 1) - ptrdiff_t(ax.kernel + reach);
    if (limit < 0) return dx;
    size_t last = size_t(limit) / ax.stride;
    if (last > ax.dst - N) last = ax.dst - N;
    if (last < dx) return dx;
    const hn::Rebind<T, D> dt;
    const float area = op.Area(in.rows, ax.kernel);
    const auto one = [&](size_t x) HWY_ATTR {
        const T* column = in.base + (x * ax.stride - ax.pad);
        auto acc = op.Init(d);
        for (size_t p = 0; p < in.planes; ++p) {
            for (size_t r = 0; r < in.rows; ++r) {
                const T* row = column + p * in.planeStep + r * in.rowStep;
                for (size_t k = 0; k < ax.kernel; ++k)
                    acc = op.Fold(acc, op.Widen(d, LoadStrided<kStride>(dt, row + k, ax.stride)));
            }
        }
        op.Store(d, acc, area, dst + x);
    };
    for (; dx <= last; dx += N) one(dx);
    if (dx < last + N) {
        one(last);
        dx = last + N;
    }
    return dx;
}

// Full vectors, then quarter vectors for short rows.
template <int kStride, class Op, class T>
HWY_INLINE size_t RowSpans(const Op& op, const Rows<T>& in, const Axis& ax, size_t dx, T* dst) {
    using C = typename Op::C;
    dx = RowVectors<kStride>(hn::ScalableTag<C>(), op, in, ax, dx, dst);
    constexpr size_t kQuarter = HWY_LANES(C) / 4;
    if constexpr (kQuarter > 1)
        dx = RowVectors<kStride>(hn::CappedTag<C, kQuarter>(), op, in, ax, dx, dst);
    return dx;
}

// One output column with its clipped window, 1-lane vectors.
template <class Op, class T>
HWY_INLINE void RowColumn(const Op& op, const Rows<T>& in, const Axis& ax, size_t x, T* dst) {
    const hn::CappedTag<typename Op::C, 1> d1;
    const hn::Rebind<T, decltype(d1)> dt1;
    const PoolRange xr = ClipWindow(x, ax.stride, ax.pad, ax.kernel, ax.src);
    auto acc = op.Init(d1);
    for (size_t p = 0; p < in.planes; ++p) {
        for (size_t r = 0; r < in.rows; ++r) {
            const T* row = in.base + p * in.planeStep + r * in.rowStep;
            for (size_t c = xr.begin; c < xr.end; ++c)
                acc = op.Fold(acc, op.Widen(d1, hn::LoadU(dt1, row + c)));
        }
    }
    op.Store(d1, acc, op.Area(in.rows, xr.end - xr.begin), dst + x);
}

// A window made of whole rows is one contiguous run of rows*width elements per plane: four
// accumulators, then the lanes, then the tail, folded with 1-lane vectors.
template <class Op, class T>
HWY_INLINE void ContiguousWindow(const Op& op, const Rows<T>& in, size_t count, float area,
                                 T* dst) {
    using C = typename Op::C;
    const hn::ScalableTag<C> d;
    const hn::Rebind<T, decltype(d)> dt;
    const hn::CappedTag<C, 1> d1;
    const hn::Rebind<T, decltype(d1)> dt1;
    const size_t N = hn::Lanes(d);
    auto a0 = op.Init(d), a1 = a0, a2 = a0, a3 = a0;
    auto tail = op.Init(d1);
    for (size_t p = 0; p < in.planes; ++p) {
        const T* s = in.base + p * in.planeStep;
        size_t i = 0;
        for (; i + 4 * N <= count; i += 4 * N) {
            a0 = op.Fold(a0, op.Widen(d, hn::LoadU(dt, s + i)));
            a1 = op.Fold(a1, op.Widen(d, hn::LoadU(dt, s + i + N)));
            a2 = op.Fold(a2, op.Widen(d, hn::LoadU(dt, s + i + 2 * N)));
            a3 = op.Fold(a3, op.Widen(d, hn::LoadU(dt, s + i + 3 * N)));
        }
        for (; i + N <= count; i += N) a0 = op.Fold(a0, op.Widen(d, hn::LoadU(dt, s + i)));
        for (; i < count; ++i) tail = op.Fold(tail, op.Widen(d1, hn::LoadU(dt1, s + i)));
    }
    a0 = op.Fold(op.Fold(a0, a1), op.Fold(a2, a3));
    HWY_ALIGN C lanes[HWY_LANES(C)];
    hn::Store(a0, d, lanes);
    for (size_t i = 0; i < N; ++i) tail = op.Fold(tail, hn::Set(d1, lanes[i]));
    op.Store(d1, tail, area, dst);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
