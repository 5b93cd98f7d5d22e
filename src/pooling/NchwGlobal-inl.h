// Global pooling of NCHW tensors (one window covering each whole plane).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_NCHW_GLOBAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_NCHW_GLOBAL_INL_H_
#undef SIMD_SYNET_POOLING_NCHW_GLOBAL_INL_H_
#else
#define SIMD_SYNET_POOLING_NCHW_GLOBAL_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/RowDirect-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
    // The first vector starts the fold (max: from the initial value, so that a plane of -inf
    // gives -FLT_MAX, as the reference's).
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

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
