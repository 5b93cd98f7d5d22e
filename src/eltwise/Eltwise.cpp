// Layers that combine several tensors element by element: SimdSynetEltwiseLayerForward
// (SUPPLEMENT.md §4.5) and the ShuffleNet-v2 channel shuffle SimdSynetShuffleLayerForward (§4.8).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "eltwise/Eltwise.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "SimdSynet.h"
#include "core/Loops-inl.h"
#include "core/MinMax-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// ----------------------------------------------------------------------------------------------
// Eltwise. Every operation is a left fold over the inputs that starts from the first pair:
// acc = First(x0, x1), then acc = Next(acc, xi) for i = 2..count-1 (the normative order of
// §4.5, so Product/Max/Min are bit-exact). Weights are used by Sum only.

struct ProductOp {
    static constexpr bool kWeighted = false;
    template <class D, class V>
    HWY_INLINE V First(D, V x0, V x1, float, float) const {
        return hn::Mul(x0, x1);
    }
    template <class D, class V>
    HWY_INLINE V Next(D, V acc, V x, float) const {
        return hn::Mul(acc, x);
    }
};

// LIN: x0*w0 + x1*w1, then acc + xi*wi; the multiply feeding each add is fused.
struct SumOp {
    static constexpr bool kWeighted = true;
    template <class D, class V>
    HWY_INLINE V First(D d, V x0, V x1, float w0, float w1) const {
        return hn::MulAdd(x1, hn::Set(d, w1), hn::Mul(x0, hn::Set(d, w0)));
    }
    template <class D, class V>
    HWY_INLINE V Next(D d, V acc, V x, float w) const {
        return hn::MulAdd(x, hn::Set(d, w), acc);
    }
};

// max(a, b) = a > b ? a : b and min(a, b) = a < b ? a : b with the accumulator first (which
// fixes the sign of equal zeros), NaN where any input is NaN (as ONNX Max/Min in PyTorch and
// ONNX Runtime).
struct MaxOp {
    static constexpr bool kWeighted = false;
    template <class D, class V>
    HWY_INLINE V First(D, V x0, V x1, float, float) const {
        return MaxPropagateNaN(x0, x1);
    }
    template <class D, class V>
    HWY_INLINE V Next(D, V acc, V x, float) const {
        return MaxPropagateNaN(acc, x);
    }
};

struct MinOp {
    static constexpr bool kWeighted = false;
    template <class D, class V>
    HWY_INLINE V First(D, V x0, V x1, float, float) const {
        return MinPropagateNaN(x0, x1);
    }
    template <class D, class V>
    HWY_INLINE V Next(D, V acc, V x, float) const {
        return MinPropagateNaN(acc, x);
    }
};

// The inputs of one call, copied into locals so that the compiler keeps pointers and weights
// in registers (a store to dst could otherwise alias weight[] and force reloads every step).
// kCount > 0 fixes the number of inputs at compile time, so the fold unrolls completely;
// kCount == 0 hoists the first two and reads the others from src[]/weight[] at run time.
template <size_t kCount>
struct EltwiseInputs {
    static constexpr size_t kHoisted = kCount > 0 ? kCount : 2;
    const float* src[kHoisted];
    float weight[kHoisted];
    const float* const* more;  // kCount == 0: all inputs
    const float* moreWeight;   // kCount == 0: all weights (NULL unless weighted)
    size_t count;

    EltwiseInputs(const float* const* s, const float* w, size_t n)
        : more(s), moreWeight(w), count(n) {
        for (size_t k = 0; k < kHoisted; ++k) {
            src[k] = s[k];
            weight[k] = w ? w[k] : 0.0f;
        }
    }
};

// One vector of the result at element i: all inputs are folded in registers, so dst is
// written once and read never (in place with dst == src[k] is therefore safe for every k).
template <class Op, size_t kCount, class D>
HWY_INLINE hn::Vec<D> FoldVector(D d, const Op& op, const EltwiseInputs<kCount>& in, size_t i) {
    constexpr size_t kHoisted = EltwiseInputs<kCount>::kHoisted;
    hn::Vec<D> acc = op.First(d, hn::LoadU(d, in.src[0] + i), hn::LoadU(d, in.src[1] + i),
                              in.weight[0], in.weight[1]);
    for (size_t k = 2; k < kHoisted; ++k)
        acc = op.Next(d, acc, hn::LoadU(d, in.src[k] + i), in.weight[k]);
    if (kCount == 0)
        for (size_t k = 2; k < in.count; ++k)
            acc = op.Next(d, acc, hn::LoadU(d, in.more[k] + i),
                          Op::kWeighted ? in.moreWeight[k] : 0.0f);
    return acc;
}

// Four vectors at once, inputs in the outer loop: four independent dependency chains and one
// pass over the pointer array per four vectors.
template <bool kStream, class Op, size_t kCount, class D>
HWY_INLINE void FoldBlock4(D d, const Op& op, const EltwiseInputs<kCount>& in, size_t i,
                           float* dst) {
    constexpr size_t kHoisted = EltwiseInputs<kCount>::kHoisted;
    const size_t L = hn::Lanes(d);
    const float w0 = in.weight[0], w1 = in.weight[1];
    const float* s0 = in.src[0] + i;
    const float* s1 = in.src[1] + i;
    auto a0 = op.First(d, hn::LoadU(d, s0 + 0 * L), hn::LoadU(d, s1 + 0 * L), w0, w1);
    auto a1 = op.First(d, hn::LoadU(d, s0 + 1 * L), hn::LoadU(d, s1 + 1 * L), w0, w1);
    auto a2 = op.First(d, hn::LoadU(d, s0 + 2 * L), hn::LoadU(d, s1 + 2 * L), w0, w1);
    auto a3 = op.First(d, hn::LoadU(d, s0 + 3 * L), hn::LoadU(d, s1 + 3 * L), w0, w1);
    for (size_t k = 2; k < kHoisted; ++k) {
        const float* s = in.src[k] + i;
        const float w = in.weight[k];
        a0 = op.Next(d, a0, hn::LoadU(d, s + 0 * L), w);
        a1 = op.Next(d, a1, hn::LoadU(d, s + 1 * L), w);
        a2 = op.Next(d, a2, hn::LoadU(d, s + 2 * L), w);
        a3 = op.Next(d, a3, hn::LoadU(d, s + 3 * L), w);
    }
    if (kCount == 0) {
        for (size_t k = 2; k < in.count; ++k) {
            const float* s = in.more[k] + i;
            const float w = Op::kWeighted ? in.moreWeight[k] : 0.0f;
            a0 = op.Next(d, a0, hn::LoadU(d, s + 0 * L), w);
            a1 = op.Next(d, a1, hn::LoadU(d, s + 1 * L), w);
            a2 = op.Next(d, a2, hn::LoadU(d, s + 2 * L), w);
            a3 = op.Next(d, a3, hn::LoadU(d, s + 3 * L), w);
        }
    }
    StoreMain<kStream>(d, a0, dst + i + 0 * L);
    StoreMain<kStream>(d, a1, dst + i + 1 * L);
    StoreMain<kStream>(d, a2, dst + i + 2 * L);
    StoreMain<kStream>(d, a3, dst + i + 3 * L);
}

template <bool kStream, class Op, size_t kCount>
HWY_INLINE void EltwiseLoopImpl(const Op& op, const EltwiseInputs<kCount>& in, size_t size,
                                float* dst) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (const size_t head = HeadForAlignment<kStream>(dst, size); i < head; ++i)
        hn::StoreU(FoldVector(d1, op, in, i), d1, dst + i);
    if (size - i >= 4 * L)
        for (; i <= size - 4 * L; i += 4 * L) FoldBlock4<kStream>(d, op, in, i, dst);
    for (; i + L <= size; i += L) StoreMain<kStream>(d, FoldVector(d, op, in, i), dst + i);
    for (; i < size; ++i) hn::StoreU(FoldVector(d1, op, in, i), d1, dst + i);
}

// Non-temporal stores when the call streams more bytes (all inputs and the output) than the
// last-level cache holds: the start of dst is then evicted before the call ends, so keeping
// it cached gains nothing, while streaming saves the read-for-ownership of every dst line.
template <class Op, size_t kCount>
HWY_INLINE void EltwiseLoop(const Op& op, const EltwiseInputs<kCount>& in, size_t size,
                            float* dst) {
    const size_t arrays = in.count + 1;
    if (size > StreamingThresholdBytes() / sizeof(float) / arrays) {
        EltwiseLoopImpl<true>(op, in, size, dst);
        hwy::FlushStream();
    } else {
        EltwiseLoopImpl<false>(op, in, size, dst);
    }
}

template <class Op>
HWY_INLINE void EltwiseCounts(const Op& op, const float* const* src, const float* weight,
                              size_t count, size_t size, float* dst) {
    switch (count) {
        case 2:
            EltwiseLoop(op, EltwiseInputs<2>{src, weight, 2}, size, dst);
            return;
        case 3:
            EltwiseLoop(op, EltwiseInputs<3>{src, weight, 3}, size, dst);
            return;
        case 4:
            EltwiseLoop(op, EltwiseInputs<4>{src, weight, 4}, size, dst);
            return;
        default:
            EltwiseLoop(op, EltwiseInputs<0>{src, weight, count}, size, dst);
            return;
    }
}

// `type` has been validated by the entry point.
void EltwiseForward(const float* const* src, const float* weight, size_t count, size_t size,
                    SimdSynetEltwiseOperationType type, float* dst) {
    switch (type) {
        case SimdSynetEltwiseOperationProduct:
            EltwiseCounts(ProductOp{}, src, nullptr, count, size, dst);
            return;
        case SimdSynetEltwiseOperationSum:
            EltwiseCounts(SumOp{}, src, weight, count, size, dst);
            return;
        case SimdSynetEltwiseOperationMax:
            EltwiseCounts(MaxOp{}, src, nullptr, count, size, dst);
            return;
        case SimdSynetEltwiseOperationMin:
            EltwiseCounts(MinOp{}, src, nullptr, count, size, dst);
            return;
    }
}

// ----------------------------------------------------------------------------------------------
// Shuffle. Because srcC0 is even, no channel pair of the concatenated tensor straddles the two
// inputs: pair p of src0 gives dst0/dst1 channel p, pair p of src1 gives channel srcC0/2 + p.

// Copies n floats, n >= Lanes(d): 4x unrolled, the last partial vector overlapping the one
// before it (the values written twice are equal, and dst never overlaps src).
template <class D>
HWY_INLINE void CopyRowOverlapped(D d, const float* src, size_t n, float* dst) {
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    if (n >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            const auto v0 = hn::LoadU(d, src + i + 0 * L);
            const auto v1 = hn::LoadU(d, src + i + 1 * L);
            const auto v2 = hn::LoadU(d, src + i + 2 * L);
            const auto v3 = hn::LoadU(d, src + i + 3 * L);
            hn::StoreU(v0, d, dst + i + 0 * L);
            hn::StoreU(v1, d, dst + i + 1 * L);
            hn::StoreU(v2, d, dst + i + 2 * L);
            hn::StoreU(v3, d, dst + i + 3 * L);
        }
    }
    for (; i + L <= n; i += L) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
    if (i < n) hn::StoreU(hn::LoadU(d, src + n - L), d, dst + n - L);
}

HWY_INLINE void CopyRow(const float* src, size_t n, float* dst) {
    const DF d;
    if (n >= hn::Lanes(d)) return CopyRowOverlapped(d, src, n, dst);
    const hn::CappedTag<float, 4> d4;
    if (n >= hn::Lanes(d4)) return CopyRowOverlapped(d4, src, n, dst);
    const DF1 d1;
    for (size_t i = 0; i < n; ++i) hn::StoreU(hn::LoadU(d1, src + i), d1, dst + i);
}

// Splits `pairs` interleaved pairs (a0 b0 a1 b1 ...) of src into even[] and odd[],
// pairs >= Lanes(d); the last partial vector overlaps the one before it.
template <class D>
HWY_INLINE void DeinterleaveOverlapped(D d, const float* src, size_t pairs, float* even,
                                       float* odd) {
    const size_t L = hn::Lanes(d);
    hn::Vec<D> e0, o0, e1, o1;
    size_t p = 0;
    if (pairs >= 2 * L) {
        for (; p <= pairs - 2 * L; p += 2 * L) {
            hn::LoadInterleaved2(d, src + 2 * p, e0, o0);
            hn::LoadInterleaved2(d, src + 2 * p + 2 * L, e1, o1);
            hn::StoreU(e0, d, even + p);
            hn::StoreU(o0, d, odd + p);
            hn::StoreU(e1, d, even + p + L);
            hn::StoreU(o1, d, odd + p + L);
        }
    }
    for (; p + L <= pairs; p += L) {
        hn::LoadInterleaved2(d, src + 2 * p, e0, o0);
        hn::StoreU(e0, d, even + p);
        hn::StoreU(o0, d, odd + p);
    }
    if (p < pairs) {
        p = pairs - L;
        hn::LoadInterleaved2(d, src + 2 * p, e0, o0);
        hn::StoreU(e0, d, even + p);
        hn::StoreU(o0, d, odd + p);
    }
}

HWY_INLINE void Deinterleave(const float* src, size_t pairs, float* even, float* odd) {
    const DF d;
    if (pairs >= hn::Lanes(d)) return DeinterleaveOverlapped(d, src, pairs, even, odd);
    const hn::CappedTag<float, 8> d8;
    if (pairs >= hn::Lanes(d8)) return DeinterleaveOverlapped(d8, src, pairs, even, odd);
    const hn::CappedTag<float, 4> d4;
    if (pairs >= hn::Lanes(d4)) return DeinterleaveOverlapped(d4, src, pairs, even, odd);
    const DF1 d1;
    for (size_t p = 0; p < pairs; ++p) {
        hn::StoreU(hn::LoadU(d1, src + 2 * p), d1, even + p);
        hn::StoreU(hn::LoadU(d1, src + 2 * p + 1), d1, odd + p);
    }
}

void ShuffleForward(const float* src0, size_t srcC0, const float* src1, size_t srcC1,
                    size_t spatial, float* dst0, float* dst1, size_t dstC, bool nhwc) {
    const size_t half0 = srcC0 / 2, half1 = srcC1 / 2;
    if (nhwc) {
        for (size_t s = 0; s < spatial; ++s) {
            float* d0 = dst0 + s * dstC;
            float* d1 = dst1 + s * dstC;
            Deinterleave(src0 + s * srcC0, half0, d0, d1);
            Deinterleave(src1 + s * srcC1, half1, d0 + half0, d1 + half0);
        }
        return;
    }
    // NCHW: every output channel is one whole input plane.
    for (size_t j = 0; j < half0; ++j) {
        CopyRow(src0 + (2 * j + 0) * spatial, spatial, dst0 + j * spatial);
        CopyRow(src0 + (2 * j + 1) * spatial, spatial, dst1 + j * spatial);
    }
    for (size_t j = 0; j < half1; ++j) {
        CopyRow(src1 + (2 * j + 0) * spatial, spatial, dst0 + (half0 + j) * spatial);
        CopyRow(src1 + (2 * j + 1) * spatial, spatial, dst1 + (half0 + j) * spatial);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>

#include "core/Dispatch.h"
#include "core/Error.h"
#include "core/Format.h"
#include "core/ParallelElements.h"

namespace simd {
HWY_EXPORT(EltwiseForward);
HWY_EXPORT(ShuffleForward);
}  // namespace simd

SIMD_API void SimdSynetEltwiseLayerForward(float const* const* src, const float* weight,
                                           size_t count, size_t size,
                                           SimdSynetEltwiseOperationType type, float* dst) {
    simd::ClearLastError();
    SIMD_FAIL_IF(count < 2, "SimdSynetEltwiseLayerForward: count must be at least 2");
    SIMD_FAIL_IF(static_cast<unsigned>(type) > SimdSynetEltwiseOperationMin,
                 "SimdSynetEltwiseLayerForward: unknown operation type");
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !dst, "SimdSynetEltwiseLayerForward: src and dst must not be NULL");
    SIMD_FAIL_IF(type == SimdSynetEltwiseOperationSum && !weight,
                 "SimdSynetEltwiseLayerForward: weight must not be NULL for Sum");
    for (size_t i = 0; i < count; ++i) {
        if (!src[i]) {
            simd::SetLastErrorF("SimdSynetEltwiseLayerForward: src[%zu] is NULL", i);
            return;
        }
    }
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetEltwiseLayerForward: size * sizeof(float) overflows size_t");
    // Each part reads its range of every source through its own pointer array; with more
    // sources than that array holds (rare), the call stays whole.
    constexpr size_t kMaxSplitSources = 16;
    if (count > kMaxSplitSources) {
        SIMD_DISPATCH(simd::EltwiseForward)(src, weight, count, size, type, dst);
        return;
    }
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        const float* sources[kMaxSplitSources];
        for (size_t i = 0; i < count; ++i) sources[i] = src[i] + b;
        SIMD_DISPATCH(simd::EltwiseForward)(sources, weight, count, e - b, type, dst + b);
    });
}

SIMD_API void SimdSynetShuffleLayerForward(const float* src0, size_t srcC0, const float* src1,
                                           size_t srcC1, size_t spatial, float* dst0, float* dst1,
                                           size_t dstC, SimdTensorFormatType format) {
    simd::ClearLastError();
    SIMD_FAIL_IF(format != SimdTensorFormatNchw && format != SimdTensorFormatNhwc,
                 "SimdSynetShuffleLayerForward: format must be Nchw or Nhwc");
    SIMD_FAIL_IF(srcC0 % 2 != 0 || srcC1 % 2 != 0,
                 "SimdSynetShuffleLayerForward: srcC0 and srcC1 must be even");
    size_t total;
    SIMD_FAIL_IF(!simd::CheckedAdd(srcC0, srcC1, &total) || dstC != total / 2,
                 "SimdSynetShuffleLayerForward: dstC must be (srcC0 + srcC1)/2");
    SIMD_FAIL_IF(!simd::FitsInMemory(total, spatial, sizeof(float)),
                 "SimdSynetShuffleLayerForward: channels * spatial is too large for memory");
    if (spatial == 0 || dstC == 0) return;
    // An input with no channels is never read and may be NULL.
    SIMD_FAIL_IF((!src0 && srcC0 != 0) || (!src1 && srcC1 != 0) || !dst0 || !dst1,
                 "SimdSynetShuffleLayerForward: src0, src1, dst0 and dst1 must not be NULL");
    if (format == SimdTensorFormatNchw) {
        SIMD_DISPATCH(simd::ShuffleForward)
        (src0, srcC0, src1, srcC1, spatial, dst0, dst1, dstC, false);
        return;
    }
    // NHWC splits its pixels over the thread budget (each pixel is shuffled on its own);
    // NCHW planes are `spatial` apart, which a part's call could not express.
    const size_t parts = std::min(simd::ElementParts(total * spatial), spatial);
    simd::ParallelParts(parts, [&](size_t part, size_t count) {
        const auto r = simd::PartRange(spatial, part, count);
        if (r.first >= r.second) return;
        SIMD_DISPATCH(simd::ShuffleForward)
        (src0 ? src0 + r.first * srcC0 : nullptr, srcC0, src1 ? src1 + r.first * srcC1 : nullptr,
         srcC1, r.second - r.first, dst0 + r.first * dstC, dst1 + r.first * dstC, dstC, true);
    });
}
#endif  // HWY_ONCE
