// Depthwise 3x3 INT8 convolution of NCHW tensors with fewer than 32 channels, stride 1 or 2, no
// dilation, any padding (SUPPLEMENT.md §11), on the SIMD targets: straight on the channel planes,
// with no transposes.
//
// A 32-bit lane holds four neighbouring bytes of an image row and the weight word the three
// weights of a kernel row and a zero, so one dot product adds a kernel row of one output: the
// lanes of a vector loaded at x give outputs x, x + 4, x + 8, ... (stride 1; four loads per row
// cover four times as many outputs), and three dot products per vector complete them
// (Kernels8i.h, DepthwisePlaneRow8i). The three rows are copies of image rows with the zero
// point on the padded columns (and whole rows of it above and below the image), kept while the
// next output rows read them. Parameters are per channel, so the epilogue works in the lanes'
// order and puts the outputs in place at the store: on x86 UINT8 outputs of stride 1 come out
// of the saturating packs in order after one byte shuffle per 128-bit block.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution8i/DepthwiseNchw8i.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution8i/Convolution8i.h"
#include "convolution8i/Depthwise8i.h"
#include "convolution8i/Dot8i-inl.h"
#include "convolution8i/Epilogue8i-inl.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "convolution/Geometry.h"
#include "core/CpuFeatures.h"
#include "core/IsaName.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// conversion/Quantize.cpp: the §7.4 rule over a tensor.
void Convert32fTo8u(const float* src, size_t batch, size_t channels, size_t spatial, bool nhwc,
                    const float* scale, const float* shift, uint32_t upper, uint8_t* dst);

namespace conv8i {

#include "convolution8i/Kernels8i.h"  // conv8i::plain and (AVX3) conv8i::vnni

#if HWY_TARGET != HWY_SCALAR
namespace {

constexpr size_t kLanes = hn::MaxLanes(D32());
constexpr size_t kGroup = 4 * kLanes;  // outputs per group of four vectors

using PlaneFn = void (*)(const uint8_t* const*, const int32_t*, size_t, int32_t*);

struct PlaneKernel {
    PlaneFn fn;
    const char* dot;
};

template <class Dot>
PlaneKernel PlainPlane(size_t stride, const char* dot) {
    return {stride == 1 ? &plain::DepthwisePlaneRow8i<Dot, 1> : &plain::DepthwisePlaneRow8i<Dot, 2>,
            dot};
}

// An exact dot product in every mode (no channel pairs in a depthwise layer).
PlaneKernel ChoosePlane(const Int8Mode& m, size_t stride) {
#if HWY_TARGET == HWY_AVX3
    if (CpuHasAvx512Vnni())
        return {stride == 1 ? &vnni::DepthwisePlaneRow8i<vnni::DotVnni, 1>
                            : &vnni::DepthwisePlaneRow8i<vnni::DotVnni, 2>,
                "vnni"};
#endif
#if SIMD_SYNET_INT8_X86
    if (m.narrowed) return PlainPlane<DotMaddubs>(stride, "maddubs");
#endif
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
    return PlainPlane<DotSplit>(stride, "maddubs2");
#else
    (void)m;
    return PlainPlane<DotWiden<false> >(stride, "widen");
#endif
}

// The output of element j of vector v of a group (DepthwisePlaneRow8i's order).
inline size_t PlaneOrder8i(size_t stride, size_t v, size_t j) {
    return stride == 1 ? 4 * j + v : 2 * kLanes * (v / 2) + 2 * j + v % 2;
}

class DepthwiseNchw8i : public Convolution8i {
public:
    DepthwiseNchw8i(size_t batch, const SimdConvolutionParameters& p, SimdSynetCompatibilityType c)
        : Convolution8i(batch, p, c), q_(p) {
        dstBytes_ = p.dstT == SimdTensorData8u ? 1 : 4;
        kernel_ = ChoosePlane(mode_, q_.sX);
        // A padded row: the left padding, the image row, then zero points past the last byte
        // any group of outputs reads.
        rowBytes_ = RoundUp(2 * RoundUp(q_.dstW, kGroup) + 64, 64);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nchw-depthwise-3x3s" +
                std::to_string(q_.sX) + "-planes-" + kernel_.dot;
    }

    size_t ExternalBufferSize() const override {
        return (PlanesBytes() + PartBytes() + sizeof(float) - 1) / sizeof(float);
    }

protected:
    size_t PackedBytes() const override { return words_.size() * sizeof(int32_t); }
    size_t PlanesBytes() const {
        return p_.srcT == SimdTensorData32f ? RoundUp(q_.srcImage, 64) : 0;
    }
    // Three padded rows, the sums of one output row and the lanes' outputs of one group.
    size_t PartBytes() const { return 3 * rowBytes_ + RoundUp(q_.dstW, kGroup) * 4 + kGroup * 4; }

    // Per channel and kernel row: the three weights and a zero.
    void PackWeights() override {
        words_.assign(q_.srcC * 3, 0);
        for (size_t c = 0; c < q_.srcC; ++c)
            for (size_t ky = 0; ky < 3; ++ky) {
                uint8_t bytes[4] = {0, 0, 0, 0};
                for (size_t kx = 0; kx < 3; ++kx) bytes[kx] = uint8_t(w8_[(c * 3 + ky) * 3 + kx]);
                std::memcpy(&words_[c * 3 + ky], bytes, 4);
            }
    }

    void Run(const uint8_t* src, uint8_t* buf, uint8_t* dst) const override {
        const size_t C = q_.srcC, plane = q_.srcH * q_.srcW;
        const bool f32 = p_.srcT == SimdTensorData32f;
        const size_t srcImage = q_.srcImage * (f32 ? 4 : 1), dstImage = q_.dstImage * dstBytes_;
        const size_t parts =
            ThreadPartsFor(2.0 * double(q_.dstImage) * 9.0 + double(q_.srcImage) * 8.0);
        for (size_t b = 0; b < batch_; ++b, src += srcImage, dst += dstImage) {
            const uint8_t* planes = src;
            if (f32) {
                const float* srcF = reinterpret_cast<const float*>(src);
                ParallelParts(std::min(parts, C), [&](size_t part, size_t count) {
                    const auto r = PartRange(C, part, count);
                    Convert32fTo8u(srcF + r.first * plane, 1, r.second - r.first, plane, false,
                                   srcScale_.data() + r.first, srcShift_.data() + r.first,
                                   uint32_t(mode_.uMax), buf + r.first * plane);
                });
                planes = buf;
            }
            if (!ParallelPartsWithScratch(
                    std::min(parts, C), reinterpret_cast<float*>(buf + PlanesBytes()),
                    (PartBytes() + sizeof(float) - 1) / sizeof(float),
                    [&](size_t part, size_t count, float* scratch) {
                        const auto r = PartRange(C, part, count);
                        for (size_t c = r.first; c < r.second; ++c)
                            RunChannel(planes + c * plane, c, reinterpret_cast<uint8_t*>(scratch),
                                       dst + c * q_.pixels * dstBytes_);
                    }))
                throw std::bad_alloc();
        }
    }

    void RunChannel(const uint8_t* image, size_t c, uint8_t* buf, uint8_t* dst) const {
        uint8_t* rows[3] = {buf, buf + rowBytes_, buf + 2 * rowBytes_};
        int32_t* sums = reinterpret_cast<int32_t*>(buf + 3 * rowBytes_);
        uint8_t* lanes = reinterpret_cast<uint8_t*>(sums + RoundUp(q_.dstW, kGroup));
        // The padded columns stay the zero point; only the image columns change (FillRow).
        std::memset(buf, srcZero_, 3 * rowBytes_);
        // The image row each buffer holds (none at first): an output row's three rows are
        // found or read into a buffer that holds none of them.
        ptrdiff_t held[3] = {PTRDIFF_MIN, PTRDIFF_MIN, PTRDIFF_MIN};
        const uint8_t* r[3];
        for (size_t y = 0; y < q_.dstH; ++y) {
            ptrdiff_t need[3];
            for (size_t ky = 0; ky < 3; ++ky)
                need[ky] = ptrdiff_t(y * q_.sY + ky) - ptrdiff_t(q_.padY);
            for (size_t ky = 0; ky < 3; ++ky) {
                size_t i = 0;
                while (i < 3 && held[i] != need[ky]) ++i;
                if (i == 3) {
                    i = 0;
                    while (held[i] == need[0] || held[i] == need[1] || held[i] == need[2]) ++i;
                    FillRow(image, need[ky], rows[i]);
                    held[i] = need[ky];
                }
                r[ky] = rows[i];
            }
            kernel_.fn(r, words_.data() + c * 3, q_.dstW, sums);
            // Rows before the plane's last may store whole groups past their end (the next row
            // is this thread's and is written next).
            const bool last = y + 1 == q_.dstH;
            Store(sums, c, dst + y * q_.dstW * dstBytes_, lanes, last ? 0 : q_.dstW);
        }
    }

    // The image columns of `row` (from padded column padX): image row sy, or the zero point
    // above and below the image.
    void FillRow(const uint8_t* image, ptrdiff_t sy, uint8_t* row) const {
        const size_t left = std::min(q_.padX, rowBytes_);
        const size_t n = std::min(q_.srcW, rowBytes_ - left);
        if (sy < 0 || sy >= ptrdiff_t(q_.srcH))
            std::memset(row + left, srcZero_, n);
        else
            CopyBytes(image + size_t(sy) * q_.srcW, n, row + left);
    }

    // n bytes: whole vectors, the last one overlapping its predecessor.
    static void CopyBytes(const uint8_t* from, size_t n, uint8_t* to) {
        const hn::ScalableTag<uint8_t> d8;
        const size_t L = hn::Lanes(d8);
        if (n < L) {
            std::memcpy(to, from, n);
            return;
        }
        for (size_t i = 0; i + L < n; i += L) hn::StoreU(hn::LoadU(d8, from + i), d8, to + i);
        hn::StoreU(hn::LoadU(d8, from + n - L), d8, to + n - L);
    }

    // The outputs of one row from the sums in DepthwisePlaneRow8i's order; `slack` bytes past
    // the row may be overwritten (only the x86 in-order store uses that).
    void Store(const int32_t* sums, size_t c, uint8_t* dst, uint8_t* lanes,
               [[maybe_unused]] size_t slack) const {
        const hn::ScalableTag<float> d;
        const hn::RebindToSigned<decltype(d)> di;
        const size_t L = kLanes, W = q_.dstW, stride = q_.sX;
        const conv32f::Act act{p_.activation, param0_, param1_};
        const auto norm = hn::Set(d, norm_[c]), bias = hn::Set(d, bias_[c]);
        const auto slope = hn::Set(d, slope_.empty() ? 0.0f : slope_[c]);
        const auto scale = hn::Set(d, dstScale_.empty() ? 0.0f : dstScale_[c]);
        const auto zero = hn::Set(d, float(dstZero_)), upper = hn::Set(d, float(mode_.uMax));
        for (size_t x0 = 0; x0 < W; x0 += kGroup, sums += kGroup) {
            const size_t n = std::min(kGroup, W - x0);
            hn::Vec<decltype(d)> y[4];
            for (size_t v = 0; v < 4; ++v) {
                const auto sum = hn::ConvertTo(d, hn::LoadU(di, sums + v * L));
                y[v] = Activate8iAny(d, hn::Add(hn::Mul(sum, norm), bias), slope, act);
            }
            if (dstBytes_ == 4) {
                float* out = reinterpret_cast<float*>(dst) + x0;
                float* f = reinterpret_cast<float*>(lanes);
                for (size_t v = 0; v < 4; ++v) hn::StoreU(y[v], d, f + v * L);
                for (size_t v = 0; v < 4; ++v)
                    for (size_t j = 0; j < L; ++j) {
                        const size_t x = PlaneOrder8i(stride, v, j);
                        if (x < n) out[x] = f[v * L + j];
                    }
                continue;
            }
            decltype(QuantizeOutput(d, y[0], scale, zero, upper)) q[4];
            for (size_t v = 0; v < 4; ++v) q[v] = QuantizeOutput(d, y[v], scale, zero, upper);
#if SIMD_SYNET_INT8_X86
            if (stride == 1) {
                StoreInOrder(q, dst + x0, x0 + kGroup <= W + slack ? kGroup : n);
                continue;
            }
#endif
            const hn::Rebind<uint8_t, decltype(d)> du8;
            for (size_t v = 0; v < 4; ++v) hn::StoreU(hn::DemoteTo(du8, q[v]), du8, lanes + v * L);
            for (size_t v = 0; v < 4; ++v)
                for (size_t j = 0; j < L; ++j) {
                    const size_t x = PlaneOrder8i(stride, v, j);
                    if (x < n) dst[x0 + x] = lanes[v * L + j];
                }
        }
    }

#if SIMD_SYNET_INT8_X86
    // Stride 1: vector v lane j is output 4j + v; the saturating packs put vector v's lanes
    // 4b..4b+3 at bytes 4v..4v+3 of 128-bit block b, so byte 4v + i of the block is output
    // 16b + 4i + v, and one byte shuffle per block restores the order.
    template <class VI>
    static void StoreInOrder(const VI* q, uint8_t* to, size_t n) {
        alignas(16) static constexpr uint8_t kOrder[16] = {0, 4, 8,  12, 1, 5, 9,  13,
                                                           2, 6, 10, 14, 3, 7, 11, 15};
#if HWY_TARGET == HWY_AVX3
        const __m512i packed = _mm512_packus_epi16(_mm512_packs_epi32(q[0].raw, q[1].raw),
                                                   _mm512_packs_epi32(q[2].raw, q[3].raw));
        const __m512i bytes = _mm512_shuffle_epi8(
            packed,
            _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(kOrder))));
        if (n == 64) return _mm512_storeu_si512(to, bytes);
        alignas(64) uint8_t part[64];
        _mm512_store_si512(part, bytes);
#elif HWY_TARGET == HWY_AVX2
        const __m256i packed = _mm256_packus_epi16(_mm256_packs_epi32(q[0].raw, q[1].raw),
                                                   _mm256_packs_epi32(q[2].raw, q[3].raw));
        const __m256i bytes = _mm256_shuffle_epi8(
            packed,
            _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kOrder))));
        if (n == 32) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), bytes);
        alignas(32) uint8_t part[32];
        _mm256_store_si256(reinterpret_cast<__m256i*>(part), bytes);
#else
        const __m128i packed = _mm_packus_epi16(_mm_packs_epi32(q[0].raw, q[1].raw),
                                                _mm_packs_epi32(q[2].raw, q[3].raw));
        const __m128i bytes =
            _mm_shuffle_epi8(packed, _mm_load_si128(reinterpret_cast<const __m128i*>(kOrder)));
        if (n == 16) return _mm_storeu_si128(reinterpret_cast<__m128i*>(to), bytes);
        alignas(16) uint8_t part[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(part), bytes);
#endif
        std::memcpy(to, part, n);
    }
#endif

    ConvGeometry q_;
    size_t dstBytes_, rowBytes_;
    PlaneKernel kernel_;
    std::vector<int32_t> words_;
};

}  // namespace
#endif
}  // namespace conv8i

Convolution8i* DepthwiseNchw8iCreate(size_t batch, const SimdConvolutionParameters& p,
                                     SimdSynetCompatibilityType compatibility) {
#if HWY_TARGET != HWY_SCALAR
    // From 32 channels on, the NHWC rings over transposed images (Depthwise8i) are faster: on
    // Zen 5, 1 thread, UINT8, planes against rings in us a call: 256 channels 56x56 393 / 170,
    // 192 at 28x28 166 / 46, 512 at 7x7 111 / 14, 96 at 112x112 stride 2 277 / 135, 32 at
    // 112x112 133 / 121 (AVX2 136 / 101, SSE4 234 / 198); with fewer, a block of the rings is
    // mostly padding: 24 at 56x56 37 / 54, 16 at 112x112 66 / 110, 3 at 224x224 37 / 669.
    const bool fits = p.srcF == SimdTensorFormatNchw && p.kernelY == 3 && p.kernelX == 3 &&
                      p.dilationY == 1 && p.dilationX == 1 && p.strideY == p.strideX &&
                      (p.strideX == 1 || p.strideX == 2) && p.srcC < 32;
    if (fits) return new conv8i::DepthwiseNchw8i(batch, p, compatibility);
#else
    (void)batch;
    (void)p;
    (void)compatibility;
#endif
    return nullptr;
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
