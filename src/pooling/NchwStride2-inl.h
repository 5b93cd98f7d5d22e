// NCHW rows of 2- or 3-wide stride-2 windows (the common pools) folded in registers, without
// the padded row buffer: FP32 split by ConcatEven/ConcatOdd, BF16 and UINT8 max as column pairs
// in double-width lanes; a lane shift for the left pad, 1-lane clipped windows on the right only.
// BF16 and UINT8 rows away from the tensor's end read and write whole vectors past the row
// (Stride2PairRowsOverrun). Stride2Planes is the entry of this path.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_NCHW_STRIDE2_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_NCHW_STRIDE2_INL_H_
#undef SIMD_SYNET_POOLING_NCHW_STRIDE2_INL_H_
#else
#define SIMD_SYNET_POOLING_NCHW_STRIDE2_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/PoolShape.h"
#include "pooling/RowDirect-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

// The fold of kRows window rows at column x; the max folds start from the initial value (a
// window of -inf gives -FLT_MAX, as the reference's).
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
// -inf gives 0xFF80, the rounding of the reference's -FLT_MAX, one with a NaN gives a NaN). UINT8
// rows fold the bytes before separating them (max is bytewise) and pad with 0, the identity of an
// unsigned max. UINT8 rows end with one overlapping vector (its left columns loaded, not shifted
// in) instead of halving vectors (17.1-17.7 us against 18.0-18.5; BF16 was slower so: 34-36 against
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
    // The descriptor is unused here (the types say everything) but part of the interface the
    // pair spans call (StorePair uses its own).
    template <class D>
    static HWY_INLINE void Store(D /* d */, hn::Vec<D> acc, uint8_t* p) {
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
            // NaN-propagating folds cost a compare and a select each, and this loop is bound by
            // vector operations (3x3 s2 p1 64x112x112 on Sapphire Rapids: 51 us skipping NaN,
            // 80 propagating it; tracking the largest magnitude pattern per column in 16-bit
            // lanes instead, two integer operations per row, gave 78).
            even = MaxPropagateNaN(hn::BitCast(d, hn::ShiftLeft<16>(pairs)), even);
            odd = MaxPropagateNaN(hn::BitCast(d, hn::And(pairs, high)), odd);
        }
    }
    template <class D>
    static HWY_INLINE void Store(D /* d */, hn::Vec<D> acc, uint16_t* p) {
        const hn::Rebind<uint16_t, D> d16;
        const hn::RebindToUnsigned<D> du;
        const hn::RebindToSigned<D> di;
        const auto upper = hn::ShiftRight<16>(hn::BitCast(du, acc));
        hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, upper)), d16, p);  // upper <= 0xFFFF
    }
    // The upper halves of two vectors, lo first, with one store.
    template <class D>
    static HWY_INLINE void StorePair(D /* d */, hn::Vec<D> lo, hn::Vec<D> hi, uint16_t* p) {
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
// even (2dx) and odd (2dx + 1), with the NaN-propagating max for BF16 widened to FP32.
template <int kKernel, int kPad, class V>
HWY_INLINE V Stride2PairWindows(V left, V even, V odd) {
    const auto max = [](V a, V b) HWY_ATTR {
        if constexpr (hwy::IsFloat<hn::TFromV<V>>())
            return MaxPropagateNaN(a, b);
        else
            return hn::Max(a, b);
    };
    if constexpr (kPad == 0) {
        static_assert(kKernel == 2, "kernel 3 needs pad 1");
        return max(even, odd);
    } else {
        const V acc = max(left, even);
        return kKernel == 3 ? max(acc, odd) : acc;
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
    // No interior rows (e.g. pads past the image): the first row's address below would not
    // exist.
    if (dy0 >= dy1) return;
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
// Only the output rows whose windows hold input rows are written; the caller fills the others
// afterwards (FillEmptyOutside).
template <int kKernel, int kPad, class Op, class T>
HWY_NOINLINE void Stride2Planes(const Op& op, const T* src, const PoolShape& s, const Axis& ax,
                                const float* columns, T* dst) {
    const size_t plane = s.srcH * s.srcW;
    const PoolRange rows = NonEmptyWindows(s.srcH, s.kernelY, s.strideY, s.padY, s.dstH);
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
        for (size_t dy = rows.begin; dy < dyIn; ++dy) clipped(c, dy);
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
        for (size_t dy = dyOut; dy < rows.end; ++dy) clipped(c, dy);
    }
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
