// NHWC pooling, vectorised along channels: one output pixel at a time with four channel
// vectors per step so that the per-tap dependency chains overlap, unrolled taps for unclipped
// 3x3 and 2x2 windows (NhwcPixel); interior columns of 3-wide stride-2 windows slide along the
// row, reusing the column fold shared by neighbouring windows (NhwcRow3x2), and 3x3 stride-2
// rows go in pairs sharing their middle input row (NhwcRows3x2). Channel tails overlap the
// previous vector (outputs are pure, src and dst never alias) or use 1-lane vectors when C is
// below a vector.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_NHWC_WINDOWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_NHWC_WINDOWS_INL_H_
#undef SIMD_SYNET_POOLING_NHWC_WINDOWS_INL_H_
#else
#define SIMD_SYNET_POOLING_NHWC_WINDOWS_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/PoolShape.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// All channels of one NHWC output pixel (window rows yr, columns xr): the window is visited
// once per group of four channel vectors.
// kY, kX > 0: the window is known to be kY x kX (unclipped), so the tap loops unroll.
template <int kY, int kX, class Op, class T>
HWY_INLINE void NhwcPixel(const Op& op, const T* src, size_t C, size_t srcW, PoolRange yr,
                          PoolRange xr, float area, T* dst) {
    const hn::ScalableTag<typename Op::C> d;
    const hn::Rebind<T, decltype(d)> dt;
    const size_t N = hn::Lanes(d);
    const size_t rows = kY > 0 ? size_t(kY) : yr.end - yr.begin;
    const size_t cols = kX > 0 ? size_t(kX) : xr.end - xr.begin;
    const T* origin = src + (yr.begin * srcW + xr.begin) * C;
    const float inverse = 1.0f / area;
    size_t c = 0;
    for (; c + 4 * N <= C; c += 4 * N) {
        auto a0 = op.Init(d), a1 = a0, a2 = a0, a3 = a0;
        for (size_t y = 0; y < rows; ++y) {
            for (size_t x = 0; x < cols; ++x) {
                const T* p = origin + (y * srcW + x) * C + c;
                a0 = op.Fold(a0, op.Widen(d, hn::LoadU(dt, p)));
                a1 = op.Fold(a1, op.Widen(d, hn::LoadU(dt, p + N)));
                a2 = op.Fold(a2, op.Widen(d, hn::LoadU(dt, p + 2 * N)));
                a3 = op.Fold(a3, op.Widen(d, hn::LoadU(dt, p + 3 * N)));
            }
        }
        op.StoreInverse(d, a0, inverse, dst + c);
        op.StoreInverse(d, a1, inverse, dst + c + N);
        op.StoreInverse(d, a2, inverse, dst + c + 2 * N);
        op.StoreInverse(d, a3, inverse, dst + c + 3 * N);
    }
    const auto one = [&](auto dv, size_t at) HWY_ATTR {
        const hn::Rebind<T, decltype(dv)> dtv;
        auto acc = op.Init(dv);
        for (size_t y = 0; y < rows; ++y)
            for (size_t x = 0; x < cols; ++x)
                acc = op.Fold(acc, op.Widen(dv, hn::LoadU(dtv, origin + (y * srcW + x) * C + at)));
        op.StoreInverse(dv, acc, inverse, dst + at);
    };
    for (; c + N <= C; c += N) one(d, c);
    if (c == C) return;
    if (C >= N) {
        one(d, C - N);  // overlaps channels already written with the same values
        return;
    }
    const hn::CappedTag<typename Op::C, 1> d1;
    for (; c < C; ++c) one(d1, c);
}

// NHWC output columns [dxBegin, dxEnd) of one row of windows 3 columns wide with stride 2,
// all unclipped horizontally: the column folds (over the window rows) slide along the row, so
// the fold of the last column of a window is reused as the first column of the next one
// (6 loads per output vector instead of 9). Compute lanes the size of the storage lanes (FP32,
// UINT8, BF16 keys).
template <int kRows, class Op, class T>
HWY_INLINE void NhwcRow3x2(const Op& op, const T* src, size_t C, size_t srcW, size_t padX,
                           PoolRange yr, size_t dxBegin, size_t dxEnd, float area, T* dstRow) {
    const hn::ScalableTag<typename Op::C> d;
    const hn::Rebind<T, decltype(d)> dt;
    const size_t N = hn::Lanes(d);
    const size_t rows = kRows > 0 ? size_t(kRows) : yr.end - yr.begin;
    const float inverse = 1.0f / area;
    const T* base = src + yr.begin * srcW * C;
    const size_t rowStep = srcW * C;
    const auto column = [&](size_t x, size_t c) HWY_ATTR {
        const T* p = base + x * C + c;
        auto acc = op.Init(d);
        if constexpr (kRows > 0) {
            // Starts from the initial value: a max window of -inf gives -FLT_MAX.
            for (int r = 0; r < kRows; ++r)
                acc = op.Fold(acc, op.Widen(d, hn::LoadU(dt, p + r * rowStep)));
        } else {
            for (size_t r = 0; r < rows; ++r, p += rowStep)
                acc = op.Fold(acc, op.Widen(d, hn::LoadU(dt, p)));
        }
        return acc;
    };
    const auto run = [&](size_t c) HWY_ATTR {
        size_t x = 2 * dxBegin - padX;
        auto prev = column(x, c);
        for (size_t dx = dxBegin; dx < dxEnd; ++dx, x += 2) {
            const auto middle = column(x + 1, c);
            const auto last = column(x + 2, c);
            op.StoreInverse(d, op.Fold(op.Fold(prev, middle), last), inverse, dstRow + dx * C + c);
            prev = last;
        }
    };
    // Four channel vectors per walk along the row: each input row is read once per walk.
    const auto run4 = [&](size_t c) HWY_ATTR {
        size_t x = 2 * dxBegin - padX;
        auto p0 = column(x, c), p1 = column(x, c + N), p2 = column(x, c + 2 * N),
             p3 = column(x, c + 3 * N);
        for (size_t dx = dxBegin; dx < dxEnd; ++dx, x += 2) {
            T* out = dstRow + dx * C + c;
            const auto l0 = column(x + 2, c), l1 = column(x + 2, c + N);
            const auto l2 = column(x + 2, c + 2 * N), l3 = column(x + 2, c + 3 * N);
            op.StoreInverse(d, op.Fold(op.Fold(p0, column(x + 1, c)), l0), inverse, out);
            op.StoreInverse(d, op.Fold(op.Fold(p1, column(x + 1, c + N)), l1), inverse, out + N);
            op.StoreInverse(d, op.Fold(op.Fold(p2, column(x + 1, c + 2 * N)), l2), inverse,
                            out + 2 * N);
            op.StoreInverse(d, op.Fold(op.Fold(p3, column(x + 1, c + 3 * N)), l3), inverse,
                            out + 3 * N);
            p0 = l0;
            p1 = l1;
            p2 = l2;
            p3 = l3;
        }
    };
    size_t c = 0;
    for (; c + 4 * N <= C; c += 4 * N) run4(c);
    for (; c + N <= C; c += N) run(c);
    if (c < C) run(C - N);  // overlaps channels already written with the same values
}

// kOut vertically neighbouring NHWC output rows of 3x3 stride-2 windows, all unclipped (compute
// lanes the size of the storage lanes): the 2*kOut + 1 input rows are read once per walk along the
// row, the row shared by two neighbouring windows loaded once for both (every input line is
// otherwise filled into L1 again for the second window, and these fills bound the speed), and the
// column folds slide along the row as in NhwcRow3x2. kVec channel vectors per walk; `base` points
// at column 0 of the first input row, `dst` at the first output row. Not inlined: inside the whole
// pooling kernel the compiler spilled the column folds and loop bounds to the stack (BF16 3x3 s2 p1
// 64x112x112: 25.9-26.6 us inlined, 23.2-24.8 out of line).
template <size_t kOut, size_t kVec, class Op, class T>
HWY_NOINLINE void NhwcRows3x2(const Op& op, const T* base, size_t C, size_t rowStep, size_t padX,
                              size_t dxBegin, size_t dxEnd, float inverse, size_t c, T* dst,
                              size_t dstRowStep) {
    const hn::ScalableTag<typename Op::C> d;
    const hn::Rebind<T, decltype(d)> dt;
    using V = hn::Vec<decltype(d)>;
    const size_t N = hn::Lanes(d);
    // The max folds start from the initial value: a window of -inf gives -FLT_MAX.
    const auto start = [&](V v) HWY_ATTR {
        if constexpr (Op::kAverage)
            return v;
        else
            return op.Fold(op.Init(d), v);
    };
    const auto columns = [&](size_t x, V(&out)[kOut][kVec]) HWY_ATTR {
        HWY_UNROLL(4)
        for (size_t v = 0; v < kVec; ++v) {
            const T* p = base + x * C + c + v * N;
            V top = start(op.Widen(d, hn::LoadU(dt, p)));
            HWY_UNROLL(4)
            for (size_t j = 0; j < kOut; ++j) {
                const V middle = op.Widen(d, hn::LoadU(dt, p + (2 * j + 1) * rowStep));
                const V bottom = op.Widen(d, hn::LoadU(dt, p + (2 * j + 2) * rowStep));
                out[j][v] = op.Fold(op.Fold(top, middle), bottom);
                top = start(bottom);
            }
        }
    };
    V prev[kOut][kVec], middle[kOut][kVec], last[kOut][kVec];
    size_t x = 2 * dxBegin - padX;
    columns(x, prev);
    for (size_t dx = dxBegin; dx < dxEnd; ++dx, x += 2) {
        columns(x + 1, middle);
        columns(x + 2, last);
        HWY_UNROLL(4)
        for (size_t j = 0; j < kOut; ++j) {
            HWY_UNROLL(4)
            for (size_t v = 0; v < kVec; ++v) {
                op.StoreInverse(d, op.Fold(op.Fold(prev[j][v], middle[j][v]), last[j][v]), inverse,
                                dst + j * dstRowStep + dx * C + c + v * N);
                prev[j][v] = last[j][v];
            }
        }
    }
}

template <size_t kOut, class Op, class T>
HWY_INLINE void NhwcRowGroup3x2(const Op& op, const T* base, size_t C, size_t rowStep, size_t padX,
                                size_t dxBegin, size_t dxEnd, float inverse, T* dst,
                                size_t dstRowStep) {
    const size_t N = hn::Lanes(hn::ScalableTag<T>());
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    constexpr size_t kVec = 4;  // 32 registers
#else
    constexpr size_t kVec = 1;
#endif
    size_t c = 0;
    for (; c + kVec * N <= C; c += kVec * N)
        NhwcRows3x2<kOut, kVec>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, c, dst,
                                dstRowStep);
    // Two vectors in one walk where four do not fit: each walk brings the 2*kOut + 1 input rows
    // into L1 again, and 2*kOut + 1 rows of 64 BF16 channels overflow it (Zen 5, BF16 3x3 s2
    // p1 64x112x112: 25.4-26.0 us in two walks of one vector, 22.2-22.7 in one of two).
    if constexpr (kVec > 2)
        for (; c + 2 * N <= C; c += 2 * N)
            NhwcRows3x2<kOut, 2>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, c, dst,
                                 dstRowStep);
    for (; c + N <= C; c += N)
        NhwcRows3x2<kOut, 1>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, c, dst,
                             dstRowStep);
    if (c < C)  // overlaps channels already written with the same values
        NhwcRows3x2<kOut, 1>(op, base, C, rowStep, padX, dxBegin, dxEnd, inverse, C - N, dst,
                             dstRowStep);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
