// The 21 Winograd transforms SimdWinogradKernel<KxK>Block<BxB>{SetFilter,SetInput,SetOutput}
// (SUPPLEMENT.md §12): filter, input-tile and output-tile transforms of F(m, r).
//
// Vectorisation: SetFilter runs across filters; with trans = 1 (channel-last data) SetInput and
// SetOutput run across channels of one tile; with trans = 0 (channel-first) they run across
// consecutive tiles of one tile row, whose columns are gathered by deinterleaving loads (the
// tiles of a row start bX columns apart) and scattered back by interleaving stores. Tiles (or
// tile groups) touching padding or the image edge go through a zero-padded staging copy; the
// interior path has no data-dependent branches.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "winograd/Winograd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "winograd/Transform-inl.h"

#include <cstring>

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace winograd {

template <class AY, class AX>
void SetInput(const float* src, size_t channels, size_t height, size_t width, size_t padY,
              size_t padX, size_t tileH, size_t tileW, float* dst, size_t dstStride, bool trans) {
    const InputShape s{channels, height, width, ptrdiff_t(padY), ptrdiff_t(padX),
                       tileH,    tileW,  dst,   dstStride};
    if (trans)
        SetInputNhwc<AY, AX>(src, s);
    else
        SetInputNchw<AY, AX>(src, s);
}

template <class AY, class AX>
void SetOutput(const float* src, size_t srcStride, float* dst, size_t channels, size_t height,
               size_t width, size_t tileH, size_t tileW, bool trans) {
    const OutputShape s{src, srcStride, channels, height, width, tileH, tileW};
    if (trans)
        SetOutputNhwc<AY, AX>(s, dst);
    else
        SetOutputNchw<AY, AX>(s, dst);
}

}  // namespace winograd

// Per-variant instances exported to the dispatch tables.
#define SIMD_WINOGRAD_KERNELS(NAME, AY, AX)                                                       \
    void Winograd##NAME##SetFilter(const float* src, size_t size, float* dst, bool trans) {       \
        winograd::SetFilter<winograd::AY, winograd::AX>(src, size, dst, trans);                   \
    }                                                                                             \
    void Winograd##NAME##SetInput(const float* src, size_t channels, size_t height, size_t width, \
                                  size_t padY, size_t padX, size_t tileH, size_t tileW,           \
                                  float* dst, size_t dstStride, bool trans) {                     \
        winograd::SetInput<winograd::AY, winograd::AX>(src, channels, height, width, padY, padX,  \
                                                       tileH, tileW, dst, dstStride, trans);      \
    }                                                                                             \
    void Winograd##NAME##SetOutput(const float* src, size_t srcStride, float* dst,                \
                                   size_t channels, size_t height, size_t width, size_t tileH,    \
                                   size_t tileW, bool trans) {                                    \
        winograd::SetOutput<winograd::AY, winograd::AX>(src, srcStride, dst, channels, height,    \
                                                        width, tileH, tileW, trans);              \
    }

SIMD_WINOGRAD_KERNELS(Kernel1x3Block1x4, AxisNone, AxisF43)
SIMD_WINOGRAD_KERNELS(Kernel1x5Block1x4, AxisNone, AxisF45)
SIMD_WINOGRAD_KERNELS(Kernel2x2Block2x2, AxisF22, AxisF22)
SIMD_WINOGRAD_KERNELS(Kernel2x2Block4x4, AxisF42, AxisF42)
SIMD_WINOGRAD_KERNELS(Kernel3x3Block2x2, AxisF23, AxisF23)
SIMD_WINOGRAD_KERNELS(Kernel3x3Block3x3, AxisF33, AxisF33)
SIMD_WINOGRAD_KERNELS(Kernel3x3Block4x4, AxisF43, AxisF43)
#undef SIMD_WINOGRAD_KERNELS

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstdint>

#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
namespace {

// Sizes of one variant for the argument checks of the entry points.
struct Geometry {
    size_t blockY, blockX, kernelY, kernelX;
    size_t Count() const { return (blockY + kernelY - 1) * (blockX + kernelX - 1); }
};

// ceil(a/b) without overflow.
inline size_t DivUp(size_t a, size_t b) {
    return a / b + (a % b != 0);
}

// count - 1 planes `stride` apart plus one plane of `used` floats fit in size_t bytes.
inline bool PlanesFit(size_t count, size_t stride, size_t used) {
    size_t planes, total;
    return CheckedMul(count - 1, stride, &planes) && CheckedAdd(planes, used, &total) &&
           FitsInMemory(total, 1, sizeof(float));
}

// Checks of SetFilter; false (message recorded) when the call must be rejected.
bool CheckFilter(const char* name, const Geometry& g, const float* src, size_t size,
                 const float* dst, SimdBool trans) {
    if (!src || !dst) return SetLastErrorF("%s: src and dst must not be NULL", name);
    if (trans != SimdFalse && trans != SimdTrue)
        return SetLastErrorF("%s: trans must be SimdFalse or SimdTrue", name);
    const size_t taps = g.kernelY * g.kernelX;
    if (!FitsInMemory(size, g.Count() > taps ? g.Count() : taps, sizeof(float)))
        return SetLastErrorF("%s: size %zu makes the filter arrays overflow size_t", name, size);
    return true;
}

// Checks of SetInput; on success *tileH, *tileW hold the tile grid (0 tiles: nothing to do).
bool CheckInput(const char* name, const Geometry& g, const float* src, size_t channels,
                size_t height, size_t width, size_t padY, size_t padX, size_t padH, size_t padW,
                const float* dst, size_t dstStride, SimdBool trans, size_t* tileH, size_t* tileW) {
    if (!src || !dst) return SetLastErrorF("%s: src and dst must not be NULL", name);
    if (trans != SimdFalse && trans != SimdTrue)
        return SetLastErrorF("%s: trans must be SimdFalse or SimdTrue", name);
    size_t padded[2];
    if (!CheckedAdd(padY, height, &padded[0]) || !CheckedAdd(padded[0], padH, &padded[0]) ||
        !CheckedAdd(padX, width, &padded[1]) || !CheckedAdd(padded[1], padW, &padded[1]) ||
        padded[0] > size_t(PTRDIFF_MAX) / 2 || padded[1] > size_t(PTRDIFF_MAX) / 2 ||
        !FitsInMemory(height, width, sizeof(float)) ||
        !FitsInMemory(channels, height * width, sizeof(float)))
        return SetLastErrorF("%s: image or padding sizes overflow", name);
    // An image (with padding) smaller than the kernel has no output tile.
    const size_t outH = padded[0] >= g.kernelY ? padded[0] - g.kernelY + 1 : 0;
    const size_t outW = padded[1] >= g.kernelX ? padded[1] - g.kernelX + 1 : 0;
    *tileH = DivUp(outH, g.blockY);
    *tileW = DivUp(outW, g.blockX);
    size_t tiles, used;
    if (!CheckedMul(*tileH, *tileW, &tiles) || !CheckedMul(tiles, channels, &used))
        return SetLastErrorF("%s: the number of tiles overflows size_t", name);
    if (used == 0) return true;
    if (dstStride < used)
        return SetLastErrorF("%s: dstStride %zu is below srcChannels*tiles = %zu", name, dstStride,
                             used);
    if (!PlanesFit(g.Count(), dstStride, used))
        return SetLastErrorF("%s: dst size (%zu planes of stride %zu) overflows size_t", name,
                             g.Count(), dstStride);
    return true;
}

// Checks of SetOutput; on success *tileH, *tileW hold the tile grid.
bool CheckOutput(const char* name, const Geometry& g, const float* src, size_t srcStride,
                 const float* dst, size_t channels, size_t height, size_t width, SimdBool trans,
                 size_t* tileH, size_t* tileW) {
    if (!src || !dst) return SetLastErrorF("%s: src and dst must not be NULL", name);
    if (trans != SimdFalse && trans != SimdTrue)
        return SetLastErrorF("%s: trans must be SimdFalse or SimdTrue", name);
    if (!FitsInMemory(height, width, sizeof(float)) ||
        !FitsInMemory(channels, height * width, sizeof(float)))
        return SetLastErrorF("%s: image size overflows size_t", name);
    *tileH = DivUp(height, g.blockY);
    *tileW = DivUp(width, g.blockX);
    size_t tiles, used;
    if (!CheckedMul(*tileH, *tileW, &tiles) || !CheckedMul(tiles, channels, &used))
        return SetLastErrorF("%s: the number of tiles overflows size_t", name);
    if (srcStride < used)
        return SetLastErrorF("%s: srcStride %zu is below dstChannels*tiles = %zu", name, srcStride,
                             used);
    if (!PlanesFit(g.Count(), srcStride, used))
        return SetLastErrorF("%s: src size (%zu planes of stride %zu) overflows size_t", name,
                             g.Count(), srcStride);
    return true;
}

}  // namespace
}  // namespace simd

#define SIMD_WINOGRAD_ENTRY_POINTS(NAME, BY, BX, KY, KX)                                           \
    namespace simd {                                                                               \
    HWY_EXPORT(Winograd##NAME##SetFilter);                                                         \
    HWY_EXPORT(Winograd##NAME##SetInput);                                                          \
    HWY_EXPORT(Winograd##NAME##SetOutput);                                                         \
    }                                                                                              \
    SIMD_API void SimdWinograd##NAME##SetFilter(const float* src, size_t size, float* dst,         \
                                                SimdBool trans) {                                  \
        simd::ClearLastError();                                                                    \
        if (size == 0) return;                                                                     \
        if (!simd::CheckFilter("SimdWinograd" #NAME "SetFilter", {BY, BX, KY, KX}, src, size, dst, \
                               trans))                                                             \
            return;                                                                                \
        SIMD_DISPATCH(simd::Winograd##NAME##SetFilter)(src, size, dst, trans == SimdTrue);         \
    }                                                                                              \
    SIMD_API void SimdWinograd##NAME##SetInput(                                                    \
        const float* src, size_t srcChannels, size_t srcHeight, size_t srcWidth, size_t padY,      \
        size_t padX, size_t padH, size_t padW, float* dst, size_t dstStride, SimdBool trans) {     \
        simd::ClearLastError();                                                                    \
        if (srcChannels == 0 || srcHeight == 0 || srcWidth == 0) return;                           \
        size_t tileH = 0, tileW = 0;                                                               \
        if (!simd::CheckInput("SimdWinograd" #NAME "SetInput", {BY, BX, KY, KX}, src, srcChannels, \
                              srcHeight, srcWidth, padY, padX, padH, padW, dst, dstStride, trans,  \
                              &tileH, &tileW))                                                     \
            return;                                                                                \
        if (tileH == 0 || tileW == 0) return;                                                      \
        SIMD_DISPATCH(simd::Winograd##NAME##SetInput)                                              \
        (src, srcChannels, srcHeight, srcWidth, padY, padX, tileH, tileW, dst, dstStride,          \
         trans == SimdTrue);                                                                       \
    }                                                                                              \
    SIMD_API void SimdWinograd##NAME##SetOutput(const float* src, size_t srcStride, float* dst,    \
                                                size_t dstChannels, size_t dstHeight,              \
                                                size_t dstWidth, SimdBool trans) {                 \
        simd::ClearLastError();                                                                    \
        if (dstChannels == 0 || dstHeight == 0 || dstWidth == 0) return;                           \
        size_t tileH = 0, tileW = 0;                                                               \
        if (!simd::CheckOutput("SimdWinograd" #NAME "SetOutput", {BY, BX, KY, KX}, src, srcStride, \
                               dst, dstChannels, dstHeight, dstWidth, trans, &tileH, &tileW))      \
            return;                                                                                \
        SIMD_DISPATCH(simd::Winograd##NAME##SetOutput)                                             \
        (src, srcStride, dst, dstChannels, dstHeight, dstWidth, tileH, tileW, trans == SimdTrue);  \
    }

SIMD_WINOGRAD_ENTRY_POINTS(Kernel1x3Block1x4, 1, 4, 1, 3)
SIMD_WINOGRAD_ENTRY_POINTS(Kernel1x5Block1x4, 1, 4, 1, 5)
SIMD_WINOGRAD_ENTRY_POINTS(Kernel2x2Block2x2, 2, 2, 2, 2)
SIMD_WINOGRAD_ENTRY_POINTS(Kernel2x2Block4x4, 4, 4, 2, 2)
SIMD_WINOGRAD_ENTRY_POINTS(Kernel3x3Block2x2, 2, 2, 3, 3)
SIMD_WINOGRAD_ENTRY_POINTS(Kernel3x3Block3x3, 3, 3, 3, 3)
SIMD_WINOGRAD_ENTRY_POINTS(Kernel3x3Block4x4, 4, 4, 3, 3)
#undef SIMD_WINOGRAD_ENTRY_POINTS
#endif  // HWY_ONCE
