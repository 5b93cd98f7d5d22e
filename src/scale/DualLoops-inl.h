// Loop drivers of the per-channel layers that write two outputs per input element
// (SimdSynetFusedLayerForward4 and 9). They complement core/PerChannel-inl.h, whose drivers write
// one output: here the two results of an element go to separate arrays (two halves of one
// tensor, or a tensor and a copy), and the input and output pixel strides may differ.
// The same techniques are used: groups of 4 vectors (software-pipelined where kLoadAhead),
// parameters held in registers for NCHW planes and blocked runs.
//
// An Op declares
//     static constexpr int kParams;  // 1 or 2 per-channel parameter arrays
//     template <class D, class V>
//     void operator()(D, V x, V p0, V p1, V& first, V& second) const;
// and the driver stores `first` into dst0 and, when kSecond, `second` into dst1 (dst1 is
// never touched, and may be null, otherwise).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_SCALE_DUAL_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_SCALE_DUAL_LOOPS_INL_H_
#undef SIMD_SYNET_SCALE_DUAL_LOOPS_INL_H_
#else
#define SIMD_SYNET_SCALE_DUAL_LOOPS_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/PerChannel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// `p + offset`, or null when the second output is absent (offsetting a null pointer is UB).
template <bool kSecond>
HWY_INLINE float* SecondAt(float* p, size_t offset) {
    return kSecond ? p + offset : nullptr;
}

template <bool kSecond, class D, class V>
HWY_INLINE void DualStore(D d, V first, V second, float* dst0, float* dst1, size_t i) {
    hn::StoreU(first, d, dst0 + i);
    if (kSecond) hn::StoreU(second, d, dst1 + i);
}

// Main loop over groups of 4 vectors (3 when R == 3), loading ahead when kLoadAhead; vector v
// of a group uses the pattern vectors PickVec<v % R>(pKa, pKb, pKc, pKd). Returns the
// elements done.
template <bool kSecond, size_t R, class Op, class V>
HWY_INLINE size_t DualGroupLoop(const Op& op, size_t n, const float* src, float* dst0, float* dst1,
                                V p0a, V p0b, V p0c, V p0d, V p1a, V p1b, V p1c, V p1d) {
    const DF d;
    const size_t L = hn::Lanes(d);
    constexpr size_t kVectors = R == 3 ? 3 : 4;
    const size_t G = kVectors * L;
    if (n < G) return 0;
#define SIMD_SYNET_LOAD_GROUP(I_)          \
    a0 = hn::LoadU(d, src + (I_) + 0 * L); \
    a1 = hn::LoadU(d, src + (I_) + 1 * L); \
    a2 = hn::LoadU(d, src + (I_) + 2 * L); \
    if constexpr (kVectors == 4) a3 = hn::LoadU(d, src + (I_) + 3 * L);
    V a0, a1, a2, a3 = hn::Zero(d);
    V f0, f1, f2, f3 = hn::Zero(d), s0, s1, s2, s3 = hn::Zero(d);
    if constexpr (kLoadAhead) {
        SIMD_SYNET_LOAD_GROUP(0)
    }
#define SIMD_SYNET_OP(V_)                                                                         \
    op(d, a##V_, PickVec<V_ % R>(p0a, p0b, p0c, p0d), PickVec<V_ % R>(p1a, p1b, p1c, p1d), f##V_, \
       s##V_)
    size_t i = 0;
    for (; i + (kLoadAhead ? 2 * G : G) <= n; i += G) {
        if constexpr (!kLoadAhead) {
            SIMD_SYNET_LOAD_GROUP(i)
        }
        SIMD_SYNET_OP(0);
        SIMD_SYNET_OP(1);
        SIMD_SYNET_OP(2);
        if constexpr (kVectors == 4) SIMD_SYNET_OP(3);
        if constexpr (kLoadAhead) {
            SIMD_SYNET_LOAD_GROUP(i + G)
        }
        DualStore<kSecond>(d, f0, s0, dst0, dst1, i + 0 * L);
        DualStore<kSecond>(d, f1, s1, dst0, dst1, i + 1 * L);
        DualStore<kSecond>(d, f2, s2, dst0, dst1, i + 2 * L);
        if constexpr (kVectors == 4) DualStore<kSecond>(d, f3, s3, dst0, dst1, i + 3 * L);
    }
    if constexpr (kLoadAhead) {
        SIMD_SYNET_OP(0);
        SIMD_SYNET_OP(1);
        SIMD_SYNET_OP(2);
        if constexpr (kVectors == 4) SIMD_SYNET_OP(3);
        DualStore<kSecond>(d, f0, s0, dst0, dst1, i + 0 * L);
        DualStore<kSecond>(d, f1, s1, dst0, dst1, i + 1 * L);
        DualStore<kSecond>(d, f2, s2, dst0, dst1, i + 2 * L);
        if constexpr (kVectors == 4) DualStore<kSecond>(d, f3, s3, dst0, dst1, i + 3 * L);
        i += G;
    }
#undef SIMD_SYNET_OP
#undef SIMD_SYNET_LOAD_GROUP
    return i;
}

// Elements [i, n) one vector, then one lane, at a time; element j uses pat[k][j - i].
template <bool kSecond, class Op>
HWY_INLINE void DualTail(const Op& op, size_t i, size_t n, const float* src, float* dst0,
                         float* dst1, const float* const* pat) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const size_t start = i;
    for (; i + L <= n; i += L) {
        hn::Vec<DF> f, s;
        op(d, hn::LoadU(d, src + i), LoadParam<Op>(d, pat, i - start, 0),
           LoadParam<Op>(d, pat, i - start, 1), f, s);
        DualStore<kSecond>(d, f, s, dst0, dst1, i);
    }
    const DF1 d1;
    for (; i < n; ++i) {
        hn::Vec<DF1> f, s;
        op(d1, hn::LoadU(d1, src + i), LoadParam<Op>(d1, pat, i - start, 0),
           LoadParam<Op>(d1, pat, i - start, 1), f, s);
        DualStore<kSecond>(d1, f, s, dst0, dst1, i);
    }
}

// n elements that all use the parameter values v0, v1 (an NCHW plane).
template <bool kSecond, class Op>
HWY_INLINE void DualBroadcastRow(const Op& op, size_t n, const float* src, float* dst0, float* dst1,
                                 float v0, float v1) {
    const DF d;
    const auto q0 = hn::Set(d, v0), q1 = hn::Set(d, v1);
    size_t i = DualGroupLoop<kSecond, 1>(op, n, src, dst0, dst1, q0, q0, q0, q0, q1, q1, q1, q1);
    if (i == n) return;
    // Tail: at most 4 vectors of the same values.
    constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float buffer[2][4 * kMaxLanes];
    for (size_t v = 0; v < 4; ++v) {
        hn::Store(q0, d, buffer[0] + v * hn::Lanes(d));
        hn::Store(q1, d, buffer[1] + v * hn::Lanes(d));
    }
    const float* const pat[2] = {buffer[0], buffer[1]};
    DualTail<kSecond>(op, i, n, src, dst0, dst1, pat);
}

// n elements whose element j uses params[k][j] (a pixel of NHWC: n = channels).
template <bool kSecond, class Op>
HWY_INLINE void DualPatternRow(const Op& op, size_t n, const float* src, float* dst0, float* dst1,
                               const float* p0, const float* p1) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    if (n >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            hn::Vec<DF> f0, s0, f1, s1, f2, s2, f3, s3;
            const auto x0 = hn::LoadU(d, src + i + 0 * L), x1 = hn::LoadU(d, src + i + 1 * L),
                       x2 = hn::LoadU(d, src + i + 2 * L), x3 = hn::LoadU(d, src + i + 3 * L);
            const float* const pat[2] = {p0 + i, Op::kParams > 1 ? p1 + i : nullptr};
            op(d, x0, LoadParam<Op>(d, pat, 0 * L, 0), LoadParam<Op>(d, pat, 0 * L, 1), f0, s0);
            op(d, x1, LoadParam<Op>(d, pat, 1 * L, 0), LoadParam<Op>(d, pat, 1 * L, 1), f1, s1);
            op(d, x2, LoadParam<Op>(d, pat, 2 * L, 0), LoadParam<Op>(d, pat, 2 * L, 1), f2, s2);
            op(d, x3, LoadParam<Op>(d, pat, 3 * L, 0), LoadParam<Op>(d, pat, 3 * L, 1), f3, s3);
            DualStore<kSecond>(d, f0, s0, dst0, dst1, i + 0 * L);
            DualStore<kSecond>(d, f1, s1, dst0, dst1, i + 1 * L);
            DualStore<kSecond>(d, f2, s2, dst0, dst1, i + 2 * L);
            DualStore<kSecond>(d, f3, s3, dst0, dst1, i + 3 * L);
        }
    }
    if (i == n) return;
    const float* const pat[2] = {p0 + i, Op::kParams > 1 ? p1 + i : nullptr};
    DualTail<kSecond>(op, i, n, src, dst0, dst1, pat);
}

// A contiguous run of S pixels of C channels (one block of a blocked tensor, C = block) in
// which element j uses params[k][j % C]; R = PatternVectors(C), direct = PatternIsDirect(C).
template <bool kSecond, size_t R, class Op>
HWY_INLINE void DualPatternRun(const Op& op, size_t C, size_t n, const float* src, float* dst0,
                               float* dst1, const float* const* params, bool direct) {
    const DF d;
    const size_t L = hn::Lanes(d);
    constexpr size_t kVectors = R == 3 ? 3 : 4;
    constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float buffer[2][kVectors * kMaxLanes];
    if (!direct)
        for (int k = 0; k < Op::kParams; ++k) RepeatChannels(params[k], C, kVectors * L, buffer[k]);
#define SIMD_SYNET_PATTERN(K_, V_)                                                  \
    ((K_) < Op::kParams && (V_) < R                                                 \
         ? (direct ? DirectPattern(d, params[(K_) < Op::kParams ? (K_) : 0], C, V_) \
                   : hn::Load(d, buffer[K_] + (V_)*L))                              \
         : hn::Zero(d))
    size_t i = DualGroupLoop<kSecond, R>(
        op, n, src, dst0, dst1, SIMD_SYNET_PATTERN(0, 0), SIMD_SYNET_PATTERN(0, 1),
        SIMD_SYNET_PATTERN(0, 2), SIMD_SYNET_PATTERN(0, 3), SIMD_SYNET_PATTERN(1, 0),
        SIMD_SYNET_PATTERN(1, 1), SIMD_SYNET_PATTERN(1, 2), SIMD_SYNET_PATTERN(1, 3));
#undef SIMD_SYNET_PATTERN
    if (i == n) return;
    // Tail: i is a multiple of the period, so element i + j uses buffer[k][j].
    if (direct)
        for (int k = 0; k < Op::kParams; ++k)
            for (size_t v = 0; v < kVectors; ++v)
                hn::Store(DirectPattern(d, params[k], C, v % R), d, buffer[k] + v * L);
    const float* const pat[2] = {buffer[0], buffer[1]};
    DualTail<kSecond>(op, i, n, src, dst0, dst1, pat);
}

// Blocked runs of S pixels of `block` channels, the same R and direct for every block: the
// run for block b reads src + srcOffset(b) and writes at dstOffset(b).
template <bool kSecond, class Op>
HWY_INLINE void DualBlockRun(const Op& op, size_t block, size_t S, size_t R, bool direct,
                             const float* src, float* dst0, float* dst1,
                             const float* const* params) {
    const size_t n = S * block;
    switch (R) {
        case 1:
            return DualPatternRun<kSecond, 1>(op, block, n, src, dst0, dst1, params, direct);
        case 2:
            return DualPatternRun<kSecond, 2>(op, block, n, src, dst0, dst1, params, direct);
        case 4:
            return DualPatternRun<kSecond, 4>(op, block, n, src, dst0, dst1, params, direct);
        default:
            // Scalar target (1 lane, R == block): one pixel row at a time.
            for (size_t s = 0; s < S; ++s)
                DualPatternRow<kSecond>(op, block, src + s * block, dst0 + s * block,
                                        SecondAt<kSecond>(dst1, s * block), params[0], params[1]);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_SCALE_DUAL_LOOPS_INL_H_
