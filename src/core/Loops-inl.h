// Highway loop drivers shared by the element-wise and per-channel families.
//
// A kernel supplies only the arithmetic of one vector as a functor templated on the descriptor
// (so the same code runs on full vectors and on the 1-lane tail); these drivers supply the
// memory traversal: 4x unrolled main loops (an L1-resident stream needs the unrolling to reach
// load/store throughput), 1-lane tails that never touch memory outside the arrays, and the
// layout logic of NCHW, NHWC and blocked tensors.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_LOOPS_INL_H_
#undef SIMD_SYNET_CORE_LOOPS_INL_H_
#else
#define SIMD_SYNET_CORE_LOOPS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "core/Cache.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DF1 = hn::CappedTag<float, 1>;

// ----------------------------------------------------------------------------------------------
// Loads and stores of float lanes from/to float or uint8 memory.

template <class D>
HWY_INLINE hn::Vec<D> LoadAsFloat(D d, const float* p) {
    return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadAsFloat(D d, const uint8_t* p) {
    const hn::Rebind<uint8_t, D> du8;
    const hn::Rebind<int32_t, D> di32;
    return hn::ConvertTo(d, hn::PromoteTo(di32, hn::LoadU(du8, p)));
}
template <class D>
HWY_INLINE void StoreFromFloat(D d, hn::Vec<D> v, float* p) {
    hn::StoreU(v, d, p);
}
// `v` must already hold whole numbers in [0, 255] (the kernel rounds and clamps).
template <class D>
HWY_INLINE void StoreFromFloat(D d, hn::Vec<D> v, uint8_t* p) {
    const hn::Rebind<uint8_t, D> du8;
    const hn::Rebind<int32_t, D> di32;
    hn::StoreU(hn::DemoteTo(du8, hn::ConvertTo(di32, v)), du8, p);
}

// Full-vector store of a main loop: non-temporal (dst must then be vector-aligned) or plain.
template <bool kStream, class D, class T>
HWY_INLINE void StoreMain(D d, hn::Vec<D> v, T* p) {
    if constexpr (kStream && sizeof(T) == sizeof(float))
        hn::Stream(v, d, p);
    else
        StoreFromFloat(d, v, p);
}

// Non-temporal stores only for float outputs larger than the last-level cache.
template <class T>
HWY_INLINE bool WorthStreaming(size_t elements) {
    return sizeof(T) == sizeof(float) && elements * sizeof(T) > StreamingThresholdBytes();
}

// Number of leading elements to handle one at a time so that dst + result is vector-aligned
// (0 when not streaming: unaligned stores are as fast as aligned ones on current cores).
template <bool kStream, class T>
HWY_INLINE size_t HeadForAlignment(const T* dst, size_t n) {
    if (!kStream) return 0;
    const size_t bytes = hn::Lanes(DF()) * sizeof(float);
    const size_t misalign = reinterpret_cast<uintptr_t>(dst) % bytes;
    if (misalign == 0 || misalign % sizeof(T) != 0) return 0;
    const size_t head = (bytes - misalign) / sizeof(T);
    return head < n ? head : n;
}

// ----------------------------------------------------------------------------------------------
// Element-wise: dst[i] = op(d, src[i]) for i < n. In place (dst == src) is allowed.

template <bool kStream, class Op>
HWY_INLINE void UnaryLoopImpl(const float* src, size_t n, float* dst, const Op& op) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (const size_t head = HeadForAlignment<kStream>(dst, n); i < head; ++i)
        hn::StoreU(op(d1, hn::LoadU(d1, src + i)), d1, dst + i);
    if (n - i >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            const auto v0 = op(d, hn::LoadU(d, src + i + 0 * L));
            const auto v1 = op(d, hn::LoadU(d, src + i + 1 * L));
            const auto v2 = op(d, hn::LoadU(d, src + i + 2 * L));
            const auto v3 = op(d, hn::LoadU(d, src + i + 3 * L));
            StoreMain<kStream>(d, v0, dst + i + 0 * L);
            StoreMain<kStream>(d, v1, dst + i + 1 * L);
            StoreMain<kStream>(d, v2, dst + i + 2 * L);
            StoreMain<kStream>(d, v3, dst + i + 3 * L);
        }
    }
    for (; i + L <= n; i += L) StoreMain<kStream>(d, op(d, hn::LoadU(d, src + i)), dst + i);
    for (; i < n; ++i) hn::StoreU(op(d1, hn::LoadU(d1, src + i)), d1, dst + i);
}

template <class Op>
HWY_INLINE void UnaryLoop(const float* src, size_t n, float* dst, const Op& op) {
    if (WorthStreaming<float>(n)) {
        UnaryLoopImpl<true>(src, n, dst, op);
        hwy::FlushStream();
    } else {
        UnaryLoopImpl<false>(src, n, dst, op);
    }
}

// ----------------------------------------------------------------------------------------------
// Per-channel row primitives (the driver is PerChannel in core/PerChannel-inl.h):
// dst = op(d, x0, x1, p0, p1, p2) where x0/x1 come from one or two input tensors
// of the same layout and p0..p2 are the values of up to three per-channel parameter arrays at
// the element's channel. An Op declares
//     static constexpr int kInputs;   // 1 or 2
//     static constexpr int kParams;   // 0 to 3
//     template <class D> hn::Vec<D> operator()(D, Vec x0, Vec x1, Vec p0, Vec p1, Vec p2) const;
// Unused inputs and parameters are passed as zero vectors and never loaded.

// x * p0 + p1 in one fused multiply-add: the per-channel affine map (scale and bias, 8u -> 32f
// dequantization, V4 normalization, image input normalization).
struct AffineOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 2;
    template <class D, class V>
    HWY_INLINE V operator()(D, V x, V, V factor, V offset, V) const {
        return hn::MulAdd(x, factor, offset);
    }
};

template <class TS, class TD, size_t kMaxParams = 3>
struct ChannelArgs {
    const TS* src0;
    const TS* src1;
    const float* params[kMaxParams];
    TD* dst;
};

template <class Op, class D, class TS>
HWY_INLINE hn::Vec<D> LoadInput(D d, const TS* p, size_t i, int which) {
    if (which < Op::kInputs) return LoadAsFloat(d, p + i);
    return hn::Zero(d);
}

// out[j] = params[j % C] for j < count: a per-channel array spread over a pattern buffer.
HWY_INLINE void RepeatChannels(const float* params, size_t C, size_t count, float* out) {
    for (size_t j = 0, c = 0; j < count; ++j, c = (c + 1 == C ? 0 : c + 1)) out[j] = params[c];
}

// Applies op to n consecutive elements that all use the same per-channel values p0..p2.
template <class Op, class TS, class TD, bool kStream = false>
HWY_INLINE void RowBroadcast(const Op& op, size_t n, const TS* s0, const TS* s1, TD* dst, float v0,
                             float v1, float v2) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    const auto p0 = hn::Set(d, v0), p1 = hn::Set(d, v1), p2 = hn::Set(d, v2);
    size_t i = 0;
    for (const size_t head = HeadForAlignment<kStream>(dst, n); i < head; ++i)
        StoreFromFloat(d1,
                       op(d1, LoadInput<Op>(d1, s0, i, 0), LoadInput<Op>(d1, s1, i, 1),
                          hn::Set(d1, v0), hn::Set(d1, v1), hn::Set(d1, v2)),
                       dst + i);
    if (n - i >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            const auto r0 = op(d, LoadInput<Op>(d, s0, i + 0 * L, 0),
                               LoadInput<Op>(d, s1, i + 0 * L, 1), p0, p1, p2);
            const auto r1 = op(d, LoadInput<Op>(d, s0, i + 1 * L, 0),
                               LoadInput<Op>(d, s1, i + 1 * L, 1), p0, p1, p2);
            const auto r2 = op(d, LoadInput<Op>(d, s0, i + 2 * L, 0),
                               LoadInput<Op>(d, s1, i + 2 * L, 1), p0, p1, p2);
            const auto r3 = op(d, LoadInput<Op>(d, s0, i + 3 * L, 0),
                               LoadInput<Op>(d, s1, i + 3 * L, 1), p0, p1, p2);
            StoreMain<kStream>(d, r0, dst + i + 0 * L);
            StoreMain<kStream>(d, r1, dst + i + 1 * L);
            StoreMain<kStream>(d, r2, dst + i + 2 * L);
            StoreMain<kStream>(d, r3, dst + i + 3 * L);
        }
    }
    for (; i + L <= n; i += L)
        StoreMain<kStream>(
            d, op(d, LoadInput<Op>(d, s0, i, 0), LoadInput<Op>(d, s1, i, 1), p0, p1, p2), dst + i);
    for (; i < n; ++i)
        StoreFromFloat(d1,
                       op(d1, LoadInput<Op>(d1, s0, i, 0), LoadInput<Op>(d1, s1, i, 1),
                          hn::Set(d1, v0), hn::Set(d1, v1), hn::Set(d1, v2)),
                       dst + i);
}

template <class Op, class D>
HWY_INLINE hn::Vec<D> LoadParam(D d, const float* const* pat, size_t i, int which) {
    if (which < Op::kParams) return hn::LoadU(d, pat[which] + i);
    return hn::Zero(d);
}

// Applies op to n consecutive elements; element i uses the per-channel values pat[k][i].
template <class Op, class TS, class TD, bool kStream = false>
HWY_INLINE void RowPattern(const Op& op, size_t n, const TS* s0, const TS* s1, TD* dst,
                           const float* const* pat) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
#define SIMD_SYNET_ROW_PATTERN_STEP(D_, I_)                            \
    op(D_, LoadInput<Op>(D_, s0, I_, 0), LoadInput<Op>(D_, s1, I_, 1), \
       LoadParam<Op>(D_, pat, I_, 0), LoadParam<Op>(D_, pat, I_, 1),   \
       LoadParam<Op>(D_, pat, I_, 2))
    for (const size_t head = HeadForAlignment<kStream>(dst, n); i < head; ++i)
        StoreFromFloat(d1, SIMD_SYNET_ROW_PATTERN_STEP(d1, i), dst + i);
    if (n - i >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            const auto r0 = SIMD_SYNET_ROW_PATTERN_STEP(d, i + 0 * L);
            const auto r1 = SIMD_SYNET_ROW_PATTERN_STEP(d, i + 1 * L);
            const auto r2 = SIMD_SYNET_ROW_PATTERN_STEP(d, i + 2 * L);
            const auto r3 = SIMD_SYNET_ROW_PATTERN_STEP(d, i + 3 * L);
            StoreMain<kStream>(d, r0, dst + i + 0 * L);
            StoreMain<kStream>(d, r1, dst + i + 1 * L);
            StoreMain<kStream>(d, r2, dst + i + 2 * L);
            StoreMain<kStream>(d, r3, dst + i + 3 * L);
        }
    }
    for (; i + L <= n; i += L) StoreMain<kStream>(d, SIMD_SYNET_ROW_PATTERN_STEP(d, i), dst + i);
    for (; i < n; ++i) StoreFromFloat(d1, SIMD_SYNET_ROW_PATTERN_STEP(d1, i), dst + i);
#undef SIMD_SYNET_ROW_PATTERN_STEP
}

// NCHW: channel c is a contiguous plane of S elements.
template <class Op, class TS, class TD, bool kStream = false>
HWY_INLINE void PerChannelNchw(const Op& op, size_t C, size_t S, const ChannelArgs<TS, TD>& a) {
    for (size_t c = 0; c < C; ++c) {
        const float v0 = Op::kParams > 0 ? a.params[0][c] : 0.0f;
        const float v1 = Op::kParams > 1 ? a.params[1][c] : 0.0f;
        const float v2 = Op::kParams > 2 ? a.params[2][c] : 0.0f;
        RowBroadcast<Op, TS, TD, kStream>(op, S, a.src0 + c * S,
                                          Op::kInputs > 1 ? a.src1 + c * S : nullptr, a.dst + c * S,
                                          v0, v1, v2);
    }
}

inline size_t Gcd(size_t a, size_t b) {
    while (b != 0) {
        const size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// Pixel-interleaved: S pixels of C channels; pixel s of input k starts at srcK + s*srcStride,
// of the output at dst + s*dstStride. Covers NHWC (strides C) and one block of a blocked
// layout (C = block, strides = block).
template <class Op, class TS, class TD, bool kStream = false>
HWY_INLINE void PerChannelInterleaved(const Op& op, size_t C, size_t S, size_t srcStride,
                                      size_t dstStride, const ChannelArgs<TS, TD>& a) {
    const DF d;
    const size_t L = hn::Lanes(d);
    // A contiguous tensor is one long row whose parameters repeat with period C. When that
    // period (rounded to whole vectors) is small, spread the parameters over a pattern buffer
    // so every vector loads its parameters with one unaligned load, whatever C is.
    constexpr size_t kMaxPattern = 1024;
    const size_t lcm = C / Gcd(C, L) * L;
    if (srcStride == C && dstStride == C && lcm <= kMaxPattern && (C % L != 0 || C < 64)) {
        const size_t period = lcm * (kMaxPattern / 4 / lcm > 0 ? kMaxPattern / 4 / lcm : 1);
        HWY_ALIGN float buffer[3][kMaxPattern];
        const float* pat[3] = {buffer[0], buffer[1], buffer[2]};
        for (int k = 0; k < Op::kParams; ++k) RepeatChannels(a.params[k], C, period, buffer[k]);
        const size_t n = S * C;
        for (size_t i = 0; i < n; i += period) {
            const size_t m = n - i < period ? n - i : period;
            RowPattern<Op, TS, TD, kStream>(op, m, a.src0 + i,
                                            Op::kInputs > 1 ? a.src1 + i : nullptr, a.dst + i, pat);
        }
        return;
    }
    for (size_t s = 0; s < S; ++s)
        RowPattern<Op, TS, TD, kStream>(op, C, a.src0 + s * srcStride,
                                        Op::kInputs > 1 ? a.src1 + s * srcStride : nullptr,
                                        a.dst + s * dstStride, a.params);
}

// Calls run(args) once per channel block of a blocked layout (C channels in blocks of
// `block`, S pixels), with the inputs, output and parameter arrays advanced to that block.
template <class Op, class TS, class TD, class Run>
HWY_INLINE void ForEachBlock(size_t C, size_t S, size_t block, const ChannelArgs<TS, TD>& a,
                             const Run& run) {
    const size_t blocks = (C + block - 1) / block;
    for (size_t b = 0; b < blocks; ++b) {
        const size_t offset = b * S * block;
        ChannelArgs<TS, TD> blockArgs = a;
        blockArgs.src0 = a.src0 + offset;
        blockArgs.src1 = Op::kInputs > 1 ? a.src1 + offset : nullptr;
        blockArgs.dst = a.dst + offset;
        for (int k = 0; k < Op::kParams; ++k) blockArgs.params[k] = a.params[k] + b * block;
        run(blockArgs);
    }
}

// The row driver over any image layout (see PerChannel in core/PerChannel-inl.h, which uses it
// for outputs streamed past the caches): one RowBroadcast per NCHW plane, one pattern run per
// NHWC tensor or per block of a blocked layout.
template <class Op, class TS, class TD, bool kStream>
HWY_INLINE void PerChannelRows(const Op& op, size_t C, size_t S, size_t block, bool nhwc,
                               const ChannelArgs<TS, TD>& a) {
    if (block == 1) {
        if (nhwc)
            PerChannelInterleaved<Op, TS, TD, kStream>(op, C, S, C, C, a);
        else
            PerChannelNchw<Op, TS, TD, kStream>(op, C, S, a);
        return;
    }
    ForEachBlock<Op>(C, S, block, a, [&](const ChannelArgs<TS, TD>& blockArgs) {
        PerChannelInterleaved<Op, TS, TD, kStream>(op, block, S, block, block, blockArgs);
    });
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CORE_LOOPS_INL_H_
