// Depthwise convolution (group == srcC == dstC) of the FP32 convolution framework
// (SUPPLEMENT.md §8): NHWC vectorised over the channels, NCHW over the output columns; 3x3
// kernels of stride 1 and 2 have register-resident weight kernels, NHWC 5x5 kernels of stride 1
// and 2 one-row blocks (DepthwiseNhwc-inl.h), other shapes a general one.
// Forward splits output rows (NHWC) or channel planes (NCHW) over the threads.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/ConvolutionDepthwise.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Activate-inl.h"
#include "convolution/ResidualAdd-inl.h"
#include "convolution/Convolution32f.h"
#include "convolution/ConvolutionDepthwise.h"
#include "convolution/DepthwiseNhwc-inl.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"
#include "convolution/RowTaps-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/Cache.h"
#include "core/IsaName.h"
#include "core/ShiftLanes-inl.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {

using Geometry = ConvGeometry;

// ---------------------------------------------------------------------------------------------
// Depthwise, NHWC: vectors along the channels.

// Pixels per block: the two-row blocks keep 2 x kCols accumulators and nine weights in
// registers (32 vector registers on AVX-512, 16 elsewhere).
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kNhwcCols2 = 6, kNhwcCols1 = 8;
#else
constexpr size_t kNhwcCols2 = 2, kNhwcCols1 = 4;
#endif
// The narrow two-row block, for images whose lines crowd a few L1 sets (see BlockSetPressure).
constexpr size_t kNhwcColsNarrow = 2;
// Channel vectors per group of a band walk (Band3x3). 16 (a whole 256-channel pixel on
// AVX-512): on a 48 KiB Intel L1, s1 256ch 56x56 took 260-265 us against 363-370 with 4 and
// 360-375 with 8, s2 128ch 112x112 290-299 against 309-321 with 4; on Zen4, 2, 8 and 16 had
// measured the same as 4.
constexpr size_t kNhwcGroupVectors = 16;
// 5x5 kernels of stride 1 and 2: pixels per one-row block and channel vectors per group, as
// in the merged convolution's depthwise stage.
constexpr size_t kNhwc5x5Cols = 8, kNhwc5x5GroupVectors = 4;
// L1 data cache geometry of BlockSetPressure: 64 sets of 64-byte lines (4 KiB apart addresses
// share a set), as on Zen and Intel cores alike; the ways (8 on Zen, 12 on recent Intel) come
// from sysfs (L1DataWays).
constexpr size_t kL1Sets = 64, kL1LineBytes = 64;

class DepthwiseNhwc : public Convolution32f {
public:
    DepthwiseNhwc(size_t batch, const SimdConvolutionParameters& p)
        : Convolution32f(batch, p, nullptr), q_(p) {
        fast3x3_ = q_.kY == 3 && q_.kX == 3 && q_.dY == 1 && q_.dX == 1 && q_.sY == q_.sX &&
                   (q_.sX == 1 || q_.sX == 2);
        fast5x5_ = q_.kY == 5 && q_.kX == 5 && q_.dY == 1 && q_.dX == 1 && q_.sY == q_.sX &&
                   (q_.sX == 1 || q_.sX == 2);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nhwc-depthwise-" +
                (fast3x3_   ? "3x3s" + std::to_string(q_.sX)
                 : fast5x5_ ? "5x5s" + std::to_string(q_.sX)
                            : std::string("general"));
        // The outer rows and columns whose window has one row or column in the padding and two
        // in the image go through the register blocks too (their edge forms): 14x14 256ch
        // spent 39% of its time on the general kernel for its 27% border pixels.
        if (fast3x3_) plan_ = Depthwise3x3Plan(q_);
        dyFirstInside_ = (q_.padY + q_.sY - 1) / q_.sY;
    }
    size_t ExternalBufferSize() const override { return 1; }

protected:
    void PackWeights(const float* w) override { weights_.assign(w, w + q_.kY * q_.kX * q_.srcC); }
    // Threads take ranges of output rows of the batch.
    void Run(const float* src, float*, float* dst) const override {
        RunActivated(src, dst, p_.activation);
    }
    void RunAdd(const float* src, float*, const float* add, float* dst) const override {
        RunActivated(src, dst, SimdConvolutionActivationIdentity);
        AddActivateOutput(*this, add, dst);
    }
    // The convolution with activation `type` (the context's, or the identity before a residual).
    void RunActivated(const float* src, float* dst, SimdConvolutionActivationType type) const {
        const size_t rows = batch_ * q_.dstH;
        const size_t parts = std::min(
            rows,
            ThreadPartsFor(2.0 * double(batch_) * double(q_.dstImage) * double(q_.kY * q_.kX)));
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(rows, part, count);
            RunRows(src, dst, r.first, r.second, type);
        });
    }
    bool RowInside(size_t dy) const { return Depthwise3x3Plan::RowInside(q_, dy); }
    // Output rows [r0, r1) of the batch (row r: image r / dstH, row r % dstH). 3x3 rows whose
    // taps are all inside the image go in bands of two rows of one image.
    void RunRows(const float* images, float* outputs, size_t r0, size_t r1,
                 SimdConvolutionActivationType type) const {
        const DepthwiseParams params = Params(type);
        if (fast5x5_) {
            // One-row blocks (DepthwiseKxKRows), each image's rows in channel groups of the
            // merged convolution's width.
            const size_t group5 = kNhwc5x5GroupVectors * hn::Lanes(hn::ScalableTag<float>());
            for (size_t row = r0; row < r1;) {
                const size_t dy0 = row % q_.dstH, dy1 = std::min(q_.dstH, dy0 + (r1 - row));
                const float* src = images + row / q_.dstH * q_.srcImage;
                float* dst = outputs + row / q_.dstH * q_.dstImage;
                if (q_.sX == 1)
                    DepthwiseKxKRows<5, 1, kNhwc5x5Cols>(params, q_, src, dst, dy0, dy1, group5);
                else
                    DepthwiseKxKRows<5, 2, kNhwc5x5Cols>(params, q_, src, dst, dy0, dy1, group5);
                row += dy1 - dy0;
            }
            return;
        }
        const size_t group = kNhwcGroupVectors * hn::Lanes(hn::ScalableTag<float>());
        size_t image = SIZE_MAX;
        bool narrow = false;
        for (size_t row = r0; row < r1;) {
            const size_t dy = row % q_.dstH;
            const float* src = images + row / q_.dstH * q_.srcImage;
            float* dst = outputs + row / q_.dstH * q_.dstImage;
            if (fast3x3_ && RowInside(dy)) {
                if (row / q_.dstH != image) {
                    image = row / q_.dstH;
                    narrow = NarrowBlocks(src, dst);
                }
                const size_t rows = row + 1 < r1 && dy + 1 < q_.dstH && RowInside(dy + 1) ? 2 : 1;
                if (q_.sX == 1)
                    Band3x3<1>(params, src, dst, dy, rows, narrow);
                else
                    Band3x3<2>(params, src, dst, dy, rows, narrow);
                row += rows;
            } else if (fast3x3_ && Depthwise3x3Plan::RowTopEdge(q_, dy)) {
                Depthwise3x3EdgeRow<true, false, kNhwcCols1>(params, plan_, q_, src, dst, dy,
                                                             group);
                ++row;
            } else if (fast3x3_ && Depthwise3x3Plan::RowBottomEdge(q_, dy)) {
                Depthwise3x3EdgeRow<false, true, kNhwcCols1>(params, plan_, q_, src, dst, dy,
                                                             group);
                ++row;
            } else {
                for (size_t dx = 0; dx < q_.dstW; ++dx)
                    DepthwiseGeneralPixel(params, q_, src, dst, dy, dx);
                ++row;
            }
        }
    }
    // The most cache lines that one two-row block of kCols pixels puts in a single L1 set: its
    // source window and its outputs, for one group of channel vectors of the band walk, at
    // this image's addresses. Rows of the image a multiple of 4 KiB long put every row of the
    // window in the same sets, and a pixel stride of 1 or 2 KiB (256 or 512 channels) repeats
    // the sets every 4 or 2 pixels; the outputs add their lines to the same sets when dst sits
    // at nearly the same offset in a 4 KiB page as src (as two large allocations usually do).
    size_t BlockSetPressure(const float* src, const float* dst, size_t kCols) const {
        const size_t L = hn::Lanes(hn::ScalableTag<float>()), C = q_.srcC;
        const size_t groupBytes = std::min(C, kNhwcGroupVectors * L) * sizeof(float);
        const size_t dy = dyFirstInside_, dx = plan_.lo;
        const size_t srcRows = q_.sY + 3, srcCols = (kCols - 1) * q_.sX + 3;
        // Addresses as integers: only their placement in the cache matters here.
        const uintptr_t in =
            reinterpret_cast<uintptr_t>(src) +
            ((dy * q_.sY - q_.padY) * q_.srcW + dx * q_.sX - q_.padX) * C * sizeof(float);
        const uintptr_t out =
            reinterpret_cast<uintptr_t>(dst) + (dy * q_.dstW + dx) * C * sizeof(float);
        size_t lines[kL1Sets] = {};
        // The group's bytes of `pixels` pixels from `row` on; neighbouring pixels may share a
        // line, counted once (rows are too far apart to share any).
        const auto addRow = [&](uintptr_t row, size_t pixels) {
            uintptr_t counted = 0;  // the last line counted, 0 before the first
            for (size_t x = 0; x < pixels; ++x) {
                const uintptr_t address = row + x * C * sizeof(float);
                const uintptr_t first = address / kL1LineBytes + 1;  // +1: 0 means none
                const uintptr_t last = (address + groupBytes - 1) / kL1LineBytes + 1;
                for (uintptr_t line = std::max(first, counted + 1); line <= last; ++line)
                    ++lines[(line - 1) % kL1Sets];
                counted = std::max(counted, last);
            }
        };
        for (size_t r = 0; r < srcRows; ++r) addRow(in + r * q_.srcW * C * sizeof(float), srcCols);
        for (size_t r = 0; r < 2; ++r) addRow(out + r * q_.dstW * C * sizeof(float), kCols);
        return *std::max_element(lines, lines + kL1Sets);
    }
    // True when the two-row bands of this image take kNhwcColsNarrow pixels per block: the
    // wide block's lines overflow an L1 set and the narrow one's crowd it less. Wide blocks
    // load fewer source vectors per FMA, but a set that overflows evicts source lines between
    // their uses. Zen4, 3x3, min of 3 at six dst offsets, wide vs narrow: s1 256ch 56x56
    // 214-342 vs 254-295 us (narrow only where dst is within 3 lines of src's page offset),
    // s1 512ch 28x28 190-289 vs 151-231, s2 128ch 112x112 215-255 vs 198-215; s1 64ch 112x112
    // (183-195 vs 218-255) and 144ch 56x56 (116-129 vs 150-163) keep wide blocks. On a 12-way
    // Intel L1, deciding with 12 ways instead of 8 took s1 256ch 56x56 from 386-403 to 359-374 us.
    bool NarrowBlocks(const float* src, const float* dst) const {
        if (kNhwcCols2 <= kNhwcColsNarrow || plan_.hi < plan_.lo + kNhwcCols2 ||
            dyFirstInside_ + 1 >= q_.dstH || !RowInside(dyFirstInside_) ||
            !RowInside(dyFirstInside_ + 1))
            return false;
        const size_t wide = BlockSetPressure(src, dst, kNhwcCols2);
        return wide > L1DataWays() && BlockSetPressure(src, dst, kNhwcColsNarrow) < wide;
    }
    // Output rows [dy, dy + rows) (rows 1 or 2, every tap row inside the image) of a 3x3
    // kernel: the outer columns by the blocks' edge forms or the general kernel, the interior
    // by register blocks, one
    // channel vector at a time (its weights stay in registers along the rows);
    // `narrow`: two-row blocks of kNhwcColsNarrow pixels (NarrowBlocks).
    template <size_t kStride>
    void Band3x3(const DepthwiseParams& p, const float* src, float* dst, size_t dy, size_t rows,
                 bool narrow) const {
        Depthwise3x3BorderPixels(p, plan_, q_, src, dst, dy, rows);
        // Groups of kNhwcGroupVectors channel vectors walk along the band: the source columns
        // that neighbouring blocks share are still in L1 when the next block reads them.
        const size_t group = kNhwcGroupVectors * hn::Lanes(hn::ScalableTag<float>());
        for (size_t c0 = 0; c0 < q_.srcC; c0 += group) {
            const size_t c1 = std::min(q_.srcC, c0 + group);
            if (plan_.left || plan_.right)
                Depthwise3x3EdgeColumns<kStride>(p, plan_, q_, src, dst, dy, rows, c0, c1);
            if (rows == 2 && narrow)
                Depthwise3x3Span<2, kNhwcColsNarrow, kStride>(p, plan_, q_, src, dst, dy, c0, c1);
            else if (rows == 2)
                Depthwise3x3Span<2, kNhwcCols2, kStride>(p, plan_, q_, src, dst, dy, c0, c1);
            else
                Depthwise3x3Span<1, kNhwcCols1, kStride>(p, plan_, q_, src, dst, dy, c0, c1);
        }
    }
    // What the shared 3x3 walks (DepthwiseNhwc-inl.h) read of this layer, with activation type.
    DepthwiseParams Params(SimdConvolutionActivationType type) const {
        return {weights_.data(), bias_.data(), slope_.empty() ? nullptr : slope_.data(),
                Act{type, param0_, param1_}};
    }

private:
    Geometry q_;
    bool fast3x3_, fast5x5_;
    Depthwise3x3Plan plan_;  // 3x3 stride 1 or 2 only
    size_t dyFirstInside_;   // the first output row whose taps are inside the image (if any)
};

// ---------------------------------------------------------------------------------------------
// Depthwise, NCHW: vectors along the output columns.

// Output columns [dx, dx + lanes) of row dy of one channel; `inside`: every tap column is inside
// the image (else the lanes must be 1 and taps outside are skipped). Stride > 1 gathers.
template <size_t kKernel, class DV>
HWY_INLINE void DepthwiseNchwColumns(DV dv, const Geometry& q, const float* plane, const float* w,
                                     float bias, float slope, const Act& act, size_t dy, size_t dx,
                                     bool inside, float* out) {
    const size_t kY = kKernel ? kKernel : q.kY, kX = kKernel ? kKernel : q.kX;
    const hn::RebindToSigned<DV> di;
    const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(q.sX)));
    auto acc = hn::Set(dv, bias);
    for (size_t ky = 0; ky < kY; ++ky) {
        const ptrdiff_t sy = q.SrcY(dy, ky);
        if (sy < 0) continue;
        const float* row = plane + size_t(sy) * q.srcW;
        for (size_t kx = 0; kx < kX; ++kx) {
            const ptrdiff_t sx = q.SrcX0(dx, kx);
            if (!inside && (sx < 0 || sx >= ptrdiff_t(q.srcW))) continue;
            const auto v =
                q.sX == 1 ? hn::LoadU(dv, row + sx) : hn::GatherIndex(dv, row + sx, offsets);
            acc = hn::MulAdd(v, hn::Set(dv, w[ky * kX + kx]), acc);
        }
    }
    hn::StoreU(Activate(dv, acc, hn::Set(dv, slope), act), dv, out + dx);
}

// Even and odd phases of the zero-padded source row P (P[x] = row[x - pad] for x - pad inside
// [0, srcW), else 0): even[i] = P[2i], odd[i] = P[2i + 1] for i < n, except that phases lying
// wholly right of the image are left as they are (the caller keeps them zero). The interior
// deinterleaves two loads per vector pair, its last pair placed to end at the row's end
// (overlapping the one before: it writes the same values again); the edges go lane by lane.
inline void FillPhases2(const float* row, size_t pad, size_t srcW, size_t n, float* even,
                        float* odd) {
    const hn::CappedTag<float, 1> d1;
    auto at = [&](size_t x) HWY_ATTR {
        return x >= pad && x - pad < srcW ? hn::LoadU(d1, row + x - pad) : hn::Zero(d1);
    };
    n = std::min(n, (srcW + pad + 1) / 2);  // P[2i] and P[2i + 1] both pad beyond this
    size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    if (pad == 1) {
        // The usual padding, from image vectors at vector boundaries (no load or store splits
        // a cache line when rows are aligned): odd[i] = row[2i] are the even lanes of
        // row[2i, 2i + 2L); even[i] = row[2i - 1] their odd lanes moved up one lane, the lowest
        // one from the previous pair (zero, the pad, before the first).
        const hn::ScalableTag<float> d;
        constexpr size_t L = hn::MaxLanes(d);
        auto previous = hn::Zero(d);
        for (; i + L <= n && 2 * i + 2 * L <= srcW; i += L) {
            const auto lo = hn::LoadU(d, row + 2 * i), hi = hn::LoadU(d, row + 2 * i + L);
            const auto odds = hn::ConcatOdd(d, hi, lo);
            hn::StoreU(hn::ConcatEven(d, hi, lo), d, odd + i);
            hn::StoreU(ShiftInLanes<int(L) - 1>(d, previous, odds), d, even + i);
            previous = odds;
        }
    }
#endif
    for (; i < n && 2 * i < pad; ++i) {
        hn::StoreU(at(2 * i), d1, even + i);
        hn::StoreU(at(2 * i + 1), d1, odd + i);
    }
#if HWY_TARGET != HWY_SCALAR
    auto deinterleave = [&](auto d, size_t first) HWY_ATTR {
        const size_t L = hn::Lanes(d);
        const float* p = row + 2 * first - pad;
        const auto lo = hn::LoadU(d, p), hi = hn::LoadU(d, p + L);
        hn::StoreU(hn::ConcatEven(d, hi, lo), d, even + first);
        hn::StoreU(hn::ConcatOdd(d, hi, lo), d, odd + first);
    };
    auto vectors = [&](auto d) HWY_ATTR {
        const size_t L = hn::Lanes(d);
        for (; i + L <= n && 2 * i - pad + 2 * L <= srcW; i += L) deinterleave(d, i);
        // The pair ending at the row's end, when it starts where the lane loop has been.
        if (i < n && srcW + pad >= 2 * L) {
            const size_t last = (srcW + pad - 2 * L) / 2;
            if (2 * last >= pad && last <= i && last + L <= n) {
                deinterleave(d, last);
                i = last + L;
            }
        }
    };
    vectors(hn::ScalableTag<float>());
    if (hn::Lanes(hn::ScalableTag<float>()) > 8) vectors(hn::CappedTag<float, 8>());
    if (hn::Lanes(hn::ScalableTag<float>()) > 4) vectors(hn::CappedTag<float, 4>());
#endif
    for (; i < n; ++i) {
        hn::StoreU(at(2 * i), d1, even + i);
        hn::StoreU(at(2 * i + 1), d1, odd + i);
    }
}

// kRows output rows x one vector of output columns of a 3x3 kernel of stride kStride over the
// zero-padded phase rows of one plane (padded row y starts at pad + y * kStride * width; its
// phase f at + f * width): each source vector is loaded once and serves every output row it
// reaches. Each sum runs bias, then the taps row by row, left to right. kShifted: the taps at
// +1 (stride 1) and +2 are shifted out of the vectors at pad and pad + lanes (ShiftInLanes)
// instead of loaded unaligned; the rows must then extend a whole vector past the block.
template <size_t kRows, size_t kStride, bool kShifted, class DV>
HWY_INLINE void DepthwiseNchw3x3Block(DV dv, const float* HWY_RESTRICT pad, size_t width,
                                      const hn::Vec<DV>* w, hn::Vec<DV> bias, hn::Vec<DV> slope,
                                      const Act& act, float* HWY_RESTRICT out, size_t dstW) {
    using V = hn::Vec<DV>;
    constexpr size_t kSrcRows = (kRows - 1) * kStride + 3;
    V acc[kRows];
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) acc[r] = bias;
#pragma GCC unroll 16
    for (size_t sr = 0; sr < kSrcRows; ++sr) {
        const float* e = pad + sr * kStride * width;
        const V s0 = hn::LoadU(dv, e);
        V s1, s2;
        if constexpr (kShifted) {
            const V next = hn::LoadU(dv, e + hn::Lanes(dv));
            s1 = kStride == 1 ? ShiftInLanes<1>(dv, s0, next) : hn::LoadU(dv, e + width);
            s2 = kStride == 1 ? ShiftInLanes<2>(dv, s0, next) : ShiftInLanes<1>(dv, s0, next);
        } else {
            s1 = hn::LoadU(dv, kStride == 1 ? e + 1 : e + width);
            s2 = hn::LoadU(dv, kStride == 1 ? e + 2 : e + 1);
        }
#pragma GCC unroll 8
        for (size_t r = 0; r < kRows; ++r) {
            const size_t ky = sr - r * kStride;  // wraps when sr < r * kStride
            if (ky >= 3) continue;
            acc[r] = hn::MulAdd(s0, w[ky * 3 + 0], acc[r]);
            acc[r] = hn::MulAdd(s1, w[ky * 3 + 1], acc[r]);
            acc[r] = hn::MulAdd(s2, w[ky * 3 + 2], acc[r]);
        }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r)
        hn::StoreU(Activate(dv, acc[r], slope, act), dv, out + r * dstW);
}

// kRows output rows starting at the padded phase rows `pad` (see DepthwiseNchw3x3Block), every
// column: whole vectors at multiples of the lanes (shifted taps: the phase rows are at least
// RoundDown(dstW, lanes) + lanes wide), then the rest as a half vector when it is exactly one,
// else as a whole vector overlapping the previous (it recomputes the same bits); narrower
// vectors when the row is shorter than one.
template <size_t kRows, size_t kStride>
HWY_INLINE void DepthwiseNchw3x3Rows(const float* pad, size_t width, const float* weights,
                                     float bias, float slope, const Act& act, float* out,
                                     size_t dstW) {
    auto run = [&](auto dv, size_t dx, auto shifted) HWY_ATTR {
        using V = hn::Vec<decltype(dv)>;
        V w[9];
        for (size_t i = 0; i < 9; ++i) w[i] = hn::Set(dv, weights[i]);
        DepthwiseNchw3x3Block<kRows, kStride, decltype(shifted)::value>(
            dv, pad + dx, width, w, hn::Set(dv, bias), hn::Set(dv, slope), act, out + dx, dstW);
    };
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const std::integral_constant<bool, kCanShiftInLanes<decltype(d)>> wholeShifted;
    const std::false_type unshifted;
    if (dstW >= L) {
        size_t dx = 0;
        for (; dx + L <= dstW; dx += L) run(d, dx, wholeShifted);
#if HWY_TARGET != HWY_SCALAR
        // A half vector when the rest is exactly one (56 columns on AVX-512: 3 x 16 + 8), not
        // an overlapping whole vector that recomputes 8 columns.
        const hn::CappedTag<float, 8> d8;
        const std::integral_constant<bool, kCanShiftInLanes<decltype(d8)>> halfShifted;
        if (L > 8 && dx + 8 == dstW) return run(d8, dx, halfShifted);
#endif
        if (dx < dstW) run(d, dstW - L, unshifted);
        return;
    }
    size_t dx = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::CappedTag<float, 8> d8;
    const hn::CappedTag<float, 4> d4;
    if (L > 8)
        for (; dx + 8 <= dstW; dx += 8) run(d8, dx, unshifted);
    if (L > 4)
        for (; dx + 4 <= dstW; dx += 4) run(d4, dx, unshifted);
#endif
    const hn::CappedTag<float, 1> d1;
    for (; dx < dstW; ++dx) run(d1, dx, unshifted);
}

// kRows output rows x one vector of output columns at x0 of a 3x3 stride-2 kernel with one
// column of left padding, straight from the image rows: rows[sr] is padded row 2 dy + sr of the
// block (a zero row where outside the image). The taps are deinterleaved in registers (three
// shuffles per source row and vector) instead of through a phase buffer, so the image's loads
// mix with the FMAs. Each sum runs bias, then the taps row by row, left to right, as
// DepthwiseNchw3x3Block does (with a cheap activation the two paths give the same bits).
template <size_t kRows, EpilogueKind kKind, bool kFirst, class DV>
HWY_INLINE void DepthwiseNchw3x3s2Block(DV dv, const float* const* rows, size_t x0,
                                        const hn::Vec<DV>* w, hn::Vec<DV> bias, hn::Vec<DV> slope,
                                        const Act& act, float* HWY_RESTRICT out, size_t dstW) {
    using V = hn::Vec<DV>;
    constexpr size_t kSrcRows = 2 * kRows + 1;
    V acc[kRows];
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) acc[r] = bias;
#pragma GCC unroll 16
    for (size_t sr = 0; sr < kSrcRows; ++sr) {
        const Taps3<V> t = Taps3x3s2<kFirst>(dv, rows[sr], x0);
#pragma GCC unroll 8
        for (size_t r = 0; r < kRows; ++r) {
            const size_t ky = sr - 2 * r;  // wraps when sr < 2 r
            if (ky >= 3) continue;
            acc[r] = hn::MulAdd(t.left, w[ky * 3 + 0], acc[r]);
            acc[r] = hn::MulAdd(t.mid, w[ky * 3 + 1], acc[r]);
            acc[r] = hn::MulAdd(t.right, w[ky * 3 + 2], acc[r]);
        }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r)
        hn::StoreU(ActivateKind<kKind>(dv, acc[r], act, [&]() HWY_ATTR { return slope; }), dv,
                   out + r * dstW + x0);
}

// kRows output rows of DepthwiseNchw3x3s2Block, every column: whole vectors, then 8- and 4-lane
// ones, then single columns.
template <size_t kRows, EpilogueKind kKind>
HWY_INLINE void DepthwiseNchw3x3s2Rows(const float* const* rows, const float* weights, float bias,
                                       float slope, const Act& act, float* out, size_t dstW) {
    size_t x = 0;
    auto run = [&](auto dv) HWY_ATTR {
        using V = hn::Vec<decltype(dv)>;
        constexpr size_t L = hn::MaxLanes(decltype(dv)());
        if (x + L > dstW) return;
        V w[9];
        for (size_t i = 0; i < 9; ++i) w[i] = hn::Set(dv, weights[i]);
        const V b = hn::Set(dv, bias), s = hn::Set(dv, slope);
        if (x == 0) {
            DepthwiseNchw3x3s2Block<kRows, kKind, true>(dv, rows, x, w, b, s, act, out, dstW);
            x += L;
        }
        for (; x + L <= dstW; x += L)
            DepthwiseNchw3x3s2Block<kRows, kKind, false>(dv, rows, x, w, b, s, act, out, dstW);
    };
    constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<float>());
    run(hn::ScalableTag<float>());
    if constexpr (kLanes > 8) run(hn::CappedTag<float, 8>());
    if constexpr (kLanes > 4) run(hn::CappedTag<float, 4>());
    if constexpr (kLanes > 1) run(hn::CappedTag<float, 1>());
}

class DepthwiseNchw : public Convolution32f {
public:
    DepthwiseNchw(size_t batch, const SimdConvolutionParameters& p)
        : Convolution32f(batch, p, nullptr), q_(p) {
        fast3x3_ = q_.kY == 3 && q_.kX == 3 && q_.dY == 1 && q_.dX == 1 && q_.sY == q_.sX &&
                   (q_.sX == 1 || q_.sX == 2);
        // The 3x3 path convolves zero-padded rows of each plane, split into their sX column
        // phases (Plane3x3). Phase rows are whole vectors wide (their starts stay 64-byte
        // aligned) and reach a vector past the last whole output vector (the shifted taps read
        // that far).
        const size_t L = hn::Lanes(hn::ScalableTag<float>());
        padWidth_ = RoundUp(std::max(q_.dstW + 3, q_.dstW / L * L + L), L);
        // Stride 2 with the usual left pad reads every tap column inside the row (2 dstW <=
        // srcW): those taps come straight from the image (Plane3x3s2Direct).
        directS2_ = fast3x3_ && q_.sX == 2 && q_.padX == 1 && 2 * q_.dstW <= q_.srcW;
        if (directS2_) zeroRow_.assign(q_.srcW, 0.0f);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nchw-depthwise-" +
                (fast3x3_ ? "3x3s" + std::to_string(q_.sX) : std::string("general"));
        dxLo_ = (q_.padX + q_.sX - 1) / q_.sX;
        const ptrdiff_t last =
            ptrdiff_t(q_.srcW) - 1 + ptrdiff_t(q_.padX) - ptrdiff_t((q_.kX - 1) * q_.dX);
        dxHi_ = last < 0 ? 0 : std::min(q_.dstW, size_t(last) / q_.sX + 1);
        dxHi_ = std::max(dxHi_, std::min(dxLo_, q_.dstW));
        dxLo_ = std::min(dxLo_, dxHi_);
    }
    size_t ExternalBufferSize() const override {
        return fast3x3_ && !directS2_ ? BandFloats() + kAlignFloats : 1;
    }

protected:
    void PackWeights(const float* w) override { weights_.assign(w, w + q_.kY * q_.kX * q_.srcC); }
    void Run(const float* src, float* buf, float* dst) const override {
        RunActivated(src, buf, dst, p_.activation);
    }
    void RunAdd(const float* src, float* buf, const float* add, float* dst) const override {
        RunActivated(src, buf, dst, SimdConvolutionActivationIdentity);
        AddActivateOutput(*this, add, dst);
    }
    // The convolution with activation `type` (the context's, or the identity before a
    // residual). Threads take ranges of the channel planes of the batch.
    void RunActivated(const float* src, float* buf, float* dst,
                      SimdConvolutionActivationType type) const {
        const size_t planes = batch_ * q_.srcC;
        const size_t parts = std::min(
            planes,
            ThreadPartsFor(2.0 * double(batch_) * double(q_.dstImage) * double(q_.kY * q_.kX)));
        if (!ParallelPartsWithScratch(parts, buf, ExternalBufferSize(),
                                      [&](size_t part, size_t count, float* scratch) {
                                          const auto r = PartRange(planes, part, count);
                                          RunPlanes(src, dst, r.first, r.second, scratch, type);
                                      }))
            throw std::bad_alloc();
    }
    // Asks for the image rows of padded rows [y, y + rows) of plane `in`. With stride 2 a band
    // fills eight rows; asking for the next band's first four while this one computes: best
    // of 8 runs 398-402 -> 370-389 us at 3x3 s2 128ch 112x112 on Intel (stride 1 gained
    // nothing).
    void PrefetchSourceRows(const float* in, size_t y, size_t rows) const {
        for (size_t r = y; r < y + rows; ++r) {
            const ptrdiff_t sy = ptrdiff_t(r) - ptrdiff_t(q_.padY);
            if (sy < 0 || sy >= ptrdiff_t(q_.srcH)) continue;
            const float* row = in + size_t(sy) * q_.srcW;
            for (size_t x = 0; x < q_.srcW; x += 64 / sizeof(float)) __builtin_prefetch(row + x);
        }
    }
    // One plane of a 3x3 kernel of stride kStride: bands of four output rows (and the last one
    // or two rows), each computed from the padded phase rows it reads, kept in `band` (the
    // first rows of the band, which the previous band read too, moved there from its end; the
    // others filled from the image just before the band, so the image streams in while the
    // previous band computes). The band buffer stays in L1: a padded copy of the whole plane
    // (116 KiB at 112x112, stride 2) sent every fill store to L2 and made the fill half the
    // layer's time on Zen 5. Columns where no source pixel lands hold zeros (RunPlanes clears
    // the buffer once for all its planes) and only image columns are written here; rows
    // outside the image are zeroed whole.
    template <size_t kStride>
    void Plane3x3(const float* in, float* out, size_t c, float* band,
                  SimdConvolutionActivationType type) const {
        const size_t width = padWidth_, rowFloats = kStride * width;
        const size_t lo = std::min(q_.padX, width), hi = std::min(q_.padX + q_.srcW, width);
        // Padded row y into band row r.
        auto fill = [&](size_t y, size_t r) {
            float* to = band + r * rowFloats;
            const ptrdiff_t sy = ptrdiff_t(y) - ptrdiff_t(q_.padY);
            if (sy < 0 || sy >= ptrdiff_t(q_.srcH)) return ZeroRun(rowFloats, to);
            const float* row = in + size_t(sy) * q_.srcW;
            if (kStride == 1)
                CopyRun(row + (lo - q_.padX), hi - lo, to + lo);
            else
                FillPhases2(row, q_.padX, q_.srcW, width, to, to + width);
        };
        const Act act{type, param0_, param1_};
        const float* w = weights_.data() + c * 9;
        const float bias = bias_[c], slope = slope_.empty() ? 0.0f : slope_[c];
        constexpr size_t kKeepRows = 3 - kStride;
        size_t dy = 0, rows = 0;  // the band computed last: output rows [dy - rows, dy)
        while (dy < q_.dstH) {
            constexpr size_t kPlaneRows = kStride == 1 ? kBandRowsS1 : kBandRows;
            const size_t next = q_.dstH - dy >= kPlaneRows ? kPlaneRows : q_.dstH - dy >= 2 ? 2 : 1;
            const size_t srcRows = (next - 1) * kStride + 3;
            size_t r = 0;
            if (rows > 0) {
                // The last kKeepRows rows of the previous band are this band's first.
                CopyRun(band + rows * kStride * rowFloats, kKeepRows * rowFloats, band);
                r = kKeepRows;
            }
            for (; r < srcRows; ++r) fill(dy * kStride + r, r);
            if (kStride == 2) PrefetchSourceRows(in, (dy + next) * kStride + kKeepRows, 4);
            if (next == kPlaneRows)
                DepthwiseNchw3x3Rows<kPlaneRows, kStride>(band, width, w, bias, slope, act,
                                                          out + dy * q_.dstW, q_.dstW);
            else if (next == 2)
                DepthwiseNchw3x3Rows<2, kStride>(band, width, w, bias, slope, act,
                                                 out + dy * q_.dstW, q_.dstW);
            else
                DepthwiseNchw3x3Rows<1, kStride>(band, width, w, bias, slope, act,
                                                 out + dy * q_.dstW, q_.dstW);
            dy += next;
            rows = next;
        }
    }
    // One plane of a 3x3 stride-2 kernel with one column of left padding (directS2_): bands of
    // kBandRows output rows (the last rows one by one), read from the image rows themselves.
    // (h) 3x3 s2 128ch 112x112 on Zen 5: 211-217 us through the phase band (half of it
    // filling the band), 117-120 us direct; 2, 3, 6 or 8 rows per band were slower than 4.
    void Plane3x3s2Direct(const float* in, float* out, size_t c,
                          SimdConvolutionActivationType type) const {
        const Act act{type, param0_, param1_};
        const float* w = weights_.data() + c * 9;
        const float bias = bias_[c], slope = slope_.empty() ? 0.0f : slope_[c];
        // Cheap activations are applied in the blocks' stores, written out for the activation
        // (a switch there cost ~15% of the layer); the others in a pass over each band, which
        // also adds the bias.
        const bool cheap = ActivationIsCheap(act.type);
        WithEpilogueKind(
            cheap ? act.type : SimdConvolutionActivationIdentity, [&](auto kind) HWY_ATTR {
                constexpr EpilogueKind kKind = decltype(kind)::value;
                const float* rows[2 * kBandRows + 1];
                for (size_t dy = 0; dy < q_.dstH;) {
                    const size_t next = q_.dstH - dy >= kBandRows ? kBandRows : 1;
                    for (size_t sr = 0; sr < 2 * next + 1; ++sr) {
                        const ptrdiff_t sy = ptrdiff_t(2 * dy + sr) - ptrdiff_t(q_.padY);
                        rows[sr] = sy >= 0 && sy < ptrdiff_t(q_.srcH) ? in + size_t(sy) * q_.srcW
                                                                      : zeroRow_.data();
                    }
                    float* to = out + dy * q_.dstW;
                    const float blockBias = cheap ? bias : 0.0f;
                    if (next == kBandRows)
                        DepthwiseNchw3x3s2Rows<kBandRows, kKind>(rows, w, blockBias, slope, act, to,
                                                                 q_.dstW);
                    else
                        DepthwiseNchw3x3s2Rows<1, kKind>(rows, w, blockBias, slope, act, to,
                                                         q_.dstW);
                    if (!cheap) BiasActivatePlane(to, next * q_.dstW, bias, slope, act);
                    dy += next;
                }
            });
    }
    // Planes [p0, p1) of the batch (plane p: image p / srcC, channel p % srcC); `scratch`:
    // ExternalBufferSize() floats.
    void RunPlanes(const float* src, float* dst, size_t p0, size_t p1, float* scratch,
                   SimdConvolutionActivationType type) const {
        if (directS2_) {
            const size_t plane = q_.srcH * q_.srcW;
            for (size_t bc = p0; bc < p1; ++bc)
                Plane3x3s2Direct(src + bc * plane, dst + bc * q_.pixels, bc % q_.srcC, type);
            return;
        }
        if (fast3x3_) {
            const size_t plane = q_.srcH * q_.srcW;
            // The phase rows start on 64-byte lines (caller scratch may be less aligned).
            const size_t misalign = reinterpret_cast<uintptr_t>(scratch) % (kAlignFloats * 4);
            if (misalign % sizeof(float) == 0 && misalign != 0)
                scratch += kAlignFloats - misalign / sizeof(float);
            ZeroRun(BandFloats(), scratch);
            for (size_t bc = p0; bc < p1; ++bc) {
                const size_t c = bc % q_.srcC;
                if (q_.sX == 1)
                    Plane3x3<1>(src + bc * plane, dst + bc * q_.pixels, c, scratch, type);
                else
                    Plane3x3<2>(src + bc * plane, dst + bc * q_.pixels, c, scratch, type);
            }
            return;
        }
        const hn::ScalableTag<float> d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d), K = q_.kY * q_.kX;
        const Act act{type, param0_, param1_};
        const size_t plane = q_.srcH * q_.srcW;
        for (size_t bc = p0; bc < p1; ++bc) {
            const size_t b = bc / q_.srcC, c = bc % q_.srcC;
            {
                const float* in = src + (b * q_.srcC + c) * plane;
                const float* w = weights_.data() + c * K;
                const float bias = bias_[c], slope = slope_.empty() ? 0.0f : slope_[c];
                for (size_t dy = 0; dy < q_.dstH; ++dy) {
                    float* out = dst + ((b * q_.dstC + c) * q_.dstH + dy) * q_.dstW;
                    size_t dx = 0;
                    for (; dx < dxLo_; ++dx)
                        DepthwiseNchwColumns<0>(d1, q_, in, w, bias, slope, act, dy, dx, false,
                                                out);
                    for (; dx + L <= dxHi_; dx += L)
                        DepthwiseNchwColumns<0>(d, q_, in, w, bias, slope, act, dy, dx, true, out);
                    for (; dx < dxHi_; ++dx)
                        DepthwiseNchwColumns<0>(d1, q_, in, w, bias, slope, act, dy, dx, true, out);
                    for (; dx < q_.dstW; ++dx)
                        DepthwiseNchwColumns<0>(d1, q_, in, w, bias, slope, act, dy, dx, false,
                                                out);
                }
            }
        }
    }

    static constexpr size_t kAlignFloats = 64 / sizeof(float);
    // Output rows per band of Plane3x3 at stride 2 and of Plane3x3s2Direct.
    static constexpr size_t kBandRows = 4;
    // Output rows per band of the stride-1 phase band (Plane3x3): eight on AVX-512, whose 32
    // registers hold them (3x3 s1 256ch 56x56 on Zen 5: 146-147 -> 135-142 us), four elsewhere
    // (AVX2 the same, SSE4 3-5% slower with eight).
    static constexpr size_t kBandRowsS1 = HWY_TARGET <= HWY_AVX3 ? 8 : 4;
    // The band buffer of Plane3x3: the padded rows of one band, sX phase rows each.
    size_t BandFloats() const {
        return ((std::max(kBandRows, kBandRowsS1) - 1) * q_.sY + 3) * q_.sX * padWidth_;
    }

    Geometry q_;
    bool fast3x3_, directS2_;
    size_t dxLo_, dxHi_, padWidth_;
    std::vector<float> zeroRow_;  // the source row above or below the image (directS2_)
};

}  // namespace conv32f

Convolution32f* DepthwiseNhwcCreate(size_t batch, const SimdConvolutionParameters& p) {
    return new conv32f::DepthwiseNhwc(batch, p);
}

Convolution32f* DepthwiseNchwCreate(size_t batch, const SimdConvolutionParameters& p) {
    return new conv32f::DepthwiseNchw(batch, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
