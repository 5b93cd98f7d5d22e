// The INT32 sums of the INT8 convolution's inner loops: the register tile of the direct
// algorithm (MR output pixels x NV vectors of output channels over 4-byte input words) and the
// depthwise kernels (four kernel rows per dot product).
//
// No include guard: Convolution8i.cpp and Depthwise8i.cpp include this header once per Highway
// target inside namespace conv8i. That outer inclusion includes the body below twice: inside
// conv8i::plain, and on the AVX3 target inside conv8i::vnni with SIMD_I8_ATTR =
// __attribute__((target("avx512vnni"))). Every function of that copy then carries the
// attribute, so the VPDPBUSD intrinsic inlines into it (GCC refuses to inline an intrinsic into
// a function compiled without its target, and a template cannot take an attribute per
// instantiation). The plain copy never sees the attribute, so the plain AVX-512 kernels stay
// free of VNNI instructions. Requires in scope: hn, D32, V32, Acc32 and the Dot types of
// Dot8i-inl.h, and Epilogue8i-inl.h (the depthwise rings' fused epilogue).

#ifndef SIMD_I8_ATTR
namespace plain {
#define SIMD_I8_ATTR
#define SIMD_I8_VNNI 0
#include "convolution8i/Kernels8i.h"
#undef SIMD_I8_VNNI
#undef SIMD_I8_ATTR
}  // namespace plain

#if HWY_TARGET == HWY_AVX3
namespace vnni {
#define SIMD_I8_ATTR __attribute__((target("avx512vnni")))
#define SIMD_I8_VNNI 1
#include "convolution8i/Kernels8i.h"
#undef SIMD_I8_VNNI
#undef SIMD_I8_ATTR
}  // namespace vnni
#endif

#else  // the body, once per copy

#if SIMD_I8_VNNI
// VPDPBUSD (EVEX): acc + the four exact u8 * s8 products of each lane.
struct DotVnni {
    using A = V32;
    static HWY_INLINE SIMD_I8_ATTR A Prepare(V32 a) { return a; }
    static HWY_INLINE SIMD_I8_ATTR Acc32 Apply(Acc32 acc, const A& a, V32 w) {
        return (Acc32)_mm512_dpbusd_epi32((__m512i)acc, a.raw, w.raw);
    }
};
#endif

// out[r][j] (+)= sum over k < words of the dot products of the 4 bytes at base + taps[r] +
// offsets[k] with word k of the weight panel (NV*L lanes of 4 bytes: one output channel per
// lane), for r < MR, j < NV*L; out rows are NV*L apart; `add`: out holds the sums of earlier
// words. words >= 1; the loop is a do-while because with a loop that might not run GCC keeps a
// copy of the tile on the stack (as in gemm/Gemm-inl.h).
template <class Dot, size_t MR, size_t NV>
HWY_NOINLINE SIMD_I8_ATTR void GemmTile8i(const uint8_t* base, const size_t* taps,
                                          const uint32_t* offsets, size_t words,
                                          const int8_t* panel, int32_t* out, bool add) {
    const D32 d;
    constexpr size_t L = hn::MaxLanes(D32());
    Acc32 acc[MR][NV];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v)
            acc[r][v] = ToAcc(add ? hn::LoadU(d, out + (r * NV + v) * L) : hn::Zero(d));
    const uint8_t* a[MR];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) a[r] = base + taps[r];
    const int32_t* b = reinterpret_cast<const int32_t*>(panel);
    size_t k = 0;
    do {
        const size_t offset = offsets[k];
        V32 bv[NV];
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, b + v * L);
#pragma GCC unroll 16
        for (size_t r = 0; r < MR; ++r) {
            int32_t word;
            __builtin_memcpy(&word, a[r] + offset, sizeof(word));
            const typename Dot::A pa = Dot::Prepare(hn::Set(d, word));
#pragma GCC unroll 4
            for (size_t v = 0; v < NV; ++v) acc[r][v] = Dot::Apply(acc[r][v], pa, bv[v]);
        }
        b += NV * L;
    } while (++k < words);
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (size_t v = 0; v < NV; ++v) hn::StoreU(FromAcc(acc[r][v]), d, out + (r * NV + v) * L);
}

#if HWY_TARGET != HWY_SCALAR
// Depthwise (one channel per group): `count` output pixels of one block of 4*L channels, in an
// image whose blocks are stored as Padded8i::PermuteBlocks leaves them. rows[j], j < 4*groups,
// is the address of the block at the first pixel's tap (kernel row j, column 0); taps of a
// kernel row are `colStep` bytes apart, output pixels `step`. Kernel rows are taken four at a
// time: the four rows' vectors interleaved within 128-bit blocks (bytes, then byte pairs) give
// four vectors whose lane i holds the four rows of channel k*L + i, and one dot product per
// vector adds four taps. Pixels first .. first + count - 1. weights: per group of rows and kernel
// column, four vectors of L lanes of 4 bytes (rows past the kernel are zero weights). out: count x
// 4*L sums.
template <class Dot>
HWY_NOINLINE SIMD_I8_ATTR void DepthwisePixels8i(const uint8_t* const* rows, size_t groups,
                                                 size_t kX, size_t colStep, size_t step,
                                                 size_t first, size_t count, const int8_t* weights,
                                                 int32_t* out) {
    const D32 d;
    const hn::Repartition<uint8_t, D32> d8;
    const hn::Repartition<uint16_t, D32> d16;
    constexpr size_t L = hn::MaxLanes(D32());
    for (size_t m = 0; m < count; ++m) {
        Acc32 acc[4];
#pragma GCC unroll 4
        for (size_t k = 0; k < 4; ++k) acc[k] = ToAcc(hn::Zero(d));
        const int32_t* w = reinterpret_cast<const int32_t*>(weights);
        for (size_t g = 0; g < groups; ++g) {
            const uint8_t* const* r = rows + 4 * g;
            for (size_t kx = 0, off = (first + m) * step; kx < kX;
                 ++kx, off += colStep, w += 4 * L) {
                const auto r0 = hn::LoadU(d8, r[0] + off), r1 = hn::LoadU(d8, r[1] + off);
                const auto r2 = hn::LoadU(d8, r[2] + off), r3 = hn::LoadU(d8, r[3] + off);
                const auto lo01 = hn::BitCast(d16, hn::InterleaveLower(d8, r0, r1));
                const auto hi01 = hn::BitCast(d16, hn::InterleaveUpper(d8, r0, r1));
                const auto lo23 = hn::BitCast(d16, hn::InterleaveLower(d8, r2, r3));
                const auto hi23 = hn::BitCast(d16, hn::InterleaveUpper(d8, r2, r3));
                const V32 v[4] = {hn::BitCast(d, hn::InterleaveLower(d16, lo01, lo23)),
                                  hn::BitCast(d, hn::InterleaveUpper(d16, lo01, lo23)),
                                  hn::BitCast(d, hn::InterleaveLower(d16, hi01, hi23)),
                                  hn::BitCast(d, hn::InterleaveUpper(d16, hi01, hi23))};
#pragma GCC unroll 4
                for (size_t k = 0; k < 4; ++k)
                    acc[k] = Dot::Apply(acc[k], Dot::Prepare(v[k]), hn::LoadU(d, w + k * L));
            }
        }
#pragma GCC unroll 4
        for (size_t k = 0; k < 4; ++k) hn::StoreU(FromAcc(acc[k]), d, out + m * 4 * L + k * L);
    }
}
#endif

// Makes the compiler treat `p` as an unknown value in a register, so that loads through it are
// not hoisted out of the loop around (see the ring below).
template <class T>
HWY_INLINE void OpaqueAddress8i(T*& p) {
#if defined(__GNUC__) || defined(__clang__)
    asm("" : "+r"(p));
#endif
}

#if HWY_TARGET != HWY_SCALAR
// The four interleaved vectors of one image column (DepthwisePixels8i): vector k, lane i holds
// rows r[0..3] of channel k*L + i. kFirst, kCount: which of the four are built.
template <size_t kFirst, size_t kCount>
HWY_INLINE SIMD_I8_ATTR void InterleaveRows8i(const uint8_t* const* r, size_t off, V32* v) {
    const D32 d;
    const hn::Repartition<uint8_t, D32> d8;
    const hn::Repartition<uint16_t, D32> d16;
    const auto r0 = hn::LoadU(d8, r[0] + off), r1 = hn::LoadU(d8, r[1] + off);
    const auto r2 = hn::LoadU(d8, r[2] + off), r3 = hn::LoadU(d8, r[3] + off);
    if (kFirst == 0) {
        const auto lo01 = hn::BitCast(d16, hn::InterleaveLower(d8, r0, r1));
        const auto lo23 = hn::BitCast(d16, hn::InterleaveLower(d8, r2, r3));
        v[0] = hn::BitCast(d, hn::InterleaveLower(d16, lo01, lo23));
        v[1] = hn::BitCast(d, hn::InterleaveUpper(d16, lo01, lo23));
    }
    if (kFirst + kCount == 4) {
        const auto hi01 = hn::BitCast(d16, hn::InterleaveUpper(d8, r0, r1));
        const auto hi23 = hn::BitCast(d16, hn::InterleaveUpper(d8, r2, r3));
        v[2 - kFirst] = hn::BitCast(d, hn::InterleaveLower(d16, hi01, hi23));
        v[3 - kFirst] = hn::BitCast(d, hn::InterleaveUpper(d16, hi01, hi23));
    }
}

// The ring of Depthwise3x3Ring8i (below) over image columns 0 .. count + 1, which it reads
// through three sets of four row addresses: cols[0..3] of column 0 (for columns 0 and 1),
// cols[4..7] of column 2 (columns 2 .. count) and cols[8..11] of column count + 1, so that one
// call can read a row's first two and last columns from prepared padded borders and the others
// where the caller's rows are. After column t >= 2, done(t - 2, sums) with sums[row][k] the
// complete sums of output t - 2, row `row`, vector kFirst + k.
template <class Dot, size_t kRows, size_t kFirst, size_t kVecs, class Done>
HWY_INLINE SIMD_I8_ATTR void Ring3x3Columns8i(const uint8_t* const* cols, size_t step, size_t count,
                                              const int8_t* weights, const Done& done) {
    const D32 d;
    constexpr size_t L = hn::MaxLanes(D32());
    // Local copies: GCC reloaded the addresses after every store of `done` (it may alias them).
    const uint8_t* const r[4] = {cols[4], cols[5], cols[6], cols[7]};
    const auto zero = ToAcc(hn::Zero(d));
    Acc32 acc[3][kRows][kVecs];
    // Column t of the pixels (rows src[0..3] + off): starts output t (kernel column 0), adds to
    // t-1 and t-2 (kAdd of the three: fewer in the first two columns); then output t-2 is
    // complete. A, B, C: the ring slots of outputs t, t-1, t-2.
    const auto column = [&](const uint8_t* const* src, size_t off, size_t t, auto A, auto B, auto C,
                            auto kAdd) SIMD_I8_ATTR {
        V32 v[kVecs];
        InterleaveRows8i<kFirst, kVecs>(src, off, v);
        // The weights stay memory operands of the dot products: hoisted out of the loop (24
        // vectors with VNNI's two rows of four), GCC spilled them and accumulators to the stack.
        const int32_t* w = reinterpret_cast<const int32_t*>(weights) + kFirst * L;
        OpaqueAddress8i(w);
#pragma GCC unroll 4
        for (size_t k = 0; k < kVecs; ++k) {
            const typename Dot::A a = Dot::Prepare(v[k]);
#pragma GCC unroll 2
            for (size_t row = 0; row < kRows; ++row) {
                const int32_t* wr = w + row * 12 * L + k * L;
                acc[A][row][k] = Dot::Apply(zero, a, hn::LoadU(d, wr));
                if (kAdd > 1)
                    acc[B][row][k] = Dot::Apply(acc[B][row][k], a, hn::LoadU(d, wr + 4 * L));
                if (kAdd > 2)
                    acc[C][row][k] = Dot::Apply(acc[C][row][k], a, hn::LoadU(d, wr + 8 * L));
            }
        }
        if (kAdd > 2) done(t - 2, acc[C]);
    };
    using S0 = std::integral_constant<size_t, 0>;
    using S1 = std::integral_constant<size_t, 1>;
    using S2 = std::integral_constant<size_t, 2>;
    using Add1 = std::integral_constant<size_t, 1>;
    using Add2 = std::integral_constant<size_t, 2>;
    using Add3 = std::integral_constant<size_t, 3>;
    // The columns of outputs 0 and 1 first, then straight-line groups of three middle columns
    // that each complete an output (with the tests of the last group inside the loop, GCC kept
    // the loop bounds on the stack and moved weight loads across them into spilled registers),
    // then the last one to three columns.
    column(cols, 0, 0, S0(), S2(), S1(), Add1());
    column(cols, step, 1, S1(), S0(), S2(), Add2());
    size_t t = 2;
#pragma GCC unroll 1
    for (; t + 3 < count + 2; t += 3) {
        column(r, (t - 2) * step, t, S2(), S1(), S0(), Add3());
        column(r, (t - 1) * step, t + 1, S0(), S2(), S1(), Add3());
        column(r, t * step, t + 2, S1(), S0(), S2(), Add3());
    }
    const auto tail = [&](size_t t, auto A, auto B, auto C) SIMD_I8_ATTR {
        const bool last = t == count + 1;
        const size_t off = (t - 2) * step;
        const uint8_t* const src[4] = {last ? cols[8] : r[0] + off, last ? cols[9] : r[1] + off,
                                       last ? cols[10] : r[2] + off, last ? cols[11] : r[3] + off};
        column(src, 0, t, A, B, C, Add3());
    };
    tail(t, S2(), S1(), S0());
    if (t + 1 < count + 2) tail(t + 1, S0(), S2(), S1());
    if (t + 2 < count + 2) tail(t + 2, S1(), S0(), S2());
}

// Depthwise 3x3, stride 1, no dilation: `count` output pixels (from `first`) of kRows output rows
// (1, or 2: the four image rows r[0..3] then serve the first output row with kernel rows 0-2 in
// lanes 0-2 and the second with kernel rows 0-2 in lanes 1-3), vectors [kFirst, kFirst + kVecs)
// of one channel block. Each image column is interleaved once and serves the three outputs that
// read it (a ring of three accumulator sets; an output's set starts at its first column).
// weights: per output row, kernel column and vector, L lanes of 4 bytes (DepthwisePixels8i's
// layout, the second row's shifted by one byte). out[row]: count x 4*L sums.
template <class Dot, size_t kRows, size_t kFirst, size_t kVecs>
HWY_NOINLINE SIMD_I8_ATTR void Depthwise3x3Ring8i(const uint8_t* const* r, size_t step,
                                                  size_t first, size_t count, const int8_t* weights,
                                                  int32_t* const* out) {
    const D32 d;
    constexpr size_t L = hn::MaxLanes(D32());
    int32_t* const o[2] = {out[0], kRows > 1 ? out[1] : out[0]};
    const uint8_t* cols[12];
    for (size_t i = 0; i < 4; ++i) {
        cols[i] = r[i] + first * step;
        cols[4 + i] = cols[i] + 2 * step;
        cols[8 + i] = cols[i] + (count + 1) * step;
    }
    Ring3x3Columns8i<Dot, kRows, kFirst, kVecs>(
        cols, step, count, weights, [&](size_t m, const auto& sums) SIMD_I8_ATTR {
#pragma GCC unroll 2
            for (size_t row = 0; row < kRows; ++row)
#pragma GCC unroll 4
                for (size_t k = 0; k < kVecs; ++k)
                    hn::StoreU(FromAcc(sums[row][k]), d, o[row] + m * 4 * L + (kFirst + k) * L);
        });
}
#endif

#if SIMD_SYNET_INT8_X86
// The UINT8 epilogue fused into the depthwise rings: the complete sums of one output (kRows rows
// of the four vectors of a block) go from registers through Epilogue8i<kKind>'s operations
// (EpilogueRows8i, in its order, kShift as it chooses) to their bytes, in block order (sums,
// weights and parameters), so no INT32 sums are stored and read back. Whole blocks only: the
// memcpy of a partial store is a call, around which GCC saved every accumulator in every
// iteration.
template <size_t kRows, Act8iKind kKind, bool kShift>
class FusedEpilogue8i {
public:
    // op: the parameters of the block's 4*L channels.
    SIMD_I8_ATTR explicit FusedEpilogue8i(const OutputParams& op)
        : act_(op.act), zero_(hn::Set(Df(), op.zero)), upper_(hn::Set(Df(), op.upper)) {
        const Df df;
        const float* from[4] = {op.norm, op.bias, op.scale, op.slope};
        for (size_t i = 0; i < kParams; ++i)
            for (size_t j = 0; j < 4 * L; j += L)
                hn::Store(hn::LoadU(df, from[i] + j), df, params_[i] + j);
    }

    // sums[row][k]: vector k of output row `row`, whose 4*L bytes go to to[row] + offset.
    template <class Sums>
    HWY_INLINE SIMD_I8_ATTR void Store(const Sums& sums, uint8_t* const* to, size_t offset) const {
        const Df df;
        // The parameters read through an opaque address (as the weights): hoisted, they would
        // take 12-16 of the registers that the accumulators need.
        const float* p = params_[0];
        OpaqueAddress8i(p);
        V32 q[kRows][4];
#pragma GCC unroll 4
        for (size_t k = 0; k < 4; ++k) {
            const auto norm = hn::Load(df, p + k * L);
            const auto bias = hn::Load(df, p + 4 * L + k * L);
            const auto scale = hn::Load(df, p + 8 * L + k * L);
            const auto slope =
                kKind == Act8iKind::kSlope ? hn::Load(df, p + 12 * L + k * L) : hn::Zero(df);
#pragma GCC unroll 2
            for (size_t row = 0; row < kRows; ++row) {
                const auto sum = hn::ConvertTo(df, FromAcc(sums[row][k]));
                const auto y =
                    Activate8i<kKind>(df, hn::Add(hn::Mul(sum, norm), bias), slope, act_);
                q[row][k] = QuantizeOutput<kShift>(df, y, scale, zero_, upper_);
            }
        }
#pragma GCC unroll 2
        for (size_t row = 0; row < kRows; ++row)
            StoreBytes4<true>(q[row][0], q[row][1], q[row][2], q[row][3], to[row] + offset, 4 * L);
    }

private:
    using Df = hn::Repartition<float, D32>;
    static constexpr size_t L = hn::MaxLanes(D32());
    static constexpr size_t kParams = kKind == Act8iKind::kSlope ? 4 : 3;
    HWY_ALIGN float params_[kParams][4 * L];
    conv32f::Act act_;
    hn::Vec<Df> zero_, upper_;
};

// Depthwise3x3Ring8i for all four vectors of a block with FusedEpilogue8i, the image columns
// read as Ring3x3Columns8i's cols[12] say: output m of row `row` to
// dst + row * rowStride + m * pixelStride.
template <class Dot, size_t kRows, Act8iKind kKind, bool kShift>
HWY_NOINLINE SIMD_I8_ATTR void Depthwise3x3RingU8i(const uint8_t* const* cols, size_t step,
                                                   size_t count, const int8_t* weights,
                                                   const OutputParams& op, uint8_t* dst,
                                                   size_t rowStride, size_t pixelStride) {
    const FusedEpilogue8i<kRows, kKind, kShift> epilogue(op);
    uint8_t* const to[2] = {dst, dst + rowStride};
    Ring3x3Columns8i<Dot, kRows, 0, 4>(cols, step, count, weights,
                                       [&](size_t m, const auto& sums) SIMD_I8_ATTR {
                                           epilogue.Store(sums, to, m * pixelStride);
                                       });
}
#endif

#if HWY_TARGET != HWY_SCALAR
// The columns of Depthwise3x3s2Ring8i (below): after output o's third column, done(o, sums) with
// sums[0][k] its complete sums of vector kFirst + k.
template <class Dot, size_t kFirst, size_t kVecs, class Done>
HWY_INLINE SIMD_I8_ATTR void Ring3x3s2Columns8i(const uint8_t* const* rows, size_t step,
                                                size_t first, size_t count, const int8_t* weights,
                                                const Done& done) {
    const D32 d;
    constexpr size_t L = hn::MaxLanes(D32());
    // Local copies: GCC may reload rows[] after every store of `done` (it may alias them).
    const uint8_t* const r[4] = {rows[0], rows[1], rows[2], rows[3]};
    const int32_t* w = reinterpret_cast<const int32_t*>(weights) + kFirst * L;
    const auto zero = ToAcc(hn::Zero(d));
    V32 shared[kVecs], v[kVecs];
    InterleaveRows8i<kFirst, kVecs>(r, 2 * first * step, shared);
    for (size_t o = 0; o < count; ++o) {
        Acc32 acc[1][kVecs];
#pragma GCC unroll 4
        for (size_t k = 0; k < kVecs; ++k)
            acc[0][k] = Dot::Apply(zero, Dot::Prepare(shared[k]), hn::LoadU(d, w + k * L));
        InterleaveRows8i<kFirst, kVecs>(r, (2 * (first + o) + 1) * step, v);
#pragma GCC unroll 4
        for (size_t k = 0; k < kVecs; ++k)
            acc[0][k] = Dot::Apply(acc[0][k], Dot::Prepare(v[k]), hn::LoadU(d, w + 4 * L + k * L));
        InterleaveRows8i<kFirst, kVecs>(r, (2 * (first + o) + 2) * step, shared);
#pragma GCC unroll 4
        for (size_t k = 0; k < kVecs; ++k)
            acc[0][k] =
                Dot::Apply(acc[0][k], Dot::Prepare(shared[k]), hn::LoadU(d, w + 8 * L + k * L));
        done(o, acc);
    }
}

// Depthwise 3x3, stride 2, no dilation: as Depthwise3x3Ring8i for one output row; output o reads
// image columns 2o, 2o + 1, 2o + 2, and column 2o + 2 is output o + 1's first, so it is
// interleaved once for both.
template <class Dot, size_t kFirst, size_t kVecs>
HWY_NOINLINE SIMD_I8_ATTR void Depthwise3x3s2Ring8i(const uint8_t* const* r, size_t step,
                                                    size_t first, size_t count,
                                                    const int8_t* weights, int32_t* const* out) {
    const D32 d;
    constexpr size_t L = hn::MaxLanes(D32());
    int32_t* const o = out[0];
    Ring3x3s2Columns8i<Dot, kFirst, kVecs>(
        r, step, first, count, weights, [&](size_t m, const auto& sums) SIMD_I8_ATTR {
#pragma GCC unroll 4
            for (size_t k = 0; k < kVecs; ++k)
                hn::StoreU(FromAcc(sums[0][k]), d, o + m * 4 * L + (kFirst + k) * L);
        });
}
#endif

#if SIMD_SYNET_INT8_X86
// Depthwise3x3s2Ring8i for all four vectors of a block with FusedEpilogue8i: output m to
// dst + m * pixelStride.
template <class Dot, Act8iKind kKind, bool kShift>
HWY_NOINLINE SIMD_I8_ATTR void Depthwise3x3s2RingU8i(const uint8_t* const* r, size_t step,
                                                     size_t count, const int8_t* weights,
                                                     const OutputParams& op, uint8_t* dst,
                                                     size_t /*rowStride*/, size_t pixelStride) {
    const FusedEpilogue8i<1, kKind, kShift> epilogue(op);
    uint8_t* const to[1] = {dst};
    Ring3x3s2Columns8i<Dot, 0, 4>(r, step, 0, count, weights,
                                  [&](size_t m, const auto& sums)
                                      SIMD_I8_ATTR { epilogue.Store(sums, to, m * pixelStride); });
}
#endif

#if HWY_TARGET != HWY_SCALAR
// Depthwise 3x3 on NCHW planes, no dilation: the sums of `count` outputs of one output row of one
// channel, from three zero-point-padded image rows r[0..2] (padded column 0 first). A lane holds
// four neighbouring bytes of a row and w[ky] the kernel row's three weights (and a zero), so
// one dot product adds a kernel row for one output: with stride 1, loads at x0 + o (o < 4)
// give outputs x0 + 4j + o in lane j; with stride 2, loads at 2*x0 + 2*(2L*h) + 2*o + ... give
// outputs x0 + 2L*h + 2j + o in vector 2h + o. out: per group of 4*L outputs, the four vectors
// in that order (PlaneOrder8i maps them back).
template <class Dot, size_t kStride>
HWY_NOINLINE SIMD_I8_ATTR void DepthwisePlaneRow8i(const uint8_t* const* r, const int32_t* w,
                                                   size_t count, int32_t* out) {
    const D32 d;
    const hn::Repartition<uint8_t, D32> d8;
    constexpr size_t L = hn::MaxLanes(D32());
    const auto zero = ToAcc(hn::Zero(d));
    const V32 w0 = hn::Set(d, w[0]), w1 = hn::Set(d, w[1]), w2 = hn::Set(d, w[2]);
    for (size_t x0 = 0; x0 < count; x0 += 4 * L, out += 4 * L) {
        Acc32 acc[4];
#pragma GCC unroll 4
        for (size_t v = 0; v < 4; ++v) {
            // Byte offset of lane 0 of vector v in the padded rows.
            const size_t at = kStride == 1 ? x0 + v : 2 * (x0 + 2 * L * (v / 2) + v % 2);
            const auto l0 = hn::BitCast(d, hn::LoadU(d8, r[0] + at));
            const auto l1 = hn::BitCast(d, hn::LoadU(d8, r[1] + at));
            const auto l2 = hn::BitCast(d, hn::LoadU(d8, r[2] + at));
            acc[v] = Dot::Apply(zero, Dot::Prepare(l0), w0);
            acc[v] = Dot::Apply(acc[v], Dot::Prepare(l1), w1);
            acc[v] = Dot::Apply(acc[v], Dot::Prepare(l2), w2);
        }
#pragma GCC unroll 4
        for (size_t v = 0; v < 4; ++v) hn::StoreU(FromAcc(acc[v]), d, out + v * L);
    }
}
#endif

#endif  // the body
