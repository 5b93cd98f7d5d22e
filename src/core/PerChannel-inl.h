// The per-channel loop driver: PerChannel applies an Op (interface in core/Loops-inl.h) over
// a tensor in NCHW, NHWC or a blocked layout.
//
// Outputs larger than the last-level cache go through the simple row driver of Loops-inl.h
// with non-temporal stores (DRAM-bound, so nothing below matters there). Everything else takes
// the traversals below, tuned for cache-resident data:
//
// In a contiguous interleaved run of C channels (NHWC, or one block of a blocked layout) the
// parameters repeat with a period of C elements, i.e. of R = lcm(C, L)/L = C/gcd(C, L)
// vectors. When R <= 4 (every blocked layout on SIMD targets, NHWC with C = 1, 2, 3, 4, 6, 8,
// 12, 16, 24, 32, 48, 64 on AVX-512, ...) the R parameter vectors of each array are built once
// and kept in registers for the whole run: the loop then does one load and one store per
// vector, like a plain stream. Core's PerChannelInterleaved instead refills a pattern buffer
// of ~256 elements per call and loads the parameters from it for every vector, which cost
// 2-10x in L1/L2-resident cases. Long periods that are whole groups of 4 vectors run as one
// loop that loads the parameters next to the data; the remaining (odd) periods go to core
// PerChannelInterleaved. NCHW planes use the same main loop with broadcast parameters.
// All main loops process groups of 4 vectors and, with 512-bit vectors, load one group ahead.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_PER_CHANNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_PER_CHANNEL_INL_H_
#undef SIMD_SYNET_CORE_PER_CHANNEL_INL_H_
#else
#define SIMD_SYNET_CORE_PER_CHANNEL_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Longest pattern kept in registers, in vectors.
constexpr size_t kMaxRegisterPattern = 4;

// Whether the main loops load the inputs of the next group of vectors before storing the
// results of the current one (software pipelining). Measured on Zen4 with L1-resident data:
// with 512-bit vectors it is ~10% faster than load-compute-store per group (and in L2 less
// sensitive to 4 KiB aliasing between src and dst); with 256-bit vectors it is ~10% slower.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr bool kLoadAhead = true;
#else
constexpr bool kLoadAhead = false;
#endif

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

// The inputs of vector V_ of the group at element I_ into a##V_ (src0) and b##V_ (src1, zero
// when absent), for the group loops below (which name their descriptor d, lane count L and
// sources s0, s1).
#define SIMD_SYNET_PC_LOAD(V_, I_)                  \
    a##V_ = LoadInput<Op>(d, s0, (I_) + V_ * L, 0); \
    b##V_ = LoadInput<Op>(d, s1, (I_) + V_ * L, 1);
#define SIMD_SYNET_PC_LOAD4(I_) \
    SIMD_SYNET_PC_LOAD(0, I_)   \
    SIMD_SYNET_PC_LOAD(1, I_)   \
    SIMD_SYNET_PC_LOAD(2, I_)   \
    SIMD_SYNET_PC_LOAD(3, I_)

// The main loop of a run: groups of kVectors = 4 vectors (3 when R == 3, so that a group
// is a whole number of pattern periods); vector v of a group uses the pattern vectors
// PickVec<v % R>(pKa, pKb, pKc, pKd) of parameter array K. Returns the number of elements
// done, a multiple of the group size; the caller finishes the tail.
//
// With kLoadAhead the inputs of group g + 1 are loaded before the results of group g are
// stored. In place stays safe either way: every element is loaded before it is stored.
template <size_t R, class Op, class TS, class TD, class V>
HWY_INLINE size_t GroupLoop(const Op& op, size_t n, const TS* s0, const TS* s1, TD* dst, V p0a,
                            V p0b, V p0c, V p0d, V p1a, V p1b, V p1c, V p1d, V p2a, V p2b, V p2c,
                            V p2d) {
    const DF d;
    const size_t L = hn::Lanes(d);
    constexpr size_t kVectors = R == 3 ? 3 : 4;
    const size_t G = kVectors * L;
    if (n < G) return 0;
#define SIMD_SYNET_LOAD_GROUP(I_)  \
    SIMD_SYNET_PC_LOAD(0, I_)      \
    SIMD_SYNET_PC_LOAD(1, I_)      \
    SIMD_SYNET_PC_LOAD(2, I_)      \
    if constexpr (kVectors == 4) { \
        SIMD_SYNET_PC_LOAD(3, I_)  \
    }
    V a0, a1, a2, a3 = hn::Zero(d), b0, b1, b2, b3 = hn::Zero(d);
    if constexpr (kLoadAhead) {
        SIMD_SYNET_LOAD_GROUP(0)
    }
#define SIMD_SYNET_OP(V_)                                                                         \
    op(d, a##V_, b##V_, PickVec<V_ % R>(p0a, p0b, p0c, p0d), PickVec<V_ % R>(p1a, p1b, p1c, p1d), \
       PickVec<V_ % R>(p2a, p2b, p2c, p2d))
    size_t i = 0;
    for (; i + (kLoadAhead ? 2 * G : G) <= n; i += G) {
        if constexpr (!kLoadAhead) {
            SIMD_SYNET_LOAD_GROUP(i)
        }
        const V r0 = SIMD_SYNET_OP(0);
        const V r1 = SIMD_SYNET_OP(1);
        const V r2 = SIMD_SYNET_OP(2);
        const V r3 = kVectors == 4 ? SIMD_SYNET_OP(3) : hn::Zero(d);
        if constexpr (kLoadAhead) {
            SIMD_SYNET_LOAD_GROUP(i + G)
        }
        StoreFromFloat(d, r0, dst + i + 0 * L);
        StoreFromFloat(d, r1, dst + i + 1 * L);
        StoreFromFloat(d, r2, dst + i + 2 * L);
        if constexpr (kVectors == 4) StoreFromFloat(d, r3, dst + i + 3 * L);
    }
    if constexpr (kLoadAhead) {
        StoreFromFloat(d, SIMD_SYNET_OP(0), dst + i + 0 * L);
        StoreFromFloat(d, SIMD_SYNET_OP(1), dst + i + 1 * L);
        StoreFromFloat(d, SIMD_SYNET_OP(2), dst + i + 2 * L);
        if constexpr (kVectors == 4) StoreFromFloat(d, SIMD_SYNET_OP(3), dst + i + 3 * L);
        i += G;
    }
#undef SIMD_SYNET_OP
#undef SIMD_SYNET_LOAD_GROUP
    return i;
}

// n elements of a contiguous run whose element j uses params[k][j % C], where the parameter
// pattern is R = C/gcd(C, L) vectors long; `direct` is PatternIsDirect(C).
template <size_t R, class Op, class TS, class TD>
HWY_INLINE void RegisterPatternRun(const Op& op, size_t C, size_t n, const TS* s0, const TS* s1,
                                   TD* dst, const float* const* params, bool direct) {
    const DF d;
    const size_t L = hn::Lanes(d);
    // Whole periods per group of the main loop: 4 vectors, or 3 when the period is 3.
    constexpr size_t kVectors = R == 3 ? 3 : 4;
    // The pattern over one group (kVectors vectors, a whole number of periods): built element
    // by element for the periods that DirectPattern cannot produce, and spilled here for the
    // tail.
    constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float buffer[3][kVectors * kMaxLanes];
    if (!direct)
        for (int k = 0; k < Op::kParams; ++k) RepeatChannels(params[k], C, kVectors * L, buffer[k]);
#define SIMD_SYNET_PATTERN(K_, V_)                                                  \
    ((K_) < Op::kParams && (V_) < R                                                 \
         ? (direct ? DirectPattern(d, params[(K_) < Op::kParams ? (K_) : 0], C, V_) \
                   : hn::Load(d, buffer[K_] + (V_)*L))                              \
         : hn::Zero(d))
    size_t i =
        GroupLoop<R>(op, n, s0, s1, dst, SIMD_SYNET_PATTERN(0, 0), SIMD_SYNET_PATTERN(0, 1),
                     SIMD_SYNET_PATTERN(0, 2), SIMD_SYNET_PATTERN(0, 3), SIMD_SYNET_PATTERN(1, 0),
                     SIMD_SYNET_PATTERN(1, 1), SIMD_SYNET_PATTERN(1, 2), SIMD_SYNET_PATTERN(1, 3),
                     SIMD_SYNET_PATTERN(2, 0), SIMD_SYNET_PATTERN(2, 1), SIMD_SYNET_PATTERN(2, 2),
                     SIMD_SYNET_PATTERN(2, 3));
#undef SIMD_SYNET_PATTERN
    if (i == n) return;
    // Tail (less than one group). i is a multiple of the period here, so element i + j uses
    // buffer[k][j] (j < kVectors*L).
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

// A contiguous run of n elements, n a multiple of C, whose element j uses params[k][j % C],
// for a long period: C a multiple of the group of 4 vectors (NHWC with 64, 128, 256 ...
// channels on AVX-512). Structured like GroupLoop, with the parameters loaded next to each
// vector from the arrays themselves; one loop over the whole run instead of one per pixel.
// (n is a multiple of C, hence of the group: there is no tail.)
template <class Op, class TS, class TD>
HWY_INLINE void LongPeriodRun(const Op& op, size_t C, size_t n, const TS* s0, const TS* s1, TD* dst,
                              const float* const* params) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const size_t G = 4 * L;
    using V = hn::Vec<DF>;
#define SIMD_SYNET_OP(V_)                                        \
    op(d, a##V_, b##V_, LoadParam<Op>(d, params, j + V_ * L, 0), \
       LoadParam<Op>(d, params, j + V_ * L, 1), LoadParam<Op>(d, params, j + V_ * L, 2))
    V a0, a1, a2, a3, b0, b1, b2, b3;
    if constexpr (kLoadAhead) {
        SIMD_SYNET_PC_LOAD4(0)
    }
    size_t i = 0, j = 0;  // j = i % C
    for (; i + (kLoadAhead ? 2 * G : G) <= n; i += G) {
        if constexpr (!kLoadAhead) {
            SIMD_SYNET_PC_LOAD4(i)
        }
        const V r0 = SIMD_SYNET_OP(0);
        const V r1 = SIMD_SYNET_OP(1);
        const V r2 = SIMD_SYNET_OP(2);
        const V r3 = SIMD_SYNET_OP(3);
        if constexpr (kLoadAhead) {
            SIMD_SYNET_PC_LOAD4(i + G)
        }
        StoreFromFloat(d, r0, dst + i + 0 * L);
        StoreFromFloat(d, r1, dst + i + 1 * L);
        StoreFromFloat(d, r2, dst + i + 2 * L);
        StoreFromFloat(d, r3, dst + i + 3 * L);
        j += G;
        if (j == C) j = 0;
    }
    if constexpr (kLoadAhead) {
        StoreFromFloat(d, SIMD_SYNET_OP(0), dst + i + 0 * L);
        StoreFromFloat(d, SIMD_SYNET_OP(1), dst + i + 1 * L);
        StoreFromFloat(d, SIMD_SYNET_OP(2), dst + i + 2 * L);
        StoreFromFloat(d, SIMD_SYNET_OP(3), dst + i + 3 * L);
    }
#undef SIMD_SYNET_OP
}

// n consecutive elements that all use the parameter values v0, v1, v2 (an NCHW plane).
template <class Op, class TS, class TD>
HWY_INLINE void BroadcastRow(const Op& op, size_t n, const TS* s0, const TS* s1, TD* dst, float v0,
                             float v1, float v2) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const auto q0 = hn::Set(d, v0), q1 = hn::Set(d, v1), q2 = hn::Set(d, v2);
    size_t i = GroupLoop<1>(op, n, s0, s1, dst, q0, q0, q0, q0, q1, q1, q1, q1, q2, q2, q2, q2);
    for (; i + L <= n; i += L)
        StoreFromFloat(d, op(d, LoadInput<Op>(d, s0, i, 0), LoadInput<Op>(d, s1, i, 1), q0, q1, q2),
                       dst + i);
    const DF1 d1;
    for (; i < n; ++i)
        StoreFromFloat(d1,
                       op(d1, LoadInput<Op>(d1, s0, i, 0), LoadInput<Op>(d1, s1, i, 1),
                          hn::Set(d1, v0), hn::Set(d1, v1), hn::Set(d1, v2)),
                       dst + i);
}

// NCHW planes of exactly kV vectors (kV <= 4: 8x8 or 4x4 planes of late layers, which one
// group of the plane loop would cover with all its per-plane setup): straight-line code per
// plane, the next plane's inputs loaded before this plane's results are stored.
template <size_t kV, class Op, class TS, class TD>
HWY_INLINE void NchwShortPlanes(const Op& op, size_t C, const ChannelArgs<TS, TD>& a) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d), S = kV * L;
    const auto param = [&](int k, size_t c) {
        return Op::kParams > k ? hn::Set(d, a.params[k][c]) : hn::Zero(d);
    };
    V x0[kV], x1[kV];
    for (size_t v = 0; v < kV; ++v) {
        x0[v] = LoadInput<Op>(d, a.src0, v * L, 0);
        x1[v] = LoadInput<Op>(d, a.src1, v * L, 1);
    }
    for (size_t c = 0; c < C; ++c) {
        const V p0 = param(0, c), p1 = param(1, c), p2 = param(2, c);
        V r[kV];
        for (size_t v = 0; v < kV; ++v) r[v] = op(d, x0[v], x1[v], p0, p1, p2);
        if (c + 1 < C) {
            for (size_t v = 0; v < kV; ++v) {
                x0[v] = LoadInput<Op>(d, a.src0, (c + 1) * S + v * L, 0);
                x1[v] = LoadInput<Op>(d, a.src1, (c + 1) * S + v * L, 1);
            }
        }
        for (size_t v = 0; v < kV; ++v) StoreFromFloat(d, r[v], a.dst + c * S + v * L);
    }
}

// NCHW: channel c is a contiguous plane of S elements.
template <class Op, class TS, class TD>
HWY_INLINE void NchwPlanes(const Op& op, size_t C, size_t S, const ChannelArgs<TS, TD>& a) {
#if HWY_TARGET != HWY_SCALAR
    const size_t L = hn::Lanes(DF());
    if (S == 4 * L) return NchwShortPlanes<4>(op, C, a);
    if (S == 2 * L) return NchwShortPlanes<2>(op, C, a);
#endif
    for (size_t c = 0; c < C; ++c) {
        const float v0 = Op::kParams > 0 ? a.params[0][c] : 0.0f;
        const float v1 = Op::kParams > 1 ? a.params[1][c] : 0.0f;
        const float v2 = Op::kParams > 2 ? a.params[2][c] : 0.0f;
        BroadcastRow(op, S, a.src0 + c * S, Op::kInputs > 1 ? a.src1 + c * S : nullptr,
                     a.dst + c * S, v0, v1, v2);
    }
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
            if (C % (4 * hn::Lanes(DF())) == 0)
                return LongPeriodRun(op, C, n, s0, s1, a.dst, a.params);
            return PerChannelInterleaved(op, C, S, C, C, a);
    }
}

// A whole blocked tensor (blocks of `block` channels, each a run of m = S*block elements, m a
// multiple of the group of 4 vectors, R = PatternVectors(block) dividing 4) as one flat loop:
// the pattern registers change between blocks while the loads of the next group run ahead
// across the block boundary. A loop per block paid its setup and the load-ahead drain once per
// block, ~12% of a 16 KiB NCHW8c call. (Blocked patterns are always direct.)
template <size_t R, class Op, class TS, class TD>
HWY_INLINE void BlockedFlatRun(const Op& op, size_t blocks, size_t block, size_t m,
                               const ChannelArgs<TS, TD>& a) {
    static_assert(4 % R == 0, "a group of 4 vectors holds whole periods");
    const DF d;
    const size_t L = hn::Lanes(d);
    const size_t G = 4 * L, n = blocks * m;
    const TS* s0 = a.src0;
    const TS* s1 = Op::kInputs > 1 ? a.src1 : nullptr;
    using V = hn::Vec<DF>;
    V a0, a1, a2, a3, b0, b1, b2, b3;
    if constexpr (kLoadAhead) {
        SIMD_SYNET_PC_LOAD4(0)
    }
    size_t i = 0;
    for (size_t b = 0; b < blocks; ++b) {
        const auto pattern = [&](int k, size_t v) {
            return k < Op::kParams ? DirectPattern(d, a.params[k] + b * block, block, v % R)
                                   : hn::Zero(d);
        };
        const V p00 = pattern(0, 0), p01 = pattern(0, 1), p02 = pattern(0, 2), p03 = pattern(0, 3);
        const V p10 = pattern(1, 0), p11 = pattern(1, 1), p12 = pattern(1, 2), p13 = pattern(1, 3);
        const V p20 = pattern(2, 0), p21 = pattern(2, 1), p22 = pattern(2, 2), p23 = pattern(2, 3);
        for (const size_t end = i + m; i < end; i += G) {
            if constexpr (!kLoadAhead) {
                SIMD_SYNET_PC_LOAD4(i)
            }
            const V r0 = op(d, a0, b0, p00, p10, p20);
            const V r1 = op(d, a1, b1, p01, p11, p21);
            const V r2 = op(d, a2, b2, p02, p12, p22);
            const V r3 = op(d, a3, b3, p03, p13, p23);
            if constexpr (kLoadAhead) {
                if (i + G < n) {
                    SIMD_SYNET_PC_LOAD4(i + G)
                }
            }
            StoreFromFloat(d, r0, a.dst + i + 0 * L);
            StoreFromFloat(d, r1, a.dst + i + 1 * L);
            StoreFromFloat(d, r2, a.dst + i + 2 * L);
            StoreFromFloat(d, r3, a.dst + i + 3 * L);
        }
    }
}

// Cache-resident traversal (block 1: NCHW or NHWC; block > 1: blocked layout).
template <class Op, class TS, class TD>
HWY_INLINE void PerChannelCached(const Op& op, size_t C, size_t S, size_t block, bool nhwc,
                                 const ChannelArgs<TS, TD>& a) {
    if (block == 1) {
        if (nhwc)
            InterleavedRun(op, C, S, PatternVectors(C), PatternIsDirect(C), a);
        else
            NchwPlanes(op, C, S, a);
        return;
    }
    // block is 4, 8 or 16.
    const size_t R = PatternVectors(block);
    const size_t blocks = (C + block - 1) / block, m = S * block;
    if (m % (4 * hn::Lanes(DF())) == 0) {
        switch (R) {
            case 1:
                return BlockedFlatRun<1>(op, blocks, block, m, a);
            case 2:
                return BlockedFlatRun<2>(op, blocks, block, m, a);
            case 4:
                return BlockedFlatRun<4>(op, blocks, block, m, a);
        }
    }
    const bool direct = PatternIsDirect(block);
    ForEachBlock<Op>(C, S, block, a, [&](const ChannelArgs<TS, TD>& blockArgs) {
        InterleavedRun(op, block, S, R, direct, blockArgs);
    });
}

// dst = op(src0[, src1], params) over C channels of S pixels: block == 1 with nhwc false is
// NCHW, with nhwc true NHWC; block > 1 is the blocked layout with that many channels per block
// (the padded lanes of the last block are computed too).
template <class Op, class TS, class TD>
HWY_INLINE void PerChannel(const Op& op, size_t C, size_t S, size_t block, bool nhwc,
                           const ChannelArgs<TS, TD>& a) {
    const size_t aligned = (C + block - 1) & ~(block - 1);  // block is a power of two
    if (WorthStreaming<TD>(aligned * S)) {
        PerChannelRows<Op, TS, TD, true>(op, C, S, block, nhwc, a);
        hwy::FlushStream();
    } else {
        PerChannelCached(op, C, S, block, nhwc, a);
    }
}

#undef SIMD_SYNET_PC_LOAD4
#undef SIMD_SYNET_PC_LOAD

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CORE_PER_CHANNEL_INL_H_
