// Pooling (SUPPLEMENT.md §5): SimdSynetPoolingAverage / SimdSynetPoolingForwardAverage,
// SimdSynetPoolingForwardMax, SimdSynetPoolingMax32f (2D and 3D), SimdSynetPoolingMax16b and
// SimdSynetPoolingMax8u, in NCHW and NHWC.
//
// Traversal.
// - NHWC is vectorised along channels: one output pixel at a time, four channel vectors per
//   step so that the per-tap dependency chains overlap, unrolled taps for unclipped 3x3 and
//   2x2 windows; interior columns of 3-wide stride-2 windows slide along the row, reusing the
//   column fold shared by neighbouring windows; BF16 max folds order-preserving int16 keys
//   (MaxBf16KeyOp), so every NHWC path runs on 16-bit lanes. Channel tails overlap the previous
//   vector (outputs are pure, src and dst never alias) or use 1-lane vectors when C is below a
//   vector.
// - NCHW is vectorised along the output row (lane i = output column dx + i), separably: the
//   vertical pass folds the window rows of every input column into a row padded with initial
//   values on both sides, then the horizontal pass reads every window unclipped with strided
//   loads (stride 1: plain loads, 2-4: LoadInterleaved2/3/4 serving several taps, larger:
//   gathers for 32-bit lanes, 1-lane vectors for UINT8), so padded borders need no scalar
//   code. Global pooling (a window covering each plane) folds two planes at a time, pairs
//   their accumulators with one ConcatEven/ConcatOdd step and folds each half. Without
//   scratch (absurd pads/strides) each window is read directly (RowVectors / RowColumn).
// - Faster special cases (measured, bench/pooling_bench.cpp): NCHW rows of 2- or 3-wide
//   stride-2 windows fold in registers (Stride2Row: FP32 split by ConcatEven/ConcatOdd, BF16 and
//   UINT8 as column pairs in double-width lanes; lane shift for the left pad, 1-lane clipped
//   windows on the right only; Stride2Planes out of line; BF16 and UINT8 rows away from the
//   tensor's end read and write whole vectors past the row, Stride2PairRowsOverrun); NHWC 3x3
//   stride-2 rows go in pairs sharing their middle input row (NhwcRows3x2); global pools fold
//   in registers (GlobalNchw in plane pairs, GlobalNhwc in groups of channel vectors across all
//   pixels), except FP32 NHWC with many channels, folded pixel by pixel into an L1 buffer
//   (GlobalNhwcInL1).
// - 3D max pooling (Max32f) folds the spatial window of every input channel, then pools that
//   row of channels like an NCHW row.
//
// Order: the max folds use MaxIgnoringNaN, whose result does not depend on the order in which
// a window is visited (up to the sign of a zero maximum); averages re-associate the window sum
// (LIN: few ulps of the sum of magnitudes) and scale by the reciprocal area in NCHW.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pooling/Pooling.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pooling/PoolShape.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The fold of the max pools, acc = max(v, acc) with SUPPLEMENT's max(a, b) = a > b ? a : b:
// a NaN v compares false and leaves acc unchanged, and acc starts at -FLT_MAX, so it never
// holds a NaN. The window maximum therefore skips NaNs and is the same whatever order the
// window is visited in (up to the sign of a zero maximum).
template <class V>
HWY_INLINE V MaxIgnoringNaN(V v, V acc) {
#if HWY_ARCH_X86
    // MAXPS(a, b) is exactly a > b ? a : b, and the scalar target's Max returns the non-NaN
    // operand: one instruction instead of a compare and a blend.
    return hn::Max(v, acc);
#else
    return hn::IfThenElse(hn::Gt(v, acc), v, acc);
#endif
}

// Keeps v in a register: GCC folds a load that two operations use into both of them, and the
// second load takes a load slot (two when it straddles cache lines).
template <class V>
HWY_INLINE void KeepInRegister(V& v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR
    asm("" : "+v"(v.raw));
#else
    (void)v;
#endif
}

// A pooling operation: storage lane type T, compute lane type C, the initial accumulator, the
// fold of one tap, and the final store (average pools divide by the window area there).
struct MaxF32Op {
    static constexpr bool kAverage = false;
    using T = float;
    using C = float;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Set(d, -FLT_MAX);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D, hn::Vec<hn::Rebind<T, D>> v) const {
        return v;
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return MaxIgnoringNaN(v, acc);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float, T* p) const {
        hn::StoreU(acc, d, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

struct AverageF32Op {
    static constexpr bool kAverage = true;
    bool excludePad;
    float kernelArea;  // kernelY*kernelX
    using T = float;
    using C = float;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Zero(d);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D, hn::Vec<hn::Rebind<T, D>> v) const {
        return v;
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return hn::Add(acc, v);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float area, T* p) const {
        hn::StoreU(hn::Div(acc, hn::Set(d, area)), d, p);
    }
    // Multiplies by the reciprocal of the area instead (division throughput is low where one
    // area serves many stores); within a few ulps of Store.
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float inverse, T* p) const {
        hn::StoreU(hn::Mul(acc, hn::Set(d, inverse)), d, p);
    }
    float Area(size_t rows, size_t cols) const {
        return excludePad ? float(rows * cols) : kernelArea;
    }
};

struct MaxU8Op {
    static constexpr bool kAverage = false;
    using T = uint8_t;
    using C = uint8_t;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Zero(d);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D, hn::Vec<hn::Rebind<T, D>> v) const {
        return v;
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return hn::Max(acc, v);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float, T* p) const {
        hn::StoreU(acc, d, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

// BF16 values are widened to FP32 (exact), folded like MaxF32Op and rounded back with the
// ABI.md rule (round to nearest even: only -FLT_MAX, the result of an empty window, changes,
// to 0xFF80).
struct MaxBf16Op {
    static constexpr bool kAverage = false;
    using T = uint16_t;
    using C = float;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Set(d, -FLT_MAX);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D d, hn::Vec<hn::Rebind<T, D>> v) const {
        const hn::Rebind<uint32_t, D> du;
        return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, v)));
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return MaxIgnoringNaN(v, acc);
    }
    template <class D>
    HWY_INLINE void Store(D, hn::Vec<D> acc, float, T* p) const {
        const hn::Rebind<uint32_t, D> du;
        const hn::Rebind<int32_t, D> di;
        const hn::Rebind<uint16_t, D> dh;
        const auto bits = hn::BitCast(du, acc);
        const auto odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
        const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7FFFu), odd)));
        // rounded <= 0xFFFF, so the saturating narrowing keeps it unchanged.
        hn::StoreU(hn::DemoteTo(dh, hn::BitCast(di, rounded)), dh, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

// BF16 max in NHWC on 16-bit lanes, without widening: each BF16 pattern maps to an int16 key
// whose signed order is the FP32 order of the values (negative patterns flip their magnitude
// bits), offset by 0x7F with wrap-around so that every NaN pattern (positive NaNs wrap to the
// bottom) sorts below the key of -inf. The fold is one integer max; starting from the key of
// -inf, a NaN never wins and a window of -inf/NaN gives 0xFF80, the rounding of the FP32
// reference's -FLT_MAX. Ties between +0 and -0 give +0 (the reference keeps the first seen).
// Measured on Zen 5, 3x3 s2 p1 64x112x112 NHWC (copy of the same bytes 18.4-19.1 us): 37.4 us
// widening two channels per 32-bit lane to FP32 pixel by pixel; 22.2-22.7 us with these keys,
// whose rows slide and pair like FP32 (NhwcRows3x2, out of line, two vectors per walk).
struct MaxBf16KeyOp {
    static constexpr bool kAverage = false;
    using T = uint16_t;
    using C = int16_t;
    static constexpr int16_t kOffset = 0x7F;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        // Key of -inf (0xFF80): 0xFF80 ^ 0x7FFF = -32641, plus the offset.
        return hn::Set(d, int16_t(-32641 + kOffset));
    }
    // Flips the magnitude bits of negative patterns (its own inverse).
    template <class D>
    static HWY_INLINE hn::Vec<D> FlipNegative(D d, hn::Vec<D> v) {
        return hn::Xor(v, hn::And(hn::ShiftRight<15>(v), hn::Set(d, 0x7FFF)));
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D d, hn::Vec<hn::Rebind<T, D>> v) const {
        // In a register for the shift and the flip (BF16 3x3 s2 p1 64x112x112 NHWC on Zen 5:
        // 23.5-23.9 us loaded for each, 22.7-23.4 once).
        auto bits = hn::BitCast(d, v);
        KeepInRegister(bits);
        return hn::Add(FlipNegative(d, bits), hn::Set(d, kOffset));
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return hn::Max(acc, v);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float, T* p) const {
        const hn::RebindToUnsigned<D> du;
        const auto bits = FlipNegative(d, hn::Sub(acc, hn::Set(d, kOffset)));
        hn::StoreU(hn::BitCast(du, bits), du, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

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
// one plane of exactly kRows rows (unrolled). The folds start from the initial value: the max
// fold relies on its accumulator never holding a NaN.
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

// Global pooling of NCHW planes (each window is a whole plane of `count` contiguous elements),
// two planes at a time for 32-bit compute lanes: each plane is folded into one vector, the last
// partial vector re-reading already folded elements, which are replaced by the initial value;
// one ConcatEven/ConcatOdd step puts the two planes in the two halves of a vector, and in-block
// shuffles (plus a block swap for 16 lanes) fold each half into its first lane. Measured on
// Zen 5, 1024 planes of 7x7 (bench, copy of the same bytes 1.05-1.14 us): 1.12-1.19 us, against
// 1.64 for the former transposing tree over 8 planes of 8 lanes. In a standalone loop the tree
// over 16 planes of 16 lanes took 2.0 us and folding each half by halving the vector width 1.5
// (extracts on the critical path), against 1.06-1.16 for this form; on AVX2 this form matched or
// beat the 8-lane tree (1.46-1.58 against 1.57-1.60).
// GlobalNchwPairs is not inlined: inside the whole pooling kernel the compiler kept the loop
// bounds on the stack and the same loop took 1.7-1.8 us.
#if HWY_TARGET != HWY_SCALAR  // one lane: nothing to pair
// Folds each half of v (4, 8 or 16 lanes) into the first lane of that half.
template <class D, class Op>
HWY_INLINE hn::Vec<D> FoldHalves(D, const Op& op, hn::Vec<D> v) {
    constexpr size_t N = D::kPrivateN;
    static_assert(N == 4 || N == 8 || N == 16, "halves of whole 128-bit blocks or one block");
    if constexpr (N == 16) v = op.Fold(v, hn::SwapAdjacentBlocks(v));
    if constexpr (N >= 8) v = op.Fold(v, hn::Shuffle1032(v));
    return op.Fold(v, hn::Shuffle2301(v));
}

// The first Lanes(dl) lanes of v (free: a register view).
template <class D, class DL>
HWY_INLINE hn::Vec<DL> LowestLanes(D d, DL dl, hn::Vec<D> v) {
    if constexpr (D::kPrivateN == DL::kPrivateN) {
        (void)d, (void)dl;
        return v;
    } else {
        const hn::Half<D> dh;
        return LowestLanes(dh, dl, hn::LowerHalf(dh, v));
    }
}

// Folds the two planes at p and p + count into one vector each (count >= Lanes(d)), in one loop
// so that the two chains interleave.
template <class D, class Op, class T>
HWY_INLINE void GlobalPlanePair(D d, const Op& op, const T* p, size_t count, hn::Mask<D> folded,
                                hn::Vec<D>& a, hn::Vec<D>& b) {
    const hn::Rebind<T, D> dt;
    const size_t N = hn::Lanes(d);
    const T* q = p + count;
    // The first vector starts the fold (max: from the initial value, so that the accumulator
    // never holds a NaN).
    a = op.Widen(d, hn::LoadU(dt, p));
    b = op.Widen(d, hn::LoadU(dt, q));
    if constexpr (!Op::kAverage) {
        a = op.Fold(op.Init(d), a);
        b = op.Fold(op.Init(d), b);
    }
    size_t k = N;
    for (; k + N <= count; k += N) {
        a = op.Fold(a, op.Widen(d, hn::LoadU(dt, p + k)));
        b = op.Fold(b, op.Widen(d, hn::LoadU(dt, q + k)));
    }
    if (k < count) {
        a = op.Fold(a,
                    hn::IfThenElse(folded, op.Init(d), op.Widen(d, hn::LoadU(dt, p + count - N))));
        b = op.Fold(b,
                    hn::IfThenElse(folded, op.Init(d), op.Widen(d, hn::LoadU(dt, q + count - N))));
    }
}

// Planes [0, channels) rounded down to pairs, with vectors of d (count >= Lanes(d); 4, 8 or 16
// lanes). Returns the number of planes done.
template <class D, class Op, class T>
HWY_NOINLINE size_t GlobalNchwPairs(D d, const Op& op, const T* src, size_t channels, size_t count,
                                    float inverse, T* dst) {
    const hn::Half<D> dh;
    const hn::CappedTag<typename Op::C, 2> d2;
    const size_t N = hn::Lanes(d);
    const auto folded = hn::FirstN(d, N - count % N);
    size_t c = 0;
    for (; c + 2 <= channels; c += 2) {
        hn::Vec<D> a, b;
        GlobalPlanePair(d, op, src + c * count, count, folded, a, b);
        const auto pair =
            FoldHalves(d, op, op.Fold(hn::ConcatEven(d, b, a), hn::ConcatOdd(d, b, a)));
        // Lanes 0 and 1: planes c and c + 1, scaled and stored together.
        const auto both = hn::InterleaveLower(dh, hn::LowerHalf(dh, pair), hn::UpperHalf(dh, pair));
        op.StoreInverse(d2, LowestLanes(dh, d2, both), inverse, dst + c);
    }
    return c;
}
#endif

template <class Op, class T>
HWY_INLINE void GlobalNchw(const Op& op, const T* src, size_t channels, size_t count, float area,
                           T* dst) {
    size_t c = 0;
#if HWY_TARGET != HWY_SCALAR
    using C = typename Op::C;
    if constexpr (sizeof(C) == 4) {
        const float inverse = 1.0f / area;  // a multiply shortens the chain of each store
        const hn::ScalableTag<C> d;
        const hn::CappedTag<C, 4> d4;  // planes smaller than a full vector (3x3, 2x2)
        if constexpr (HWY_LANES(C) <= 16 && hn::CappedTag<C, 4>::kPrivateN == 4) {
            if (count >= hn::Lanes(d))
                c = GlobalNchwPairs(d, op, src, channels, count, inverse, dst);
            else if (count >= 4)
                c = GlobalNchwPairs(d4, op, src, channels, count, inverse, dst);
        }
    }
#endif
    for (; c < channels; ++c)
        ContiguousWindow(op, Rows<T>{src + c * count, 1, 0, 1, count}, count, area, dst + c);
}

// NCHW rows of windows 2 or 3 columns wide with stride 2 (the common pools), FP32 here (BF16 and
// UINT8 on column pairs below; BF16 widened to FP32 here had taken max 3x3 s2 p1 64x112x112 from
// 121 to 87 us on Intel, and the pairs take it further), vectorised
// along the output row without the padded row buffer: the window rows of two vectors of input
// columns starting at the even column 2*dx are folded in registers, ConcatEven / ConcatOdd split
// them into the columns 2*dx + 2i and 2*dx + 2i + 1 of lane i, and the column 2*dx + 2i - 1 (left
// pad 1) is the odd vector shifted up by one lane, lane 0 taking the last lane of the previous
// vector (initial values left of the row). Vectors cover the outputs whose windows end inside
// the row (dx < srcW/2); the clipped outputs on the right are 1-lane windows.
#undef SIMD_POOL_STRIDE2_NCHW  // defined again for each target that has the path
#if HWY_TARGET != HWY_SCALAR && (HWY_ARCH_X86 || HWY_ARCH_ARM_A64 || HWY_TARGET == HWY_EMU128)
#define SIMD_POOL_STRIDE2_NCHW 1

// [prev[N-1], cur[0], ..., cur[N-2]] for vectors of 16, 32 or 64 bytes with 2- or 4-byte lanes.
template <class D>
HWY_INLINE hn::Vec<D> ShiftInLast(D d, hn::Vec<D> prev, hn::Vec<D> cur) {
    constexpr size_t kLane = sizeof(hn::TFromD<D>);
    constexpr size_t kBytes = D::kPrivateN * kLane;
    static_assert(kLane == 2 || kLane == 4, "2- or 4-byte lanes");
    if constexpr (kBytes == 16) {
        return hn::CombineShiftRightBytes<16 - kLane>(d, cur, prev);
    } else if constexpr (kBytes == 32) {
        // Per 128-bit block, the block below the current one supplies the shifted-in lane.
        return hn::CombineShiftRightBytes<16 - kLane>(d, cur, hn::ConcatLowerUpper(d, cur, prev));
    } else {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
        static_assert(kBytes == 64, "vectors of 16, 32 or 64 bytes");
        const hn::Repartition<uint32_t, D> d32;
        hn::Vec<decltype(d32)> shifted;
        if constexpr (kLane == 4) {
            shifted.raw =
                _mm512_alignr_epi32(hn::BitCast(d32, cur).raw, hn::BitCast(d32, prev).raw, 15);
            return hn::BitCast(d, shifted);
        } else {
            // The blocks below each block of cur (the last block of prev below block 0).
            shifted.raw =
                _mm512_alignr_epi64(hn::BitCast(d32, cur).raw, hn::BitCast(d32, prev).raw, 6);
            return hn::CombineShiftRightBytes<16 - kLane>(d, cur, hn::BitCast(d, shifted));
        }
#else
        static_assert(kBytes == 0, "no lane shift for this vector size");
        return cur;
#endif
    }
}

// The fold of kRows window rows at column x; starts from the initial value so that the max
// accumulators never hold a NaN.
template <int kRows, class D, class Op, class T>
HWY_INLINE hn::Vec<D> FoldRows(D d, const Op& op, const T* const* rows, size_t x) {
    const hn::Rebind<T, D> dt;
    hn::Vec<D> acc;
    if constexpr (Op::kAverage)
        acc = op.Widen(d, hn::LoadU(dt, rows[0] + x));
    else
        acc = op.Fold(op.Init(d), op.Widen(d, hn::LoadU(dt, rows[0] + x)));
    for (int r = 1; r < kRows; ++r) acc = op.Fold(acc, op.Widen(d, hn::LoadU(dt, rows[r] + x)));
    return acc;
}

// Scales of the average store: lane i of a vector at dx is multiplied by
// rowInverse*columns[dx + i] (excludePad) or by areaInverse.
struct Stride2Scale {
    const float* columns;
    float rowInverse, areaInverse;
};

// Outputs [dx, end) with vectors of D, then of its halves down to 4 lanes; `prev` holds the
// folded column 2*dx - 1 in its last lane (kPad == 1). Returns the first output not written.
template <int kKernel, int kPad, int kRows, class D, class Op, class T>
HWY_INLINE size_t Stride2Spans(D d, const Op& op, const T* const* rows, size_t dx, size_t end,
                               hn::Vec<D> prev, const Stride2Scale& scale, T* dst) {
    const size_t N = hn::Lanes(d);
    for (; dx + N <= end; dx += N) {
        const auto lo = FoldRows<kRows>(d, op, rows, 2 * dx);
        const auto hi = FoldRows<kRows>(d, op, rows, 2 * dx + N);
        const auto even = hn::ConcatEven(d, hi, lo), odd = hn::ConcatOdd(d, hi, lo);
        hn::Vec<D> acc;
        if constexpr (kPad == 0) {
            static_assert(kKernel == 2, "kernel 3 needs pad 1");
            acc = op.Fold(even, odd);
        } else {
            acc = op.Fold(ShiftInLast(d, prev, odd), even);
            if constexpr (kKernel == 3) acc = op.Fold(acc, odd);
            prev = odd;
        }
        if constexpr (Op::kAverage) {
            const auto factor = op.excludePad ? hn::Mul(hn::Set(d, scale.rowInverse),
                                                        hn::LoadU(d, scale.columns + dx))
                                              : hn::Set(d, scale.areaInverse);
            hn::StoreU(hn::Mul(acc, factor), d, dst + dx);
        } else {
            op.Store(d, acc, 1.0f, dst + dx);
        }
    }
    if constexpr (D::kPrivateN > 4) {
        const hn::Half<D> dh;
        return Stride2Spans<kKernel, kPad, kRows>(dh, op, rows, dx, end, hn::UpperHalf(dh, prev),
                                                  scale, dst);
    }
    return dx;
}

// BF16 and UINT8 max pools on the same rows without a lane per element: a lane of twice the
// storage width holds the pair of columns 2i (low half) and 2i + 1 (high half), so one shift
// or mask per loaded vector separates the even and odd columns, with no ConcatEven/ConcatOdd
// and, for BF16, no widening of every element and no rounding (the folds start from -inf, so
// every accumulator is a widened BF16 value and its upper half is the result; a window of
// -inf/NaN gives 0xFF80, the rounding of the reference's -FLT_MAX). UINT8 rows fold the bytes
// before separating them (max is bytewise) and pad with 0, the identity of an unsigned max.
// UINT8 rows end with one overlapping vector (its left columns loaded, not shifted in) instead
// of halving vectors (17.1-17.7 us against 18.0-18.5; BF16 was slower so: 34-36 against
// 31-32).
// Measured on Zen 5, 3x3 s2 p1 64x112x112, with Stride2Planes (copy of the same bytes 18.5-19.0
// us for BF16, 7.1-7.4 for UINT8): BF16 46 us widened to FP32 lanes, 28.7-29.9 here; UINT8
// 44-78 us through the padded row buffer, 14.8-15.1 here.
struct Stride2PairsU8 {
    using Lane = uint16_t;
    static constexpr bool kTailOverlap = true;
    template <class D>
    static HWY_INLINE hn::Vec<D> Init(D d) {
        return hn::Zero(d);
    }
    template <int kRows, class D>
    static HWY_INLINE void Columns(D d, const uint8_t* const* rows, size_t x, hn::Vec<D>& even,
                                   hn::Vec<D>& odd) {
        const hn::Repartition<uint8_t, D> d8;
        auto bytes = hn::LoadU(d8, rows[0] + x);
        for (int r = 1; r < kRows; ++r) bytes = hn::Max(bytes, hn::LoadU(d8, rows[r] + x));
        const auto pairs = hn::BitCast(d, bytes);
        even = hn::And(pairs, hn::Set(d, uint16_t(0xFF)));
        odd = hn::ShiftRight<8>(pairs);
    }
    template <class D>
    static HWY_INLINE void Store(D d, hn::Vec<D> acc, uint8_t* p) {
        const hn::Rebind<uint8_t, D> d8;
        const hn::RebindToSigned<D> di;
        hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, acc)), d8, p);  // acc <= 255
    }
    // The outputs of two vectors, lo first: one store, except for 16-byte vectors, whose
    // ConcatEven masks both inputs (SSE4, 3x3 s2 p1 64x112x112 NCHW: 20.0-21.2 us with it,
    // 19.0-19.3 with two stores).
    template <class D>
    static HWY_INLINE void StorePair(D d, hn::Vec<D> lo, hn::Vec<D> hi, uint8_t* p) {
        if constexpr (D::kPrivateN * sizeof(hn::TFromD<D>) == 16) {
            Store(d, lo, p);
            Store(d, hi, p + hn::Lanes(d));
        } else {
            const hn::Repartition<uint8_t, D> d8;
            hn::StoreU(hn::ConcatEven(d8, hn::BitCast(d8, hi), hn::BitCast(d8, lo)), d8, p);
        }
    }
};

struct Stride2PairsBf16 {
    using Lane = float;
    static constexpr bool kTailOverlap = false;
    template <class D>
    static HWY_INLINE hn::Vec<D> Init(D d) {
        return hn::BitCast(d, hn::Set(hn::RebindToUnsigned<D>(), 0xFF800000u));
    }
    template <int kRows, class D>
    static HWY_INLINE void Columns(D d, const uint16_t* const* rows, size_t x, hn::Vec<D>& even,
                                   hn::Vec<D>& odd) {
        const hn::RebindToUnsigned<D> du;
        const hn::Repartition<uint16_t, D> d16;
        const auto high = hn::Set(du, 0xFFFF0000u);
        even = Init(d);
        odd = even;
        for (int r = 0; r < kRows; ++r) {
            // One load for both halves, whose loads mostly straddle cache lines (3x3 s2 p1
            // 64x112x112 on Zen 5: 24.3-27.0 us loaded for each, 22.7-23.4 once).
            auto pairs = hn::BitCast(du, hn::LoadU(d16, rows[r] + x));
            KeepInRegister(pairs);
            even = MaxIgnoringNaN(hn::BitCast(d, hn::ShiftLeft<16>(pairs)), even);
            odd = MaxIgnoringNaN(hn::BitCast(d, hn::And(pairs, high)), odd);
        }
    }
    template <class D>
    static HWY_INLINE void Store(D d, hn::Vec<D> acc, uint16_t* p) {
        const hn::Rebind<uint16_t, D> d16;
        const hn::RebindToUnsigned<D> du;
        const hn::RebindToSigned<D> di;
        const auto upper = hn::ShiftRight<16>(hn::BitCast(du, acc));
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, upper)), d16, p);  // upper <= 0xFFFF
    }
    // The upper halves of two vectors, lo first, with one store.
    template <class D>
    static HWY_INLINE void StorePair(D d, hn::Vec<D> lo, hn::Vec<D> hi, uint16_t* p) {
        const hn::Repartition<uint16_t, D> d16;
        hn::StoreU(hn::ConcatOdd(d16, hn::BitCast(d16, hi), hn::BitCast(d16, lo)), d16, p);
    }
};

template <class Op>
struct Stride2PairsOf {
    using type = void;
};
template <>
struct Stride2PairsOf<MaxU8Op> {
    using type = Stride2PairsU8;
};
template <>
struct Stride2PairsOf<MaxBf16Op> {
    using type = Stride2PairsBf16;
};

// The window maxima of a vector of outputs from its folded columns: left (2dx - 1, pad 1 only),
// even (2dx) and odd (2dx + 1). The folds hold no NaN, so a plain Max combines them.
template <int kKernel, int kPad, class V>
HWY_INLINE V Stride2PairWindows(V left, V even, V odd) {
    if constexpr (kPad == 0) {
        static_assert(kKernel == 2, "kernel 3 needs pad 1");
        return hn::Max(even, odd);
    } else {
        const V acc = hn::Max(left, even);
        return kKernel == 3 ? hn::Max(acc, odd) : acc;
    }
}

// As Stride2Spans, on column pairs: a vector of D covers Lanes(d) outputs.
template <int kKernel, int kPad, int kRows, class P, class D, class T>
HWY_INLINE size_t Stride2PairSpans(D d, const T* const* rows, size_t dx, size_t end,
                                   hn::Vec<D> prev, T* dst) {
    const size_t N = hn::Lanes(d);
    for (; dx + N <= end; dx += N) {
        hn::Vec<D> even, odd;
        P::template Columns<kRows>(d, rows, 2 * dx, even, odd);
        const hn::Vec<D> left = kPad ? ShiftInLast(d, prev, odd) : odd;
        P::Store(d, Stride2PairWindows<kKernel, kPad>(left, even, odd), dst + dx);
        prev = odd;
    }
    if (P::kTailOverlap && dx < end && dx >= N) {
        // One more vector ending at `end`, overlapping outputs already written with the same
        // values; its left columns 2t - 1 + 2i are the odd halves of the pairs from 2t - 2.
        const size_t t = end - N;
        hn::Vec<D> even, odd, leftEven, left = hn::Zero(d);
        P::template Columns<kRows>(d, rows, 2 * t, even, odd);
        if constexpr (kPad != 0) P::template Columns<kRows>(d, rows, 2 * t - 2, leftEven, left);
        P::Store(d, Stride2PairWindows<kKernel, kPad>(left, even, odd), dst + t);
        return end;
    }
    if constexpr (D::kPrivateN * sizeof(hn::TFromD<D>) > 16) {
        const hn::Half<D> dh;
        return Stride2PairSpans<kKernel, kPad, kRows, P>(dh, rows, dx, end, hn::UpperHalf(dh, prev),
                                                         dst);
    }
    return dx;
}

// Outputs [0, end) of a row whose loads and stores may run past it: the elements after its
// input rows are still in the tensor (the next rows), and the outputs after it belong to rows
// written later (RowColumn rewrites the clipped columns [end, dstW) of this row afterwards).
// So every vector is whole, with no halving and no overlap, and vectors go in pairs that
// store together. The lanes past `end` hold garbage: the left columns only move up a lane.
// Writes Stride2Overrun(end, N) outputs and reads twice as many elements of each row.
inline size_t Stride2Overrun(size_t end, size_t N) {
    return (end + N - 1) / N * N;
}

template <int kKernel, int kPad, int kRows, class P, class D, class T>
HWY_INLINE void Stride2PairSpansOverrun(D d, const T* const* rows, size_t end, T* dst) {
    const size_t N = hn::Lanes(d);
    hn::Vec<D> prev = P::Init(d);
    size_t dx = 0;
    for (; dx + N < end; dx += 2 * N) {
        hn::Vec<D> even0, odd0, even1, odd1;
        P::template Columns<kRows>(d, rows, 2 * dx, even0, odd0);
        P::template Columns<kRows>(d, rows, 2 * dx + 2 * N, even1, odd1);
        const hn::Vec<D> left0 = kPad ? ShiftInLast(d, prev, odd0) : odd0;
        const hn::Vec<D> left1 = kPad ? ShiftInLast(d, odd0, odd1) : odd1;
        P::StorePair(d, Stride2PairWindows<kKernel, kPad>(left0, even0, odd0),
                     Stride2PairWindows<kKernel, kPad>(left1, even1, odd1), dst + dx);
        prev = odd1;
    }
    if (dx < end) {
        hn::Vec<D> even, odd;
        P::template Columns<kRows>(d, rows, 2 * dx, even, odd);
        const hn::Vec<D> left = kPad ? ShiftInLast(d, prev, odd) : odd;
        P::Store(d, Stride2PairWindows<kKernel, kPad>(left, even, odd), dst + dx);
    }
}

template <int kKernel, int kPad, int kRows, class Op, class T>
HWY_INLINE void Stride2Row(const Op& op, const Rows<T>& in, const Axis& ax, const float* columns,
                           T* dst) {
    const T* rows[kRows];
    for (int r = 0; r < kRows; ++r) rows[r] = in.base + r * in.rowStep;
    const size_t end = ax.dst < ax.src / 2 ? ax.dst : ax.src / 2;
    size_t dx;
    using Pairs = typename Stride2PairsOf<Op>::type;
    if constexpr (!std::is_void<Pairs>::value) {
        const hn::ScalableTag<typename Pairs::Lane> d;
        dx = Stride2PairSpans<kKernel, kPad, kRows, Pairs>(d, rows, 0, end, Pairs::Init(d), dst);
    } else {
        const hn::ScalableTag<float> d;
        const Stride2Scale scale{columns, 1.0f / float(kRows), 1.0f / op.Area(kRows, kKernel)};
        dx = Stride2Spans<kKernel, kPad, kRows>(d, op, rows, 0, end, op.Init(d), scale, dst);
    }
    for (; dx < ax.dst; ++dx) RowColumn(op, in, ax, dx, dst);
}

template <int kKernel, int kPad, class Op, class T>
HWY_INLINE void Stride2RowAny(const Op& op, const Rows<T>& in, const Axis& ax, const float* columns,
                              T* dst) {
    switch (in.rows) {
        case 1:
            return Stride2Row<kKernel, kPad, 1>(op, in, ax, columns, dst);
        case 2:
            return Stride2Row<kKernel, kPad, 2>(op, in, ax, columns, dst);
        default:
            return Stride2Row<kKernel, kPad, 3>(op, in, ax, columns, dst);
    }
}

// The 2D FP32/BF16 pools this path serves: kernel 2 pad 0/1 or kernel 3 pad 1 across, stride 2,
// at most 3 window rows.
inline bool Stride2Fits(const PoolShape& s) {
    return !s.channel3d && s.strideX == 2 && s.kernelY <= 3 &&
           ((s.kernelX == 2 && s.padX <= 1) || (s.kernelX == 3 && s.padX == 1));
}

#endif

// Asks the cache for the lines of base[at, at + count), which may lie past the end of base's
// array (computed as an integer address, not a pointer). The stride-2 NCHW rows ask for the two
// source rows two output rows ahead: the hardware prefetcher alone left the 3x3 s2 p1 pools waiting
// on L3 (Zen 5, 64x112x112: average 44.6-45.9 -> 38.9-40.0 us, max 42.4-45.2 -> 38.3-38.9,
// BF16 max 55-58 -> 50-52; six rows ahead measured the same). Planes are contiguous, so the
// rows run on into the next plane; past the tensor's end a prefetch does nothing (it never
// faults).
template <class T>
HWY_INLINE void PrefetchLines(const T* base, size_t at, size_t count) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(base) + at * sizeof(T);
    for (size_t b = 0; b < count * sizeof(T); b += 64)
        __builtin_prefetch(reinterpret_cast<const void*>(first + b));
}

#ifdef SIMD_POOL_STRIDE2_NCHW
// Prefetch for a stride-2 NCHW output row whose window starts at row `top` and has `rows` rows:
// the two source rows two rows past its end. UINT8 rows are short enough that the loop cost more
// than it saved (64x112x112: 16.9-17.0 us with it, 15.7-16.0 without).
template <class T>
HWY_INLINE void Stride2Prefetch(const T* top, size_t rows, size_t srcW) {
    if (sizeof(T) > 1) PrefetchLines(top, (rows + 2) * srcW, 2 * srcW);
}

// `count` output rows whose windows have kRows input rows, the first at `base`, each next one
// `step` further, every one taking Stride2PairSpansOverrun. Out of line, carrying only the two
// pointers from row to row. Measured on Zen 5, 3x3 s2 p1 64x112x112 NCHW, alternating runs:
// Stride2PairSpans (halving vectors, overlapping UINT8 tail) 29.0-29.3 us (BF16) and 14.5-14.6
// us (UINT8); these rows inline in Stride2Planes with a fit test per row 31-32 and 12.8-13.1;
// out of line 24.1-26.4 and 9.8-10.2 (copy of the same bytes 17.8-18.5 and 6.6-7.2).
// Measured and dropped: two output rows per step sharing their middle input row (no gain for
// BF16, UINT8 slower), 256-bit half loads (no gain), one two-table permute for the 16-bit lane
// shift (no gain). Loads that straddle cache lines weigh (1 per cycle against 2): BF16 rows of
// 128 columns, every row on a line boundary, took 25% less time per vector than rows of 112
// (before each row vector was loaded once, KeepInRegister).
template <int kKernel, int kPad, int kRows, class P, class T>
HWY_NOINLINE void Stride2PairRowsOverrun(const T* base, size_t srcW, size_t step, size_t count,
                                         size_t end, T* dst, size_t dstW) {
    const hn::ScalableTag<typename P::Lane> d;
    for (; count != 0; --count, base += step, dst += dstW) {
        Stride2Prefetch(base, kRows, srcW);
        const T* rows[kRows];
        for (int r = 0; r < kRows; ++r) rows[r] = base + r * srcW;
        Stride2PairSpansOverrun<kKernel, kPad, kRows, P>(d, rows, end, dst);
    }
}

// Output rows [dy0, dy1) of plane c whose windows have exactly kRows rows, all inside the input.
template <int kKernel, int kPad, int kRows, class Op, class T>
HWY_INLINE void Stride2InteriorRows(const Op& op, const T* src, const PoolShape& s, const Axis& ax,
                                    const float* columns, size_t c, size_t dy0, size_t dy1,
                                    T* dst) {
    const size_t plane = s.srcH * s.srcW, step = s.strideY * s.srcW;
    const T* base = src + c * plane + (dy0 * s.strideY - s.padY) * s.srcW;
    T* out = dst + (c * s.dstH + dy0) * s.dstW;
    using Pairs = typename Stride2PairsOf<Op>::type;
    if constexpr (!std::is_void<Pairs>::value) {
        // Rows far enough from the tensor's end take whole vectors past the row's end.
        const hn::ScalableTag<typename Pairs::Lane> d;
        const size_t end = std::min(ax.dst, ax.src / 2);
        const size_t covered = Stride2Overrun(end, hn::Lanes(d));
        const size_t srcSize = s.srcC * plane, dstSize = s.dstC * s.dstH * s.dstW;
        const size_t reach = (kRows - 1) * s.srcW + 2 * covered;
        // Rows [dy0, dyFit) have their reads and writes inside the tensors.
        size_t dyFit = dy1;
        while (dyFit > dy0 && (size_t(base - src) + (dyFit - 1 - dy0) * step + reach > srcSize ||
                               size_t(out - dst) + (dyFit - 1 - dy0) * s.dstW + covered > dstSize))
            --dyFit;
        Stride2PairRowsOverrun<kKernel, kPad, kRows, Pairs>(base, s.srcW, step, dyFit - dy0, end,
                                                            out, s.dstW);
        for (size_t dy = dy0; dy < dyFit; ++dy, base += step, out += s.dstW)
            for (size_t dx = end; dx < ax.dst; ++dx)
                RowColumn(op, Rows<T>{base, 1, plane, size_t(kRows), s.srcW}, ax, dx, out);
        dy0 = dyFit;
    }
    for (size_t dy = dy0; dy < dy1; ++dy, base += step, out += s.dstW) {
        const Rows<T> in{base, 1, plane, size_t(kRows), s.srcW};
        Stride2Prefetch(base, kRows, s.srcW);
        Stride2Row<kKernel, kPad, kRows>(op, in, ax, columns, out);
    }
}

// Every output row of the stride-2 NCHW pools for one kernel width and pad. Not inlined: inside
// the whole pooling kernel the per-row setup kept its values on the stack, which the short
// BF16 and UINT8 rows felt most (3x3 s2 p1 64x112x112: BF16 39.4-40.4 us inlined, 31.0-32.2
// here; UINT8 20.4-20.8 and 18.0-18.5; FP32 unchanged). The rows whose windows are inside the
// input step through the planes without clipping each window again (BF16 30.0-31.6 -> 28.7-29.9
// us, UINT8 17.0-17.8 -> 14.8-15.1).
template <int kKernel, int kPad, class Op, class T>
HWY_NOINLINE void Stride2Planes(const Op& op, const T* src, const PoolShape& s, const Axis& ax,
                                const float* columns, T* dst) {
    const size_t plane = s.srcH * s.srcW;
    // Rows [dyIn, dyOut) have whole windows inside the input; the others are clipped.
    const size_t dyIn = std::min((s.padY + s.strideY - 1) / s.strideY, s.dstH);
    size_t dyOut = s.srcH + s.padY >= s.kernelY ? (s.srcH + s.padY - s.kernelY) / s.strideY + 1 : 0;
    dyOut = std::max(dyIn, std::min(dyOut, s.dstH));
    const auto clipped = [&](size_t c, size_t dy) HWY_ATTR {
        const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
        const Rows<T> in{src + c * plane + yr.begin * s.srcW, 1, plane, yr.end - yr.begin, s.srcW};
        Stride2Prefetch(in.base, in.rows, s.srcW);
        Stride2RowAny<kKernel, kPad>(op, in, ax, columns, dst + (c * s.dstH + dy) * s.dstW);
    };
    for (size_t c = 0; c < s.dstC; ++c) {
        for (size_t dy = 0; dy < dyIn; ++dy) clipped(c, dy);
        switch (s.kernelY) {
            case 1:
                Stride2InteriorRows<kKernel, kPad, 1>(op, src, s, ax, columns, c, dyIn, dyOut, dst);
                break;
            case 2:
                Stride2InteriorRows<kKernel, kPad, 2>(op, src, s, ax, columns, c, dyIn, dyOut, dst);
                break;
            default:
                Stride2InteriorRows<kKernel, kPad, 3>(op, src, s, ax, columns, c, dyIn, dyOut, dst);
        }
        for (size_t dy = dyOut; dy < s.dstH; ++dy) clipped(c, dy);
    }
}
#endif

// `scratch`: null, or dstW floats (reciprocal clipped window widths) followed by the padded
// row.
template <class Op, class T>
HWY_INLINE void PoolNchw(const Op& op, const T* src, const PoolShape& s, T* dst, void* scratch) {
    const size_t plane = s.srcH * s.srcW;
    const Axis ax{s.srcW, s.kernelX, s.strideX, s.padX, s.dstW};
    float* columns = static_cast<float*>(scratch);
    typename Op::C* tmp = nullptr;
    if (scratch) {
        for (size_t dx = 0; dx < s.dstW; ++dx) {
            const PoolRange xr = ClipWindow(dx, s.strideX, s.padX, s.kernelX, s.srcW);
            columns[dx] = 1.0f / float(xr.end - xr.begin);
        }
        tmp = reinterpret_cast<typename Op::C*>(columns + s.dstW);
    }
    if (!s.channel3d && s.dstH == 1 && s.dstW == 1) {
        const PoolRange yr = ClipWindow(0, s.strideY, s.padY, s.kernelY, s.srcH);
        const PoolRange xr = ClipWindow(0, s.strideX, s.padX, s.kernelX, s.srcW);
        if (yr.begin == 0 && yr.end == s.srcH && xr.begin == 0 && xr.end == s.srcW) {
            GlobalNchw(op, src, s.srcC, plane, op.Area(s.srcH, s.srcW), dst);
            return;
        }
    }
#ifdef SIMD_POOL_STRIDE2_NCHW
    if constexpr (std::is_same<typename Op::C, float>::value ||
                  !std::is_void<typename Stride2PairsOf<Op>::type>::value) {
        if (scratch && Stride2Fits(s)) {
            if (ax.kernel == 3)
                Stride2Planes<3, 1>(op, src, s, ax, columns, dst);
            else if (ax.pad == 1)
                Stride2Planes<2, 1>(op, src, s, ax, columns, dst);
            else
                Stride2Planes<2, 0>(op, src, s, ax, columns, dst);
            return;
        }
    }
#endif
    for (size_t dc = 0; dc < s.dstC; ++dc) {
        const PoolRange cr = s.channel3d ? ClipWindow(dc, s.strideC, s.padC, s.kernelC, s.srcC)
                                         : PoolRange{dc, dc + 1};
        for (size_t dy = 0; dy < s.dstH; ++dy) {
            const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
            const Rows<T> in{src + cr.begin * plane + yr.begin * s.srcW, cr.end - cr.begin, plane,
                             yr.end - yr.begin, s.srcW};
            PoolRow(op, in, ax, dst + (dc * s.dstH + dy) * s.dstW, tmp, columns);
        }
    }
}

// All channels of one NHWC output pixel (window rows yr, columns xr): the window is visited
// once per group of four channel vectors.
// kY, kX > 0: the window is known to be kY x kX (unclipped), so the tap loops unroll.
template <int kY, int kX, class Op, class T>
HWY_INLINE void NhwcPixel(const Op& op, const T* src, size_t C, size_t srcW, PoolRange yr,
                          PoolRange xr, float area, T* dst) {
    const hn::ScalableTag<typename Op::C> d;
    const hn::Rebind<T, decltype(d)> dt;
    const size_t N = hn::Lanes(d);
    const size_t rows = kY > 0 ? size_t(kY) : yr.end - yr.begin;
    const size_t cols = kX > 0 ? size_t(kX) : xr.end - xr.begin;
    const T* origin = src + (yr.begin * srcW + xr.begin) * C;
    const float inverse = 1.0f / area;
    size_t c = 0;
    for (; c + 4 * N <= C; c += 4 * N) {
        auto a0 = op.Init(d), a1 = a0, a2 = a0, a3 = a0;
        for (size_t y = 0; y < rows; ++y) {
            for (size_t x = 0; x < cols; ++x) {
                const T* p = origin + (y * srcW + x) * C + c;
                a0 = op.Fold(a0, op.Widen(d, hn::LoadU(dt, p)));
                a1 = op.Fold(a1, op.Widen(d, hn::LoadU(dt, p + N)));
                a2 = op.Fold(a2, op.Widen(d, hn::LoadU(dt, p + 2 * N)));
                a3 = op.Fold(a3, op.Widen(d, hn::LoadU(dt, p + 3 * N)));
            }
        }
        op.StoreInverse(d, a0, inverse, dst + c);
        op.StoreInverse(d, a1, inverse, dst + c + N);
        op.StoreInverse(d, a2, inverse, dst + c + 2 * N);
        op.StoreInverse(d, a3, inverse, dst + c + 3 * N);
    }
    const auto one = [&](auto dv, size_t at) HWY_ATTR {
        const hn::Rebind<T, decltype(dv)> dtv;
        auto acc = op.Init(dv);
        for (size_t y = 0; y < rows; ++y)
            for (size_t x = 0; x < cols; ++x)
                acc = op.Fold(acc, op.Widen(dv, hn::LoadU(dtv, origin + (y * srcW + x) * C + at)));
        op.StoreInverse(dv, acc, inverse, dst + at);
    };
    for (; c + N <= C; c += N) one(d, c);
    if (c == C) return;
    if (C >= N) {
        one(d, C - N);  // overlaps channels already written with the same values
        return;
    }
    const hn::CappedTag<typename Op::C, 1> d1;
    for (; c < C; ++c) one(d1, c);
}

// NHWC output columns [dxBegin, dxEnd) of one row of windows 3 columns wide with stride 2,
// all unclipped horizontally: the column folds (over the window rows) slide along the row, so
// the fold of the last column of a window is reused as the first column of the next one
// (6 loads per output vector instead of 9). Compute lanes the size of the storage lanes (FP32,
// UINT8, BF16 keys).
template <int kRows, class Op, class T>
HWY_INLINE void NhwcRow3x2(const Op& op, const T* src, size_t C, size_t srcW, size_t padX,
                           PoolRange yr, size_t dxBegin, size_t dxEnd, float area, T* dstRow) {
    const hn::ScalableTag<typename Op::C> d;
    const hn::Rebind<T, decltype(d)> dt;
    const size_t N = hn::Lanes(d);
    const size_t rows = kRows > 0 ? size_t(kRows) : yr.end - yr.begin;
    const float inverse = 1.0f / area;
    const T* base = src + yr.begin * srcW * C;
    const size_t rowStep = srcW * C;
    const auto column = [&](size_t x, size_t c) HWY_ATTR {
        const T* p = base + x * C + c;
        auto acc = op.Init(d);
        if constexpr (kRows > 0) {
            // Starts from the initial value: the max accumulators never hold a NaN.
            for (int r = 0; r < kRows; ++r)
                acc = op.Fold(acc, op.Widen(d, hn::LoadU(dt, p + r * rowStep)));
        } else {
            for (size_t r = 0; r < rows; ++r, p += rowStep)
                acc = op.Fold(acc, op.Widen(d, hn::LoadU(dt, p)));
        }
        return acc;
    };
    const auto run = [&](size_t c) HWY_ATTR {
        size_t x = 2 * dxBegin - padX;
        auto prev = column(x, c);
        for (size_t dx = dxBegin; dx < dxEnd; ++dx, x += 2) {
            const auto middle = column(x + 1, c);
            const auto last = column(x + 2, c);
            op.StoreInverse(d, op.Fold(op.Fold(prev, middle), last), inverse, dstRow + dx * C + c);
            prev = last;
        }
    };
    // Four channel vectors per walk along the row: each input row is read once per walk.
    const auto run4 = [&](size_t c) HWY_ATTR {
        size_t x = 2 * dxBegin - padX;
        auto p0 = column(x, c), p1 = column(x, c + N), p2 = column(x, c + 2 * N),
             p3 = column(x, c + 3 * N);
        for (size_t dx = dxBegin; dx < dxEnd; ++dx, x += 2) {
            T* out = dstRow + dx * C + c;
            const auto l0 = column(x + 2, c), l1 = column(x + 2, c + N);
            const auto l2 = column(x + 2, c + 2 * N), l3 = column(x + 2, c + 3 * N);
            op.StoreInverse(d, op.Fold(op.Fold(p0, column(x + 1, c)), l0), inverse, out);
            op.StoreInverse(d, op.Fold(op.Fold(p1, column(x + 1, c + N)), l1), inverse, out + N);
            op.StoreInverse(d, op.Fold(op.Fold(p2, column(x + 1, c + 2 * N)), l2), inverse,
                            out + 2 * N);
            op.StoreInverse(d, op.Fold(op.Fold(p3, column(x + 1, c + 3 * N)), l3), inverse,
                            out + 3 * N);
            p0 = l0;
            p1 = l1;
            p2 = l2;
            p3 = l3;
        }
    };
    size_t c = 0;
    for (; c + 4 * N <= C; c += 4 * N) run4(c);
    for (; c + N <= C; c += N) run(c);
    if (c < C) run(C - N);  // overlaps channels already written with the same values
}

// kOut vertically neighbouring NHWC output rows of 3x3 stride-2 windows, all unclipped (compute
// lanes the size of the storage lanes): the 2*kOut + 1 input rows are read once per walk along the
// row, the row shared by two neighbouring windows loaded once for both (every input line is
// otherwise filled into L1 again for the second window, and these fills bound the speed), and the
// column folds slide along the row as in NhwcRow3x2. kVec channel vectors per walk; `base` points
// at column 0 of the first input row, `dst` at the first output row. Not inlined: inside the whole
// pooling kernel the compiler spilled the column folds and loop bounds to the stack (BF16 3x3 s2 p1
// 64x112x112: 25.9-26.6 us inlined, 23.2-24.8 out of line).
template <size_t kOut, size_t kVec, class Op, class T>
HWY_NOINLINE void NhwcRows3x2(const Op& op, const T* base, size_t C, size_t rowStep, size_t padX,
                              size_t dxBegin, size_t dxEnd, float inverse, size_t c, T* dst,
                              size_t dstRowStep) {
    const hn::ScalableTag<typename Op::C> d;
    const hn::Rebind<T, decltype(d)> dt;
    using V = hn::Vec<decltype(d)>;
    const size_t N = hn::Lanes(d);
    // The max folds start from the initial value: their accumulators never hold a NaN.
    const auto start = [&](V v) HWY_ATTR {
        if constexpr (Op::kAverage)
            return v;
        else
            return op.Fold(op.Init(d), v);
    };
    const auto columns = [&](size_t x, V(&out)[kOut][kVec]) HWY_ATTR {
        HWY_UNROLL(4)
        for (size_t v = 0; v < kVec; ++v) {
            const T* p = base + x * C + c + v * N;
            V top = start(op.Widen(d, hn::LoadU(dt, p)));
            HWY_UNROLL(4)
            for (size_t j = 0; j < kOut; ++j) {
                const V middle = op.Widen(d, hn::LoadU(dt, p + (2 * j + 1) * rowStep));
                const V bottom = op.Widen(d, hn::LoadU(dt, p + (2 * j + 2) * rowStep));
                out[j][v] = op.Fold(op.Fold(top, middle), bottom);
                top = start(bottom);
            }
        }
    };
    V prev[kOut][kVec], middle[kOut][kVec], last[kOut][kVec];
    size_t x = 2 * dxBegin - padX;
    columns(x, prev);
    for (size_t dx = dxBegin; dx < dxEnd; ++dx, x += 2) {
        columns(x + 1, middle);
        columns(x + 2, last);
        HWY_UNROLL(4)
        for (size_t j = 0; j < kOut; ++j) {
            HWY_UNROLL(4)
            for (size_t v = 0; v < kVec; ++v) {
                op.StoreInverse(d, op.Fold(op.Fold(prev[j][v], middle[j][v]), last[j][v]), inverse,
                                dst + j * dstRowStep + dx * C + c + v * N);
                prev[j][v] = last[j][v];
            }
        }
    }
}

template <size_t kOut, class Op, class T>
HWY_INLINE void NhwcRowGroup3x2(const Op& op, const T* base, size_t C, size_t rowStep, size_t padX,
                                size_t dxBegin, size_t dxEnd, float inverse, T* dst,
                                size_t dstRowStep) {
    const size_t N = hn::Lanes(hn::ScalableTag<T>());
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    constexpr size_t kVec = 4;  // 32 registers
#else
    constexpr size_t kVec = 1;
#endif
    size_t c = 0;
    for (; c + kVec * N <= C; c += kVec * N)
        NhwcRows3x2<kOut, kVec>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, c, dst,
                                dstRowStep);
    // Two vectors in one walk where four do not fit: each walk brings the 2*kOut + 1 input rows
    // into L1 again, and 2*kOut + 1 rows of 64 BF16 channels overflow it (Zen 5, BF16 3x3 s2
    // p1 64x112x112: 25.4-26.0 us in two walks of one vector, 22.2-22.7 in one of two).
    if constexpr (kVec > 2)
        for (; c + 2 * N <= C; c += 2 * N)
            NhwcRows3x2<kOut, 2>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, c, dst,
                                 dstRowStep);
    for (; c + N <= C; c += N)
        NhwcRows3x2<kOut, 1>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, c, dst,
                             dstRowStep);
    if (c < C)  // overlaps channels already written with the same values
        NhwcRows3x2<kOut, 1>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, C - N, dst,
                             dstRowStep);
}

// Global pooling of NHWC input (one window covering every pixel): `pixels` contiguous pixels of
// C channels. kGroup channel vectors are folded across all pixels at once, in registers: every
// pixel contributes one contiguous run of kGroup vectors (streams well, unlike one vector per
// pixel at a C-element stride), and the kGroup independent chains hide the fold latency.
template <size_t kGroup, class D, class Op, class T>
HWY_INLINE void GlobalNhwcGroup(D d, const Op& op, const T* src, size_t C, size_t pixels,
                                float area, size_t c, T* dst) {
    const hn::Rebind<T, D> dt;
    const size_t N = hn::Lanes(d);
    hn::Vec<D> acc[kGroup];
    HWY_UNROLL(16)
    for (size_t g = 0; g < kGroup; ++g) {
        acc[g] = op.Widen(d, hn::LoadU(dt, src + c + g * N));
        if constexpr (!Op::kAverage) acc[g] = op.Fold(op.Init(d), acc[g]);
    }
    for (size_t p = 1; p < pixels; ++p) {
        const T* s = src + p * C + c;
        HWY_UNROLL(16)
        for (size_t g = 0; g < kGroup; ++g)
            acc[g] = op.Fold(acc[g], op.Widen(d, hn::LoadU(dt, s + g * N)));
    }
    HWY_UNROLL(16)
    for (size_t g = 0; g < kGroup; ++g) op.Store(d, acc[g], area, dst + c + g * N);
}

// Global pooling of FP32 NHWC input with many channels: the running results of all channels
// live in an L1 buffer and every pixel is folded into them in turn, so the input is read once,
// front to back, in the order each channel's results are folded anyway. With groups of register
// accumulators each group swept the pixels C floats apart; that stream ran at 70% of a copy of the
// input on Zen 5 (1024x7x7: 1.56-1.63 us against 1.30-1.32 here, copy 1.12-1.15). The buffer sits
// half a page away from the input (modulo 4 KiB): a pixel row of 1024 channels is 4 KiB long, so a
// buffer at the same page offset made every load of the input wait for the buffer store of the same
// offset (4K aliasing: 2.1 us).
constexpr size_t kGlobalInL1MinVectors = 32, kGlobalInL1MaxChannels = 4096;
// Out of line except on AVX-512 (Zen 5, 1024x7x7, us): inlined into the whole pooling kernel,
// AVX2 took 2.02-2.31 and SSE4 3.68-3.79 once the kernel grew; out of line 1.46-1.61 and
// 2.70-3.44 (the spread is code layout: the same code measured both ends in two builds). AVX-512
// measured 1.22-1.44 inlined against 1.44-1.55 out of line.
#undef SIMD_POOL_GLOBAL_IN_L1
#if HWY_TARGET <= HWY_AVX3
#define SIMD_POOL_GLOBAL_IN_L1 HWY_INLINE
constexpr bool kGlobalInL1Unroll = true;
#else
#define SIMD_POOL_GLOBAL_IN_L1 HWY_NOINLINE
constexpr bool kGlobalInL1Unroll = false;
#endif
template <class D, class Op>
SIMD_POOL_GLOBAL_IN_L1 void GlobalNhwcInL1(D d, const Op& op, const float* src, size_t C,
                                           size_t pixels, float area, float* dst) {
    constexpr size_t kPage = 4096, kPageFloats = kPage / sizeof(float), kLine = 64;
    alignas(64) float buffer[kGlobalInL1MaxChannels + kPageFloats];
    const uintptr_t srcOffset = reinterpret_cast<uintptr_t>(src) % kPage;
    const uintptr_t bufferOffset = reinterpret_cast<uintptr_t>(buffer) % kPage;
    const size_t shift = (srcOffset + kPage / 2 + kPage - bufferOffset) % kPage;
    float* acc = buffer + shift / kLine * kLine / sizeof(float);
    const size_t N = hn::Lanes(d), whole = C / N * N;
    for (size_t c = 0; c < whole; c += N) {
        auto a = hn::LoadU(d, src + c);
        if constexpr (!Op::kAverage) a = op.Fold(op.Init(d), a);
        hn::Store(a, d, acc + c);
    }
    for (size_t p = 1; p < pixels; ++p) {
        const float* s = src + p * C;
        size_t c = 0;
        // Four vectors per step on AVX-512 only (Zen 5, 1024x7x7: 1.28-1.44 us one at a time,
        // where code layout moved it between builds, 1.11-1.12 four at a time; AVX2 and SSE4
        // went from 1.41 to 1.9 and from 2.67 to 3.7 us with four).
        for (; kGlobalInL1Unroll && c + 4 * N <= whole; c += 4 * N) {
            const auto a0 = op.Fold(hn::Load(d, acc + c), hn::LoadU(d, s + c));
            const auto a1 = op.Fold(hn::Load(d, acc + c + N), hn::LoadU(d, s + c + N));
            const auto a2 = op.Fold(hn::Load(d, acc + c + 2 * N), hn::LoadU(d, s + c + 2 * N));
            const auto a3 = op.Fold(hn::Load(d, acc + c + 3 * N), hn::LoadU(d, s + c + 3 * N));
            hn::Store(a0, d, acc + c);
            hn::Store(a1, d, acc + c + N);
            hn::Store(a2, d, acc + c + 2 * N);
            hn::Store(a3, d, acc + c + 3 * N);
        }
        for (; c < whole; c += N)
            hn::Store(op.Fold(hn::Load(d, acc + c), hn::LoadU(d, s + c)), d, acc + c);
    }
    // A multiply by the inverse, not a division per vector (64 divisions took a tenth of the
    // time at 1024 channels).
    const float inverse = 1.0f / area;
    for (size_t c = 0; c < whole; c += N)
        op.StoreInverse(d, hn::Load(d, acc + c), inverse, dst + c);
    const hn::CappedTag<float, 1> d1;
    for (size_t c = whole; c < C; ++c) GlobalNhwcGroup<1>(d1, op, src, C, pixels, area, c, dst);
}

template <class Op, class T>
HWY_INLINE void GlobalNhwc(const Op& op, const T* src, size_t C, size_t pixels, float area,
                           T* dst) {
    const hn::ScalableTag<typename Op::C> d;
    const size_t N = hn::Lanes(d);
    if constexpr (std::is_same_v<T, float>) {
        if (C >= kGlobalInL1MinVectors * N && C <= kGlobalInL1MaxChannels) {
            GlobalNhwcInL1(d, op, src, C, pixels, area, dst);
            return;
        }
    }
    // Registers: 32 vector registers on AVX-512 hold 16 accumulators, 16 registers hold 8.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    constexpr size_t kGroup = 16;
#else
    constexpr size_t kGroup = 8;
#endif
    size_t c = 0;
    for (; c + kGroup * N <= C; c += kGroup * N)
        GlobalNhwcGroup<kGroup>(d, op, src, C, pixels, area, c, dst);
    for (; c + 4 * N <= C; c += 4 * N) GlobalNhwcGroup<4>(d, op, src, C, pixels, area, c, dst);
    for (; c + N <= C; c += N) GlobalNhwcGroup<1>(d, op, src, C, pixels, area, c, dst);
    if (c == C) return;
    if (C >= N) {
        // Overlaps channels already written with the same values.
        GlobalNhwcGroup<1>(d, op, src, C, pixels, area, C - N, dst);
        return;
    }
    const hn::CappedTag<typename Op::C, 1> d1;
    for (; c < C; ++c) GlobalNhwcGroup<1>(d1, op, src, C, pixels, area, c, dst);
}

// 3D pooling (Max32f only) uses `scratch`: srcC floats for the spatial maxima of one pixel,
// pooled across channels like an NCHW row, then the padded row of that channel axis (if the
// entry point sized it).
template <class Op, class T>
HWY_INLINE void PoolNhwc(const Op& op, const T* src, const PoolShape& s, T* dst, void* scratch) {
    const Axis channels{s.srcC, s.kernelC, s.strideC, s.padC, s.dstC};
    T* temp = static_cast<T*>(scratch);
    typename Op::C* tmp = nullptr;
    if (s.channel3d && PoolRowScratch(s.srcC, s.kernelC, s.strideC, s.padC, s.dstC) != 0)
        tmp = reinterpret_cast<typename Op::C*>(temp + s.srcC);
    // Interior columns of 3-wide stride-2 windows slide (NhwcRow3x2); needs C >= the lanes.
    size_t slideBegin = 0, slideEnd = 0;
    if constexpr (sizeof(typename Op::C) == sizeof(T)) {
        if (!s.channel3d && s.kernelX == 3 && s.strideX == 2 &&
            s.srcC >= hn::Lanes(hn::ScalableTag<T>()) && s.srcW + s.padX >= 3) {
            slideBegin = (s.padX + 1) / 2;
            slideEnd = (s.srcW + s.padX - 3) / 2 + 1;
            if (slideEnd > s.dstW) slideEnd = s.dstW;
            if (slideEnd < slideBegin) slideEnd = slideBegin;
        }
    }
    if (!s.channel3d && s.dstH == 1 && s.dstW == 1) {
        const PoolRange yr = ClipWindow(0, s.strideY, s.padY, s.kernelY, s.srcH);
        const PoolRange xr = ClipWindow(0, s.strideX, s.padX, s.kernelX, s.srcW);
        if (yr.begin == 0 && yr.end == s.srcH && xr.begin == 0 && xr.end == s.srcW) {
            GlobalNhwc(op, src, s.srcC, s.srcH * s.srcW, op.Area(s.srcH, s.srcW), dst);
            return;
        }
    }
    if constexpr (sizeof(typename Op::C) == sizeof(T)) {
        // Groups of kGroup output rows whose windows are all 3 rows high (3x3 stride 2 inside
        // the image) share their input rows (NhwcRowGroup3x2); other rows slide alone.
        constexpr size_t kGroup = 2;
        const bool grouped = s.kernelY == 3 && s.strideY == 2;
        const size_t rowStep = s.srcW * s.srcC, dstRowStep = s.dstW * s.dstC;
        for (size_t dy = 0; dy < s.dstH && slideEnd > slideBegin;) {
            const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
            const size_t rows = yr.end - yr.begin;
            T* row = dst + dy * dstRowStep;
            if (grouped && rows == 3 && dy + kGroup <= s.dstH) {
                const PoolRange lastYr =
                    ClipWindow(dy + kGroup - 1, s.strideY, s.padY, s.kernelY, s.srcH);
                if (lastYr.end - lastYr.begin == 3) {
                    NhwcRowGroup3x2<kGroup>(op, src + yr.begin * rowStep, s.srcC, rowStep, s.padX,
                                            slideBegin, slideEnd, 1.0f / op.Area(3, 3), row,
                                            dstRowStep);
                    dy += kGroup;
                    continue;
                }
            }
            if (rows == 3)
                NhwcRow3x2<3>(op, src, s.srcC, s.srcW, s.padX, yr, slideBegin, slideEnd,
                              op.Area(rows, 3), row);
            else
                NhwcRow3x2<0>(op, src, s.srcC, s.srcW, s.padX, yr, slideBegin, slideEnd,
                              op.Area(rows, 3), row);
            ++dy;
        }
    }
    for (size_t dy = 0; dy < s.dstH; ++dy) {
        const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
        for (size_t dx = 0; dx < s.dstW; ++dx) {
            if (dx == slideBegin && slideEnd > slideBegin) {
                dx = slideEnd - 1;
                continue;
            }
            const PoolRange xr = ClipWindow(dx, s.strideX, s.padX, s.kernelX, s.srcW);
            const float area = op.Area(yr.end - yr.begin, xr.end - xr.begin);
            T* out = dst + (dy * s.dstW + dx) * s.dstC;
            if (!s.channel3d) {
                // Unclipped 3x3 and 2x2 windows (the common pools) get unrolled taps.
                const size_t rows = yr.end - yr.begin, cols = xr.end - xr.begin;
                if (rows == 3 && cols == 3)
                    NhwcPixel<3, 3>(op, src, s.srcC, s.srcW, yr, xr, area, out);
                else if (rows == 2 && cols == 2)
                    NhwcPixel<2, 2>(op, src, s.srcC, s.srcW, yr, xr, area, out);
                else
                    NhwcPixel<0, 0>(op, src, s.srcC, s.srcW, yr, xr, area, out);
            } else {
                NhwcPixel<0, 0>(op, src, s.srcC, s.srcW, yr, xr, area, temp);
                PoolRow(op, Rows<T>{temp, 1, 0, 1, s.srcC}, channels, out, tmp, nullptr);
            }
        }
    }
}

template <class Op, class T>
HWY_INLINE void Pool(const Op& op, const T* src, const PoolShape& s, T* dst, void* scratch) {
    if (s.nhwc)
        PoolNhwc(op, src, s, dst, scratch);
    else
        PoolNchw(op, src, s, dst, scratch);
}

void PoolingAverageKernel(const float* src, const PoolShape& s, float* dst, void* scratch) {
    Pool(AverageF32Op{s.excludePad, float(s.kernelY * s.kernelX)}, src, s, dst, scratch);
}

void PoolingMax32fKernel(const float* src, const PoolShape& s, float* dst, void* scratch) {
    Pool(MaxF32Op{}, src, s, dst, scratch);
}

// NHWC takes the int16 keys on every path; NCHW keeps FP32 compute lanes, which its stride-2
// column pairs, plane-pair global pooling and strided gathers are built on.
void PoolingMax16bKernel(const uint16_t* src, const PoolShape& s, uint16_t* dst, void* scratch) {
    if (s.nhwc)
        PoolNhwc(MaxBf16KeyOp{}, src, s, dst, scratch);
    else
        PoolNchw(MaxBf16Op{}, src, s, dst, scratch);
}

void PoolingMax8uKernel(const uint8_t* src, const PoolShape& s, uint8_t* dst, void* scratch) {
    Pool(MaxU8Op{}, src, s, dst, scratch);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <memory>
#include <new>

#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(PoolingAverageKernel);
HWY_EXPORT(PoolingMax32fKernel);
HWY_EXPORT(PoolingMax16bKernel);
HWY_EXPORT(PoolingMax8uKernel);

namespace {

// Coordinates of one axis stay far from overflow: (dst-1)*stride + kernel and pad below 2^62.
bool AxisFits(size_t dst, size_t stride, size_t kernel, size_t pad) {
    const size_t kLimit = size_t(1) << 62;
    size_t reach;
    return CheckedMul(dst - 1, stride, &reach) && CheckedAdd(reach, kernel, &reach) &&
           reach < kLimit && pad < kLimit;
}

// Some window of the axis is empty (SUPPLEMENT.md §5 window rule). Window d clips
// [d*stride - pad, d*stride - pad + kernel) to [0, src): with kernel >= 1 and src >= 1 it is empty
// exactly when d*stride + kernel <= pad (it ends before element 0) or d*stride >= src + pad (it
// starts after the last element). The first condition is weakest at d = 0, the second at
// d = dst - 1, so these two windows are the only candidates. Called after AxisFits, so
// (dst-1)*stride does not overflow; src + pad is compared without forming it.
bool AxisHasEmptyWindow(size_t src, size_t dst, size_t stride, size_t kernel, size_t pad) {
    const size_t lastStart = (dst - 1) * stride;
    return kernel <= pad || (lastStart >= pad && lastStart - pad >= src);
}

// Checks shared by every pooling entry point. Returns false after recording an error; sets
// *empty when there is nothing to compute (a zero extent). Output sizes that leave some window
// entirely outside the input (along Y, X or, in 3D mode, C) are bad input: rejected.
bool ValidatePool(const char* function, const void* src, const void* dst, const PoolShape& s,
                  size_t elementSize, bool* empty) {
    if (s.kernelY == 0 || s.kernelX == 0 || s.strideY == 0 || s.strideX == 0 || s.kernelC == 0 ||
        s.strideC == 0)
        return SetLastErrorF("%s: kernel and stride sizes must be at least 1", function);
    *empty = s.srcC == 0 || s.srcH == 0 || s.srcW == 0 || s.dstC == 0 || s.dstH == 0 || s.dstW == 0;
    if (*empty) return true;
    if (!src || !dst) return SetLastErrorF("%s: src and dst must not be NULL", function);
    size_t srcPlanes, dstPlanes;
    if (!CheckedMul(s.srcC, s.srcH, &srcPlanes) || !FitsInMemory(srcPlanes, s.srcW, elementSize) ||
        !CheckedMul(s.dstC, s.dstH, &dstPlanes) || !FitsInMemory(dstPlanes, s.dstW, elementSize) ||
        !AxisFits(s.dstH, s.strideY, s.kernelY, s.padY) ||
        !AxisFits(s.dstW, s.strideX, s.kernelX, s.padX) ||
        !AxisFits(s.dstC, s.strideC, s.kernelC, s.padC))
        return SetLastErrorF("%s: tensor or window sizes are too large", function);
    // In 2D mode the channel axis is kernel 1, stride 1, pad 0, dstC == srcC: never empty.
    if (AxisHasEmptyWindow(s.srcH, s.dstH, s.strideY, s.kernelY, s.padY) ||
        AxisHasEmptyWindow(s.srcW, s.dstW, s.strideX, s.kernelX, s.padX) ||
        AxisHasEmptyWindow(s.srcC, s.dstC, s.strideC, s.kernelC, s.padC))
        return SetLastErrorF(
            "%s: a window lies entirely outside the input (pad >= kernel or dst size too large)",
            function);
    return true;
}

bool ParseFormat(const char* function, SimdTensorFormatType format, bool* nhwc) {
    if (format != SimdTensorFormatNchw && format != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: format %d is not Nchw or Nhwc", function,
                             static_cast<int>(format));
    *nhwc = format == SimdTensorFormatNhwc;
    return true;
}

PoolShape Shape2D(size_t srcC, size_t srcH, size_t srcW, size_t kernelY, size_t kernelX,
                  size_t strideY, size_t strideX, size_t padY, size_t padX, size_t dstH,
                  size_t dstW, bool nhwc) {
    return PoolShape{srcC, srcH, srcW, 1,    kernelY, kernelX, 1,    strideY, strideX,
                     0,    padY, padX, srcC, dstH,    dstW,    nhwc, false,   false};
}

// Scratch memory of one call (see PoolNchw / PoolNhwc): on the stack up to 16 KiB, else on the
// heap. Without it NCHW kernels read windows directly; 3D NHWC pooling cannot run.
class Scratch {
public:
    // `computeBytes`: size of the kernels' compute lane (4 for FP32/BF16, 1 for UINT8).
    Scratch(const PoolShape& s, size_t computeBytes) {
        size_t bytes = 0;
        if (!s.nhwc) {
            const size_t span = PoolRowScratch(s.srcW, s.kernelX, s.strideX, s.padX, s.dstW);
            if (span) bytes = s.dstW * sizeof(float) + span * computeBytes;
        } else if (s.channel3d) {
            bytes = s.srcC * sizeof(float) +
                    PoolRowScratch(s.srcC, s.kernelC, s.strideC, s.padC, s.dstC) * computeBytes;
        }
        if (bytes == 0) return;
        if (bytes <= sizeof(local_)) {
            data_ = local_;
        } else {
            heap_.reset(new (std::nothrow) float[(bytes + sizeof(float) - 1) / sizeof(float)]);
            data_ = heap_.get();
        }
    }
    void* data() const { return data_; }

private:
    alignas(64) float local_[4096];
    std::unique_ptr<float[]> heap_;
    void* data_ = nullptr;
};

void PoolingAverage(const char* function, const float* src, size_t srcC, size_t srcH, size_t srcW,
                    size_t kernelY, size_t kernelX, size_t strideY, size_t strideX, size_t padY,
                    size_t padX, float* dst, size_t dstH, size_t dstW, SimdBool excludePad,
                    SimdTensorFormatType format) {
    ClearLastError();
    bool nhwc = false, empty = false;
    if (!ParseFormat(function, format, &nhwc)) return;
    if (excludePad != SimdFalse && excludePad != SimdTrue) {
        SetLastErrorF("%s: excludePad %d is not SimdFalse or SimdTrue", function,
                      static_cast<int>(excludePad));
        return;
    }
    PoolShape s =
        Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX, padY, padX, dstH, dstW, nhwc);
    s.excludePad = excludePad == SimdTrue;
    if (!ValidatePool(function, src, dst, s, sizeof(float), &empty) || empty) return;
    const Scratch scratch(s, sizeof(float));
    SIMD_DISPATCH(PoolingAverageKernel)(src, s, dst, scratch.data());
}

void PoolingMax32fRun(const float* src, const PoolShape& s, float* dst) {
    const Scratch scratch(s, sizeof(float));
    if (s.nhwc && s.channel3d && !scratch.data()) {
        SetLastError("SimdSynetPoolingMax32f: out of memory for the channel buffer");
        return;
    }
    SIMD_DISPATCH(PoolingMax32fKernel)(src, s, dst, scratch.data());
}

}  // namespace
}  // namespace simd

SIMD_API void SimdSynetPoolingForwardAverage(const float* src, size_t srcC, size_t srcH,
                                             size_t srcW, size_t kernelY, size_t kernelX,
                                             size_t strideY, size_t strideX, size_t padY,
                                             size_t padX, float* dst, size_t dstH, size_t dstW,
                                             SimdBool excludePad, SimdTensorFormatType format) {
    simd::PoolingAverage("SimdSynetPoolingForwardAverage", src, srcC, srcH, srcW, kernelY, kernelX,
                         strideY, strideX, padY, padX, dst, dstH, dstW, excludePad, format);
}

SIMD_API void SimdSynetPoolingAverage(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                      size_t kernelY, size_t kernelX, size_t strideY,
                                      size_t strideX, size_t padY, size_t padX, float* dst,
                                      size_t dstH, size_t dstW, SimdBool excludePad,
                                      SimdTensorFormatType format) {
    simd::PoolingAverage("SimdSynetPoolingAverage", src, srcC, srcH, srcW, kernelY, kernelX,
                         strideY, strideX, padY, padX, dst, dstH, dstW, excludePad, format);
}

SIMD_API void SimdSynetPoolingForwardMax(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                         size_t kernelY, size_t kernelX, size_t strideY,
                                         size_t strideX, size_t padY, size_t padX, float* dst,
                                         size_t dstH, size_t dstW, SimdBool trans) {
    simd::ClearLastError();
    SIMD_FAIL_IF(trans != SimdFalse && trans != SimdTrue,
                 "SimdSynetPoolingForwardMax: trans is not SimdFalse or SimdTrue");
    const simd::PoolShape s = simd::Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                            padY, padX, dstH, dstW, trans == SimdTrue);
    bool empty = false;
    if (!simd::ValidatePool("SimdSynetPoolingForwardMax", src, dst, s, sizeof(float), &empty) ||
        empty)
        return;
    simd::PoolingMax32fRun(src, s, dst);
}

SIMD_API void SimdSynetPoolingMax32f(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                     size_t kernelC, size_t kernelY, size_t kernelX, size_t strideC,
                                     size_t strideY, size_t strideX, size_t padC, size_t padY,
                                     size_t padX, float* dst, size_t dstC, size_t dstH, size_t dstW,
                                     SimdTensorFormatType format) {
    simd::ClearLastError();
    bool nhwc = false, empty = false;
    if (!simd::ParseFormat("SimdSynetPoolingMax32f", format, &nhwc)) return;
    const bool channel3d = !(kernelC == 1 && strideC == 1 && padC == 0 && srcC == dstC);
    const simd::PoolShape s{srcC,    srcH,    srcW,    kernelC, kernelY,   kernelX,
                            strideC, strideY, strideX, padC,    padY,      padX,
                            dstC,    dstH,    dstW,    nhwc,    channel3d, false};
    if (!simd::ValidatePool("SimdSynetPoolingMax32f", src, dst, s, sizeof(float), &empty) || empty)
        return;
    simd::PoolingMax32fRun(src, s, dst);
}

SIMD_API void SimdSynetPoolingMax16b(const uint16_t* src, size_t srcC, size_t srcH, size_t srcW,
                                     size_t kernelY, size_t kernelX, size_t strideY, size_t strideX,
                                     size_t padY, size_t padX, uint16_t* dst, size_t dstH,
                                     size_t dstW, SimdTensorFormatType format) {
    simd::ClearLastError();
    bool nhwc = false, empty = false;
    if (!simd::ParseFormat("SimdSynetPoolingMax16b", format, &nhwc)) return;
    const simd::PoolShape s = simd::Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                            padY, padX, dstH, dstW, nhwc);
    if (!simd::ValidatePool("SimdSynetPoolingMax16b", src, dst, s, sizeof(uint16_t), &empty) ||
        empty)
        return;
    const simd::Scratch scratch(s, sizeof(float));
    SIMD_DISPATCH(simd::PoolingMax16bKernel)(src, s, dst, scratch.data());
}

SIMD_API void SimdSynetPoolingMax8u(const uint8_t* src, size_t srcC, size_t srcH, size_t srcW,
                                    size_t kernelY, size_t kernelX, size_t strideY, size_t strideX,
                                    size_t padY, size_t padX, uint8_t* dst, size_t dstH,
                                    size_t dstW, SimdTensorFormatType format) {
    simd::ClearLastError();
    bool nhwc = false, empty = false;
    if (!simd::ParseFormat("SimdSynetPoolingMax8u", format, &nhwc)) return;
    const simd::PoolShape s = simd::Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                            padY, padX, dstH, dstW, nhwc);
    if (!simd::ValidatePool("SimdSynetPoolingMax8u", src, dst, s, sizeof(uint8_t), &empty) || empty)
        return;
    const simd::Scratch scratch(s, sizeof(uint8_t));
    SIMD_DISPATCH(simd::PoolingMax8uKernel)(src, s, dst, scratch.data());
}
#endif  // HWY_ONCE
