// The dispatched pooling kernels (declared in PoolKernels.h): the layout drivers PoolNchw and
// PoolNhwc choose, per call, among the algorithms of the -inl.h headers of this folder.
// - NCHW (PoolNchw): global pools fold whole planes (NchwGlobal-inl.h); 2- or 3-wide stride-2
//   rows fold in registers (NchwStride2-inl.h); every other row is pooled in the separable form
//   (RowSeparable-inl.h) or, without scratch, window by window (RowDirect-inl.h). 3D max pooling
//   folds the channel planes of a window like its rows.
// - NHWC (PoolNhwc): global pools fold groups of channel vectors across all pixels
//   (NhwcGlobal-inl.h); other pools run pixel by pixel along channels, with sliding 3-wide
//   stride-2 rows (NhwcWindows-inl.h). 3D max pooling folds the spatial window of every input
//   channel, then pools that row of channels like an NCHW row.
// - Windows entirely outside the input (SUPPLEMENT.md §5): both drivers pool only the planes, rows
//   (and NHWC pixels) whose windows hold input elements (NonEmptyWindows) and fill the others
//   with the fold's initial value (EmptyWindows-inl.h); empty windows along the NCHW row or the
//   3D channel axis fold nothing where they are read (padded row, clipped columns).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pooling/PoolKernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pooling/EmptyWindows-inl.h"
#include "pooling/NchwGlobal-inl.h"
#include "pooling/NchwStride2-inl.h"
#include "pooling/NhwcGlobal-inl.h"
#include "pooling/NhwcWindows-inl.h"
#include "pooling/PoolKernels.h"
#include "pooling/PoolOps-inl.h"
#include "pooling/PoolShape.h"
#include "pooling/RowDirect-inl.h"
#include "pooling/RowSeparable-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// `scratch`: null, or dstW floats (reciprocal clipped window widths) followed by the padded
// row.
template <class Op, class T>
HWY_INLINE void PoolNchw(const Op& op, const T* src, const PoolShape& s, T* dst, void* scratch) {
    const size_t plane = s.srcH * s.srcW;
    const Axis ax{s.srcW, s.kernelX, s.strideX, s.padX, s.dstW};
    float* columns = static_cast<float*>(scratch);
    typename Op::C* tmp = nullptr;
    if (scratch) {
        for (size_t dx = 0; dx < s.dstW; ++dx) {
            const PoolRange xr = ClipWindow(dx, s.strideX, s.padX, s.kernelX, s.srcW);
            // An empty window has no excludePad average (rejected) and needs no scale.
            columns[dx] = xr.end > xr.begin ? 1.0f / float(xr.end - xr.begin) : 0.0f;
        }
        tmp = reinterpret_cast<typename Op::C*>(columns + s.dstW);
    }
    if (!s.channel3d && s.dstH == 1 && s.dstW == 1) {
        const PoolRange yr = ClipWindow(0, s.strideY, s.padY, s.kernelY, s.srcH);
        const PoolRange xr = ClipWindow(0, s.strideX, s.padX, s.kernelX, s.srcW);
        if (yr.begin == 0 && yr.end == s.srcH && xr.begin == 0 && xr.end == s.srcW) {
            GlobalNchw(op, src, s.srcC, plane, op.Area(s.srcH, s.srcW), dst);
            return;
        }
    }
    // Planes and rows of empty windows are filled at the end: the stride-2 rows may write past
    // their row into outputs written later.
    const PoolRange rows = NonEmptyWindows(s.srcH, s.kernelY, s.strideY, s.padY, s.dstH);
    const PoolRange planes = s.channel3d
                                 ? NonEmptyWindows(s.srcC, s.kernelC, s.strideC, s.padC, s.dstC)
                                 : PoolRange{0, s.dstC};
#ifdef SIMD_POOL_STRIDE2_NCHW
    if constexpr (std::is_same<typename Op::C, float>::value ||
                  !std::is_void<typename Stride2PairsOf<Op>::type>::value) {
        if (scratch && Stride2Fits(s)) {
            if (ax.kernel == 3)
                Stride2Planes<3, 1>(op, src, s, ax, columns, dst);
            else if (ax.pad == 1)
                Stride2Planes<2, 1>(op, src, s, ax, columns, dst);
            else
                Stride2Planes<2, 0>(op, src, s, ax, columns, dst);
            FillEmptyOutside(op, s.dstC, planes, s.dstH, rows, s.dstW, dst);
            return;
        }
    }
#endif
    for (size_t dc = planes.begin; dc < planes.end; ++dc) {
        const PoolRange cr = s.channel3d ? ClipWindow(dc, s.strideC, s.padC, s.kernelC, s.srcC)
                                         : PoolRange{dc, dc + 1};
        for (size_t dy = rows.begin; dy < rows.end; ++dy) {
            const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
            const Rows<T> in{src + cr.begin * plane + yr.begin * s.srcW, cr.end - cr.begin, plane,
                             yr.end - yr.begin, s.srcW};
            PoolRow(op, in, ax, dst + (dc * s.dstH + dy) * s.dstW, tmp, columns);
        }
    }
    FillEmptyOutside(op, s.dstC, planes, s.dstH, rows, s.dstW, dst);
}

// 3D pooling (Max32f only) uses `scratch`: srcC floats for the spatial maxima of one pixel,
// pooled across channels like an NCHW row, then the padded row of that channel axis (if the
// entry point sized it).
template <class Op, class T>
HWY_INLINE void PoolNhwc(const Op& op, const T* src, const PoolShape& s, T* dst, void* scratch) {
    const Axis channels{s.srcC, s.kernelC, s.strideC, s.padC, s.dstC};
    T* temp = static_cast<T*>(scratch);
    typename Op::C* tmp = nullptr;
    if (s.channel3d && PoolRowScratch(s.srcC, s.kernelC, s.strideC, s.padC, s.dstC) != 0)
        tmp = reinterpret_cast<typename Op::C*>(temp + s.srcC);
    // Interior columns of 3-wide stride-2 windows slide (NhwcRow3x2); needs C >= the lanes.
    size_t slideBegin = 0, slideEnd = 0;
    if constexpr (sizeof(typename Op::C) == sizeof(T)) {
        if (!s.channel3d && s.kernelX == 3 && s.strideX == 2 &&
            s.srcC >= hn::Lanes(hn::ScalableTag<T>()) && s.srcW + s.padX >= 3) {
            slideBegin = (s.padX + 1) / 2;
            slideEnd = (s.srcW + s.padX - 3) / 2 + 1;
            if (slideEnd > s.dstW) slideEnd = s.dstW;
            if (slideEnd < slideBegin) slideEnd = slideBegin;
        }
    }
    if (!s.channel3d && s.dstH == 1 && s.dstW == 1) {
        const PoolRange yr = ClipWindow(0, s.strideY, s.padY, s.kernelY, s.srcH);
        const PoolRange xr = ClipWindow(0, s.strideX, s.padX, s.kernelX, s.srcW);
        if (yr.begin == 0 && yr.end == s.srcH && xr.begin == 0 && xr.end == s.srcW) {
            GlobalNhwc(op, src, s.srcC, s.srcH * s.srcW, op.Area(s.srcH, s.srcW), dst);
            return;
        }
    }
    // Only the pixels whose windows hold input elements are pooled; FillEmptyOutside writes the
    // others. In 3D the channel windows of these pixels may still be empty: PoolRow folds them
    // into the initial value.
    const PoolRange rows = NonEmptyWindows(s.srcH, s.kernelY, s.strideY, s.padY, s.dstH);
    const PoolRange cols = NonEmptyWindows(s.srcW, s.kernelX, s.strideX, s.padX, s.dstW);
    FillEmptyOutside(op, s.dstH, rows, s.dstW, cols, s.dstC, dst);
    if constexpr (sizeof(typename Op::C) == sizeof(T)) {
        // Groups of kGroup output rows whose windows are all 3 rows high (3x3 stride 2 inside
        // the image) share their input rows (NhwcRowGroup3x2); other rows slide alone.
        constexpr size_t kGroup = 2;
        const bool grouped = s.kernelY == 3 && s.strideY == 2;
        const size_t rowStep = s.srcW * s.srcC, dstRowStep = s.dstW * s.dstC;
        for (size_t dy = rows.begin; dy < rows.end && slideEnd > slideBegin;) {
            const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
            const size_t height = yr.end - yr.begin;
            T* row = dst + dy * dstRowStep;
            if (grouped && height == 3 && dy + kGroup <= rows.end) {
                const PoolRange lastYr =
                    ClipWindow(dy + kGroup - 1, s.strideY, s.padY, s.kernelY, s.srcH);
                if (lastYr.end - lastYr.begin == 3) {
                    NhwcRowGroup3x2<kGroup>(op, src + yr.begin * rowStep, s.srcC, rowStep, s.padX,
                                            slideBegin, slideEnd, 1.0f / op.Area(3, 3), row,
                                            dstRowStep);
                    dy += kGroup;
                    continue;
                }
            }
            if (height == 3)
                NhwcRow3x2<3>(op, src, s.srcC, s.srcW, s.padX, yr, slideBegin, slideEnd,
                              op.Area(height, 3), row);
            else
                NhwcRow3x2<0>(op, src, s.srcC, s.srcW, s.padX, yr, slideBegin, slideEnd,
                              op.Area(height, 3), row);
            ++dy;
        }
    }
    for (size_t dy = rows.begin; dy < rows.end; ++dy) {
        const PoolRange yr = ClipWindow(dy, s.strideY, s.padY, s.kernelY, s.srcH);
        for (size_t dx = cols.begin; dx < cols.end; ++dx) {
            if (dx == slideBegin && slideEnd > slideBegin) {
                dx = slideEnd - 1;
                continue;
            }
            const PoolRange xr = ClipWindow(dx, s.strideX, s.padX, s.kernelX, s.srcW);
            const float area = op.Area(yr.end - yr.begin, xr.end - xr.begin);
            T* out = dst + (dy * s.dstW + dx) * s.dstC;
            if (!s.channel3d) {
                // Unclipped 3x3 and 2x2 windows (the common pools) get unrolled taps.
                const size_t height = yr.end - yr.begin, width = xr.end - xr.begin;
                if (height == 3 && width == 3)
                    NhwcPixel<3, 3>(op, src, s.srcC, s.srcW, yr, xr, area, out);
                else if (height == 2 && width == 2)
                    NhwcPixel<2, 2>(op, src, s.srcC, s.srcW, yr, xr, area, out);
                else
                    NhwcPixel<0, 0>(op, src, s.srcC, s.srcW, yr, xr, area, out);
            } else {
                NhwcPixel<0, 0>(op, src, s.srcC, s.srcW, yr, xr, area, temp);
                PoolRow(op, Rows<T>{temp, 1, 0, 1, s.srcC}, channels, out, tmp, nullptr);
            }
        }
    }
}

template <class Op, class T>
HWY_INLINE void Pool(const Op& op, const T* src, const PoolShape& s, T* dst, void* scratch) {
    if (s.nhwc)
        PoolNhwc(op, src, s, dst, scratch);
    else
        PoolNchw(op, src, s, dst, scratch);
}

void PoolingAverageKernel(const float* src, const PoolShape& s, float* dst, void* scratch) {
    // kernelY*kernelX in double: the size_t product may wrap (each factor is below 2^62).
    Pool(AverageF32Op{s.excludePad, float(double(s.kernelY) * double(s.kernelX))}, src, s, dst,
         scratch);
}

void PoolingMax32fKernel(const float* src, const PoolShape& s, float* dst, void* scratch) {
    Pool(MaxF32Op{}, src, s, dst, scratch);
}

// NHWC takes the int16 keys on every path; NCHW keeps FP32 compute lanes, which its stride-2
// column pairs, plane-pair global pooling and strided gathers are built on.
void PoolingMax16bKernel(const uint16_t* src, const PoolShape& s, uint16_t* dst, void* scratch) {
    if (s.nhwc)
        PoolNhwc(MaxBf16KeyOp{}, src, s, dst, scratch);
    else
        PoolNchw(MaxBf16Op{}, src, s, dst, scratch);
}

void PoolingMax8uKernel(const uint8_t* src, const PoolShape& s, uint8_t* dst, void* scratch) {
    Pool(MaxU8Op{}, src, s, dst, scratch);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
