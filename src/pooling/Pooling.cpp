// Pooling entry points (SUPPLEMENT.md §5): SimdSynetPoolingAverage /
// SimdSynetPoolingForwardAverage, SimdSynetPoolingForwardMax, SimdSynetPoolingMax32f (2D and 3D),
// SimdSynetPoolingMax16b and SimdSynetPoolingMax8u, in NCHW and NHWC: argument checks, the split
// over the thread budget (SplitPool), then per part its scratch memory and one dispatch to the
// kernels of PoolKernels.cpp.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pooling/Pooling.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "pooling/PoolKernels.h"

#if HWY_ONCE
#include <algorithm>
#include <memory>
#include <new>

#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"
#include "core/ParallelElements.h"

namespace simd {
HWY_EXPORT(PoolingAverageKernel);
HWY_EXPORT(PoolingMax32fKernel);
HWY_EXPORT(PoolingMax16bKernel);
HWY_EXPORT(PoolingMax8uKernel);

namespace {

// Coordinates of one axis stay far from overflow: (dst-1)*stride + kernel and pad below 2^62.
bool AxisFits(size_t dst, size_t stride, size_t kernel, size_t pad) {
    const size_t kLimit = size_t(1) << 62;
    size_t reach;
    return CheckedMul(dst - 1, stride, &reach) && CheckedAdd(reach, kernel, &reach) &&
           reach < kLimit && pad < kLimit;
}

// Some window of the axis holds no input element (SUPPLEMENT.md §5 window rule; src >= 1).
bool AxisHasEmptyWindow(size_t src, size_t dst, size_t stride, size_t kernel, size_t pad) {
    const PoolRange windows = NonEmptyWindows(src, kernel, stride, pad, dst);
    return windows.begin > 0 || windows.end < dst;
}

// Checks shared by every pooling entry point. Returns false after recording an error; sets
// *empty when there is nothing to compute (a zero extent). Windows entirely outside the input
// (along Y, X or, in 3D mode, C) are computed (SUPPLEMENT.md §5), except for excludePad averages,
// whose area would be 0 (a precondition, §15): those calls are rejected.
bool ValidatePool(const char* function, const void* src, const void* dst, const PoolShape& s,
                  size_t elementSize, bool* empty) {
    if (s.kernelY == 0 || s.kernelX == 0 || s.strideY == 0 || s.strideX == 0 || s.kernelC == 0 ||
        s.strideC == 0)
        return SetLastErrorF("%s: kernel and stride sizes must be at least 1", function);
    *empty = s.srcC == 0 || s.srcH == 0 || s.srcW == 0 || s.dstC == 0 || s.dstH == 0 || s.dstW == 0;
    if (*empty) return true;
    if (!src || !dst) return SetLastErrorF("%s: src and dst must not be NULL", function);
    size_t srcPlanes, dstPlanes;
    if (!CheckedMul(s.srcC, s.srcH, &srcPlanes) || !FitsInMemory(srcPlanes, s.srcW, elementSize) ||
        !CheckedMul(s.dstC, s.dstH, &dstPlanes) || !FitsInMemory(dstPlanes, s.dstW, elementSize) ||
        !AxisFits(s.dstH, s.strideY, s.kernelY, s.padY) ||
        !AxisFits(s.dstW, s.strideX, s.kernelX, s.padX) ||
        !AxisFits(s.dstC, s.strideC, s.kernelC, s.padC))
        return SetLastErrorF("%s: tensor or window sizes are too large", function);
    // Averages are 2D: their channel axis has no windows.
    if (s.excludePad && (AxisHasEmptyWindow(s.srcH, s.dstH, s.strideY, s.kernelY, s.padY) ||
                         AxisHasEmptyWindow(s.srcW, s.dstW, s.strideX, s.kernelX, s.padX)))
        return SetLastErrorF(
            "%s: excludePad average over a window entirely outside the input (area 0; pad >= "
            "kernel or dst size too large)",
            function);
    return true;
}

bool ParseFormat(const char* function, SimdTensorFormatType format, bool* nhwc) {
    if (format != SimdTensorFormatNchw && format != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: format %d is not Nchw or Nhwc", function,
                             static_cast<int>(format));
    *nhwc = format == SimdTensorFormatNhwc;
    return true;
}

PoolShape Shape2D(size_t srcC, size_t srcH, size_t srcW, size_t kernelY, size_t kernelX,
                  size_t strideY, size_t strideX, size_t padY, size_t padX, size_t dstH,
                  size_t dstW, bool nhwc) {
    return PoolShape{srcC, srcH, srcW, 1,    kernelY, kernelX, 1,    strideY, strideX,
                     0,    padY, padX, srcC, dstH,    dstW,    nhwc, false,   false};
}

// Scratch memory of one call (see PoolNchw / PoolNhwc): on the stack up to 16 KiB, else on the
// heap. Without it NCHW kernels read windows directly; 3D NHWC pooling cannot run.
class Scratch {
public:
    // `computeBytes`: size of the kernels' compute lane (4 for FP32/BF16, 1 for UINT8).
    Scratch(const PoolShape& s, size_t computeBytes) {
        size_t bytes = 0;
        if (!s.nhwc) {
            const size_t span = PoolRowScratch(s.srcW, s.kernelX, s.strideX, s.padX, s.dstW);
            if (span) bytes = s.dstW * sizeof(float) + span * computeBytes;
        } else if (s.channel3d) {
            bytes = s.srcC * sizeof(float) +
                    PoolRowScratch(s.srcC, s.kernelC, s.strideC, s.padC, s.dstC) * computeBytes;
        }
        if (bytes == 0) return;
        if (bytes <= sizeof(local_)) {
            data_ = local_;
        } else {
            heap_.reset(new (std::nothrow) float[(bytes + sizeof(float) - 1) / sizeof(float)]);
            data_ = heap_.get();
        }
    }
    void* data() const { return data_; }

private:
    alignas(64) float local_[4096];
    std::unique_ptr<float[]> heap_;
    void* data_ = nullptr;
};

// Runs `pool(shape, srcOffset, dstOffset)` (offsets in elements) over parts of the call that
// together make the whole: NCHW splits channels, NHWC 2D windows split output rows (a part's
// shape starts its source at the first row its windows reach, its top padding what remains of
// padY, so every window clips to the same input rows as in the whole call); global NHWC pools, 3D
// pools and shapes with windows entirely outside the input run whole. Each output is computed
// by the same kernel code whichever part holds it, so results are bit-identical for any budget.
// Worth it past ElementParts' size: max pooling 64x111x111 3x3 s2 in squeezenet took 0.142 ms
// at a budget of 2 before it split.
template <class F>
void SplitPool(const PoolShape& s, F&& pool) {
    size_t parts = ElementParts(s.srcC * s.srcH * s.srcW);
    if (parts > 1 && !s.channel3d && !s.nhwc && s.srcC > 1) {
        parts = std::min(parts, s.srcC);
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(s.srcC, part, count);
            PoolShape t = s;
            t.srcC = t.dstC = r.second - r.first;
            if (t.srcC > 0) pool(t, r.first * s.srcH * s.srcW, r.first * s.dstH * s.dstW);
        });
        return;
    }
    const PoolRange rows = NonEmptyWindows(s.srcH, s.kernelY, s.strideY, s.padY, s.dstH);
    if (parts > 1 && !s.channel3d && s.nhwc && s.dstH > 1 && rows.begin == 0 &&
        rows.end == s.dstH) {
        parts = std::min(parts, s.dstH);
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(s.dstH, part, count);
            if (r.first >= r.second) return;
            PoolShape t = s;
            t.dstH = r.second - r.first;
            // Row r.first's window starts at top - padY, inside the input (no empty windows).
            const size_t top = r.first * s.strideY;
            const size_t srcRow0 = top > s.padY ? top - s.padY : 0;
            t.padY = top > s.padY ? 0 : s.padY - top;
            t.srcH = s.srcH - srcRow0;
            pool(t, srcRow0 * s.srcW * s.srcC, r.first * s.dstW * s.dstC);
        });
        return;
    }
    pool(s, size_t(0), size_t(0));
}

void PoolingAverage(const char* function, const float* src, size_t srcC, size_t srcH, size_t srcW,
                    size_t kernelY, size_t kernelX, size_t strideY, size_t strideX, size_t padY,
                    size_t padX, float* dst, size_t dstH, size_t dstW, SimdBool excludePad,
                    SimdTensorFormatType format) {
    ClearLastError();
    bool nhwc = false, empty = false;
    if (!ParseFormat(function, format, &nhwc)) return;
    if (excludePad != SimdFalse && excludePad != SimdTrue) {
        SetLastErrorF("%s: excludePad %d is not SimdFalse or SimdTrue", function,
                      static_cast<int>(excludePad));
        return;
    }
    PoolShape s =
        Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX, padY, padX, dstH, dstW, nhwc);
    s.excludePad = excludePad == SimdTrue;
    if (!ValidatePool(function, src, dst, s, sizeof(float), &empty) || empty) return;
    SplitPool(s, [&](const PoolShape& t, size_t srcAt, size_t dstAt) {
        const Scratch scratch(t, sizeof(float));
        SIMD_DISPATCH(PoolingAverageKernel)(src + srcAt, t, dst + dstAt, scratch.data());
    });
}

void PoolingMax32fRun(const float* src, const PoolShape& s, float* dst) {
    // 3D pools run whole (SplitPool), so this check sees the only channel buffer.
    if (s.nhwc && s.channel3d) {
        const Scratch scratch(s, sizeof(float));
        if (!scratch.data()) {
            SetLastError("SimdSynetPoolingMax32f: out of memory for the channel buffer");
            return;
        }
        SIMD_DISPATCH(PoolingMax32fKernel)(src, s, dst, scratch.data());
        return;
    }
    SplitPool(s, [&](const PoolShape& t, size_t srcAt, size_t dstAt) {
        const Scratch scratch(t, sizeof(float));
        SIMD_DISPATCH(PoolingMax32fKernel)(src + srcAt, t, dst + dstAt, scratch.data());
    });
}

}  // namespace
}  // namespace simd

SIMD_API void SimdSynetPoolingForwardAverage(const float* src, size_t srcC, size_t srcH,
                                             size_t srcW, size_t kernelY, size_t kernelX,
                                             size_t strideY, size_t strideX, size_t padY,
                                             size_t padX, float* dst, size_t dstH, size_t dstW,
                                             SimdBool excludePad, SimdTensorFormatType format) {
    simd::PoolingAverage("SimdSynetPoolingForwardAverage", src, srcC, srcH, srcW, kernelY, kernelX,
                         strideY, strideX, padY, padX, dst, dstH, dstW, excludePad, format);
}

SIMD_API void SimdSynetPoolingAverage(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                      size_t kernelY, size_t kernelX, size_t strideY,
                                      size_t strideX, size_t padY, size_t padX, float* dst,
                                      size_t dstH, size_t dstW, SimdBool excludePad,
                                      SimdTensorFormatType format) {
    simd::PoolingAverage("SimdSynetPoolingAverage", src, srcC, srcH, srcW, kernelY, kernelX,
                         strideY, strideX, padY, padX, dst, dstH, dstW, excludePad, format);
}

SIMD_API void SimdSynetPoolingForwardMax(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                         size_t kernelY, size_t kernelX, size_t strideY,
                                         size_t strideX, size_t padY, size_t padX, float* dst,
                                         size_t dstH, size_t dstW, SimdBool trans) {
    simd::ClearLastError();
    SIMD_FAIL_IF(trans != SimdFalse && trans != SimdTrue,
                 "SimdSynetPoolingForwardMax: trans is not SimdFalse or SimdTrue");
    const simd::PoolShape s = simd::Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                            padY, padX, dstH, dstW, trans == SimdTrue);
    bool empty = false;
    if (!simd::ValidatePool("SimdSynetPoolingForwardMax", src, dst, s, sizeof(float), &empty) ||
        empty)
        return;
    simd::PoolingMax32fRun(src, s, dst);
}

SIMD_API void SimdSynetPoolingMax32f(const float* src, size_t srcC, size_t srcH, size_t srcW,
                                     size_t kernelC, size_t kernelY, size_t kernelX, size_t strideC,
                                     size_t strideY, size_t strideX, size_t padC, size_t padY,
                                     size_t padX, float* dst, size_t dstC, size_t dstH, size_t dstW,
                                     SimdTensorFormatType format) {
    simd::ClearLastError();
    bool nhwc = false, empty = false;
    if (!simd::ParseFormat("SimdSynetPoolingMax32f", format, &nhwc)) return;
    const bool channel3d = !(kernelC == 1 && strideC == 1 && padC == 0 && srcC == dstC);
    const simd::PoolShape s{srcC,    srcH,    srcW,    kernelC, kernelY,   kernelX,
                            strideC, strideY, strideX, padC,    padY,      padX,
                            dstC,    dstH,    dstW,    nhwc,    channel3d, false};
    if (!simd::ValidatePool("SimdSynetPoolingMax32f", src, dst, s, sizeof(float), &empty) || empty)
        return;
    simd::PoolingMax32fRun(src, s, dst);
}

SIMD_API void SimdSynetPoolingMax16b(const uint16_t* src, size_t srcC, size_t srcH, size_t srcW,
                                     size_t kernelY, size_t kernelX, size_t strideY, size_t strideX,
                                     size_t padY, size_t padX, uint16_t* dst, size_t dstH,
                                     size_t dstW, SimdTensorFormatType format) {
    simd::ClearLastError();
    bool nhwc = false, empty = false;
    if (!simd::ParseFormat("SimdSynetPoolingMax16b", format, &nhwc)) return;
    const simd::PoolShape s = simd::Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                            padY, padX, dstH, dstW, nhwc);
    if (!simd::ValidatePool("SimdSynetPoolingMax16b", src, dst, s, sizeof(uint16_t), &empty) ||
        empty)
        return;
    simd::SplitPool(s, [&](const simd::PoolShape& t, size_t srcAt, size_t dstAt) {
        const simd::Scratch scratch(t, sizeof(float));
        SIMD_DISPATCH(simd::PoolingMax16bKernel)(src + srcAt, t, dst + dstAt, scratch.data());
    });
}

SIMD_API void SimdSynetPoolingMax8u(const uint8_t* src, size_t srcC, size_t srcH, size_t srcW,
                                    size_t kernelY, size_t kernelX, size_t strideY, size_t strideX,
                                    size_t padY, size_t padX, uint8_t* dst, size_t dstH,
                                    size_t dstW, SimdTensorFormatType format) {
    simd::ClearLastError();
    bool nhwc = false, empty = false;
    if (!simd::ParseFormat("SimdSynetPoolingMax8u", format, &nhwc)) return;
    const simd::PoolShape s = simd::Shape2D(srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                            padY, padX, dstH, dstW, nhwc);
    if (!simd::ValidatePool("SimdSynetPoolingMax8u", src, dst, s, sizeof(uint8_t), &empty) || empty)
        return;
    simd::SplitPool(s, [&](const simd::PoolShape& t, size_t srcAt, size_t dstAt) {
        const simd::Scratch scratch(t, sizeof(uint8_t));
        SIMD_DISPATCH(simd::PoolingMax8uKernel)(src + srcAt, t, dst + dstAt, scratch.data());
    });
}
#endif  // HWY_ONCE
