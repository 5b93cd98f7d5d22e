// NCHW <-> NHWC transposes of one image for the FP32 algorithms that compute NCHW layers in
// NHWC (convolution nchw-via-nhwc direct and Winograd, deconvolution), split over the threads.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_IMAGE_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_IMAGE_TRANSPOSE_INL_H_
#undef SIMD_SYNET_CONVOLUTION_IMAGE_TRANSPOSE_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_IMAGE_TRANSPOSE_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include "conversion/Layout-inl.h"
#include "core/ThreadPool.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {

// Moving a float costs about as much as this many FLOP when deciding whether to split.
constexpr double kTransposeFlopPerFloat = 128.0;

// dst[p*C + c] = src[c*pixels + p]. Two or three planes (first layers) are too few rows for
// the transpose tiles and are interleaved instead; more are split by channel ranges.
HWY_INLINE void NchwToNhwcImage(const float* src, size_t C, size_t pixels, float* dst) {
    if (C == 2 || C == 3) {
        InterleavePlanes(src, C, pixels, dst);
        return;
    }
    const size_t parts = ThreadPartsFor(double(C * pixels) * kTransposeFlopPerFloat);
    ParallelParts(std::min(parts, C), [&](size_t part, size_t count) {
        const auto c = PartRange(C, part, count);
        TransposeStrided(src + c.first * pixels, pixels, dst + c.first, C, c.second - c.first,
                         pixels);
    });
}

// dst[c*pixels + p] = src[p*C + c], split by pixel ranges.
HWY_INLINE void NhwcToNchwImage(const float* src, size_t C, size_t pixels, float* dst) {
    const size_t parts = ThreadPartsFor(double(C * pixels) * kTransposeFlopPerFloat);
    ParallelParts(std::min(parts, pixels), [&](size_t part, size_t count) {
        const auto r = PartRange(pixels, part, count);
        TransposeStrided(src + r.first * C, C, dst + r.first, pixels, r.second - r.first, C);
    });
}

// Each of `batch` NCHW images (srcC x srcPixels in, dstC x dstPixels out) computed by
// run(nhwcSrc, nhwcDst, nhwcAdd) between transposes through srcT and dstT (one image each).
// add: NULL, or an NCHW residual of dst's shape, passed to run transposed into addT (one image);
// nhwcAdd is NULL without one.
template <class Run>
HWY_INLINE void RunNchwViaNhwc(const float* src, size_t srcC, size_t srcPixels, float* dst,
                               size_t dstC, size_t dstPixels, size_t batch, float* srcT,
                               float* dstT, const Run& run, const float* add = nullptr,
                               float* addT = nullptr) {
    const size_t dstImage = dstC * dstPixels;
    for (size_t b = 0; b < batch; ++b, src += srcC * srcPixels, dst += dstImage) {
        NchwToNhwcImage(src, srcC, srcPixels, srcT);
        if (add) NchwToNhwcImage(add + b * dstImage, dstC, dstPixels, addT);
        run(srcT, dstT, add ? addT : nullptr);
        NhwcToNchwImage(dstT, dstC, dstPixels, dst);
    }
}

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
