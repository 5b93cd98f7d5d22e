// Loop drivers of the per-channel layers that write two outputs per input element
// (SimdSynetFusedLayerForward4 and 9). They complement core/Loops-inl.h, whose drivers write
// one output: here the two results of an element go to separate arrays (two halves of one
// tensor, or a tensor and a copy), and the input and output pixel strides may differ.
//
// An Op declares
//     static constexpr int kParams;  // 0 to 2 per-channel parameter arrays
//     template <class D, class V>
//     void operator()(D, V x, V p0, V p1, V& first, V& second) const;
// and the driver stores `first` into dst0 and, when kSecond, `second` into dst1.
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

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// The same parameter values for every element of a row (an NCHW plane).
struct BroadcastParams {
    float value[2];
    template <class D>
    HWY_INLINE hn::Vec<D> Get(D d, int k, size_t) const {
        return hn::Set(d, value[k]);
    }
};

// Element i of a row uses values[k][i] (a pixel of NHWC, or a pattern buffer).
struct PatternParams {
    const float* values[2];
    template <class D>
    HWY_INLINE hn::Vec<D> Get(D d, int k, size_t i) const {
        return hn::LoadU(d, values[k] + i);
    }
};

template <class Op, class Params, class D>
HWY_INLINE hn::Vec<D> DualParam(D d, const Params& params, int k, size_t i) {
    if (k < Op::kParams) return params.Get(d, k, i);
    return hn::Zero(d);
}

// n consecutive elements: dst0[i], dst1[i] from src[i] and the parameters of element i.
// dst1 is not touched (and may be null) unless kSecond.
template <bool kSecond, class Op, class Params>
HWY_INLINE void DualRow(const Op& op, size_t n, const float* src, float* dst0, float* dst1,
                        const Params& params) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
#define SIMD_SYNET_DUAL_STEP(D_, I_, A_, B_)                            \
    op(D_, hn::LoadU(D_, src + (I_)), DualParam<Op>(D_, params, 0, I_), \
       DualParam<Op>(D_, params, 1, I_), A_, B_)
    if (n >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            hn::Vec<DF> a0, b0, a1, b1, a2, b2, a3, b3;
            SIMD_SYNET_DUAL_STEP(d, i + 0 * L, a0, b0);
            SIMD_SYNET_DUAL_STEP(d, i + 1 * L, a1, b1);
            SIMD_SYNET_DUAL_STEP(d, i + 2 * L, a2, b2);
            SIMD_SYNET_DUAL_STEP(d, i + 3 * L, a3, b3);
            hn::StoreU(a0, d, dst0 + i + 0 * L);
            hn::StoreU(a1, d, dst0 + i + 1 * L);
            hn::StoreU(a2, d, dst0 + i + 2 * L);
            hn::StoreU(a3, d, dst0 + i + 3 * L);
            if (kSecond) {
                hn::StoreU(b0, d, dst1 + i + 0 * L);
                hn::StoreU(b1, d, dst1 + i + 1 * L);
                hn::StoreU(b2, d, dst1 + i + 2 * L);
                hn::StoreU(b3, d, dst1 + i + 3 * L);
            }
        }
    }
    for (; i + L <= n; i += L) {
        hn::Vec<DF> a, b;
        SIMD_SYNET_DUAL_STEP(d, i, a, b);
        hn::StoreU(a, d, dst0 + i);
        if (kSecond) hn::StoreU(b, d, dst1 + i);
    }
    const DF1 d1;
    for (; i < n; ++i) {
        hn::Vec<DF1> a, b;
        SIMD_SYNET_DUAL_STEP(d1, i, a, b);
        hn::StoreU(a, d1, dst0 + i);
        if (kSecond) hn::StoreU(b, d1, dst1 + i);
    }
#undef SIMD_SYNET_DUAL_STEP
}

// `p + offset`, or null when the second output is absent (offsetting a null pointer is UB).
template <bool kSecond>
HWY_INLINE float* SecondAt(float* p, size_t offset) {
    return kSecond ? p + offset : nullptr;
}

// A contiguous run of S pixels of C channels (one block of a blocked tensor: C = block) in
// which element j uses params[k][j % C]. As in core PerChannelInterleaved, the parameters are
// spread over a pattern buffer whose period is a whole number of vectors, so that every vector
// loads its parameters with one unaligned load whatever C is.
template <bool kSecond, class Op>
HWY_INLINE void DualPeriodicRun(const Op& op, size_t C, size_t S, const float* src, float* dst0,
                                float* dst1, const float* const* params) {
    const DF d;
    const size_t L = hn::Lanes(d);
    constexpr size_t kMaxPattern = 1024;
    const size_t lcm = C / Gcd(C, L) * L;
    if (lcm > kMaxPattern) {
        for (size_t s = 0; s < S; ++s)
            DualRow<kSecond>(op, C, src + s * C, dst0 + s * C, SecondAt<kSecond>(dst1, s * C),
                             PatternParams{{params[0], params[1]}});
        return;
    }
    const size_t period = lcm * (kMaxPattern / 4 / lcm > 0 ? kMaxPattern / 4 / lcm : 1);
    HWY_ALIGN float buffer[2][kMaxPattern];
    for (int k = 0; k < Op::kParams; ++k)
        for (size_t j = 0, c = 0; j < period; ++j, c = (c + 1 == C ? 0 : c + 1))
            buffer[k][j] = params[k][c];
    const PatternParams pattern{{buffer[0], buffer[1]}};
    const size_t n = S * C;
    for (size_t i = 0; i < n; i += period) {
        const size_t m = n - i < period ? n - i : period;
        DualRow<kSecond>(op, m, src + i, dst0 + i, SecondAt<kSecond>(dst1, i), pattern);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_SCALE_DUAL_LOOPS_INL_H_
