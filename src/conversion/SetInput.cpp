// SimdSynetSetInput (SUPPLEMENT.md §7.3): an 8-bit Gray8/Bgr24/Bgra32/Rgb24/Rgba32 image to a
// normalised 1- or 3-channel FP32 tensor in NCHW or NHWC.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conversion/SetInput.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <cstring>
#include <type_traits>

#include "SimdSynet.h"
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/PerChannel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Helpers have internal linkage: other families may name theirs alike.
namespace {

// Where one image row goes: `plane[c] + x` (NCHW, or the single channel) or `pixels + 3*x`
// (NHWC), with the per-channel factors k[c] = (upper[c] - lower[c])/255 and offsets lower[c].
struct RowOutput {
    float* plane[3];
    float* pixels;
    const float* k;
    const float* lower;
};

// Channel c of the output: float(v)*k[c] + lower[c].
template <class D>
HWY_INLINE hn::Vec<D> Normalise(D d, hn::Vec<D> value, const RowOutput& out, size_t c) {
    return hn::MulAdd(value, hn::Set(d, out.k[c]), hn::Set(d, out.lower[c]));
}

// BT.601 luma in Q14: (1868*b + 9617*g + 4899*r + 8192) >> 14, exact in 32-bit lanes
// (the largest intermediate is 255*16384 + 8192).
template <class DI, class VI = hn::Vec<DI>>
HWY_INLINE VI Gray(DI di, VI b, VI g, VI r) {
    const VI sum = hn::Add(hn::Add(hn::Mul(b, hn::Set(di, 1868)), hn::Mul(g, hn::Set(di, 9617))),
                           hn::Add(hn::Mul(r, hn::Set(di, 4899)), hn::Set(di, 8192)));
    return hn::ShiftRight<14>(sum);
}

// Writes the outputs of Lanes(d) pixels starting at column x from their blue, green and red
// samples (32-bit integers; for a Gray8 source all three are the gray value).
template <size_t kBpp, size_t kChannels, bool kNhwc, class D, class VI>
HWY_INLINE void EmitPixels(D d, VI b, VI g, VI r, const RowOutput& out, size_t x) {
    const hn::RebindToSigned<D> di;
    if (kChannels == 1) {
        const VI value = kBpp == 1 ? b : Gray(di, b, g, r);
        hn::StoreU(Normalise(d, hn::ConvertTo(d, value), out, 0), d, out.plane[0] + x);
        return;
    }
    const auto fb = hn::ConvertTo(d, b);
    const auto fg = kBpp == 1 ? fb : hn::ConvertTo(d, g);
    const auto fr = kBpp == 1 ? fb : hn::ConvertTo(d, r);
    const auto o0 = Normalise(d, fb, out, 0);
    const auto o1 = Normalise(d, fg, out, 1);
    const auto o2 = Normalise(d, fr, out, 2);
    if (kNhwc) {
        hn::StoreInterleaved3(o0, o1, o2, d, out.pixels + 3 * x);
    } else {
        hn::StoreU(o0, d, out.plane[0] + x);
        hn::StoreU(o1, d, out.plane[1] + x);
        hn::StoreU(o2, d, out.plane[2] + x);
    }
}

// Loads the samples of Lanes(du8) pixels starting at p as bytes: blue, green, red.
template <size_t kBpp, bool kRgb, class DU8, class V = hn::Vec<DU8>>
HWY_INLINE void LoadPixels(DU8 du8, const uint8_t* p, V& b, V& g, V& r) {
    if (kBpp == 1) {
        b = g = r = hn::LoadU(du8, p);
        return;
    }
    V s0, s1, s2, alpha;
    if (kBpp == 3)
        hn::LoadInterleaved3(du8, p, s0, s1, s2);
    else
        hn::LoadInterleaved4(du8, p, s0, s1, s2, alpha);
    b = kRgb ? s2 : s0;
    g = s1;
    r = kRgb ? s0 : s2;
}

#if HWY_TARGET != HWY_SCALAR
// Colour pixels to planes without a byte deinterleave: Lanes(DF) pixels are loaded as 16-byte
// blocks, block q starting at pixel 4q, and one in-block byte shuffle per channel picks the
// channel's byte of each of the block's 4 pixels into the low byte of a 32-bit lane, zeroing the
// rest. That is a zero-extended integer vector per channel for one shuffle, where deinterleaving
// and widening separately cost four.

// Gathers the 16-byte blocks of Lanes(DF) pixels from one load of Lanes(DF)*4 bytes at p (for
// 3-byte pixels, block q starts at byte 12q: 32-bit lane 3q, so one 32-bit lane permutation
// places the blocks; with a single block or 4-byte pixels the load is already in place).
template <size_t kBpp, class DU8>
class PixelBlocks {
public:
    explicit PixelBlocks(DU8 du8) {
        const hn::Repartition<uint32_t, DU8> du32;
        HWY_ALIGN uint32_t order[64];
        for (size_t lane = 0; lane < hn::Lanes(du32) && lane < 64; ++lane)
            order[lane] = static_cast<uint32_t>(3 * (lane / 4) + lane % 4);
        indices_ = hn::SetTableIndices(du32, order);
        (void)du8;
    }
    HWY_INLINE hn::Vec<DU8> Load(DU8 du8, const uint8_t* p) const {
        const auto bytes = hn::LoadU(du8, p);
        if (kBpp == 4 || hn::Lanes(du8) == 16) return bytes;
        const hn::Repartition<uint32_t, DU8> du32;
        return hn::BitCast(du8, hn::TableLookupLanes(hn::BitCast(du32, bytes), indices_));
    }

private:
    decltype(hn::SetTableIndices(hn::Repartition<uint32_t, DU8>(),
                                 static_cast<const uint32_t*>(nullptr))) indices_;
};

// Byte shuffle that moves byte `offset` of each of the 4 pixels of a block to the low byte of
// the pixel's 32-bit lane (index 0x80 yields zero).
template <size_t kBpp, class DU8>
HWY_INLINE hn::Vec<DU8> ChannelShuffle(DU8 du8, size_t offset) {
    HWY_ALIGN uint8_t index[16];
    for (size_t m = 0; m < 4; ++m) {
        index[4 * m] = static_cast<uint8_t>(kBpp * m + offset);
        index[4 * m + 1] = index[4 * m + 2] = index[4 * m + 3] = 0x80;
    }
    return hn::LoadDup128(du8, index);
}

template <size_t kBpp, bool kRgb, size_t kChannels, bool kNhwc>
HWY_INLINE void SetInputRowShuffled(const uint8_t* row, size_t width, size_t readable,
                                    const RowOutput& out) {
    const DF d;
    const hn::RebindToSigned<DF> di;
    const hn::Repartition<uint8_t, DF> du8;
    const size_t L = hn::Lanes(d);
    const auto blue = ChannelShuffle<kBpp>(du8, kRgb ? 2 : 0);
    const auto green = ChannelShuffle<kBpp>(du8, 1);
    const auto red = ChannelShuffle<kBpp>(du8, kRgb ? 0 : 2);
    const PixelBlocks<kBpp, decltype(du8)> loader(du8);
    const auto emit = [&](const uint8_t* pixels, size_t x) {
        const auto blocks = loader.Load(du8, pixels);
        EmitPixels<kBpp, kChannels, kNhwc>(
            d, hn::BitCast(di, hn::TableLookupBytesOr0(blocks, blue)),
            hn::BitCast(di, hn::TableLookupBytesOr0(blocks, green)),
            hn::BitCast(di, hn::TableLookupBytesOr0(blocks, red)), out, x);
    };
    // Pixels [x, x + L) from a copy with room to spare after them.
    const auto emitCopy = [&](size_t x) {
        HWY_ALIGN uint8_t copy[4 * 64];
        std::memcpy(copy, row + x * kBpp, L * kBpp);
        std::memset(copy + L * kBpp, 0, L * (4 - kBpp));
        emit(copy, x);
    };
    // Whole vectors while the loads (4L bytes) stay inside the readable bytes (the rest of the
    // image from this row on), then whole vectors from copies, then the last L pixels
    // overlapping the ones done.
    size_t x = 0;
    for (; x * kBpp + 4 * L <= readable && x + L <= width; x += L) emit(row + x * kBpp, x);
    for (; x + L <= width; x += L) emitCopy(x);
    if (x == width) return;
    if (width >= L) {
        emitCopy(width - L);
        return;
    }
    const DF1 d1;
    const hn::RebindToSigned<DF1> di1;
    const hn::Rebind<uint8_t, DF1> du81;
    for (; x < width; ++x) {
        hn::Vec<decltype(du81)> b, g, r;
        LoadPixels<kBpp, kRgb>(du81, row + x * kBpp, b, g, r);
        EmitPixels<kBpp, kChannels, kNhwc>(d1, hn::PromoteTo(di1, b), hn::PromoteTo(di1, g),
                                           hn::PromoteTo(di1, r), out, x);
    }
}
#endif

// One image row of `width` pixels, for the cases the paths above do not take: Gray8 to three
// channels, Rgb24/Bgra32/Rgba32 to NHWC, and everything on the scalar target.
//
// The main loop deinterleaves 16 pixels at a time as bytes (LoadInterleaved3/4 on a 16-byte
// vector: the well-trodden byte shuffles of every target) and then widens them in pieces of
// one float vector each: directly when a float vector has 16 lanes, through a 48-byte stack
// buffer otherwise. Leftover pixels (fewer than 16) go through the 1-lane path.
template <size_t kBpp, bool kRgb, size_t kChannels, bool kNhwc>
HWY_INLINE void SetInputRow(const uint8_t* row, size_t width, const RowOutput& out) {
    const DF d;
    const hn::RebindToSigned<DF> di;
    const hn::Rebind<uint8_t, DF> du8Float;  // one byte per float lane
    const size_t L = hn::Lanes(d);
    size_t x = 0;
    if (kBpp == 1) {
        for (; x + L <= width; x += L) {
            const auto v = hn::PromoteTo(di, hn::LoadU(du8Float, row + x));
            EmitPixels<kBpp, kChannels, kNhwc>(d, v, v, v, out, x);
        }
    } else {
        const hn::CappedTag<uint8_t, 16> du8;
        const size_t P = hn::Lanes(du8);
        for (; x + P <= width && P >= L; x += P) {
            hn::Vec<decltype(du8)> b, g, r;
            LoadPixels<kBpp, kRgb>(du8, row + x * kBpp, b, g, r);
            if constexpr (std::is_same<decltype(du8), decltype(du8Float)>::value) {
                // A generic lambda keeps this branch uninstantiated where the types differ.
                const auto emit = [&](auto vb, auto vg, auto vr) {
                    EmitPixels<kBpp, kChannels, kNhwc>(d, hn::PromoteTo(di, vb),
                                                       hn::PromoteTo(di, vg), hn::PromoteTo(di, vr),
                                                       out, x);
                };
                emit(b, g, r);
            } else {
                HWY_ALIGN uint8_t buffer[3 * 16];
                hn::Store(b, du8, buffer + 0 * 16);
                hn::Store(g, du8, buffer + 1 * 16);
                hn::Store(r, du8, buffer + 2 * 16);
                for (size_t j = 0; j < P; j += L) {
                    EmitPixels<kBpp, kChannels, kNhwc>(
                        d, hn::PromoteTo(di, hn::LoadU(du8Float, buffer + 0 * 16 + j)),
                        hn::PromoteTo(di, hn::LoadU(du8Float, buffer + 1 * 16 + j)),
                        hn::PromoteTo(di, hn::LoadU(du8Float, buffer + 2 * 16 + j)), out, x + j);
                }
            }
        }
    }
    const DF1 d1;
    const hn::RebindToSigned<DF1> di1;
    const hn::Rebind<uint8_t, DF1> du81;
    for (; x < width; ++x) {
        hn::Vec<decltype(du81)> b, g, r;
        LoadPixels<kBpp, kRgb>(du81, row + x * kBpp, b, g, r);
        EmitPixels<kBpp, kChannels, kNhwc>(d1, hn::PromoteTo(di1, b), hn::PromoteTo(di1, g),
                                           hn::PromoteTo(di1, r), out, x);
    }
}

template <size_t kBpp, bool kRgb, size_t kChannels, bool kNhwc>
void SetInputImage(const uint8_t* src, size_t width, size_t height, size_t stride, const float* k,
                   const float* lower, float* dst) {
    // Bgr24 to BGR NHWC and Gray8 to one channel need no reordering of the bytes: each row is
    // a per-channel dequantization of kChannels interleaved channels (one run when the rows
    // are contiguous).
    constexpr bool kFlat =
        (kBpp == 3 && !kRgb && kChannels == 3 && kNhwc) || (kBpp == 1 && kChannels == 1);
    if (kFlat) {
        const size_t rowFloats = width * kChannels;
        if (stride == rowFloats) {
            const ChannelArgs<uint8_t, float> args{src, nullptr, {k, lower, nullptr}, dst};
            PerChannel(AffineOp{}, kChannels, width * height, 1, true, args);
            return;
        }
        for (size_t y = 0; y < height; ++y) {
            const ChannelArgs<uint8_t, float> args{
                src + y * stride, nullptr, {k, lower, nullptr}, dst + y * rowFloats};
            PerChannel(AffineOp{}, kChannels, width, 1, true, args);
        }
        return;
    }
    const size_t plane = width * height;
    for (size_t y = 0; y < height; ++y) {
        float* rowStart = dst + y * width * (kNhwc ? kChannels : 1);
        const RowOutput out{{rowStart, rowStart + plane, rowStart + 2 * plane}, rowStart, k, lower};
#if HWY_TARGET != HWY_SCALAR
        if constexpr (kBpp > 1 && (kChannels == 1 || !kNhwc)) {
            // Bytes that may be read from this row on: up to the end of the last row.
            const size_t readable = (height - 1 - y) * stride + width * kBpp;
            SetInputRowShuffled<kBpp, kRgb, kChannels, kNhwc>(src + y * stride, width, readable,
                                                              out);
            continue;
        }
#endif
        SetInputRow<kBpp, kRgb, kChannels, kNhwc>(src + y * stride, width, out);
    }
}

// Picks the instantiation for a validated pixel format (see the entry point) and layout.
template <size_t kBpp, bool kRgb>
void SetInputChannels(const uint8_t* src, size_t width, size_t height, size_t stride,
                      const float* k, const float* lower, float* dst, size_t channels, bool nhwc) {
    if (channels == 1)
        SetInputImage<kBpp, kRgb, 1, false>(src, width, height, stride, k, lower, dst);
    else if (nhwc)
        SetInputImage<kBpp, kRgb, 3, true>(src, width, height, stride, k, lower, dst);
    else
        SetInputImage<kBpp, kRgb, 3, false>(src, width, height, stride, k, lower, dst);
}

}  // namespace

void SetInput(const uint8_t* src, size_t width, size_t height, size_t stride, int format,
              const float* k, const float* lower, float* dst, size_t channels, bool nhwc) {
    switch (format) {
        case SimdPixelFormatGray8:
            SetInputChannels<1, false>(src, width, height, stride, k, lower, dst, channels, nhwc);
            break;
        case SimdPixelFormatBgr24:
            SetInputChannels<3, false>(src, width, height, stride, k, lower, dst, channels, nhwc);
            break;
        case SimdPixelFormatRgb24:
            SetInputChannels<3, true>(src, width, height, stride, k, lower, dst, channels, nhwc);
            break;
        case SimdPixelFormatBgra32:
            SetInputChannels<4, false>(src, width, height, stride, k, lower, dst, channels, nhwc);
            break;
        default:  // SimdPixelFormatRgba32
            SetInputChannels<4, true>(src, width, height, stride, k, lower, dst, channels, nhwc);
            break;
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
HWY_EXPORT(SetInput);

namespace {
size_t BytesPerPixel(SimdPixelFormatType format) {
    switch (format) {
        case SimdPixelFormatGray8:
            return 1;
        case SimdPixelFormatBgr24:
        case SimdPixelFormatRgb24:
            return 3;
        case SimdPixelFormatBgra32:
        case SimdPixelFormatRgba32:
            return 4;
        default:
            return 0;
    }
}
}  // namespace
}  // namespace simd

SIMD_API void SimdSynetSetInput(const uint8_t* src, size_t width, size_t height, size_t stride,
                                SimdPixelFormatType srcFormat, const float* lower,
                                const float* upper, float* dst, size_t channels,
                                SimdTensorFormatType dstFormat) {
    simd::ClearLastError();
    const size_t bpp = simd::BytesPerPixel(srcFormat);
    if (bpp == 0) {
        simd::SetLastErrorF(
            "SimdSynetSetInput: pixel format %d is not Gray8, Bgr24, Bgra32, "
            "Rgb24 or Rgba32",
            static_cast<int>(srcFormat));
        return;
    }
    SIMD_FAIL_IF(channels != 1 && channels != 3, "SimdSynetSetInput: channels must be 1 or 3");
    SIMD_FAIL_IF(
        channels == 3 && dstFormat != SimdTensorFormatNchw && dstFormat != SimdTensorFormatNhwc,
        "SimdSynetSetInput: dstFormat must be Nchw or Nhwc for 3 channels");
    if (width == 0 || height == 0) return;
    size_t rowBytes, lastRow, pixels;
    SIMD_FAIL_IF(!simd::CheckedMul(width, bpp, &rowBytes) ||
                     !simd::CheckedMul(height - 1, stride, &lastRow) ||
                     !simd::CheckedAdd(lastRow, rowBytes, &lastRow) ||
                     !simd::CheckedMul(width, height, &pixels) ||
                     !simd::FitsInMemory(pixels, channels, sizeof(float)),
                 "SimdSynetSetInput: the image or the tensor is too large for memory");
    SIMD_FAIL_IF(!src || !lower || !upper || !dst,
                 "SimdSynetSetInput: src, lower, upper and dst must not be NULL");
    // k[c] is computed once, in FP32, exactly as §7.3 writes it.
    float k[3];
    for (size_t c = 0; c < channels; ++c) k[c] = (upper[c] - lower[c]) / 255.0f;
    SIMD_DISPATCH(simd::SetInput)
    (src, width, height, stride, srcFormat, k, lower, dst, channels,
     dstFormat == SimdTensorFormatNhwc);
}
#endif  // HWY_ONCE
