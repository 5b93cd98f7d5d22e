// What the INT8 convolution algorithms share, per Highway target: the zero-point-padded UINT8
// NHWC image they read, the per-channel output parameters padded to their channel blocks, the
// batch loop and the NCHW output bands.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION8I_PADDED8I_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION8I_PADDED8I_INL_H_
#undef SIMD_SYNET_CONVOLUTION8I_PADDED8I_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION8I_PADDED8I_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "conversion/Layout-inl.h"
#include "convolution/Geometry.h"
#include "convolution8i/Convolution8i.h"
#include "convolution8i/Epilogue8i-inl.h"
#include "core/AlignedVector.h"
#include "core/ThreadPool.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// conversion/Quantize.cpp: the §7.4 rule over a tensor.
void Convert32fTo8u(const float* src, size_t batch, size_t channels, size_t spatial, bool nhwc,
                    const float* scale, const float* shift, uint32_t upper, uint8_t* dst);

namespace conv8i {
// Internal linkage: each algorithm's translation unit has its own copy (Layout-inl.h's
// transposes, which StoreBand calls, are internal too).
namespace {

inline size_t AlignBytes(size_t bytes) {
    return (bytes + 63) / 64 * 64;
}

#if HWY_TARGET != HWY_SCALAR
// dst[c*dstStride + r] = src[r*srcStride + c] for a 16 x 16 tile of bytes: interleaves of 8-,
// 16-, 32- and 64-bit lanes; after stage s, vector i holds 2^s rows of 16 / 2^s columns.
HWY_INLINE void TransposeBytes16(const uint8_t* src, size_t srcStride, uint8_t* dst,
                                 size_t dstStride) {
    const hn::Full128<uint8_t> d8;
    const hn::Repartition<uint16_t, decltype(d8)> d16;
    const hn::Repartition<uint32_t, decltype(d8)> d32;
    const hn::Repartition<uint64_t, decltype(d8)> d64;
    using V = hn::Vec<decltype(d8)>;
    V r[16], x[16];
    for (size_t i = 0; i < 16; ++i) r[i] = hn::LoadU(d8, src + i * srcStride);
    for (size_t k = 0; k < 8; ++k) {  // rows 2k, 2k+1: columns 0-7, 8-15
        x[2 * k] = hn::InterleaveLower(d8, r[2 * k], r[2 * k + 1]);
        x[2 * k + 1] = hn::InterleaveUpper(d8, r[2 * k], r[2 * k + 1]);
    }
    for (size_t m = 0; m < 4; ++m)  // rows 4m..4m+3: columns 4q..4q+3 in r[4m + q]
        for (size_t h = 0; h < 2; ++h) {
            const auto a = hn::BitCast(d16, x[4 * m + h]), b = hn::BitCast(d16, x[4 * m + 2 + h]);
            r[4 * m + 2 * h] = hn::BitCast(d8, hn::InterleaveLower(d16, a, b));
            r[4 * m + 2 * h + 1] = hn::BitCast(d8, hn::InterleaveUpper(d16, a, b));
        }
    for (size_t n = 0; n < 2; ++n)  // rows 8n..8n+7: columns 2p, 2p+1 in x[8n + p]
        for (size_t q = 0; q < 4; ++q) {
            const auto a = hn::BitCast(d32, r[8 * n + q]), b = hn::BitCast(d32, r[8 * n + 4 + q]);
            x[8 * n + 2 * q] = hn::BitCast(d8, hn::InterleaveLower(d32, a, b));
            x[8 * n + 2 * q + 1] = hn::BitCast(d8, hn::InterleaveUpper(d32, a, b));
        }
    for (size_t p = 0; p < 8; ++p) {  // column 2p, 2p+1: all rows
        const auto a = hn::BitCast(d64, x[p]), b = hn::BitCast(d64, x[8 + p]);
        hn::StoreU(hn::BitCast(d8, hn::InterleaveLower(d64, a, b)), d8, dst + 2 * p * dstStride);
        hn::StoreU(hn::BitCast(d8, hn::InterleaveUpper(d64, a, b)), d8,
                   dst + (2 * p + 1) * dstStride);
    }
}
#endif

// dst[x*C + c] = src[c*stride + x] for x < n, c < C in {2, 3, 4} (first layers' few planes,
// too few rows for the tiles of TransposeBytes).
inline void InterleavePlanes(const uint8_t* src, size_t stride, size_t C, size_t n, uint8_t* dst) {
    size_t x = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<uint8_t> d;
    const size_t L = hn::Lanes(d);
    for (; x + L <= n; x += L) {
        const auto v0 = hn::LoadU(d, src + x), v1 = hn::LoadU(d, src + stride + x);
        if (C == 2) {
            hn::StoreInterleaved2(v0, v1, d, dst + x * C);
            continue;
        }
        const auto v2 = hn::LoadU(d, src + 2 * stride + x);
        if (C == 3)
            hn::StoreInterleaved3(v0, v1, v2, d, dst + x * C);
        else
            hn::StoreInterleaved4(v0, v1, v2, hn::LoadU(d, src + 3 * stride + x), d, dst + x * C);
    }
#endif
    for (; x < n; ++x)
        for (size_t c = 0; c < C; ++c) dst[x * C + c] = src[c * stride + x];
}

// dst[c*dstStride + r] = src[r*srcStride + c] for r < rows, c < cols (bytes): 16 x 16 tiles,
// the ragged edges element by element.
inline void TransposeBytes(const uint8_t* src, size_t srcStride, uint8_t* dst, size_t dstStride,
                           size_t rows, size_t cols) {
    size_t r0 = 0;
#if HWY_TARGET != HWY_SCALAR
    for (; r0 + 16 <= rows; r0 += 16) {
        size_t c0 = 0;
        for (; c0 + 16 <= cols; c0 += 16)
            TransposeBytes16(src + r0 * srcStride + c0, srcStride, dst + c0 * dstStride + r0,
                             dstStride);
        for (size_t c = c0; c < cols; ++c)
            for (size_t r = r0; r < r0 + 16; ++r) dst[c * dstStride + r] = src[r * srcStride + c];
    }
#endif
    for (size_t c = 0; c < cols; ++c)
        for (size_t r = r0; r < rows; ++r) dst[c * dstStride + r] = src[r * srcStride + c];
}

using EpilogueFn = void (*)(const int32_t*, size_t, size_t, size_t, const OutputParams&, uint8_t*,
                            size_t);

template <bool kDst8, bool kBlockOrder = false>
EpilogueFn EpilogueOf(SimdConvolutionActivationType type) {
    return WithAct8iKind(type, [](auto kind) -> EpilogueFn {
        return &Epilogue8i<decltype(kind)::value, kDst8, kBlockOrder>;
    });
}

// How an algorithm wants the image: pixels of `pixelBytes` (the channels, then the zero point),
// and, with `blockPermute`, each block of 4*L channels stored with its groups of 4 channels
// reordered so that the in-block interleaves of the depthwise kernel yield channels in order.
struct ImageLayout8i {
    size_t pixelBytes;
    bool blockPermute;
    bool inPlace;  // the caller's UINT8 NHWC image as it is (no padding needed, pixelBytes == C)
    // The algorithm prepares the padded rows it reads itself (PrepareRow), a few at a time, so
    // that they stay in cache: ConvolveImage then gets RowSource's pointer instead of the image.
    bool rowsOnDemand;
};

class Padded8i : public Convolution8i {
public:
    Padded8i(size_t batch, const SimdConvolutionParameters& p, SimdSynetCompatibilityType c)
        : Convolution8i(batch, p, c), q_(p) {
        nhwc_ = p.srcF == SimdTensorFormatNhwc;
        dstBytes_ = p.dstT == SimdTensorData8u ? 1 : 4;
        // The rows and columns of the padded image that some output reads.
        padH_ = (q_.dstH - 1) * q_.sY + (q_.kY - 1) * q_.dY + 1;
        padW_ = (q_.dstW - 1) * q_.sX + (q_.kX - 1) * q_.dX + 1;
        epilogue_ =
            dstBytes_ == 1 ? EpilogueOf<true>(p.activation) : EpilogueOf<false>(p.activation);
    }

    size_t ExternalBufferSize() const override {
        return (SharedBytes() + PartBytes() + sizeof(float) - 1) / sizeof(float);
    }

protected:
    // True when the caller's image can be read as it is: UINT8 NHWC that needs no padding.
    bool CanReadInPlace() const {
        return nhwc_ && p_.srcT == SimdTensorData8u && q_.padY == 0 && q_.padX == 0 &&
               padH_ <= q_.srcH && padW_ <= q_.srcW;
    }
    void SetLayout(const ImageLayout8i& layout) {
        layout_ = layout;
        rowPixels_ = layout.inPlace ? q_.srcW : padW_;
    }

    // Bytes of the algorithm's packed weights (for InternalBufferSize).
    virtual size_t WeightBytes() const = 0;
    // Bytes of one thread part's scratch.
    virtual size_t PartBytes() const = 0;
    // One image: the padded image (or the caller's) into dst, with `buf` the scratch after the
    // shared part.
    virtual void ConvolveImage(const uint8_t* image, uint8_t* buf, uint8_t* dst) const = 0;

    size_t PackedBytes() const override {
        return WeightBytes() +
               sizeof(float) * (norm8_.size() + bias8_.size() + scale8_.size() + slope8_.size());
    }

    // The per-channel output parameters with group g's channels from g * groupStride (zeros
    // between groups), so that whole vectors of them can be loaded at any block start.
    void PadParams(size_t groupStride) {
        const size_t Dg = q_.Dg;
        PadParamsAs(q_.G * groupStride, [&](size_t i) {
            return i % groupStride < Dg ? i / groupStride * Dg + i % groupStride : kNoChannel;
        });
    }
    // The per-channel output parameters (one group per channel) in block order
    // (BlockOrderChannel) within each block of `block` = 4*L channels, zeros past the channels.
    void PadParamsBlockOrder(size_t block, size_t L) {
        const size_t C = q_.dstC;
        PadParamsAs((C + block - 1) / block * block, [&](size_t i) {
            const size_t c = i / block * block + BlockOrderChannel(i % block, L);
            return c < C ? c : kNoChannel;
        });
    }
    // Every output parameter array as `size` values (then 64 zeros): value i is channel
    // channelAt(i) of the parameter, or 0 where that is kNoChannel.
    static constexpr size_t kNoChannel = ~size_t(0);
    template <class ChannelAt>
    void PadParamsAs(size_t size, const ChannelAt& channelAt) {
        auto pad = [&](const std::vector<float>& from, AlignedFloats* to) {
            to->assign(from.empty() ? 0 : size + 64, 0.0f);
            for (size_t i = 0; i < size && !from.empty(); ++i)
                if (const size_t c = channelAt(i); c != kNoChannel) (*to)[i] = from[c];
        };
        pad(norm_, &norm8_);
        pad(bias_, &bias8_);
        pad(dstScale_, &scale8_);
        pad(slope_, &slope8_);
    }
    // The output parameters of the channels from padded index `at`.
    OutputParams ParamsAt(size_t at) const {
        return {norm8_.data() + at,
                bias8_.data() + at,
                scale8_.empty() ? nullptr : scale8_.data() + at,
                slope8_.empty() ? nullptr : slope8_.data() + at,
                float(dstZero_),
                float(mode_.uMax),
                {p_.activation, param0_, param1_}};
    }

    // NCHW output: rows x cols values of an NHWC band (rows `stride` values apart) to channels
    // [channel, channel + cols) of pixels [pixel, pixel + rows).
    void StoreBand(const uint8_t* band, size_t stride, size_t rows, size_t cols, size_t channel,
                   size_t pixel, uint8_t* dst) const {
        if (dstBytes_ == 1)
            TransposeBytes(band, stride, dst + channel * q_.pixels + pixel, q_.pixels, rows, cols);
        else
            TransposeStrided(reinterpret_cast<const float*>(band), stride,
                             reinterpret_cast<float*>(dst) + channel * q_.pixels + pixel, q_.pixels,
                             rows, cols);
    }

    // Bytes of the scratch every part reads: the padded image, and (NCHW FP32 input) the
    // quantized planes it is transposed from.
    size_t ImageBytes() const {
        return layout_.inPlace || layout_.rowsOnDemand
                   ? 0
                   : AlignBytes(padH_ * padW_ * layout_.pixelBytes + 64);
    }
    size_t PlanesBytes() const {
        return !nhwc_ && p_.srcT == SimdTensorData32f ? AlignBytes(q_.srcImage) : 0;
    }
    size_t SharedBytes() const { return ImageBytes() + PlanesBytes(); }

    void Run(const uint8_t* src, uint8_t* buf, uint8_t* dst) const override {
        const size_t srcImage = q_.srcImage * (p_.srcT == SimdTensorData8u ? 1 : 4);
        const size_t dstImage = q_.dstImage * dstBytes_;
        for (size_t b = 0; b < batch_; ++b, src += srcImage, dst += dstImage) {
            const uint8_t* image = src;
            if (layout_.rowsOnDemand) {
                image = RowSource(src, buf + ImageBytes());
            } else if (!layout_.inPlace) {
                PrepareImage(src, buf, buf + ImageBytes());
                image = buf;
            }
            ConvolveImage(image, buf + SharedBytes(), dst);
        }
    }

    // What PrepareRow reads for one input image: the quantized planes (NCHW FP32 input, made
    // here in `planes`), else the caller's image.
    const uint8_t* RowSource(const uint8_t* src, uint8_t* planes) const {
        if (nhwc_ || p_.srcT != SimdTensorData32f) return src;
        const size_t C = q_.srcC, plane = q_.srcH * q_.srcW;
        const float* srcF = reinterpret_cast<const float*>(src);
        const size_t parts = ThreadPartsFor(double(q_.srcImage) * 16.0);
        ParallelParts(std::min(parts, C), [&](size_t part, size_t count) {
            const auto r = PartRange(C, part, count);
            Convert32fTo8u(srcF + r.first * plane, 1, r.second - r.first, plane, false,
                           srcScale_.data() + r.first, srcShift_.data() + r.first,
                           uint32_t(mode_.uMax), planes + r.first * plane);
        });
        return planes;
    }

    // The zero-point-padded UINT8 NHWC image (padH_ x padW_ pixels of layout_.pixelBytes, then
    // 64 zero bytes) of one input image.
    void PrepareImage(const uint8_t* src, uint8_t* image, uint8_t* planes) const {
        const uint8_t* from = RowSource(src, planes);
        const size_t rowBytes = padW_ * layout_.pixelBytes;
        const size_t parts = ThreadPartsFor(double(padH_ * rowBytes) * 16.0);
        ParallelParts(std::min(parts, padH_), [&](size_t part, size_t count) {
            const auto r = PartRange(padH_, part, count);
            for (size_t y = r.first; y < r.second; ++y) PrepareRow(from, y, image + y * rowBytes);
        });
        std::memset(image + padH_ * rowBytes, 0, 64);
    }

    // Row y of the padded image (padW_ pixels of layout_.pixelBytes) into `row`, from what
    // RowSource returned.
    void PrepareRow(const uint8_t* from, size_t y, uint8_t* row) const {
        const size_t C = q_.srcC, H = q_.srcH, W = q_.srcW, plane = H * W;
        const size_t P = layout_.pixelBytes;
        const uint8_t z = uint8_t(srcZero_);
        const bool f32 = p_.srcT == SimdTensorData32f;
        const size_t left = std::min(q_.padX, padW_);
        const size_t cols = q_.padX < padW_ ? std::min(W, padW_ - q_.padX) : 0;
        const size_t rowBytes = padW_ * P;
        const ptrdiff_t sy = ptrdiff_t(y) - ptrdiff_t(q_.padY);
        if (sy < 0 || sy >= ptrdiff_t(H) || cols == 0) {
            std::memset(row, z, rowBytes);
            return;
        }
        std::memset(row, z, left * P);
        uint8_t* to = row + left * P;
        const size_t at = size_t(sy) * W;
        if (!nhwc_) {
            if (P == C && C >= 2 && C <= 4)
                InterleavePlanes(from + at, plane, C, cols, to);
            else
                TransposeBytes(from + at, plane, to, P, C, cols);
            if (P > C)
                for (size_t x = 0; x < cols; ++x) std::memset(to + x * P + C, z, P - C);
        } else {
            // Contiguous pixels at the end of the row's span, spread to P bytes each from the
            // front (a pixel's new place never reaches a later pixel's).
            uint8_t* packed = to + cols * (P - C);
            if (f32)
                Convert32fTo8u(reinterpret_cast<const float*>(from) + at * C, 1, C, cols, true,
                               srcScale_.data(), srcShift_.data(), uint32_t(mode_.uMax), packed);
            else
                std::memcpy(packed, from + at * C, cols * C);
            if (P > C)
                for (size_t x = 0; x < cols; ++x) {
                    std::memmove(to + x * P, packed + x * C, C);
                    std::memset(to + x * P + C, z, P - C);
                }
        }
        if (layout_.blockPermute) PermuteBlocks(to, cols);
        std::memset(to + cols * P, z, rowBytes - (left + cols) * P);
    }

    // ImageLayout8i::blockPermute on `pixels` pixels: in each block of 4*L channels (L int32
    // lanes in B = L/4 blocks of 128 bits), the 4-channel group k*B + b moves to group 4*b + k,
    // so that interleaving four such vectors within 128-bit blocks (InterleaveLower/Upper of
    // bytes, then of 16-bit pairs) gives vector k the channels [k*L, k*L + L) in lane order.
    void PermuteBlocks(uint8_t* pixels, size_t count) const {
#if HWY_TARGET != HWY_SCALAR
        const hn::ScalableTag<uint32_t> du;
        const size_t L = hn::Lanes(du), B = L / 4, P = layout_.pixelBytes;
        if (B <= 1) return;
        HWY_ALIGN uint32_t order[hn::MaxLanes(du)];
        for (size_t g = 0; g < L; ++g) order[g] = uint32_t(g % 4 * B + g / 4);
        const auto indices = hn::SetTableIndices(du, order);
        for (size_t x = 0; x < count; ++x)
            for (size_t b = 0; b < P; b += 4 * L) {
                uint32_t* at = reinterpret_cast<uint32_t*>(pixels + x * P + b);
                hn::StoreU(hn::TableLookupLanes(hn::LoadU(du, at), indices), du, at);
            }
#else
        (void)pixels;
        (void)count;
#endif
    }

    ConvGeometry q_;
    bool nhwc_;
    size_t dstBytes_, padH_, padW_, rowPixels_ = 0;
    ImageLayout8i layout_{0, false, false, false};
    EpilogueFn epilogue_;
    AlignedFloats norm8_, bias8_, scale8_, slope8_;
};

}  // namespace
}  // namespace conv8i
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
