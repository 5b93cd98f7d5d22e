// SimdSynetLrnLayerCrossChannels (SUPPLEMENT.md §4.7): local response normalisation across
// channels, dst = src * pow(k0 + k1*sum of squares over the channel window, k2), with pow
// evaluated as exp(k2*log(x)) as the SUPPLEMENT defines it.
//
// The window sums are computed directly (2*half + 1 squares at most, clipped to the channels)
// rather than by a sliding add/subtract, so a large value leaving the window leaves no
// cancellation error behind; for the usual half = 2 that is 5 multiply-adds per element against
// the ~30 operations of log and exp.
// - NCHW: a channel's window is 2*half + 1 planes at the same spatial offset; for a strip of
//   spatial vectors the kernel walks the channels, summing squares from the window planes
//   (hot in L1: the strip is a few hundred bytes per plane) and applying pow in groups.
// - NHWC: the window runs along the contiguous channels of a pixel. Pixels are taken in
//   L1-sized chunks: first the squares of the chunk's pixels go to a zero-padded buffer, then
//   the window sums (unaligned loads at offsets 0..2*half) go to dst, then pow runs over the
//   whole chunk as one contiguous array (full vectors whatever the channel count).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lrn/Lrn.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <vector>

#include "hwy/highway.h"
#include "activation/GroupLoop-inl.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"
#include "softmax/PartialTail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace {

// Vectors per group (independent log/exp chains): measured on Zen4 (64x56x56, half 2), 8 beat
// 4 by 8-15% with AVX2 and AVX-512 alike, 2 was slower still.
constexpr size_t kLrnGroup = 8;

struct LrnCoefficients {
    float k0, k1, k2;
};

// v = log(v) for normal, positive, finite v (FLT_MIN <= v <= FLT_MAX): core's Log without its
// special-value selects (zero, negative, infinite, NaN and denormal inputs), which are a third
// of its operations. Same reduction and polynomial, so the same accuracy.
template <size_t K, class D, class V>
HWY_INLINE void LogNormalPositive(D d, V (&v)[K]) {
    const hn::RebindToSigned<D> di;
    V e[K], f[K], p[K];
    SIMD_SYNET_EACH(i, K) {
        const auto shifted = hn::Sub(hn::BitCast(di, v[i]), hn::Set(di, math::kSqrtHalfBits));
        e[i] = hn::ConvertTo(d, hn::ShiftRight<23>(shifted));
        const V m = hn::BitCast(d, hn::Add(hn::And(shifted, hn::Set(di, 0x007FFFFF)),
                                           hn::Set(di, math::kSqrtHalfBits)));
        f[i] = hn::Sub(m, hn::Set(d, 1.0f));
    }
    Horner<K, 8>(d, f, math::kLog, 1.0f, p);
    SIMD_SYNET_EACH(i, K) v[i] = hn::MulAdd(e[i], hn::Set(d, math::kLn2), hn::Mul(f[i], p[i]));
}

// Whether pow(b, -0.75) = b^-1/2 * (b^-1/2)^1/2 is computed from reciprocal square roots on
// this target: x86 SIMD targets have a 12-bit (RSQRTPS) or 14-bit (VRSQRT14PS) estimate that
// one Newton step brings to ~23 bits, about 12 operations against the ~28 of log and exp
// (results within ~5e-7 relative; AVX-512's 128-bit tails use the 12-bit estimate, so a tail
// and a full vector may differ in the last bits). Other targets' estimates are not specified
// as tightly, so they keep log and exp.
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
constexpr bool kRsqrtPow = true;
#else
constexpr bool kRsqrtPow = false;
#endif

// 1/sqrt(b) for normal positive b: the estimate y and one Newton step y + y(1 - b y^2)/2.
template <class D, class V>
HWY_INLINE V Rsqrt(D d, V b) {
    const V y = hn::ApproximateReciprocalSqrt(b);
    const V e = hn::MulAdd(hn::Mul(b, hn::Set(d, -0.5f)), hn::Mul(y, y), hn::Set(d, 0.5f));
    return hn::MulAdd(y, e, y);
}

// v = src * exp(k2 * log(k0 + k1*sum)) for K vectors of window sums `v` and inputs `x`. The
// base is normal and positive in practice (k0 > 0); groups with any other value take the
// general Log. k2 = -0.75 (beta 0.75, the usual LRN) goes through reciprocal square roots where
// kRsqrtPow says so.
template <size_t K, class D, class V>
HWY_INLINE void LrnScale(D d, const LrnCoefficients& k, const V (&x)[K], V (&v)[K]) {
    SIMD_SYNET_EACH(i, K) v[i] = hn::MulAdd(v[i], hn::Set(d, k.k1), hn::Set(d, k.k0));
    auto normal = hn::And(hn::Ge(v[0], hn::Set(d, 1.17549435e-38f)),
                          hn::Le(v[0], hn::Set(d, 3.40282347e+38f)));
    SIMD_SYNET_EACH(i, K) {
        if (i > 0)
            normal = hn::And(normal, hn::And(hn::Ge(v[i], hn::Set(d, 1.17549435e-38f)),
                                             hn::Le(v[i], hn::Set(d, 3.40282347e+38f))));
    }
    if (HWY_LIKELY(hn::AllTrue(d, normal))) {
        if (kRsqrtPow && k.k2 == -0.75f) {
            SIMD_SYNET_EACH(i, K) {
                const V y = Rsqrt(d, v[i]);  // b^-1/2
                const V z = Rsqrt(d, y);     // b^1/4
                v[i] = hn::Mul(hn::Mul(x[i], y), hn::Mul(y, z));
            }
            return;
        }
        LogNormalPositive(d, v);
    } else {
        Log(d, v);
    }
    SIMD_SYNET_EACH(i, K) v[i] = hn::Mul(v[i], hn::Set(d, k.k2));
    Exp(d, v);
    SIMD_SYNET_EACH(i, K) v[i] = hn::Mul(x[i], v[i]);
}

// NCHW: K vectors of d lanes at spatial offset `s` of every channel.
template <size_t K, class D>
HWY_INLINE void LrnStrip(D d, const float* src, size_t channels, size_t spatial, size_t half,
                         const LrnCoefficients& k, float* dst, size_t s) {
    using V = hn::Vec<D>;
    const size_t N = hn::Lanes(d);
    for (size_t c = 0; c < channels; ++c) {
        const size_t lo = c >= half ? c - half : 0;
        const size_t hi = HWY_MIN(channels, c + half + 1);
        V sum[K], x[K];
        SIMD_SYNET_EACH(i, K) sum[i] = hn::Zero(d);
        for (size_t w = lo; w < hi; ++w) {
            const float* p = src + w * spatial + s;
            SIMD_SYNET_EACH(i, K) {
                const V y = hn::LoadU(d, p + i * N);
                sum[i] = hn::MulAdd(y, y, sum[i]);
            }
        }
        SIMD_SYNET_EACH(i, K) x[i] = hn::LoadU(d, src + c * spatial + s + i * N);
        LrnScale(d, k, x, sum);
        SIMD_SYNET_EACH(i, K) hn::StoreU(sum[i], d, dst + c * spatial + s + i * N);
    }
}

void LrnNchw(const float* src, size_t channels, size_t spatial, size_t half,
             const LrnCoefficients& k, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t s = 0;
    if (spatial >= kLrnGroup * L)
        for (; s <= spatial - kLrnGroup * L; s += kLrnGroup * L)
            LrnStrip<kLrnGroup>(d, src, channels, spatial, half, k, dst, s);
    for (; s + L <= spatial; s += L) LrnStrip<1>(d, src, channels, spatial, half, k, dst, s);
    PartialTail(s, spatial, [&](auto dc, size_t j) {
        LrnStrip<1>(dc, src, channels, spatial, half, k, dst, j);
    });
}

// Applies step(d, offset) over [0, n) in full vectors, then partial tails.
template <class Step>
HWY_INLINE void ForVectors(size_t n, const Step& step) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) step(d, i);
    PartialTail(i, n, step);
}

// dst[i] = src[i] * pow(k0 + k1*dst[i], k2) over n elements, K vectors at a time.
HWY_INLINE void LrnScaleRun(const float* src, size_t n, const LrnCoefficients& k, float* dst) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    constexpr size_t K = kLrnGroup;
    size_t i = 0;
    if (n >= K * L) {
        for (; i <= n - K * L; i += K * L) {
            V v[K], x[K];
            SIMD_SYNET_EACH(j, K) v[j] = hn::LoadU(d, dst + i + j * L);
            SIMD_SYNET_EACH(j, K) x[j] = hn::LoadU(d, src + i + j * L);
            LrnScale(d, k, x, v);
            SIMD_SYNET_EACH(j, K) hn::StoreU(v[j], d, dst + i + j * L);
        }
    }
    ForVectors(n - i, [&](auto dv, size_t j) {
        using VV = hn::Vec<decltype(dv)>;
        VV v[1] = {hn::LoadU(dv, dst + i + j)};
        const VV x[1] = {hn::LoadU(dv, src + i + j)};
        LrnScale(dv, k, x, v);
        hn::StoreU(v[0], dv, dst + i + j);
    });
}

void LrnNhwc(const float* src, size_t channels, size_t spatial, size_t half,
             const LrnCoefficients& k, float* dst) {
    constexpr size_t kChunk = 2048;  // floats per chunk: src, dst and squares stay in L1
    const size_t chunkPixels = HWY_MAX(size_t(1), kChunk / channels);
    // The squares of a chunk's pixels, `half` zeros before each pixel and after the last:
    // every window is then a plain sum of 2*half + 1 unaligned loads. All squares of a chunk
    // are written before any is summed, so the sums (loads at other alignments than the
    // stores) do not wait on store forwarding.
    const size_t stride = channels + half;
    const size_t bufferFloats = half + chunkPixels * stride;
    constexpr size_t kStackFloats = 8192;
    HWY_ALIGN float stackBuffer[kStackFloats];
    std::vector<float> heapBuffer;
    float* squares = stackBuffer;
    if (bufferFloats > kStackFloats) {
        heapBuffer.resize(bufferFloats);
        squares = heapBuffer.data();
    }
    // The gaps stay zero: only the channel slots are ever written.
    ForVectors(bufferFloats, [&](auto dv, size_t i) { hn::StoreU(hn::Zero(dv), dv, squares + i); });
    const size_t window = 2 * half + 1;
    for (size_t p0 = 0; p0 < spatial; p0 += chunkPixels) {
        const size_t pixels = HWY_MIN(chunkPixels, spatial - p0);
        const float* s = src + p0 * channels;
        float* t = dst + p0 * channels;
        for (size_t p = 0; p < pixels; ++p) {
            const float* x = s + p * channels;
            float* slot = squares + half + p * stride;
            ForVectors(channels, [&](auto dv, size_t c) {
                const auto y = hn::LoadU(dv, x + c);
                hn::StoreU(hn::Mul(y, y), dv, slot + c);
            });
        }
        for (size_t p = 0; p < pixels; ++p) {
            const float* first = squares + p * stride;  // window start of channel 0
            float* sums = t + p * channels;
            ForVectors(channels, [&](auto dv, size_t c) {
                auto sum = hn::LoadU(dv, first + c);
                for (size_t w = 1; w < window; ++w)
                    sum = hn::Add(sum, hn::LoadU(dv, first + c + w));
                hn::StoreU(sum, dv, sums + c);
            });
        }
        LrnScaleRun(s, pixels * channels, k, t);
    }
}

}  // namespace

void LrnLayerCrossChannels(const float* src, size_t half, size_t channels, size_t spatial,
                           const float* k, bool nhwc, float* dst) {
    const LrnCoefficients coefficients{k[0], k[1], k[2]};
    // A window wider than the channels clips to the same sums as half = channels - 1 (and
    // c + half + 1 can no longer overflow).
    half = HWY_MIN(half, channels - 1);
    if (nhwc)
        LrnNhwc(src, channels, spatial, half, coefficients, dst);
    else
        LrnNchw(src, channels, spatial, half, coefficients, dst);
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
HWY_EXPORT(LrnLayerCrossChannels);
}  // namespace simd

SIMD_API void SimdSynetLrnLayerCrossChannels(const float* src, size_t half, size_t channels,
                                             size_t spatial, const float* k, float* dst,
                                             SimdTensorFormatType format) {
    simd::ClearLastError();
    SIMD_FAIL_IF(format != SimdTensorFormatNchw && format != SimdTensorFormatNhwc,
                 "SimdSynetLrnLayerCrossChannels: format must be Nchw or Nhwc");
    if (channels == 0 || spatial == 0) return;
    SIMD_FAIL_IF(!src || !k || !dst,
                 "SimdSynetLrnLayerCrossChannels: src, k and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(channels, spatial, sizeof(float)),
                 "SimdSynetLrnLayerCrossChannels: channels * spatial * sizeof(float) overflows "
                 "size_t");
    // Both layouts put one pixel's channels contiguously when spatial == 1 and one channel's
    // pixels contiguously when channels == 1 (SUPPLEMENT.md §2.3): take the same code path
    // for either tag so the results are identical.
    const bool nhwc = spatial == 1 || (format == SimdTensorFormatNhwc && channels > 1);
    SIMD_DISPATCH(simd::LrnLayerCrossChannels)(src, half, channels, spatial, k, nhwc, dst);
}
#endif  // HWY_ONCE
