// SimdSynetConvertImage (SUPPLEMENT.md §7.1): re-layout of image tensors between Nchw, Nhwc and
// Nchw4c/8c/16c.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conversion/ConvertImage.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <cstring>

#include "hwy/highway.h"
#include "conversion/Layout-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Helpers have internal linkage: other families may name theirs alike.
namespace {

// One image, NCHW (C planes of S) to NHWC (S pixels of C).
HWY_INLINE void NchwToNhwc(const float* src, size_t C, size_t S, float* dst) {
    if (C == 1 || S == 1) {
        std::memcpy(dst, src, C * S * sizeof(float));  // the two layouts coincide
    } else if (C <= 3) {
        InterleavePlanes(src, C, S, dst);
    } else {
        TransposeStrided(src, S, dst, C, C, S);
    }
}

// One image, NHWC to NCHW.
HWY_INLINE void NhwcToNchw(const float* src, size_t C, size_t S, float* dst) {
    if (C == 1 || S == 1) {
        std::memcpy(dst, src, C * S * sizeof(float));
    } else if (C <= 3) {
        DeinterleavePixels(src, C, S, dst);
    } else {
        TransposeStrided(src, C, dst, S, S, C);
    }
}

// One image, NCHW to blocks of N channels: each block is the transpose of N planes (missing
// planes of the last block read as zeros, which fills the padded lanes).
HWY_INLINE void NchwToBlocked(const float* src, size_t C, size_t S, size_t N, float* dst) {
    for (size_t first = 0; first < C; first += N) {
        const float* planes = src + first * S;
        float* block = dst + first * S;
        const size_t valid = C - first < N ? C - first : N;
        if (valid == N) {
            TransposeStrided(planes, S, block, N, N, S);
            continue;
        }
        TransposeRows(
            N, S,
            [planes, S, valid](size_t i) -> const float* {
                return i < valid ? planes + i * S : nullptr;
            },
            [block, N](size_t s) { return block + s * N; });
    }
}

// One image, blocks of N channels to NCHW: padded lanes are read but their rows not stored.
HWY_INLINE void BlockedToNchw(const float* src, size_t C, size_t S, size_t N, float* dst) {
    for (size_t first = 0; first < C; first += N) {
        const float* block = src + first * S;
        float* planes = dst + first * S;
        const size_t valid = C - first < N ? C - first : N;
        if (valid == N) {
            TransposeStrided(block, N, planes, S, S, N);
            continue;
        }
        TransposeRows(
            S, N, [block, N](size_t s) { return block + s * N; },
            [planes, S, valid](size_t i) -> float* {
                return i < valid ? planes + i * S : nullptr;
            });
    }
}

}  // namespace

// `srcBlock`/`dstBlock` are 1 for Nchw/Nhwc (told apart by the nhwc flags) and N for the
// blocked layouts; the entry point has checked that the pair is supported and not identical.
void ConvertImage(size_t batch, size_t C, size_t S, const float* src, size_t srcBlock, bool srcNhwc,
                  float* dst, size_t dstBlock, bool dstNhwc) {
    const size_t srcImage = (C + srcBlock - 1) / srcBlock * srcBlock * S;
    const size_t dstImage = (C + dstBlock - 1) / dstBlock * dstBlock * S;
    for (size_t b = 0; b < batch; ++b, src += srcImage, dst += dstImage) {
        if (srcBlock == 1 && dstBlock == 1) {
            if (srcNhwc)
                NhwcToNchw(src, C, S, dst);
            else
                NchwToNhwc(src, C, S, dst);
        } else if (srcBlock == 1) {
            if (srcNhwc)
                InterleavedToBlocked(src, C, S, dstBlock, dst);
            else
                NchwToBlocked(src, C, S, dstBlock, dst);
        } else {
            if (dstNhwc)
                BlockedToInterleaved(src, C, S, srcBlock, dst);
            else
                BlockedToNchw(src, C, S, srcBlock, dst);
        }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(ConvertImage);
}  // namespace simd

SIMD_API void SimdSynetConvertImage(size_t batch, size_t channels, size_t spatial, const float* src,
                                    SimdTensorFormatType srcFormat, float* dst,
                                    SimdTensorFormatType dstFormat) {
    simd::ClearLastError();
    const size_t srcBlock = simd::ImageBlock(srcFormat), dstBlock = simd::ImageBlock(dstFormat);
    // Supported: identical layouts, and any pair with at least one of Nchw/Nhwc on either side.
    if (srcBlock == 0 || dstBlock == 0 ||
        (srcFormat != dstFormat && srcBlock > 1 && dstBlock > 1)) {
        simd::SetLastErrorF(
            "SimdSynetConvertImage: conversion from format %d to format %d is "
            "not supported",
            static_cast<int>(srcFormat), static_cast<int>(dstFormat));
        return;
    }
    if (batch == 0 || channels == 0 || spatial == 0) return;
    const size_t block = srcBlock > dstBlock ? srcBlock : dstBlock;
    size_t aligned, images, total;
    SIMD_FAIL_IF(!simd::CheckedAlign(channels, block, &aligned) ||
                     !simd::CheckedMul(batch, aligned, &images) ||
                     !simd::CheckedMul(images, spatial, &total) ||
                     !simd::FitsInMemory(total, 1, sizeof(float)),
                 "SimdSynetConvertImage: batch * channels * spatial is too large for memory");
    SIMD_FAIL_IF(!src || !dst, "SimdSynetConvertImage: src and dst must not be NULL");
    if (srcFormat == dstFormat) {
        // A plain copy of every image including the padded lanes of blocked layouts.
        std::memcpy(dst, src, total * sizeof(float));
        return;
    }
    SIMD_DISPATCH(simd::ConvertImage)
    (batch, channels, spatial, src, srcBlock, srcFormat == SimdTensorFormatNhwc, dst, dstBlock,
     dstFormat == SimdTensorFormatNhwc);
}
#endif  // HWY_ONCE
