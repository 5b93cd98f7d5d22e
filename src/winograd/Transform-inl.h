// Winograd transform matrices (SUPPLEMENT.md §12.2) and the generic vector routine that applies
// them: out = MY · in · MXᵀ, evaluated on Highway vectors whose lanes are independent
// (channels for trans = 1, tiles for trans = 0, filters for SetFilter).
//
// The coefficients are compile-time constants reached through template recursion, so each
// product unrolls into straight-line Add/Sub/Mul/MulAdd code: zero coefficients vanish, ±1
// become Add/Sub, and nothing branches at run time.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_WINOGRAD_TRANSFORM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_WINOGRAD_TRANSFORM_INL_H_
#undef SIMD_SYNET_WINOGRAD_TRANSFORM_INL_H_
#else
#define SIMD_SYNET_WINOGRAD_TRANSFORM_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace winograd {

// ---------------------------------------------------------------------------------------------
// Matrices: kRows x kCols, row-major coefficients.

template <int R, int C>
struct Shape {
    static constexpr int kRows = R, kCols = C;
};

// 1x1 identity: the Y axis of the 1-D variants.
struct Identity : Shape<1, 1> {
    static constexpr float kCoef[1][1] = {{1}};
};

// F(4,3)
struct F43G : Shape<6, 3> {
    static constexpr float kCoef[6][3] = {{1.0f / 4, 0, 0},
                                          {-1.0f / 6, -1.0f / 6, -1.0f / 6},
                                          {-1.0f / 6, 1.0f / 6, -1.0f / 6},
                                          {1.0f / 24, 1.0f / 12, 1.0f / 6},
                                          {1.0f / 24, -1.0f / 12, 1.0f / 6},
                                          {0, 0, 1}};
};
struct F43Bt : Shape<6, 6> {
    static constexpr float kCoef[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                          {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                          {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
};
struct F43At : Shape<4, 6> {
    static constexpr float kCoef[4][6] = {
        {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
};

// F(4,5)
struct F45G : Shape<8, 5> {
    static constexpr float kCoef[8][5] = {
        {1.0f / 36, 0, 0, 0, 0},
        {1.0f / 48, 1.0f / 48, 1.0f / 48, 1.0f / 48, 1.0f / 48},
        {1.0f / 48, -1.0f / 48, 1.0f / 48, -1.0f / 48, 1.0f / 48},
        {-1.0f / 120, -2.0f / 120, -4.0f / 120, -8.0f / 120, -16.0f / 120},
        {-1.0f / 120, 2.0f / 120, -4.0f / 120, 8.0f / 120, -16.0f / 120},
        {1.0f / 720, 3.0f / 720, 9.0f / 720, 27.0f / 720, 81.0f / 720},
        {1.0f / 720, -3.0f / 720, 9.0f / 720, -27.0f / 720, 81.0f / 720},
        {0, 0, 0, 0, 1}};
};
struct F45Bt : Shape<8, 8> {
    static constexpr float kCoef[8][8] = {
        {36, 0, -49, 0, 14, 0, -1, 0},   {0, 36, 36, -13, -13, 1, 1, 0},
        {0, -36, 36, 13, -13, -1, 1, 0}, {0, 18, 9, -20, -10, 2, 1, 0},
        {0, -18, 9, 20, -10, -2, 1, 0},  {0, 12, 4, -15, -5, 3, 1, 0},
        {0, -12, 4, 15, -5, -3, 1, 0},   {0, -36, 0, 49, 0, -14, 0, 1}};
};
struct F45At : Shape<4, 8> {
    static constexpr float kCoef[4][8] = {{1, 1, 1, 1, 1, 1, 1, 0},
                                          {0, 1, -1, 2, -2, 3, -3, 0},
                                          {0, 1, 1, 4, 4, 9, 9, 0},
                                          {0, 1, -1, 8, -8, 27, -27, 1}};
};

// F(2,2)
struct F22G : Shape<3, 2> {
    static constexpr float kCoef[3][2] = {{1, 0}, {1, 1}, {0, 1}};
};
struct F22Bt : Shape<3, 3> {
    static constexpr float kCoef[3][3] = {{1, -1, 0}, {0, 1, 0}, {0, -1, 1}};
};
struct F22At : Shape<2, 3> {
    static constexpr float kCoef[2][3] = {{1, 1, 0}, {0, 1, 1}};
};

// F(4,2); its Bᵀ is also the Bᵀ of F(3,3).
struct F42G : Shape<5, 2> {
    static constexpr float kCoef[5][2] = {
        {1.0f / 2, 0}, {-1.0f / 2, -1.0f / 2}, {-1.0f / 6, 1.0f / 6}, {1.0f / 6, 1.0f / 3}, {0, 1}};
};
struct F42Bt : Shape<5, 5> {
    static constexpr float kCoef[5][5] = {{2, -1, -2, 1, 0},
                                          {0, -2, -1, 1, 0},
                                          {0, 2, -3, 1, 0},
                                          {0, -1, 0, 1, 0},
                                          {0, 2, -1, -2, 1}};
};
struct F42At : Shape<4, 5> {
    static constexpr float kCoef[4][5] = {
        {1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 0}, {0, 1, -1, 8, 1}};
};

// F(2,3)
struct F23G : Shape<4, 3> {
    static constexpr float kCoef[4][3] = {
        {1, 0, 0}, {1.0f / 2, 1.0f / 2, 1.0f / 2}, {1.0f / 2, -1.0f / 2, 1.0f / 2}, {0, 0, 1}};
};
struct F23Bt : Shape<4, 4> {
    static constexpr float kCoef[4][4] = {
        {1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
};
struct F23At : Shape<2, 4> {
    static constexpr float kCoef[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
};

// F(3,3)
struct F33G : Shape<5, 3> {
    static constexpr float kCoef[5][3] = {{1.0f / 2, 0, 0},
                                          {-1.0f / 2, -1.0f / 2, -1.0f / 2},
                                          {-1.0f / 6, 1.0f / 6, -1.0f / 6},
                                          {1.0f / 6, 1.0f / 3, 2.0f / 3},
                                          {0, 0, 1}};
};
struct F33At : Shape<3, 5> {
    static constexpr float kCoef[3][5] = {{1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 1}};
};

// One axis of a variant: block m, kernel r, tile t = m + r - 1, and its three matrices.
template <int M, int R, class G_, class Bt_, class At_>
struct Axis {
    static constexpr int kBlock = M, kKernel = R, kTile = M + R - 1;
    using G = G_;
    using Bt = Bt_;
    using At = At_;
    static_assert(G::kRows == kTile && G::kCols == R, "G is tile x kernel");
    static_assert(Bt::kRows == kTile && Bt::kCols == kTile, "Bt is tile x tile");
    static_assert(At::kRows == M && At::kCols == kTile, "At is block x tile");
};

using AxisNone = Axis<1, 1, Identity, Identity, Identity>;
using AxisF43 = Axis<4, 3, F43G, F43Bt, F43At>;
using AxisF45 = Axis<4, 5, F45G, F45Bt, F45At>;
using AxisF22 = Axis<2, 2, F22G, F22Bt, F22At>;
using AxisF42 = Axis<4, 2, F42G, F42Bt, F42At>;
using AxisF23 = Axis<2, 3, F23G, F23Bt, F23At>;
using AxisF33 = Axis<3, 3, F33G, F42Bt, F33At>;

// ---------------------------------------------------------------------------------------------
// Vector arithmetic driven by the coefficients.

// Coefficients reach these as (matrix, row, column): C++17 has no float template parameters.
template <class M, int kRow, int kCol, class D>
HWY_INLINE hn::Vec<D> FirstTerm(D d, hn::Vec<D> x) {
    constexpr float kC = M::kCoef[kRow][kCol];
    if constexpr (kC == 1.0f) {
        (void)d;
        return x;
    } else if constexpr (kC == -1.0f) {
        return hn::Neg(x);
    } else {
        return hn::Mul(hn::Set(d, kC), x);
    }
}

template <class M, int kRow, int kCol, class D>
HWY_INLINE hn::Vec<D> NextTerm(D d, hn::Vec<D> acc, hn::Vec<D> x) {
    constexpr float kC = M::kCoef[kRow][kCol];
    if constexpr (kC == 1.0f) {
        (void)d;
        return hn::Add(acc, x);
    } else if constexpr (kC == -1.0f) {
        (void)d;
        return hn::Sub(acc, x);
    } else {
        return hn::MulAdd(hn::Set(d, kC), x, acc);
    }
}

// Σ_c M[kRow][c] * x[c * stride], skipping zero coefficients at compile time.
template <class M, int kRow, int kCol, bool kStarted, class D>
HWY_INLINE hn::Vec<D> Dot(D d, hn::Vec<D> acc, const hn::Vec<D>* x, int stride) {
    if constexpr (kCol == M::kCols) {
        if constexpr (kStarted)
            return acc;
        else
            return hn::Zero(d);
    } else {
        constexpr float c = M::kCoef[kRow][kCol];
        if constexpr (c == 0.0f) {
            return Dot<M, kRow, kCol + 1, kStarted>(d, acc, x, stride);
        } else if constexpr (kStarted) {
            return Dot<M, kRow, kCol + 1, true>(
                d, NextTerm<M, kRow, kCol>(d, acc, x[kCol * stride]), x, stride);
        } else {
            return Dot<M, kRow, kCol + 1, true>(d, FirstTerm<M, kRow, kCol>(d, x[kCol * stride]), x,
                                                stride);
        }
    }
}

// y[i * yStride] = Σ_c M[i][c] * x[c * stride] for every row i of M: one 1-D transform.
// The generic form evaluates each row on its own (Dot); the F(4,3) matrices, the most used,
// share sums and differences between rows instead (22 -> 14 operations for Bᵀ, 14 -> 10 for
// Aᵀ), which the compiler cannot do by itself without reassociating.
template <class M>
struct Transform1D {
    template <int kRow = 0, class D>
    static HWY_INLINE void Apply(D d, const hn::Vec<D>* x, int stride, hn::Vec<D>* y, int yStride) {
        if constexpr (kRow < M::kRows) {
            y[kRow * yStride] = Dot<M, kRow, 0, false>(d, hn::Zero(d), x, stride);
            Apply<kRow + 1>(d, x, stride, y, yStride);
        }
    }
};

template <>
struct Transform1D<F43Bt> {
    template <class D>
    static HWY_INLINE void Apply(D d, const hn::Vec<D>* x, int stride, hn::Vec<D>* y, int yStride) {
        const auto x0 = x[0], x1 = x[stride], x2 = x[2 * stride];
        const auto x3 = x[3 * stride], x4 = x[4 * stride], x5 = x[5 * stride];
        const auto four = hn::Set(d, 4.0f), two = hn::Set(d, 2.0f), five = hn::Set(d, 5.0f);
        y[0] = hn::NegMulAdd(five, x2, hn::MulAdd(four, x0, x4));
        y[yStride] = hn::NegMulAdd(four, hn::Add(x1, x2), hn::Add(x3, x4));
        y[2 * yStride] = hn::MulAdd(four, hn::Sub(x1, x2), hn::Sub(x4, x3));
        const auto d13 = hn::Sub(x1, x3), d42 = hn::Sub(x4, x2);
        y[3 * yStride] = hn::NegMulAdd(two, d13, d42);
        y[4 * yStride] = hn::MulAdd(two, d13, d42);
        y[5 * yStride] = hn::NegMulAdd(five, x3, hn::MulAdd(four, x1, x5));
    }
};

template <>
struct Transform1D<F43At> {
    template <class D>
    static HWY_INLINE void Apply(D d, const hn::Vec<D>* x, int stride, hn::Vec<D>* y, int yStride) {
        const auto x1 = x[stride], x2 = x[2 * stride], x3 = x[3 * stride], x4 = x[4 * stride];
        const auto s12 = hn::Add(x1, x2), d12 = hn::Sub(x1, x2);
        const auto s34 = hn::Add(x3, x4), d34 = hn::Sub(x3, x4);
        y[0] = hn::Add(hn::Add(x[0], s12), s34);
        y[yStride] = hn::MulAdd(hn::Set(d, 2.0f), d34, d12);
        y[2 * yStride] = hn::MulAdd(hn::Set(d, 4.0f), s34, s12);
        y[3 * yStride] = hn::Add(hn::MulAdd(hn::Set(d, 8.0f), d34, d12), x[5 * stride]);
    }
};

// First pass of Transform: rows[r][j] = Σ_q MX[j][q] * in[r][q], unrolled by recursion (plain
// function templates: GCC does not force-inline lambdas, and an out-of-line call would pass the
// vectors through memory).
template <class MY, class MX, int kR, class D>
HWY_INLINE void TransformRows(D d, const hn::Vec<D>* in, hn::Vec<D>* rows) {
    if constexpr (kR < MY::kCols) {
        Transform1D<MX>::Apply(d, in + kR * MX::kCols, 1, rows + kR * MX::kRows, 1);
        TransformRows<MY, MX, kR + 1>(d, in, rows);
    }
}

// Second pass: out[i][j] = Σ_r MY[i][r] * rows[r][j], column j at a time.
template <class MY, class MX, int kJ, class D>
HWY_INLINE void TransformCols(D d, const hn::Vec<D>* rows, hn::Vec<D>* out) {
    if constexpr (kJ < MX::kRows) {
        Transform1D<MY>::Apply(d, rows + kJ, MX::kRows, out + kJ, MX::kRows);
        TransformCols<MY, MX, kJ + 1>(d, rows, out);
    }
}

// out[i][j] = Σ_r Σ_q MY[i][r] * MX[j][q] * in[r][q] for every lane:
// in is MY::kCols x MX::kCols, out is MY::kRows x MX::kRows, both row-major.
// The X axis is reduced first (row by row), then the Y axis.
template <class MY, class MX, class D>
HWY_INLINE void Transform(D d, const hn::Vec<D>* in, hn::Vec<D>* out) {
    hn::Vec<D> rows[MY::kCols * MX::kRows];
    TransformRows<MY, MX, 0>(d, in, rows);
    TransformCols<MY, MX, 0>(d, rows, out);
}

// ---------------------------------------------------------------------------------------------
// Traversal helper.

// Calls f(d, i) for groups of Lanes(d) consecutive items covering [0, count). The last group is
// moved back to end at `count` (it overlaps the previous one: the overlapped items are computed
// and written twice with identical values, which needs no tail code). When count < Lanes(d), a
// half-width descriptor takes over, down to one lane.
template <class D, class F>
HWY_INLINE void ForGroups(D d, size_t count, const F& f) {
    constexpr size_t kLanes = hn::MaxLanes(D());
    const size_t n = hn::Lanes(d);
    if (count >= n) {
        size_t i = 0;
        for (; i + n <= count; i += n) f(d, i);
        if (i < count) f(d, count - n);
    } else if constexpr (kLanes > 1) {
        ForGroups(hn::Half<D>(), count, f);
    }
}

// Deinterleaving loads of kStride streams: v[s] lane l = p[l*kStride + s], s < kStride.
template <int kStride, class D>
HWY_INLINE void LoadStrided(D d, const float* p, hn::Vec<D>* v) {
    static_assert(kStride >= 2 && kStride <= 4, "strides 2..4");
    if constexpr (kStride == 2) {
        hn::LoadInterleaved2(d, p, v[0], v[1]);
    } else if constexpr (kStride == 3) {
        hn::LoadInterleaved3(d, p, v[0], v[1], v[2]);
    } else {
        hn::LoadInterleaved4(d, p, v[0], v[1], v[2], v[3]);
    }
}

// Interleaving store, the inverse of LoadStrided.
template <int kStride, class D>
HWY_INLINE void StoreStrided(D d, const hn::Vec<D>* v, float* p) {
    static_assert(kStride >= 2 && kStride <= 4, "strides 2..4");
    if constexpr (kStride == 2) {
        hn::StoreInterleaved2(v[0], v[1], d, p);
    } else if constexpr (kStride == 3) {
        hn::StoreInterleaved3(v[0], v[1], v[2], d, p);
    } else {
        hn::StoreInterleaved4(v[0], v[1], v[2], v[3], d, p);
    }
}

// ---------------------------------------------------------------------------------------------
// Whole-image transforms (SUPPLEMENT.md §12.1), shared by the public SimdWinograd* kernels and the
// Winograd convolution contexts.

using DF = hn::ScalableTag<float>;

// Widest group of tiles of the trans = 0 kernels.
constexpr size_t kMaxLanes = hn::MaxLanes(DF());

// Compile-time sizes of a variant (members of a type rather than constexpr locals: GCC 12
// fails on constexpr locals used as array bounds inside generic lambdas).
template <class AY, class AX>
struct Sizes {
    static constexpr int kBY = AY::kBlock, kBX = AX::kBlock;
    static constexpr int kTY = AY::kTile, kTX = AX::kTile;
    static constexpr int kTaps = AY::kKernel * AX::kKernel;
    static constexpr int kCount = kTY * kTX, kOut = kBY * kBX;
    // Columns read by a trans = 0 input group of n tiles: (n + 1)*bX from its first column.
    static constexpr size_t kInStage = size_t(kTY) * (kMaxLanes + 1) * kBX;
    static constexpr size_t kOutStage = kMaxLanes * kBX;
};

// ---------------------------------------------------------------------------------------------
// SetFilter: U = G·g·Gᵀ for `size` filters, vectorised across filters.

template <class AY, class AX>
void SetFilter(const float* src, size_t size, float* dst, bool trans) {
    using S = Sizes<AY, AX>;
    if (trans) {
        // Tap k of filter f at src[k*size + f]: one contiguous vector per tap.
        ForGroups(DF(), size, [&](auto d, size_t f) {
            hn::Vec<decltype(d)> in[S::kTaps], out[S::kCount];
            for (int k = 0; k < S::kTaps; ++k) in[k] = hn::LoadU(d, src + k * size + f);
            Transform<typename AY::G, typename AX::G>(d, in, out);
            for (int k = 0; k < S::kCount; ++k) hn::StoreU(out[k], d, dst + k * size + f);
        });
    } else {
        // Tap k of filter f at src[f*S::kTaps + k]: lanes S::kTaps floats apart.
        ForGroups(DF(), size, [&](auto d, size_t f) {
            using D = decltype(d);
            const hn::RebindToSigned<D> di;
            const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, S::kTaps));
            const float* base = src + f * S::kTaps;
            hn::Vec<D> in[S::kTaps], out[S::kCount];
            for (int k = 0; k < S::kTaps; ++k) in[k] = hn::GatherIndex(d, base + k, index);
            Transform<typename AY::G, typename AX::G>(d, in, out);
            for (int k = 0; k < S::kCount; ++k) hn::StoreU(out[k], d, dst + k * size + f);
        });
    }
}

// ---------------------------------------------------------------------------------------------
// SetInput

// Geometry shared by the input kernels (positions are signed: tiles start in the padding).
struct InputShape {
    size_t channels, height, width;
    ptrdiff_t padY, padX;
    size_t tileH, tileW;
    float* dst;
    size_t dstStride;
};

// trans = 1: src is [H][W][C]; dst[k*dstStride + t*C + c]. Vectors hold channels.
template <class AY, class AX>
void SetInputNhwc(const float* src, const InputShape& s) {
    using S = Sizes<AY, AX>;
    const size_t C = s.channels;
    const ptrdiff_t H = ptrdiff_t(s.height), W = ptrdiff_t(s.width);
    for (size_t ty = 0; ty < s.tileH; ++ty) {
        const ptrdiff_t y0 = ptrdiff_t(ty) * AY::kBlock - s.padY;
        for (size_t tx = 0; tx < s.tileW; ++tx) {
            const ptrdiff_t x0 = ptrdiff_t(tx) * AX::kBlock - s.padX;
            float* out = s.dst + (ty * s.tileW + tx) * C;
            if (y0 >= 0 && x0 >= 0 && y0 + S::kTY <= H && x0 + S::kTX <= W) {
                const float* base = src + (size_t(y0) * size_t(W) + size_t(x0)) * C;
                const size_t rowStride = size_t(W) * C;
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> in[S::kCount], v[S::kCount];
                    for (int r = 0; r < S::kTY; ++r)
                        for (int q = 0; q < S::kTX; ++q)
                            in[r * S::kTX + q] = hn::LoadU(d, base + r * rowStride + q * C + c);
                    Transform<typename AY::Bt, typename AX::Bt>(d, in, v);
                    for (int k = 0; k < S::kCount; ++k)
                        hn::StoreU(v[k], d, out + k * s.dstStride + c);
                });
            } else {
                // Border tile: pixels outside the image read as zero (a zero-padded staging
                // tile held in vectors); the offsets of the real pixels are computed once.
                ptrdiff_t offset[S::kCount];
                for (int r = 0; r < S::kTY; ++r)
                    for (int q = 0; q < S::kTX; ++q) {
                        const ptrdiff_t y = y0 + r, x = x0 + q;
                        offset[r * S::kTX + q] =
                            (y >= 0 && y < H && x >= 0 && x < W) ? (y * W + x) * ptrdiff_t(C) : -1;
                    }
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> in[S::kCount], v[S::kCount];
                    for (int k = 0; k < S::kCount; ++k)
                        in[k] = offset[k] < 0 ? hn::Zero(d) : hn::LoadU(d, src + offset[k] + c);
                    Transform<typename AY::Bt, typename AX::Bt>(d, in, v);
                    for (int k = 0; k < S::kCount; ++k)
                        hn::StoreU(v[k], d, out + k * s.dstStride + c);
                });
            }
        }
    }
}

// trans = 0: src is [C][H][W]; dst[k*dstStride + c*T + t]. Vectors hold consecutive tiles of one
// tile row. Lane l of stream q of row r is pixel (y0 + r, x0 + l*bX + q): one deinterleaving load
// at x0 gives q < bX, one at x0 + bX gives bX <= q < tX (tX - bX = kX - 1 <= bX).
template <class AY, class AX>
void SetInputNchw(const float* src, const InputShape& s) {
    using S = Sizes<AY, AX>;
    static_assert(S::kTX - S::kBX <= S::kBX, "two deinterleaving loads cover a tile row");
    const ptrdiff_t H = ptrdiff_t(s.height), W = ptrdiff_t(s.width);
    const size_t T = s.tileH * s.tileW;
    // Group of tiles starting at (ty, tx) of channel c.
    auto group = [&](auto d, size_t c, size_t ty, size_t tx) {
        using V = hn::Vec<decltype(d)>;
        const float* plane = src + c * s.height * s.width;
        float* out = s.dst + c * T;
        const ptrdiff_t y0 = ptrdiff_t(ty) * AY::kBlock - s.padY;
        const bool rowsInside = y0 >= 0 && y0 + S::kTY <= H;
        const size_t n = hn::Lanes(d);
        const ptrdiff_t x0 = ptrdiff_t(tx) * S::kBX - s.padX;
        const ptrdiff_t span = ptrdiff_t((n + 1) * S::kBX);
        const float* base;
        size_t rowStride;
        HWY_ALIGN float stage[S::kInStage];
        if (rowsInside && x0 >= 0 && x0 + span <= W) {
            base = plane + size_t(y0) * size_t(W) + size_t(x0);
            rowStride = size_t(W);
        } else {
            // Zero-padded copy of the tY rows x span columns the group reads.
            std::memset(stage, 0, sizeof(float) * S::kTY * size_t(span));
            const ptrdiff_t xBegin = x0 < 0 ? 0 : x0;
            const ptrdiff_t xEnd = x0 + span < W ? x0 + span : W;
            for (int r = 0; r < S::kTY; ++r) {
                const ptrdiff_t y = y0 + r;
                if (y < 0 || y >= H || xBegin >= xEnd) continue;
                std::memcpy(stage + r * span + (xBegin - x0), plane + y * W + xBegin,
                            sizeof(float) * size_t(xEnd - xBegin));
            }
            base = stage;
            rowStride = size_t(span);
        }
        V in[S::kCount], v[S::kCount];
        for (int r = 0; r < S::kTY; ++r) {
            V lo[S::kBX], hi[S::kBX];
            LoadStrided<S::kBX>(d, base + r * rowStride, lo);
            LoadStrided<S::kBX>(d, base + r * rowStride + S::kBX, hi);
            for (int q = 0; q < S::kTX; ++q)
                in[r * S::kTX + q] = q < S::kBX ? lo[q] : hi[q - S::kBX];
        }
        Transform<typename AY::Bt, typename AX::Bt>(d, in, v);
        float* o = out + ty * s.tileW + tx;
        for (int k = 0; k < S::kCount; ++k) hn::StoreU(v[k], d, o + k * s.dstStride);
    };
    for (size_t c = 0; c < s.channels; ++c)
        for (size_t ty = 0; ty < s.tileH; ++ty)
            ForGroups(DF(), s.tileW, [&](auto d, size_t tx) { group(d, c, ty, tx); });
}

// ---------------------------------------------------------------------------------------------
// SetOutput

struct OutputShape {
    const float* src;
    size_t srcStride;
    size_t channels, height, width, tileH, tileW;
    // SetOutputNhwc only: distance in src between consecutive tiles and between the pixels of
    // dst (0: channels, the plain layouts of §12.1). The convolution context transforms a
    // channel range of a wider tensor.
    size_t srcTileStride = 0, dstPixelStride = 0;
};

// The identity epilogue: values of channel(s) c leave SetOutput unchanged. The convolution
// contexts pass bias, residual and activation instead; `at` is where the values go.
struct NoEpilogue {
    template <class D>
    HWY_INLINE hn::Vec<D> operator()(D, hn::Vec<D> v, size_t, const float*) const {
        return v;
    }
};

// trans = 1: src[k*srcStride + t*C + c]; dst is [H][W][C]. Vectors hold channels.
template <class AY, class AX, class Post = NoEpilogue>
void SetOutputNhwc(const OutputShape& s, float* dst, const Post& post = Post()) {
    using S = Sizes<AY, AX>;
    const size_t C = s.channels, W = s.width;
    const size_t tileStride = s.srcTileStride ? s.srcTileStride : C;
    const size_t P = s.dstPixelStride ? s.dstPixelStride : C;
    for (size_t ty = 0; ty < s.tileH; ++ty) {
        const size_t y0 = ty * S::kBY;
        const size_t rows = s.height - y0 < size_t(S::kBY) ? s.height - y0 : size_t(S::kBY);
        for (size_t tx = 0; tx < s.tileW; ++tx) {
            const size_t x0 = tx * S::kBX;
            const size_t cols = W - x0 < size_t(S::kBX) ? W - x0 : size_t(S::kBX);
            const float* in = s.src + (ty * s.tileW + tx) * tileStride;
            float* out = dst + (y0 * W + x0) * P;
            if (rows == size_t(S::kBY) && cols == size_t(S::kBX)) {
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> m[S::kCount], y[S::kOut];
                    for (int k = 0; k < S::kCount; ++k)
                        m[k] = hn::LoadU(d, in + k * s.srcStride + c);
                    Transform<typename AY::At, typename AX::At>(d, m, y);
                    for (int p = 0; p < S::kBY; ++p)
                        for (int q = 0; q < S::kBX; ++q)
                            hn::StoreU(post(d, y[p * S::kBX + q], c, out + (p * W + q) * P + c), d,
                                       out + (p * W + q) * P + c);
                });
            } else {
                // Tile overhanging the image: only the pixels inside are written.
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> m[S::kCount], y[S::kOut];
                    for (int k = 0; k < S::kCount; ++k)
                        m[k] = hn::LoadU(d, in + k * s.srcStride + c);
                    Transform<typename AY::At, typename AX::At>(d, m, y);
                    for (size_t p = 0; p < rows; ++p)
                        for (size_t q = 0; q < cols; ++q)
                            hn::StoreU(post(d, y[p * S::kBX + q], c, out + (p * W + q) * P + c), d,
                                       out + (p * W + q) * P + c);
                });
            }
        }
    }
}

// trans = 0: src[k*srcStride + c*T + t]; dst is [C][H][W]. Vectors hold consecutive tiles of
// one tile row; output row p of the group is written by one interleaving store of the bX
// column streams (or through a staging row where the group overhangs the image).
template <class AY, class AX, class Post = NoEpilogue>
void SetOutputNchw(const OutputShape& s, float* dst, const Post& post = Post()) {
    using S = Sizes<AY, AX>;
    const size_t T = s.tileH * s.tileW, W = s.width;
    // Group of tiles starting at (ty, tx) of channel c.
    auto group = [&](auto d, size_t c, size_t ty, size_t tx) {
        using V = hn::Vec<decltype(d)>;
        const float* in = s.src + c * T;
        float* plane = dst + c * s.height * W;
        const size_t y0 = ty * S::kBY;
        const size_t rows = s.height - y0 < size_t(S::kBY) ? s.height - y0 : size_t(S::kBY);
        const size_t n = hn::Lanes(d);
        const size_t x0 = tx * S::kBX;
        const float* m0 = in + ty * s.tileW + tx;
        V m[S::kCount], y[S::kOut];
        for (int k = 0; k < S::kCount; ++k) m[k] = hn::LoadU(d, m0 + k * s.srcStride);
        Transform<typename AY::At, typename AX::At>(d, m, y);
        // Lanes here are tiles, not pixels in a row: no place to pass (post reads none).
        for (int k = 0; k < S::kOut; ++k) y[k] = post(d, y[k], c, nullptr);
        float* out = plane + y0 * W + x0;
        if (rows == size_t(S::kBY) && x0 + n * S::kBX <= W) {
            for (int p = 0; p < S::kBY; ++p) StoreStrided<S::kBX>(d, y + p * S::kBX, out + p * W);
        } else {
            HWY_ALIGN float stage[S::kOutStage];
            const size_t cols = W - x0 < n * S::kBX ? W - x0 : n * S::kBX;
            for (size_t p = 0; p < rows; ++p) {
                StoreStrided<S::kBX>(d, y + p * S::kBX, stage);
                std::memcpy(out + p * W, stage, sizeof(float) * cols);
            }
        }
    };
    for (size_t c = 0; c < s.channels; ++c)
        for (size_t ty = 0; ty < s.tileH; ++ty)
            ForGroups(DF(), s.tileW, [&](auto d, size_t tx) { group(d, c, ty, tx); });
}

}  // namespace winograd
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
