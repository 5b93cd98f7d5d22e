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

using DF = hn::ScalableTag<float>;

// Widest group of tiles of the trans = 0 kernels.
constexpr size_t kMaxLanes = hn::MaxLanes(DF());

// Compile-time sizes of a variant (members of a type rather than constexpr locals: GCC 12
// fails on constexpr locals used as array bounds inside generic lambdas).
template <class AY, class AX>
struct Sizes {
    static constexpr int kBY = AY::kBlock, kBX = AX::kBlock;
    static constexpr int kTY = AY::kTile, kTX = AX::kTile;
    static constexpr int kTaps = AY::kKernel * AX::kKernel;
    static constexpr int kCount = kTY * kTX, kOut = kBY * kBX;
    // Columns read by a trans = 0 input group of n tiles: (n + 1)*bX from its first column.
    static constexpr size_t kInStage = size_t(kTY) * (kMaxLanes + 1) * kBX;
    static constexpr size_t kOutStage = kMaxLanes * kBX;
};

// ---------------------------------------------------------------------------------------------
// SetFilter: U = G·g·Gᵀ for `size` filters, vectorised across filters.

template <class AY, class AX>
void SetFilter(const float* src, size_t size, float* dst, bool trans) {
    using S = Sizes<AY, AX>;
    if (trans) {
        // Tap k of filter f at src[k*size + f]: one contiguous vector per tap.
        ForGroups(DF(), size, [&](auto d, size_t f) {
            hn::Vec<decltype(d)> in[S::kTaps], out[S::kCount];
            for (int k = 0; k < S::kTaps; ++k) in[k] = hn::LoadU(d, src + k * size + f);
            Transform<typename AY::G, typename AX::G>(d, in, out);
            for (int k = 0; k < S::kCount; ++k) hn::StoreU(out[k], d, dst + k * size + f);
        });
    } else {
        // Tap k of filter f at src[f*S::kTaps + k]: lanes S::kTaps floats apart.
        ForGroups(DF(), size, [&](auto d, size_t f) {
            using D = decltype(d);
            const hn::RebindToSigned<D> di;
            const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, S::kTaps));
            const float* base = src + f * S::kTaps;
            hn::Vec<D> in[S::kTaps], out[S::kCount];
            for (int k = 0; k < S::kTaps; ++k) in[k] = hn::GatherIndex(d, base + k, index);
            Transform<typename AY::G, typename AX::G>(d, in, out);
            for (int k = 0; k < S::kCount; ++k) hn::StoreU(out[k], d, dst + k * size + f);
        });
    }
}

// ---------------------------------------------------------------------------------------------
// SetInput

// Geometry shared by the input kernels (positions are signed: tiles start in the padding).
struct InputShape {
    size_t channels, height, width;
    ptrdiff_t padY, padX;
    size_t tileH, tileW;
    float* dst;
    size_t dstStride;
};

// trans = 1: src is [H][W][C]; dst[k*dstStride + t*C + c]. Vectors hold channels.
template <class AY, class AX>
void SetInputNhwc(const float* src, const InputShape& s) {
    using S = Sizes<AY, AX>;
    const size_t C = s.channels;
    const ptrdiff_t H = ptrdiff_t(s.height), W = ptrdiff_t(s.width);
    for (size_t ty = 0; ty < s.tileH; ++ty) {
        const ptrdiff_t y0 = ptrdiff_t(ty) * AY::kBlock - s.padY;
        for (size_t tx = 0; tx < s.tileW; ++tx) {
            const ptrdiff_t x0 = ptrdiff_t(tx) * AX::kBlock - s.padX;
            float* out = s.dst + (ty * s.tileW + tx) * C;
            if (y0 >= 0 && x0 >= 0 && y0 + S::kTY <= H && x0 + S::kTX <= W) {
                const float* base = src + (size_t(y0) * size_t(W) + size_t(x0)) * C;
                const size_t rowStride = size_t(W) * C;
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> in[S::kCount], v[S::kCount];
                    for (int r = 0; r < S::kTY; ++r)
                        for (int q = 0; q < S::kTX; ++q)
                            in[r * S::kTX + q] = hn::LoadU(d, base + r * rowStride + q * C + c);
                    Transform<typename AY::Bt, typename AX::Bt>(d, in, v);
                    for (int k = 0; k < S::kCount; ++k)
                        hn::StoreU(v[k], d, out + k * s.dstStride + c);
                });
            } else {
                // Border tile: pixels outside the image read as zero (a zero-padded staging
                // tile held in vectors); the offsets of the real pixels are computed once.
                ptrdiff_t offset[S::kCount];
                for (int r = 0; r < S::kTY; ++r)
                    for (int q = 0; q < S::kTX; ++q) {
                        const ptrdiff_t y = y0 + r, x = x0 + q;
                        offset[r * S::kTX + q] =
                            (y >= 0 && y < H && x >= 0 && x < W) ? (y * W + x) * ptrdiff_t(C) : -1;
                    }
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> in[S::kCount], v[S::kCount];
                    for (int k = 0; k < S::kCount; ++k)
                        in[k] = offset[k] < 0 ? hn::Zero(d) : hn::LoadU(d, src + offset[k] + c);
                    Transform<typename AY::Bt, typename AX::Bt>(d, in, v);
                    for (int k = 0; k < S::kCount; ++k)
                        hn::StoreU(v[k], d, out + k * s.dstStride + c);
                });
            }
        }
    }
}

// trans = 0: src is [C][H][W]; dst[k*dstStride + c*T + t]. Vectors hold consecutive tiles of one
// tile row. Lane l of stream q of row r is pixel (y0 + r, x0 + l*bX + q): one deinterleaving
// load at x0 gives q < bX, one at x0 + bX gives bX <= q < tX (tX - bX = kX - 1 <= bX).
template <class AY, class AX>
void SetInputNchw(const float* src, const InputShape& s) {
    using S = Sizes<AY, AX>;
    static_assert(S::kTX - S::kBX <= S::kBX, "two deinterleaving loads cover a tile row");
    const ptrdiff_t H = ptrdiff_t(s.height), W = ptrdiff_t(s.width);
    const size_t T = s.tileH * s.tileW;
    for (size_t c = 0; c < s.channels; ++c) {
        const float* plane = src + c * s.height * s.width;
        float* out = s.dst + c * T;
        for (size_t ty = 0; ty < s.tileH; ++ty) {
            const ptrdiff_t y0 = ptrdiff_t(ty) * AY::kBlock - s.padY;
            const bool rowsInside = y0 >= 0 && y0 + S::kTY <= H;
            ForGroups(DF(), s.tileW, [&](auto d, size_t tx) {
                using V = hn::Vec<decltype(d)>;
                const size_t n = hn::Lanes(d);
                const ptrdiff_t x0 = ptrdiff_t(tx) * S::kBX - s.padX;
                const ptrdiff_t span = ptrdiff_t((n + 1) * S::kBX);
                const float* base;
                size_t rowStride;
                HWY_ALIGN float stage[S::kInStage];
                if (rowsInside && x0 >= 0 && x0 + span <= W) {
                    base = plane + size_t(y0) * size_t(W) + size_t(x0);
                    rowStride = size_t(W);
                } else {
                    // Zero-padded copy of the tY rows x span columns the group reads.
                    std::memset(stage, 0, sizeof(float) * S::kTY * size_t(span));
                    const ptrdiff_t xBegin = x0 < 0 ? 0 : x0;
                    const ptrdiff_t xEnd = x0 + span < W ? x0 + span : W;
                    for (int r = 0; r < S::kTY; ++r) {
                        const ptrdiff_t y = y0 + r;
                        if (y < 0 || y >= H || xBegin >= xEnd) continue;
                        std::memcpy(stage + r * span + (xBegin - x0), plane + y * W + xBegin,
                                    sizeof(float) * size_t(xEnd - xBegin));
                    }
                    base = stage;
                    rowStride = size_t(span);
                }
                V in[S::kCount], v[S::kCount];
                for (int r = 0; r < S::kTY; ++r) {
                    V lo[S::kBX], hi[S::kBX];
                    LoadStrided<S::kBX>(d, base + r * rowStride, lo);
                    LoadStrided<S::kBX>(d, base + r * rowStride + S::kBX, hi);
                    for (int q = 0; q < S::kTX; ++q)
                        in[r * S::kTX + q] = q < S::kBX ? lo[q] : hi[q - S::kBX];
                }
                Transform<typename AY::Bt, typename AX::Bt>(d, in, v);
                float* o = out + ty * s.tileW + tx;
                for (int k = 0; k < S::kCount; ++k) hn::StoreU(v[k], d, o + k * s.dstStride);
            });
        }
    }
}

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

// ---------------------------------------------------------------------------------------------
// SetOutput

struct OutputShape {
    const float* src;
    size_t srcStride;
    size_t channels, height, width, tileH, tileW;
};

// trans = 1: src[k*srcStride + t*C + c]; dst is [H][W][C]. Vectors hold channels.
template <class AY, class AX>
void SetOutputNhwc(const OutputShape& s, float* dst) {
    using S = Sizes<AY, AX>;
    const size_t C = s.channels, W = s.width;
    for (size_t ty = 0; ty < s.tileH; ++ty) {
        const size_t y0 = ty * S::kBY;
        const size_t rows = s.height - y0 < size_t(S::kBY) ? s.height - y0 : size_t(S::kBY);
        for (size_t tx = 0; tx < s.tileW; ++tx) {
            const size_t x0 = tx * S::kBX;
            const size_t cols = W - x0 < size_t(S::kBX) ? W - x0 : size_t(S::kBX);
            const float* in = s.src + (ty * s.tileW + tx) * C;
            float* out = dst + (y0 * W + x0) * C;
            if (rows == size_t(S::kBY) && cols == size_t(S::kBX)) {
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> m[S::kCount], y[S::kOut];
                    for (int k = 0; k < S::kCount; ++k)
                        m[k] = hn::LoadU(d, in + k * s.srcStride + c);
                    Transform<typename AY::At, typename AX::At>(d, m, y);
                    for (int p = 0; p < S::kBY; ++p)
                        for (int q = 0; q < S::kBX; ++q)
                            hn::StoreU(y[p * S::kBX + q], d, out + (p * W + q) * C + c);
                });
            } else {
                // Tile overhanging the image: only the pixels inside are written.
                ForGroups(DF(), C, [&](auto d, size_t c) {
                    hn::Vec<decltype(d)> m[S::kCount], y[S::kOut];
                    for (int k = 0; k < S::kCount; ++k)
                        m[k] = hn::LoadU(d, in + k * s.srcStride + c);
                    Transform<typename AY::At, typename AX::At>(d, m, y);
                    for (size_t p = 0; p < rows; ++p)
                        for (size_t q = 0; q < cols; ++q)
                            hn::StoreU(y[p * S::kBX + q], d, out + (p * W + q) * C + c);
                });
            }
        }
    }
}

// trans = 0: src[k*srcStride + c*T + t]; dst is [C][H][W]. Vectors hold consecutive tiles of
// one tile row; output row p of the group is written by one interleaving store of the bX
// column streams (or through a staging row where the group overhangs the image).
template <class AY, class AX>
void SetOutputNchw(const OutputShape& s, float* dst) {
    using S = Sizes<AY, AX>;
    const size_t T = s.tileH * s.tileW, W = s.width;
    for (size_t c = 0; c < s.channels; ++c) {
        const float* in = s.src + c * T;
        float* plane = dst + c * s.height * W;
        for (size_t ty = 0; ty < s.tileH; ++ty) {
            const size_t y0 = ty * S::kBY;
            const size_t rows = s.height - y0 < size_t(S::kBY) ? s.height - y0 : size_t(S::kBY);
            ForGroups(DF(), s.tileW, [&](auto d, size_t tx) {
                using V = hn::Vec<decltype(d)>;
                const size_t n = hn::Lanes(d);
                const size_t x0 = tx * S::kBX;
                const float* m0 = in + ty * s.tileW + tx;
                V m[S::kCount], y[S::kOut];
                for (int k = 0; k < S::kCount; ++k) m[k] = hn::LoadU(d, m0 + k * s.srcStride);
                Transform<typename AY::At, typename AX::At>(d, m, y);
                float* out = plane + y0 * W + x0;
                if (rows == size_t(S::kBY) && x0 + n * S::kBX <= W) {
                    for (int p = 0; p < S::kBY; ++p)
                        StoreStrided<S::kBX>(d, y + p * S::kBX, out + p * W);
                } else {
                    HWY_ALIGN float stage[S::kOutStage];
                    const size_t cols = W - x0 < n * S::kBX ? W - x0 : n * S::kBX;
                    for (size_t p = 0; p < rows; ++p) {
                        StoreStrided<S::kBX>(d, y + p * S::kBX, stage);
                        std::memcpy(out + p * W, stage, sizeof(float) * cols);
                    }
                }
            });
        }
    }
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
