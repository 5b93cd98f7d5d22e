// SimdSynetConvertFilter (SUPPLEMENT.md §7.2): re-layout of convolution filters between Oiyx,
// Yxio and Oyxi4o/8o/16o.
//
// With m = i*K + k the Oiyx filter is an O x (I*K) matrix; Yxio and the blocked layouts store
// the transposed matrix with its rows m in (k, i) order, i.e. at row k*I + i. So every pair
// is either a transpose with a permuted row address (TransposeRows callbacks) or, between Yxio
// and the blocked layouts, the pixel-interleaved <-> blocked copy with "pixels" k*I + i of O
// channels.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conversion/ConvertFilter.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <cstring>

#include "hwy/highway.h"
#include "conversion/Layout-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Helpers have internal linkage: other families may name theirs alike.
namespace {

// Row k*I + i of a (k, i)-major layout for the (i, k)-major index m = i*K + k.
HWY_INLINE size_t KernelMajorRow(size_t m, size_t I, size_t K) {
    return (m % K) * I + m / K;
}

}  // namespace

// `srcBlock`/`dstBlock` are 1 for Oiyx/Yxio (told apart by the yxio flags) and N for the
// blocked layouts; the entry point has checked that the pair is supported and not identical.
void ConvertFilter(size_t O, size_t I, size_t K, const float* src, size_t srcBlock, bool srcYxio,
                   float* dst, size_t dstBlock, bool dstYxio) {
    const size_t IK = I * K;
    if (srcBlock == 1 && dstBlock == 1) {
        if (srcYxio) {  // Yxio -> Oiyx
            TransposeRows(
                IK, O, [=](size_t m) { return src + KernelMajorRow(m, I, K) * O; },
                [=](size_t o) { return dst + o * IK; });
        } else {  // Oiyx -> Yxio
            TransposeRows(
                O, IK, [=](size_t o) { return src + o * IK; },
                [=](size_t m) { return dst + KernelMajorRow(m, I, K) * O; });
        }
        return;
    }
    if (srcYxio) {
        InterleavedToBlocked(src, O, IK, dstBlock, dst);
        return;
    }
    if (dstYxio) {
        BlockedToInterleaved(src, O, IK, srcBlock, dst);
        return;
    }
    const size_t N = srcBlock > dstBlock ? srcBlock : dstBlock;
    for (size_t first = 0; first < O; first += N) {
        const size_t valid = O - first < N ? O - first : N;
        if (dstBlock > 1) {  // Oiyx -> OyxiNo: rows o of the block, zeros beyond O
            const float* rows = src + first * IK;
            float* block = dst + first * IK;
            TransposeRows(
                N, IK,
                [=](size_t j) -> const float* { return j < valid ? rows + j * IK : nullptr; },
                [=](size_t m) { return block + KernelMajorRow(m, I, K) * N; });
        } else {  // OyxiNo -> Oiyx: padded lanes are read but not stored
            const float* block = src + first * IK;
            float* rows = dst + first * IK;
            TransposeRows(
                IK, N, [=](size_t m) { return block + KernelMajorRow(m, I, K) * N; },
                [=](size_t j) -> float* { return j < valid ? rows + j * IK : nullptr; });
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
HWY_EXPORT(ConvertFilter);
}  // namespace simd

SIMD_API void SimdSynetConvertFilter(size_t output, size_t input, size_t kernel, const float* src,
                                     SimdTensorFormatType srcFormat, float* dst,
                                     SimdTensorFormatType dstFormat) {
    simd::ClearLastError();
    const size_t srcBlock = simd::FilterBlock(srcFormat), dstBlock = simd::FilterBlock(dstFormat);
    // Supported: identical layouts, and any pair with at least one of Oiyx/Yxio on either side.
    if (srcBlock == 0 || dstBlock == 0 ||
        (srcFormat != dstFormat && srcBlock > 1 && dstBlock > 1)) {
        simd::SetLastErrorF(
            "SimdSynetConvertFilter: conversion from format %d to format %d is "
            "not supported",
            static_cast<int>(srcFormat), static_cast<int>(dstFormat));
        return;
    }
    if (output == 0 || input == 0 || kernel == 0) return;
    const size_t block = srcBlock > dstBlock ? srcBlock : dstBlock;
    size_t aligned, rows, total;
    SIMD_FAIL_IF(!simd::CheckedAlign(output, block, &aligned) ||
                     !simd::CheckedMul(input, kernel, &rows) ||
                     !simd::CheckedMul(aligned, rows, &total) ||
                     !simd::FitsInMemory(total, 1, sizeof(float)),
                 "SimdSynetConvertFilter: output * input * kernel is too large for memory");
    SIMD_FAIL_IF(!src || !dst, "SimdSynetConvertFilter: src and dst must not be NULL");
    if (srcFormat == dstFormat) {
        std::memcpy(dst, src, total * sizeof(float));
        return;
    }
    SIMD_DISPATCH(simd::ConvertFilter)
    (output, input, kernel, src, srcBlock, srcFormat == SimdTensorFormatYxio, dst, dstBlock,
     dstFormat == SimdTensorFormatYxio);
}
#endif  // HWY_ONCE
