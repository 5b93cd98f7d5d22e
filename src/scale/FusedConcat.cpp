// Fused per-channel layers whose output has another channel count than their input:
// SimdSynetFusedLayerForward4 (one input, two ReLU variants side by side: 2*C channels) and
// SimdSynetFusedLayerForward9 (concatenation of two inputs with scale, bias and ReLU, plus an
// optional plain concatenation). SUPPLEMENT.md §4.4.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "scale/FusedConcat.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/MinMax-inl.h"
#include "scale/DualLoops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// x = src + bias0[c]; first = max(0, x), second = max(0, x*scale1 + bias1).
struct Fused4Op {
    static constexpr int kParams = 1;
    float scale1, bias1;
    template <class D, class V>
    HWY_INLINE void operator()(D d, V src, V bias0, V, V& first, V& second) const {
        const V x = hn::Add(src, bias0);
        first = MaxKeepNaN(d, x, 0.0f);
        second = MaxKeepNaN(d, hn::MulAdd(x, hn::Set(d, scale1), hn::Set(d, bias1)), 0.0f);
    }
};

// first = max(0, v*scale[c] + bias[c]), second = v.
struct Fused9Op {
    static constexpr int kParams = 2;
    template <class D, class V>
    HWY_INLINE void operator()(D d, V v, V scale, V bias, V& first, V& second) const {
        first = MaxKeepNaN(d, hn::MulAdd(v, scale, bias), 0.0f);
        second = v;
    }
};

// dst: the first output of channel 0 of this call; second: that of the second kind (NHWC: unused,
// each pixel's 2*C outputs are contiguous; NCHW and blocked: plane C, or block C/block, of the
// whole output, so that a call on a range of channels writes both halves in place).
void Fused4(const float* src, const float* bias0, float scale1, float bias1, size_t channels,
            size_t spatial, size_t block, bool nhwc, float* dst, float* second) {
    const Fused4Op op{scale1, bias1};
    const size_t C = channels, S = spatial;
    if (block == 1 && !nhwc) {
        // Plane c feeds planes c of both halves.
        for (size_t c = 0; c < C; ++c)
            DualBroadcastRow<true>(op, S, src + c * S, dst + c * S, second + c * S, bias0[c], 0.0f);
    } else if (block == 1) {
        // Pixel s: C inputs, then 2*C outputs (first kind, then second kind).
        for (size_t s = 0; s < S; ++s)
            DualPatternRow<true>(op, C, src + s * C, dst + s * 2 * C, dst + s * 2 * C + C, bias0,
                                 nullptr);
    } else {
        // C is a multiple of the block: block b feeds block b of both halves.
        const size_t blocks = C / block, blockSize = S * block;
        const size_t R = PatternVectors(block);
        const bool direct = PatternIsDirect(block);
        for (size_t b = 0; b < blocks; ++b) {
            const float* params[2] = {bias0 + b * block, nullptr};
            DualBlockRun<true>(op, block, S, R, direct, src + b * blockSize, dst + b * blockSize,
                               second + b * blockSize, params);
        }
    }
}

template <bool kSecond>
void Fused9Layout(const float* src0, const float* src1, const float* scale, const float* bias,
                  size_t C0, size_t C1, size_t S, size_t block, bool nhwc, float* dst0,
                  float* dst1) {
    const Fused9Op op;
    if (block == 1 && !nhwc) {
        // The planes of src0, then those of src1; output plane c uses parameter c.
        for (size_t c = 0; c < C0; ++c)
            DualBroadcastRow<kSecond>(op, S, src0 + c * S, dst0 + c * S,
                                      SecondAt<kSecond>(dst1, c * S), scale[c], bias[c]);
        for (size_t c = 0; c < C1; ++c)
            DualBroadcastRow<kSecond>(op, S, src1 + c * S, dst0 + (C0 + c) * S,
                                      SecondAt<kSecond>(dst1, (C0 + c) * S), scale[C0 + c],
                                      bias[C0 + c]);
    } else if (block == 1) {
        // Output pixel s: C0 values of src0's pixel s, then C1 values of src1's pixel s.
        const size_t CT = C0 + C1;
        for (size_t s = 0; s < S; ++s) {
            DualPatternRow<kSecond>(op, C0, src0 + s * C0, dst0 + s * CT,
                                    SecondAt<kSecond>(dst1, s * CT), scale, bias);
            DualPatternRow<kSecond>(op, C1, src1 + s * C1, dst0 + s * CT + C0,
                                    SecondAt<kSecond>(dst1, s * CT + C0), scale + C0, bias + C0);
        }
    } else {
        // C0 is a multiple of the block: the blocks of src0, then every block of src1 (its
        // padded lanes land on the output's padded lanes).
        const size_t blocks0 = C0 / block, blocks1 = (C1 + block - 1) / block;
        const size_t blockSize = S * block;
        const size_t R = PatternVectors(block);
        const bool direct = PatternIsDirect(block);
        for (size_t b = 0; b < blocks0; ++b) {
            const float* params[2] = {scale + b * block, bias + b * block};
            DualBlockRun<kSecond>(op, block, S, R, direct, src0 + b * blockSize,
                                  dst0 + b * blockSize, SecondAt<kSecond>(dst1, b * blockSize),
                                  params);
        }
        for (size_t b = 0; b < blocks1; ++b) {
            const size_t o = (blocks0 + b) * blockSize;
            const float* params[2] = {scale + C0 + b * block, bias + C0 + b * block};
            DualBlockRun<kSecond>(op, block, S, R, direct, src1 + b * blockSize, dst0 + o,
                                  SecondAt<kSecond>(dst1, o), params);
        }
    }
}

void Fused9(const float* src0, const float* src1, const float* scale, const float* bias,
            size_t channels0, size_t channels1, size_t spatial, size_t block, bool nhwc,
            float* dst0, float* dst1) {
    if (dst1)
        Fused9Layout<true>(src0, src1, scale, bias, channels0, channels1, spatial, block, nhwc,
                           dst0, dst1);
    else
        Fused9Layout<false>(src0, src1, scale, bias, channels0, channels1, spatial, block, nhwc,
                            dst0, nullptr);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>

#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"
#include "core/ParallelElements.h"
#include "core/Validate.h"

namespace simd {
HWY_EXPORT(Fused4);
HWY_EXPORT(Fused9);
}  // namespace simd

SIMD_API void SimdSynetFusedLayerForward4(const float* src, const float* bias0, const float* scale1,
                                          const float* bias1, size_t channels, size_t spatial,
                                          float* dst, SimdTensorFormatType format) {
    simd::ClearLastError();
    simd::PerChannelShape shape{};
    // The output holds two tensors' worth of channels.
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward4", channels, spatial, format, 2,
                                  &shape))
        return;
    SIMD_FAIL_IF(channels % shape.block != 0,
                 "SimdSynetFusedLayerForward4: blocked formats need channels to be a multiple "
                 "of the block");
    if (shape.empty) return;
    SIMD_FAIL_IF(!src || !bias0 || !scale1 || !bias1 || !dst,
                 "SimdSynetFusedLayerForward4: src, bias0, scale1, bias1 and dst must not be NULL");
    // Split like the input (ParallelPerChannel): NHWC pixels own their 2*C outputs, channel c
    // of the other layouts owns plane (block) c of both halves (a single NCHW channel splits
    // its pixels, p0 on in both planes).
    const bool nhwc = format == SimdTensorFormatNhwc;
    float* second = dst + channels * spatial;
    simd::ParallelPerChannel(
        channels, spatial, format, shape.block, [&](size_t c0, size_t n, size_t p0, size_t pixels) {
            SIMD_DISPATCH(simd::Fused4)
            (src + c0 * spatial + p0 * (nhwc ? channels : 1), bias0 + c0, *scale1, *bias1, n,
             pixels, shape.block, nhwc, dst + c0 * spatial + p0 * (nhwc ? 2 * channels : 1),
             second + c0 * spatial + (nhwc ? 0 : p0));
        });
}

SIMD_API void SimdSynetFusedLayerForward9(const float* src0, const float* src1, const float* scale,
                                          const float* bias, size_t channels0, size_t channels1,
                                          size_t spatial, float* dst0, float* dst1,
                                          SimdTensorFormatType format) {
    simd::ClearLastError();
    size_t channels;
    SIMD_FAIL_IF(!simd::CheckedAdd(channels0, channels1, &channels),
                 "SimdSynetFusedLayerForward9: channels0 + channels1 overflows size_t");
    simd::PerChannelShape shape{};
    if (!simd::ValidatePerChannel("SimdSynetFusedLayerForward9", channels, spatial, format, 1,
                                  &shape))
        return;
    SIMD_FAIL_IF(channels0 % shape.block != 0,
                 "SimdSynetFusedLayerForward9: blocked formats need channels0 to be a multiple "
                 "of the block");
    if (shape.empty) return;
    // An input with no channels is never read; dst1 is optional.
    SIMD_FAIL_IF((!src0 && channels0 != 0) || (!src1 && channels1 != 0) || !scale || !bias || !dst0,
                 "SimdSynetFusedLayerForward9: src0, src1, scale, bias and dst0 must not be NULL");
    // Split over the output channels (pixels in NHWC) as ParallelPerChannel splits them; a part
    // of the channel-major layouts takes the planes (blocks) [c0, c1) of the concatenation: those
    // of src0 below channels0, then those of src1.
    const bool nhwc = format == SimdTensorFormatNhwc;
    simd::ParallelPerChannel(
        channels, spatial, format, shape.block, [&](size_t c0, size_t n, size_t p0, size_t pixels) {
            if (nhwc) {
                const size_t out = p0 * channels;
                SIMD_DISPATCH(simd::Fused9)
                (src0 ? src0 + p0 * channels0 : nullptr, src1 ? src1 + p0 * channels1 : nullptr,
                 scale, bias, channels0, channels1, pixels, shape.block, true, dst0 + out,
                 dst1 ? dst1 + out : nullptr);
                return;
            }
            // A single NCHW channel splits its pixels instead (p0 > 0, c0 == 0).
            const size_t c1 = c0 + n, mid = std::max(c0, channels0);
            const size_t n0 = std::min(c1, channels0) > c0 ? std::min(c1, channels0) - c0 : 0;
            const size_t n1 = c1 > mid ? c1 - mid : 0;
            const size_t out = c0 * spatial + p0;
            SIMD_DISPATCH(simd::Fused9)
            (n0 ? src0 + c0 * spatial + p0 : nullptr,
             n1 ? src1 + (mid - channels0) * spatial + p0 : nullptr, scale + c0, bias + c0, n0, n1,
             pixels, shape.block, false, dst0 + out, dst1 ? dst1 + out : nullptr);
        });
}
#endif  // HWY_ONCE
