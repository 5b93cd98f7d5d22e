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

// First pass of Transform: rows[r][j] = Σ_q MX[j][q] * in[r][q], unrolled by recursion (plain
// function templates: GCC does not force-inline lambdas, and an out-of-line call would pass the
// vectors through memory).
template <class MY, class MX, int kR, int kJ, class D>
HWY_INLINE void TransformRows(D d, const hn::Vec<D>* in, hn::Vec<D>* rows) {
    if constexpr (kR < MY::kCols) {
        if constexpr (kJ < MX::kRows) {
            rows[kR * MX::kRows + kJ] =
                Dot<MX, kJ, 0, false>(d, hn::Zero(d), in + kR * MX::kCols, 1);
            TransformRows<MY, MX, kR, kJ + 1>(d, in, rows);
        } else {
            TransformRows<MY, MX, kR + 1, 0>(d, in, rows);
        }
    }
}

// Second pass: out[i][j] = Σ_r MY[i][r] * rows[r][j].
template <class MY, class MX, int kI, int kJ, class D>
HWY_INLINE void TransformCols(D d, const hn::Vec<D>* rows, hn::Vec<D>* out) {
    if constexpr (kI < MY::kRows) {
        if constexpr (kJ < MX::kRows) {
            out[kI * MX::kRows + kJ] = Dot<MY, kI, 0, false>(d, hn::Zero(d), rows + kJ, MX::kRows);
            TransformCols<MY, MX, kI, kJ + 1>(d, rows, out);
        } else {
            TransformCols<MY, MX, kI + 1, 0>(d, rows, out);
        }
    }
}

// out[i][j] = Σ_r Σ_q MY[i][r] * MX[j][q] * in[r][q] for every lane:
// in is MY::kCols x MX::kCols, out is MY::kRows x MX::kRows, both row-major.
// The X axis is reduced first (row by row), then the Y axis.
template <class MY, class MX, class D>
HWY_INLINE void Transform(D d, const hn::Vec<D>* in, hn::Vec<D>* out) {
    hn::Vec<D> rows[MY::kCols * MX::kRows];
    TransformRows<MY, MX, 0, 0>(d, in, rows);
    TransformCols<MY, MX, 0, 0>(d, rows, out);
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

}  // namespace winograd
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
