// Depthwise INT8 convolution (group == srcC == dstC, SUPPLEMENT.md §11) on every SIMD target.
//
// The dot products of the direct algorithm sum four input channels of one tap; a depthwise
// output has one channel, so it would leave three quarters of every word on zero weights.
// Here the four bytes of a lane are four kernel rows of one channel instead: the image is
// padded to whole blocks of 4*L channels, each block stored with its 4-channel groups permuted
// (Padded8i::PermuteBlocks), so that interleaving the blocks of four image rows within 128-bit
// lanes gives, per kernel column, four vectors of four rows for channels in lane order, and one
// dot product per vector adds four taps (Kernels8i.h, DepthwisePixels8i). There are no pairs of
// input channels, so 8iOverflow sums exactly here, as its rule says.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution8i/Depthwise8i.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution8i/Convolution8i.h"
#include "convolution8i/Depthwise8i.h"
#include "convolution8i/Dot8i-inl.h"
#include "convolution8i/Padded8i-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "core/AlignedVector.h"
#include "core/CpuFeatures.h"
#include "core/IsaName.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv8i {

namespace plain {
#define SIMD_I8_ATTR
#define SIMD_I8_VNNI 0
#include "convolution8i/Kernels8i.h"
#undef SIMD_I8_VNNI
#undef SIMD_I8_ATTR
}  // namespace plain

#if HWY_TARGET == HWY_AVX3
namespace vnni {
#define SIMD_I8_ATTR __attribute__((target("avx512vnni")))
#define SIMD_I8_VNNI 1
#include "convolution8i/Kernels8i.h"
#undef SIMD_I8_VNNI
#undef SIMD_I8_ATTR
}  // namespace vnni
#endif

#if HWY_TARGET != HWY_SCALAR
namespace {

constexpr size_t kLanes = hn::MaxLanes(D32());
constexpr size_t kBlock = 4 * kLanes;  // channels per block
constexpr size_t kChunk = 16;          // output pixels per call of the kernel

using DepthwiseFn = void (*)(const uint8_t* const*, size_t, size_t, size_t, size_t, size_t, size_t,
                             const int8_t*, int32_t*);

struct DepthwiseKernel {
    DepthwiseFn fn;
    const char* dot;
};

// An exact dot product in every mode (8iOverflow included: no channel pairs here).
DepthwiseKernel ChooseDepthwise(const Int8Mode& m) {
#if HWY_TARGET == HWY_AVX3
    if (CpuHasAvx512Vnni()) return {&vnni::DepthwisePixels8i<vnni::DotVnni>, "vnni"};
#endif
#if SIMD_SYNET_INT8_MADDUBS
    if (m.narrowed) return {&plain::DepthwisePixels8i<DotMaddubs>, "maddubs"};
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
    return {&plain::DepthwisePixels8i<DotSplit>, "maddubs2"};
#else
    (void)m;
    return {&plain::DepthwisePixels8i<DotWiden<false>>, "widen"};
#endif
}

class Depthwise8i : public Padded8i {
public:
    Depthwise8i(size_t batch, const SimdConvolutionParameters& p, SimdSynetCompatibilityType c)
        : Padded8i(batch, p, c) {
        const size_t P = RoundUp(q_.srcC, kBlock);
        const bool permute = kLanes > 4;
        SetLayout({P, permute, CanReadInPlace() && P == q_.srcC && !permute});
        blocks_ = P / kBlock;
        groups_ = (q_.kY + 3) / 4;
        kernel_ = ChooseDepthwise(mode_);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + (nhwc_ ? "::nhwc" : "::nchw") + "-depthwise-" +
                std::to_string(q_.kY) + "x" + std::to_string(q_.kX) + "-" + kernel_.dot;
    }

protected:
    size_t WeightBytes() const override { return weights_.size(); }
    size_t BlockWeightBytes() const { return groups_ * q_.kX * kBlock * 4; }

    // Per block, group of four kernel rows and kernel column: four vectors, lane i of vector k
    // the weights of channel k*L + i of the block for the four rows.
    void PackWeights() override {
        const size_t C = q_.srcC, kY = q_.kY, kX = q_.kX;
        weights_.assign(blocks_ * BlockWeightBytes(), 0);
        for (size_t c = 0; c < C; ++c) {
            const size_t u = c / kBlock, k = c % kBlock / kLanes, i = c % kLanes;
            for (size_t ky = 0; ky < kY; ++ky)
                for (size_t kx = 0; kx < kX; ++kx) {
                    const size_t g = ky / 4, j = ky % 4;
                    weights_[u * BlockWeightBytes() + ((g * kX + kx) * 4 + k) * kLanes * 4 + i * 4 +
                             j] = w8_[(c * kY + ky) * kX + kx];
                }
        }
        PadParams(1);
    }

    // Bytes of one part's scratch: the row addresses, the INT32 sums of a chunk and (NCHW) its
    // NHWC band.
    size_t PartBytes() const override {
        return AlignBytes(4 * groups_ * sizeof(void*)) + AlignBytes(kChunk * kBlock * 4) +
               (nhwc_ ? 0 : AlignBytes(kChunk * kBlock * 4));
    }

    // Output rows split over the threads.
    void ConvolveImage(const uint8_t* image, uint8_t* buf, uint8_t* dst) const override {
        const size_t parts = ThreadPartsFor(2.0 * double(q_.dstImage) * double(q_.kY * q_.kX));
        if (!ParallelPartsWithScratch(std::min(parts, q_.dstH), reinterpret_cast<float*>(buf),
                                      (PartBytes() + sizeof(float) - 1) / sizeof(float),
                                      [&](size_t part, size_t count, float* scratch) {
                                          const auto r = PartRange(q_.dstH, part, count);
                                          RunRows(image, dst, r.first, r.second,
                                                  reinterpret_cast<uint8_t*>(scratch));
                                      }))
            throw std::bad_alloc();
    }

    void RunRows(const uint8_t* image, uint8_t* dst, size_t y0, size_t y1, uint8_t* buf) const {
        const uint8_t** rows = reinterpret_cast<const uint8_t**>(buf);
        int32_t* sums = reinterpret_cast<int32_t*>(buf + AlignBytes(4 * groups_ * sizeof(void*)));
        uint8_t* band = reinterpret_cast<uint8_t*>(sums) + AlignBytes(kChunk * kBlock * 4);
        const size_t P = layout_.pixelBytes, rowBytes = rowPixels_ * P, C = q_.srcC;
        for (size_t y = y0; y < y1; ++y)
            for (size_t u = 0; u < blocks_; ++u) {
                // Kernel rows past the kernel read its first row (their weights are zero).
                for (size_t j = 0; j < 4 * groups_; ++j)
                    rows[j] =
                        image + (y * q_.sY + (j < q_.kY ? j : 0) * q_.dY) * rowBytes + u * kBlock;
                const size_t cols = std::min(kBlock, C - u * kBlock);
                const OutputParams op = ParamsAt(u * kBlock);
                for (size_t x = 0; x < q_.dstW; x += kChunk) {
                    const size_t n = std::min(kChunk, q_.dstW - x);
                    kernel_.fn(rows, groups_, q_.kX, q_.dX * P, q_.sX * P, x, n,
                               weights_.data() + u * BlockWeightBytes(), sums);
                    const size_t pixel = y * q_.dstW + x;
                    if (nhwc_) {
                        epilogue_(sums, kBlock, n, cols, op,
                                  dst + (pixel * q_.dstC + u * kBlock) * dstBytes_, q_.dstC);
                    } else {
                        epilogue_(sums, kBlock, n, cols, op, band, kBlock);
                        StoreBand(band, kBlock, n, cols, u * kBlock, pixel, dst);
                    }
                }
            }
    }

    size_t blocks_, groups_;
    DepthwiseKernel kernel_;
    std::vector<int8_t, CacheAlignedAllocator<int8_t>> weights_;
};

}  // namespace
#endif
}  // namespace conv8i

Convolution8i* Depthwise8iCreate(size_t batch, const SimdConvolutionParameters& p,
                                 SimdSynetCompatibilityType compatibility) {
#if HWY_TARGET != HWY_SCALAR
    return new conv8i::Depthwise8i(batch, p, compatibility);
#else
    (void)batch;
    (void)p;
    (void)compatibility;
    return nullptr;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
