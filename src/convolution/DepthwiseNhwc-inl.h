// Depthwise NHWC kernels of the FP32 convolution family, per Highway target, vectorised along
// the channels: the general per-pixel kernel, the register-blocked 3x3 kernel and the one-row
// blocks of 5x5 kernels. Shared by the
// depthwise convolution (ConvolutionDepthwise.cpp) and the merged convolution, which runs them
// on a band buffer of rows.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_DEPTHWISE_NHWC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_DEPTHWISE_NHWC_INL_H_
#undef SIMD_SYNET_CONVOLUTION_DEPTHWISE_NHWC_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_DEPTHWISE_NHWC_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "core/VectorSteps-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {
namespace hn = hwy::HWY_NAMESPACE;

// Calls tap(source offset, weight offset) for each tap of output pixel (dy, dx) inside the
// image, in kernel order; both offsets are in floats, of channel 0.
template <class Tap>
HWY_INLINE void ForEachTapInside(const ConvGeometry& q, size_t dy, size_t dx, const Tap& tap) {
    for (size_t ky = 0; ky < q.kY; ++ky) {
        const ptrdiff_t sy = q.SrcY(dy, ky);
        if (sy < 0) continue;
        for (size_t kx = 0; kx < q.kX; ++kx) {
            const ptrdiff_t sx = q.SrcX0(dx, kx);
            if (sx < 0 || sx >= ptrdiff_t(q.srcW)) continue;
            tap((size_t(sy) * q.srcW + size_t(sx)) * q.srcC, (ky * q.kX + kx) * q.srcC);
        }
    }
}

// Output pixel (dy, dx), channels [c, c + lanes): any kernel, taps in the padding skipped.
template <class DV>
HWY_INLINE void DepthwiseNhwcPixel(DV dv, const ConvGeometry& q, const float* image, const float* w,
                                   const float* bias, const float* slope, const Act& act, size_t dy,
                                   size_t dx, size_t c, float* out) {
    auto acc = hn::LoadU(dv, bias + c);
    ForEachTapInside(q, dy, dx, [&](size_t src, size_t weight) HWY_ATTR {
        acc = hn::MulAdd(hn::LoadU(dv, image + src + c), hn::LoadU(dv, w + weight + c), acc);
    });
    const auto s = slope ? hn::LoadU(dv, slope + c) : hn::Zero(dv);
    hn::StoreU(Activate(dv, acc, s, act), dv, out + c);
}

// Kernels of up to this many taps list their in-image taps per pixel (DepthwiseNhwcPixelAll).
constexpr size_t kMaxListedTaps = 64;

// Every channel of output pixel (dy, dx), any kernel. The taps inside the image are listed once
// per pixel, so the channel loop runs through them without recomputing and testing each tap's
// position per channel vector (the border pixels of a 3x3 layer took 15% of its time that way,
// for 7% of its outputs), four channel vectors (four FMA chains) per step. Kernels of more than
// kMaxListedTaps taps go vector by vector through DepthwiseNhwcPixel. The sums run in the same
// order either way.
HWY_INLINE void DepthwiseNhwcPixelAll(const ConvGeometry& q, const float* image, const float* w,
                                      const float* bias, const float* slope, const Act& act,
                                      size_t dy, size_t dx, float* out) {
    const hn::ScalableTag<float> d;
    const hn::CappedTag<float, 1> d1;
    const size_t L = hn::Lanes(d), C = q.srcC;
    size_t c = 0;
    if (q.kY * q.kX > kMaxListedTaps) {
        for (; c + L <= C; c += L)
            DepthwiseNhwcPixel(d, q, image, w, bias, slope, act, dy, dx, c, out);
        for (; c < C; ++c) DepthwiseNhwcPixel(d1, q, image, w, bias, slope, act, dy, dx, c, out);
        return;
    }
    size_t srcOffset[kMaxListedTaps], weightOffset[kMaxListedTaps], taps = 0;
    ForEachTapInside(q, dy, dx, [&](size_t src, size_t weight) {
        srcOffset[taps] = src;
        weightOffset[taps++] = weight;
    });
    auto channels = [&](auto dv, auto vectors, size_t c) HWY_ATTR {
        constexpr size_t K = decltype(vectors)::value;
        const size_t N = hn::Lanes(dv);
        hn::Vec<decltype(dv)> acc[K];
#pragma GCC unroll 4
        for (size_t k = 0; k < K; ++k) acc[k] = hn::LoadU(dv, bias + c + k * N);
        for (size_t t = 0; t < taps; ++t) {
            const float* s = image + srcOffset[t] + c;
            const float* wt = w + weightOffset[t] + c;
#pragma GCC unroll 4
            for (size_t k = 0; k < K; ++k)
                acc[k] = hn::MulAdd(hn::LoadU(dv, s + k * N), hn::LoadU(dv, wt + k * N), acc[k]);
        }
#pragma GCC unroll 4
        for (size_t k = 0; k < K; ++k) {
            const auto sl = slope ? hn::LoadU(dv, slope + c + k * N) : hn::Zero(dv);
            hn::StoreU(Activate(dv, acc[k], sl, act), dv, out + c + k * N);
        }
    };
    using Four = std::integral_constant<size_t, 4>;
    using One = std::integral_constant<size_t, 1>;
    for (; c + 4 * L <= C; c += 4 * L) channels(d, Four(), c);
    for (; c + L <= C; c += L) channels(d, One(), c);
    for (; c < C; ++c) channels(d1, One(), c);
}

// Makes the compiler treat `p` as an unknown value held in a register. In the fully unrolled
// blocks below it would otherwise precompute every row x column offset (multiples of the
// runtime channel count) and, short of registers, spill and reload them: perf showed reloads
// of those offsets among the hottest instructions of the 3x3 block. Stepping one pointer
// through the columns keeps each address a single add.
template <class T>
HWY_INLINE void OpaqueAddress(T*& p) {
#if defined(__GNUC__) || defined(__clang__)
    asm("" : "+r"(p));
#endif
}

// Makes the compiler hold `v` in a vector register. x86 FMAs take a memory operand, and GCC
// folds the load of each source vector into every FMA that uses it (up to six per vector in
// the blocks below) rather than loading it once: each re-read is a load, and a miss where the
// source lines and the outputs share L1 sets (C = 256: pixels 1 KiB apart). Held in a
// register, 3x3 s1 256ch 56x56 went from 282-299 to 255-270 us (mean over six src/dst
// offsets), 3x3 s2 128ch 112x112 from 234-241 to 221-232 us, on AVX-512; AVX2 unchanged. Not in
// unoptimised builds (the fuzzer's -O0): no folding there, and clang 14 cannot tie a 512-bit
// operand at -O0.
template <class V>
HWY_INLINE void OpaqueVector(V& v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__OPTIMIZE__)
    asm("" : "+v"(v.raw));
#else
    (void)v;
#endif
}

// Output block of kRows rows x kCols pixels, 3x3 kernel of stride kStride without dilation, one
// vector of channels: every source vector is loaded once and multiplied into each output it
// reaches, with the nine weights held in registers. `src` is the first tap of the top-left
// output, `out` that output. The taps are inside the image except, at its edges, the window's
// first or last source row or column when kSkipTop/kSkipBottom/kSkipLeft/kSkipRight say so:
// those are never loaded (one row or column of padding). Each output's sum runs bias, then the
// taps inside the image row by row, left to right, as DepthwiseNhwcPixel does, so every block
// shape (and the general path) gives the same bits.
template <size_t kRows, size_t kCols, size_t kStride, bool kSkipTop = false,
          bool kSkipBottom = false, bool kSkipLeft = false, bool kSkipRight = false, class DV>
HWY_INLINE void DepthwiseNhwc3x3Block(DV dv, const float* HWY_RESTRICT src, size_t srcRow, size_t C,
                                      const hn::Vec<DV>* w, hn::Vec<DV> bias, hn::Vec<DV> slope,
                                      const Act& act, float* HWY_RESTRICT out, size_t dstRow) {
    using V = hn::Vec<DV>;
    constexpr size_t kSrcRows = (kRows - 1) * kStride + 3, kSrcCols = (kCols - 1) * kStride + 3;
    V acc[kRows][kCols];
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r)
#pragma GCC unroll 16
        for (size_t o = 0; o < kCols; ++o) acc[r][o] = bias;
#pragma GCC unroll 16
    for (size_t sr = kSkipTop ? 1 : 0; sr < kSrcRows - (kSkipBottom ? 1 : 0); ++sr) {
        const float* row = src + sr * srcRow;
#pragma GCC unroll 32
        for (size_t sc = 0; sc < kSrcCols; ++sc, row += C) {
            if ((kSkipLeft && sc == 0) || (kSkipRight && sc == kSrcCols - 1)) continue;
            OpaqueAddress(row);
            V s = hn::LoadU(dv, row);
            OpaqueVector(s);
#pragma GCC unroll 8
            for (size_t r = 0; r < kRows; ++r) {
                const size_t ky = sr - r * kStride;  // wraps when sr < r * kStride
                if (ky >= 3) continue;
#pragma GCC unroll 16
                for (size_t o = 0; o < kCols; ++o) {
                    const size_t kx = sc - o * kStride;
                    if (kx >= 3) continue;
                    acc[r][o] = hn::MulAdd(s, w[ky * 3 + kx], acc[r][o]);
                }
            }
        }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
        float* pixel = out + r * dstRow;
#pragma GCC unroll 16
        for (size_t o = 0; o < kCols; ++o, pixel += C) {
            OpaqueAddress(pixel);
            hn::StoreU(Activate(dv, acc[r][o], slope, act), dv, pixel);
        }
    }
}

// Which outputs of a 3x3 depthwise layer (stride 1 or 2, no dilation) the register blocks
// take, and in which form. Columns [lo, hi) have every tap inside the image; column 0 (`left`)
// and column hi (`right`, then the last) take the blocks' edge forms when one column of their
// window is padding and the other two are inside. Rows are classified per call from the
// geometry given, which may be a band of the image (merged convolution).
struct Depthwise3x3Plan {
    size_t lo = 0, hi = 0;
    bool left = false, right = false;
    Depthwise3x3Plan() = default;
    explicit Depthwise3x3Plan(const ConvGeometry& q) {
        lo = (q.padX + q.sX - 1) / q.sX;
        const ptrdiff_t last = ptrdiff_t(q.srcW) - 1 + ptrdiff_t(q.padX) - ptrdiff_t(q.kX - 1);
        hi = last < 0 ? 0 : std::min(q.dstW, size_t(last) / q.sX + 1);
        hi = std::max(hi, std::min(lo, q.dstW));
        lo = std::min(lo, hi);
        left = lo == 1 && q.padX == 1 && q.srcW >= 2 && q.dstW >= 2;
        const size_t end = q.dstW - 1;
        right = q.dstW >= 2 && end >= lo && hi == end && end * q.sX + 2 == q.srcW + q.padX;
    }
    static bool RowInside(const ConvGeometry& q, size_t dy) {
        return dy * q.sY >= q.padY && dy * q.sY + 2 < q.srcH + q.padY;
    }
    // The window's first (top) or last (bottom) row is padding, the other two are inside.
    static bool RowTopEdge(const ConvGeometry& q, size_t dy) {
        return dy * q.sY + 1 == q.padY && q.srcH >= 2;
    }
    static bool RowBottomEdge(const ConvGeometry& q, size_t dy) {
        return dy * q.sY >= q.padY && dy * q.sY + 2 == q.srcH + q.padY;
    }
};

// What the 3x3 walks below read of a depthwise layer: weights [9][C], bias [C], the negative
// slope [C] (NULL unless LeakyRelu/Prelu) and the activation.
struct DepthwiseParams {
    const float* weights;
    const float* bias;
    const float* slope;
    Act act;
};

// Every channel of output pixel (dy, dx) of geometry q by the general kernel (any kernel size).
HWY_INLINE void DepthwiseGeneralPixel(const DepthwiseParams& p, const ConvGeometry& q,
                                      const float* in, float* out, size_t dy, size_t dx) {
    DepthwiseNhwcPixelAll(q, in, p.weights, p.bias, p.slope, p.act, dy, dx,
                          out + (dy * q.dstW + dx) * q.srcC);
}

// Channels [c0, c1) (c0 a multiple of the vector) of the output block of kRows rows x kCols
// pixels at (dy, dx); the kSkip flags as DepthwiseNhwc3x3Block's (the window's first row or
// column may then lie before the image: offsets are signed).
template <size_t kRows, size_t kCols, size_t kStride, bool kSkipTop = false,
          bool kSkipBottom = false, bool kSkipLeft = false, bool kSkipRight = false>
HWY_INLINE void Depthwise3x3BlockChannels(const DepthwiseParams& p, const ConvGeometry& q,
                                          const float* in, float* out, size_t dy, size_t dx,
                                          size_t c0, size_t c1) {
    const hn::ScalableTag<float> d;
    const hn::CappedTag<float, 1> d1;
    const size_t L = hn::Lanes(d), C = q.srcC, srcRow = q.srcW * C, dstRow = q.dstW * C;
    const ptrdiff_t y = ptrdiff_t(dy * kStride) - ptrdiff_t(q.padY);
    const ptrdiff_t x = ptrdiff_t(dx * kStride) - ptrdiff_t(q.padX);
    const float* src = in + (y * ptrdiff_t(q.srcW) + x) * ptrdiff_t(C);
    float* dst = out + (dy * q.dstW + dx) * C;
    auto channels = [&](auto dv, size_t c) HWY_ATTR {
        using V = hn::Vec<decltype(dv)>;
        V w[9];
        for (size_t i = 0; i < 9; ++i) w[i] = hn::LoadU(dv, p.weights + i * C + c);
        const V bias = hn::LoadU(dv, p.bias + c);
        const V slope = p.slope ? hn::LoadU(dv, p.slope + c) : hn::Zero(dv);
        DepthwiseNhwc3x3Block<kRows, kCols, kStride, kSkipTop, kSkipBottom, kSkipLeft, kSkipRight>(
            dv, src + c, srcRow, C, w, bias, slope, p.act, dst + c, dstRow);
    };
    size_t c = c0;
    for (; c + L <= c1; c += L) channels(d, c);
    for (; c < c1; ++c) channels(d1, c);
}

// The walks below serve the depthwise convolution and the merged convolution's D stage (whose
// geometry q is a band of the image).

// The outer columns of output rows [dy, dy + rows) that neither the blocks nor their edge
// forms take.
inline void Depthwise3x3BorderPixels(const DepthwiseParams& p, const Depthwise3x3Plan& plan,
                                     const ConvGeometry& q, const float* in, float* out, size_t dy,
                                     size_t rows) {
    for (size_t r = 0; r < rows; ++r) {
        for (size_t dx = plan.left ? 1 : 0; dx < plan.lo; ++dx)
            DepthwiseGeneralPixel(p, q, in, out, dy + r, dx);
        for (size_t dx = plan.hi + (plan.right ? 1 : 0); dx < q.dstW; ++dx)
            DepthwiseGeneralPixel(p, q, in, out, dy + r, dx);
    }
}

// Channels [c0, c1) of the columns [plan.lo, plan.hi) of output rows [dy, dy + kRows): blocks
// of kCols pixels, then single pixels; kTop/kBottom: the window's top or bottom row is padding.
template <size_t kRows, size_t kCols, size_t kStride, bool kTop = false, bool kBottom = false>
HWY_INLINE void Depthwise3x3Span(const DepthwiseParams& p, const Depthwise3x3Plan& plan,
                                 const ConvGeometry& q, const float* in, float* out, size_t dy,
                                 size_t c0, size_t c1) {
    size_t dx = plan.lo;
    for (; dx + kCols <= plan.hi; dx += kCols)
        Depthwise3x3BlockChannels<kRows, kCols, kStride, kTop, kBottom>(p, q, in, out, dy, dx, c0,
                                                                        c1);
    for (; dx < plan.hi; ++dx)
        Depthwise3x3BlockChannels<kRows, 1, kStride, kTop, kBottom>(p, q, in, out, dy, dx, c0, c1);
}

// Channels [c0, c1) of the edge-form columns (0 and plan.hi) of output rows [dy, dy + rows)
// (rows 1 or 2, inside). Out of line: inlined into a band walk, these blocks made GCC move the
// wide interior block out of line instead (144ch 56x56 on Zen 5: 55 -> 62-66 us).
template <size_t kStride>
HWY_NOINLINE void Depthwise3x3EdgeColumns(const DepthwiseParams& p, const Depthwise3x3Plan& plan,
                                          const ConvGeometry& q, const float* in, float* out,
                                          size_t dy, size_t rows, size_t c0, size_t c1) {
    if (plan.left) {
        if (rows == 2)
            Depthwise3x3BlockChannels<2, 1, kStride, false, false, true>(p, q, in, out, dy, 0, c0,
                                                                         c1);
        else
            Depthwise3x3BlockChannels<1, 1, kStride, false, false, true>(p, q, in, out, dy, 0, c0,
                                                                         c1);
    }
    if (plan.right) {
        if (rows == 2)
            Depthwise3x3BlockChannels<2, 1, kStride, false, false, false, true>(p, q, in, out, dy,
                                                                                plan.hi, c0, c1);
        else
            Depthwise3x3BlockChannels<1, 1, kStride, false, false, false, true>(p, q, in, out, dy,
                                                                                plan.hi, c0, c1);
    }
}

// Output row dy whose window's top (kTop) or bottom row is padding: one-row blocks of kCols
// pixels that skip that row, the edge-form corners skipping a column as well, the channels in
// groups of `group`.
template <bool kTop, bool kBottom, size_t kStride, size_t kCols>
HWY_NOINLINE void Depthwise3x3EdgeRowStrided(const DepthwiseParams& p, const Depthwise3x3Plan& plan,
                                             const ConvGeometry& q, const float* in, float* out,
                                             size_t dy, size_t group) {
    Depthwise3x3BorderPixels(p, plan, q, in, out, dy, 1);
    for (size_t c0 = 0; c0 < q.srcC; c0 += group) {
        const size_t c1 = std::min(q.srcC, c0 + group);
        if (plan.left)
            Depthwise3x3BlockChannels<1, 1, kStride, kTop, kBottom, true>(p, q, in, out, dy, 0, c0,
                                                                          c1);
        if (plan.right)
            Depthwise3x3BlockChannels<1, 1, kStride, kTop, kBottom, false, true>(p, q, in, out, dy,
                                                                                 plan.hi, c0, c1);
        Depthwise3x3Span<1, kCols, kStride, kTop, kBottom>(p, plan, q, in, out, dy, c0, c1);
    }
}
template <bool kTop, bool kBottom, size_t kCols>
HWY_INLINE void Depthwise3x3EdgeRow(const DepthwiseParams& p, const Depthwise3x3Plan& plan,
                                    const ConvGeometry& q, const float* in, float* out, size_t dy,
                                    size_t group) {
    if (q.sX == 1)
        Depthwise3x3EdgeRowStrided<kTop, kBottom, 1, kCols>(p, plan, q, in, out, dy, group);
    else
        Depthwise3x3EdgeRowStrided<kTop, kBottom, 2, kCols>(p, plan, q, in, out, dy, group);
}

// ---------------------------------------------------------------------------------------------
// kK x kK kernels (5x5) of stride 1 or 2 without dilation, one output row at a time. All kK*kK
// weights plus the accumulators would not fit in the register file, so the block goes through
// the window one kernel row at a time: that row's kK weights are loaded into registers, each
// source vector of the row is loaded once and multiplied into every output it reaches. Per
// kernel row that is kK + (kCols - 1) * kStride + kK loads for kK * kCols FMAs (5x5, 8 pixels,
// stride 1: 17 loads for 40 FMAs), where the general kernel loads two vectors per FMA. Kernel
// rows outside the image are skipped by the row's range, source columns outside it by the
// edge form's column range, so each output sums bias, then its taps inside the image in kernel
// order, with the FMAs of DepthwiseNhwcPixel: every block gives the general kernel's bits.

// One row of kCols outputs, one vector of channels. `src`: tap (0, 0) of the first output (may
// lie in the padding), `w`: weight (0, 0) of this channel vector; kernel rows [ky0, ky1) are
// inside the image; with kEdge, only the window's source columns [sc0, sc1) are.
template <size_t kK, size_t kCols, size_t kStride, bool kEdge, class DV>
HWY_INLINE void DepthwiseNhwcRowBlock(DV dv, const float* HWY_RESTRICT src, size_t srcRow, size_t C,
                                      const float* HWY_RESTRICT w, size_t ky0, size_t ky1,
                                      size_t sc0, size_t sc1, hn::Vec<DV> bias, hn::Vec<DV> slope,
                                      const Act& act, float* HWY_RESTRICT out) {
    using V = hn::Vec<DV>;
    constexpr size_t kSrcCols = (kCols - 1) * kStride + kK;
    V acc[kCols];
#pragma GCC unroll 16
    for (size_t o = 0; o < kCols; ++o) acc[o] = bias;
    for (size_t ky = ky0; ky < ky1; ++ky) {
        V wk[kK];
#pragma GCC unroll 8
        for (size_t kx = 0; kx < kK; ++kx) {
            wk[kx] = hn::LoadU(dv, w + (ky * kK + kx) * C);
            OpaqueVector(wk[kx]);
        }
        const float* row = src + ky * srcRow;
#pragma GCC unroll 64
        for (size_t sc = 0; sc < kSrcCols; ++sc, row += C) {
            if (kEdge && (sc < sc0 || sc >= sc1)) continue;
            OpaqueAddress(row);
            V s = hn::LoadU(dv, row);
            OpaqueVector(s);
#pragma GCC unroll 16
            for (size_t o = 0; o < kCols; ++o) {
                const size_t kx = sc - o * kStride;  // wraps when sc < o * kStride
                if (kx >= kK) continue;
                acc[o] = hn::MulAdd(s, wk[kx], acc[o]);
            }
        }
    }
    float* pixel = out;
#pragma GCC unroll 16
    for (size_t o = 0; o < kCols; ++o, pixel += C) {
        OpaqueAddress(pixel);
        hn::StoreU(Activate(dv, acc[o], slope, act), dv, pixel);
    }
}

// Channels [c0, c1) (c0 a multiple of the vector) of outputs [dx, dx + kCols) of row dy, whose
// kernel rows [ky0, ky1) are inside the image. Blocks with a window column in the padding take
// the edge form.
template <size_t kK, size_t kCols, size_t kStride>
HWY_INLINE void DepthwiseKxKBlockChannels(const DepthwiseParams& p, const ConvGeometry& q,
                                          const float* in, float* out, size_t dy, size_t dx,
                                          size_t ky0, size_t ky1, size_t c0, size_t c1) {
    constexpr ptrdiff_t kSrcCols = (kCols - 1) * kStride + kK;
    const hn::ScalableTag<float> d;
    const size_t C = q.srcC, srcRow = q.srcW * C;
    const ptrdiff_t y = ptrdiff_t(dy * kStride) - ptrdiff_t(q.padY);
    const ptrdiff_t x = ptrdiff_t(dx * kStride) - ptrdiff_t(q.padX);
    const size_t sc0 = size_t(std::min(kSrcCols, std::max<ptrdiff_t>(0, -x)));
    const size_t sc1 = size_t(std::max(ptrdiff_t(sc0), std::min(kSrcCols, ptrdiff_t(q.srcW) - x)));
    const float* src = in + (y * ptrdiff_t(q.srcW) + x) * ptrdiff_t(C);
    float* dst = out + (dy * q.dstW + dx) * C;
    auto channels = [&](auto dv, auto edge, size_t c) HWY_ATTR {
        const auto bias = hn::LoadU(dv, p.bias + c);
        const auto slope = p.slope ? hn::LoadU(dv, p.slope + c) : hn::Zero(dv);
        DepthwiseNhwcRowBlock<kK, kCols, kStride, decltype(edge)::value>(
            dv, src + c, srcRow, C, p.weights + c, ky0, ky1, sc0, sc1, bias, slope, p.act, dst + c);
    };
    // Channel tails in 8- and 4-lane vectors before single lanes: a block costs the same at
    // any width, and the 8 tail channels of 72 or 120 (AVX-512) one lane at a time had doubled
    // the stage's work.
    if (sc0 > 0 || sc1 < size_t(kSrcCols))
        ForEachVectorStep(d, c1 - c0, [&](auto dv, size_t i) HWY_ATTR {
            channels(dv, std::true_type(), c0 + i);
        });
    else
        ForEachVectorStep(d, c1 - c0, [&](auto dv, size_t i) HWY_ATTR {
            channels(dv, std::false_type(), c0 + i);
        });
}

// Channels [c0, c1) of outputs [dx, dstW) of row dy (fewer than 2 * kCols of them): a block of
// kCols when they fill it, then the halves.
template <size_t kK, size_t kCols, size_t kStride>
HWY_INLINE void DepthwiseKxKRowTail(const DepthwiseParams& p, const ConvGeometry& q,
                                    const float* in, float* out, size_t dy, size_t dx, size_t ky0,
                                    size_t ky1, size_t c0, size_t c1) {
    if (dx + kCols <= q.dstW) {
        DepthwiseKxKBlockChannels<kK, kCols, kStride>(p, q, in, out, dy, dx, ky0, ky1, c0, c1);
        dx += kCols;
    }
    if constexpr (kCols > 1)
        DepthwiseKxKRowTail<kK, kCols / 2, kStride>(p, q, in, out, dy, dx, ky0, ky1, c0, c1);
}

// Output rows [dy0, dy1) of a kK x kK kernel of stride kStride (sY == sX, no dilation), channels
// [cBegin, cEnd) (cBegin a multiple of the vector; all by default): the channels in groups of
// `group`, each group down all the rows, blocks of kCols pixels along each row, then narrower
// ones. Groups outermost: a group's kK source rows stay in L1 from one output row to the next,
// where a row of all channels would not (5 rows x 28 pixels x 128 channels is 70 KiB). Each
// channel's sums are the same lane-wise operations whichever group or range holds it.
template <size_t kK, size_t kStride, size_t kCols>
HWY_NOINLINE void DepthwiseKxKRows(const DepthwiseParams& p, const ConvGeometry& q, const float* in,
                                   float* out, size_t dy0, size_t dy1, size_t group,
                                   size_t cBegin = 0, size_t cEnd = SIZE_MAX) {
    const size_t channels = std::min(q.srcC, cEnd);
    for (size_t c0 = cBegin; c0 < channels; c0 += group) {
        const size_t c1 = std::min(channels, c0 + group);
        for (size_t dy = dy0; dy < dy1; ++dy) {
            const ptrdiff_t y = ptrdiff_t(dy * kStride) - ptrdiff_t(q.padY);
            const size_t ky0 = size_t(std::min(ptrdiff_t(kK), std::max<ptrdiff_t>(0, -y)));
            const size_t ky1 =
                size_t(std::max(ptrdiff_t(ky0), std::min(ptrdiff_t(kK), ptrdiff_t(q.srcH) - y)));
            size_t dx = 0;
            for (; dx + kCols <= q.dstW; dx += kCols)
                DepthwiseKxKBlockChannels<kK, kCols, kStride>(p, q, in, out, dy, dx, ky0, ky1, c0,
                                                              c1);
            if constexpr (kCols > 1)
                DepthwiseKxKRowTail<kK, kCols / 2, kStride>(p, q, in, out, dy, dx, ky0, ky1, c0,
                                                            c1);
        }
    }
}

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
