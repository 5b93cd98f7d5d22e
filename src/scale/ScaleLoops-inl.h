// Per-channel loop driver of the scale family: core PerChannel with a faster path for
// pixel-interleaved runs (NHWC, and every block of a blocked layout).
//
// In a contiguous interleaved run of C channels the parameters repeat with a period of C
// elements, i.e. of R = lcm(C, L)/L = C/gcd(C, L) vectors. When R <= 4 (every blocked layout
// on SIMD targets, NHWC with C = 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 on AVX-512, ...) the R
// parameter vectors of each array are built once and kept in registers for the whole run: the
// loop then does one load and one store per vector, like a plain stream. Core's
// PerChannelInterleaved instead refills a pattern buffer of ~256 elements per call and loads
// the parameters from it for every vector, which costs 2-10x in L1/L2-resident cases.
// Other runs (long or odd periods) go to core PerChannelInterleaved.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_SCALE_SCALE_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_SCALE_SCALE_LOOPS_INL_H_
#undef SIMD_SYNET_SCALE_SCALE_LOOPS_INL_H_
#else
#define SIMD_SYNET_SCALE_SCALE_LOOPS_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Longest pattern kept in registers, in vectors.
constexpr size_t kMaxRegisterPattern = 4;

// The I-th of four values chosen at compile time (vectors cannot live in arrays on every
// target: SVE vectors are sizeless).
template <size_t I, class V>
HWY_INLINE V PickVec(V a, V b, V c, V e) {
    if constexpr (I == 0) return a;
    if constexpr (I == 1) return b;
    if constexpr (I == 2) return c;
    return e;
}

// Whether DirectPattern can build the parameter pattern of a run of C channels from vector
// loads: C a multiple of L, or C dividing L with at most 4 repetitions (every blocked layout on
// SIMD targets, NHWC with C = 1 or a multiple of L). Other periods go through a buffer.
inline bool PatternIsDirect(size_t C) {
    const size_t L = hn::Lanes(DF());
    if (C % L == 0 || C == 1) return true;
#if HWY_TARGET != HWY_SCALAR
    return 2 * C == L || 4 * C == L;
#else
    return false;
#endif
}

// Vector r of the pattern of p for a run of C channels (lane j is p[(r*L + j) % C]), built
// without reading past p[C - 1] (the parameter array of the last block ends there).
// Requires PatternIsDirect(C).
template <class D>
HWY_INLINE hn::Vec<D> DirectPattern(D d, const float* p, size_t C, size_t r) {
    const size_t L = hn::Lanes(d);
    if (C % L == 0) return hn::LoadU(d, p + r * L);
    if (C == 1) return hn::Set(d, p[0]);
#if HWY_TARGET != HWY_SCALAR
    const hn::Half<D> dh;
    if (2 * C == L) {
        const auto h = hn::LoadU(dh, p);
        return hn::Combine(d, h, h);
    }
    const hn::Half<decltype(dh)> dq;
    const auto q = hn::LoadU(dq, p);
    const auto h = hn::Combine(dh, q, q);
    return hn::Combine(d, h, h);
#else
    return hn::LoadU(d, p);
#endif
}

// n elements of a contiguous run whose element j uses params[k][j % C], where the parameter
// pattern is R = C/gcd(C, L) vectors long; `direct` is PatternIsDirect(C).
template <size_t R, class Op, class TS, class TD>
HWY_INLINE void RegisterPatternRun(const Op& op, size_t C, size_t n, const TS* s0, const TS* s1,
                                   TD* dst, const float* const* params, bool direct) {
    const DF d;
    const size_t L = hn::Lanes(d);
    // Whole periods per iteration of the main loop: 4 vectors, or 3 when the period is 3.
    constexpr size_t kVectors = R == 3 ? 3 : 4;
    // The pattern over one iteration (kVectors vectors, a whole number of periods): built
    // element by element for the periods that DirectPattern cannot produce, and spilled here
    // for the tail.
    constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float buffer[3][kVectors * kMaxLanes];
    if (!direct)
        for (int k = 0; k < Op::kParams; ++k)
            for (size_t j = 0, c = 0; j < kVectors * L; ++j, c = (c + 1 == C ? 0 : c + 1))
                buffer[k][j] = params[k][c];
#define SIMD_SYNET_PATTERN(K_, V_)                                                  \
    ((K_) < Op::kParams && (V_) < R                                                 \
         ? (direct ? DirectPattern(d, params[(K_) < Op::kParams ? (K_) : 0], C, V_) \
                   : hn::Load(d, buffer[K_] + (V_)*L))                              \
         : hn::Zero(d))
    const auto p0a = SIMD_SYNET_PATTERN(0, 0), p0b = SIMD_SYNET_PATTERN(0, 1),
               p0c = SIMD_SYNET_PATTERN(0, 2), p0d = SIMD_SYNET_PATTERN(0, 3);
    const auto p1a = SIMD_SYNET_PATTERN(1, 0), p1b = SIMD_SYNET_PATTERN(1, 1),
               p1c = SIMD_SYNET_PATTERN(1, 2), p1d = SIMD_SYNET_PATTERN(1, 3);
    const auto p2a = SIMD_SYNET_PATTERN(2, 0), p2b = SIMD_SYNET_PATTERN(2, 1),
               p2c = SIMD_SYNET_PATTERN(2, 2), p2d = SIMD_SYNET_PATTERN(2, 3);
#undef SIMD_SYNET_PATTERN
    // Vector V_ of an iteration uses pattern vector V_ % R.
#define SIMD_SYNET_STEP(V_)                                                         \
    op(d, LoadInput<Op>(d, s0, i + V_ * L, 0), LoadInput<Op>(d, s1, i + V_ * L, 1), \
       PickVec<V_ % R>(p0a, p0b, p0c, p0d), PickVec<V_ % R>(p1a, p1b, p1c, p1d),    \
       PickVec<V_ % R>(p2a, p2b, p2c, p2d))
    size_t i = 0;
    if (n >= kVectors * L) {
        for (; i <= n - kVectors * L; i += kVectors * L) {
            const auto r0 = SIMD_SYNET_STEP(0);
            const auto r1 = SIMD_SYNET_STEP(1);
            const auto r2 = SIMD_SYNET_STEP(2);
            if constexpr (kVectors == 4) {
                const auto r3 = SIMD_SYNET_STEP(3);
                StoreFromFloat(d, r0, dst + i + 0 * L);
                StoreFromFloat(d, r1, dst + i + 1 * L);
                StoreFromFloat(d, r2, dst + i + 2 * L);
                StoreFromFloat(d, r3, dst + i + 3 * L);
            } else {
                StoreFromFloat(d, r0, dst + i + 0 * L);
                StoreFromFloat(d, r1, dst + i + 1 * L);
                StoreFromFloat(d, r2, dst + i + 2 * L);
            }
        }
    }
#undef SIMD_SYNET_STEP
    if (i == n) return;
    // Tail (less than one iteration). i is a multiple of the period here, so element i + j
    // uses buffer[k][j] (j < kVectors*L).
    if (direct) {
        for (int k = 0; k < Op::kParams; ++k)
            for (size_t v = 0; v < kVectors; ++v)
                hn::Store(DirectPattern(d, params[k], C, v % R), d, buffer[k] + v * L);
    }
    const float* const pattern[3] = {buffer[0], buffer[1], buffer[2]};
    size_t j = 0;
    for (; i + L <= n; i += L, j += L)
        StoreFromFloat(d,
                       op(d, LoadInput<Op>(d, s0, i, 0), LoadInput<Op>(d, s1, i, 1),
                          LoadParam<Op>(d, pattern, j, 0), LoadParam<Op>(d, pattern, j, 1),
                          LoadParam<Op>(d, pattern, j, 2)),
                       dst + i);
    const DF1 d1;
    for (; i < n; ++i, ++j)
        StoreFromFloat(d1,
                       op(d1, LoadInput<Op>(d1, s0, i, 0), LoadInput<Op>(d1, s1, i, 1),
                          LoadParam<Op>(d1, pattern, j, 0), LoadParam<Op>(d1, pattern, j, 1),
                          LoadParam<Op>(d1, pattern, j, 2)),
                       dst + i);
}

// Vectors per parameter period of a run of C interleaved channels: C/gcd(C, L), computed
// with shifts for the usual power-of-two counts (a division costs as much as a few vectors).
inline size_t PatternVectors(size_t C) {
    const size_t L = hn::Lanes(DF());
    if ((C & (C - 1)) == 0) return C > L ? C >> __builtin_ctzll(L) : 1;
    return C / Gcd(C, L);
}

// S contiguous pixels of C channels (NHWC, or one block with C = block); R and direct are
// PatternVectors(C) and PatternIsDirect(C), computed once per call by the caller.
template <class Op, class TS, class TD>
HWY_INLINE void InterleavedRun(const Op& op, size_t C, size_t S, size_t R, bool direct,
                               const ChannelArgs<TS, TD>& a) {
    const TS* s0 = a.src0;
    const TS* s1 = Op::kInputs > 1 ? a.src1 : nullptr;
    const size_t n = S * C;
    switch (R) {
        case 1:
            return RegisterPatternRun<1>(op, C, n, s0, s1, a.dst, a.params, direct);
        case 2:
            return RegisterPatternRun<2>(op, C, n, s0, s1, a.dst, a.params, direct);
        case 3:
            return RegisterPatternRun<3>(op, C, n, s0, s1, a.dst, a.params, direct);
        case 4:
            return RegisterPatternRun<4>(op, C, n, s0, s1, a.dst, a.params, direct);
        default:
            return PerChannelInterleaved(op, C, S, C, C, a);
    }
}

// Same contract as core PerChannel (block 1: NCHW or NHWC; block > 1: blocked layout).
template <class Op, class TS, class TD>
HWY_INLINE void ScalePerChannel(const Op& op, size_t C, size_t S, size_t block, bool nhwc,
                                const ChannelArgs<TS, TD>& a) {
    if (block == 1) {
        if (nhwc)
            InterleavedRun(op, C, S, PatternVectors(C), PatternIsDirect(C), a);
        else
            PerChannelNchw(op, C, S, a);
        return;
    }
    // block is 4, 8 or 16.
    const size_t blocks = (C + block - 1) >> __builtin_ctzll(block);
    const size_t R = PatternVectors(block);
    const bool direct = PatternIsDirect(block);
    for (size_t b = 0; b < blocks; ++b) {
        const size_t offset = b * S * block;
        ChannelArgs<TS, TD> blockArgs = a;
        blockArgs.src0 = a.src0 + offset;
        blockArgs.src1 = Op::kInputs > 1 ? a.src1 + offset : nullptr;
        blockArgs.dst = a.dst + offset;
        for (int k = 0; k < Op::kParams; ++k) blockArgs.params[k] = a.params[k] + b * block;
        InterleavedRun(op, block, S, R, direct, blockArgs);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_SCALE_SCALE_LOOPS_INL_H_
