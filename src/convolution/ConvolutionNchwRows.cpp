// NCHW row convolution (SUPPLEMENT.md §8) for first layers: 3x3 with one column of left
// padding, stride 2 or stride 1 ("same" across), over a few input channels, straight from the
// NCHW image into the NCHW output. Vectors hold output columns of one output row: each window
// row of each input channel gives its three tap vectors (RowTaps-inl.h: deinterleaved in
// registers for stride 2, loaded one column off for stride 1), and every tap vector is
// multiplied into a block of output channels at once, the weights broadcast from memory. No
// transposes and no im2col. Through NHWC, (e) 3x3 s2 3->32 224x224 spent a quarter of its time
// transposing, and a 3x3 s1 3->64 224x224 layer more than half (its output is 12.8 MB).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/ConvolutionNchwRows.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Activate-inl.h"
#include "convolution/ResidualAdd-inl.h"
#include "convolution/Convolution32f.h"
#include "convolution/ConvolutionNchwRows.h"
#include "convolution/Geometry.h"
#include "convolution/RowTaps-inl.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "core/IsaName.h"
#include "core/ThreadPool.h"
#include "core/VectorSteps-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {

using Geometry = ConvGeometry;

// Output channels per block: their accumulators, the three tap vectors and the two source
// vectors fit the vector registers (32 on AVX-512, 16 elsewhere).
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kRowChannels = 16;
#else
constexpr size_t kRowChannels = 8;
#endif
// Input channels the row convolution takes (first layers: gray, RGB, RGBA and a few more).
constexpr size_t kNchwRowsMaxSrcC = 8;

// One vector of output columns at x0 of one output row x kRowChannels output channels.
// rows[ci * 3 + ky]: window row ky of input channel ci (a zero row outside the image); w: the
// block's weights, [ci][ky][kx][kRowChannels]; bias, slope: kRowChannels each; out: the row of
// the block's first channel, the others `plane` floats apart; only the first `channels` are
// stored. kFirst, kLast: x0 is the row's first / last vector (their taps read the padding;
// kLast matters to stride 1 only). Each sum runs bias, then the taps in kernel order.
template <size_t kStride, EpilogueKind kKind, bool kFirst, bool kLast, class DV>
HWY_INLINE void NchwRowsBlock(DV dv, const float* const* rows, size_t srcC, size_t x0,
                              const float* HWY_RESTRICT w, const float* bias, const float* slope,
                              const Act& act, float* HWY_RESTRICT out, size_t plane,
                              size_t channels) {
    using V = hn::Vec<DV>;
    V acc[kRowChannels];
#pragma GCC unroll 16
    for (size_t c = 0; c < kRowChannels; ++c) acc[c] = hn::Set(dv, bias[c]);
    for (size_t ci = 0; ci < srcC; ++ci) {
#pragma GCC unroll 3
        for (size_t ky = 0; ky < 3; ++ky) {
            const Taps3<V> t = kStride == 2 ? Taps3x3s2<kFirst>(dv, rows[ci * 3 + ky], x0)
                                            : Taps3x3s1<kFirst, kLast>(dv, rows[ci * 3 + ky], x0);
            const float* wk = w + (ci * 3 + ky) * 3 * kRowChannels;
            // Channel by channel within each tap: an accumulator's FMAs are kRowChannels apart.
#pragma GCC unroll 16
            for (size_t c = 0; c < kRowChannels; ++c)
                acc[c] = hn::MulAdd(t.left, hn::Set(dv, wk[c]), acc[c]);
#pragma GCC unroll 16
            for (size_t c = 0; c < kRowChannels; ++c)
                acc[c] = hn::MulAdd(t.mid, hn::Set(dv, wk[kRowChannels + c]), acc[c]);
#pragma GCC unroll 16
            for (size_t c = 0; c < kRowChannels; ++c)
                acc[c] = hn::MulAdd(t.right, hn::Set(dv, wk[2 * kRowChannels + c]), acc[c]);
        }
    }
#pragma GCC unroll 16
    for (size_t c = 0; c < kRowChannels; ++c)
        if (c < channels)
            hn::StoreU(ActivateKind<kKind>(dv, acc[c], act,
                                           [&]() HWY_ATTR { return hn::Set(dv, slope[c]); }),
                       dv, out + c * plane + x0);
}

// Every column of one output row for one block of output channels (see NchwRowsBlock): whole
// vectors, then 8- and 4-lane ones, then single columns.
template <size_t kStride, EpilogueKind kKind>
HWY_INLINE void NchwRowsRow(const float* const* rows, size_t srcC, const float* w,
                            const float* bias, const float* slope, const Act& act, float* out,
                            size_t plane, size_t channels, size_t dstW) {
    ForEachVectorStep(hn::ScalableTag<float>(), dstW, [&](auto dv, size_t x) HWY_ATTR {
        constexpr size_t L = hn::MaxLanes(decltype(dv)());
        // The row's first and last vectors read the padding (kLast only matters to stride 1).
        auto block = [&](auto first, auto last) HWY_ATTR {
            NchwRowsBlock<kStride, kKind, decltype(first)::value, decltype(last)::value>(
                dv, rows, srcC, x, w, bias, slope, act, out, plane, channels);
        };
        const std::true_type yes;
        const std::false_type no;
        const bool last = kStride == 1 && x + L == dstW;
        if (x == 0)
            last ? block(yes, yes) : block(yes, no);
        else
            last ? block(no, yes) : block(no, no);
    });
}

class NchwRows : public Convolution32f {
public:
    NchwRows(size_t batch, const SimdConvolutionParameters& p)
        : Convolution32f(batch, p, nullptr), q_(p) {
        blocks_ = (q_.dstC + kRowChannels - 1) / kRowChannels;
        zeroRow_.assign(q_.srcW, 0.0f);
        zeros_.assign(kRowChannels, 0.0f);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nchw-rows-3x3s" + std::to_string(q_.sX) +
                "-" + std::to_string(kRowChannels);
    }
    size_t ExternalBufferSize() const override { return 1; }

protected:
    // [block][ci][ky][kx][kRowChannels] from OIYX; bias and slope padded to whole blocks.
    void PackWeights(const float* w) override {
        const size_t K = q_.srcC * 9, channels = blocks_ * kRowChannels;
        weights_.assign(channels * K, 0.0f);
        for (size_t dc = 0; dc < q_.dstC; ++dc)
            for (size_t k = 0; k < K; ++k)
                weights_[((dc / kRowChannels) * K + k) * kRowChannels + dc % kRowChannels] =
                    w[dc * K + k];
        bias_.resize(channels, 0.0f);
        if (!slope_.empty()) slope_.resize(channels, 0.0f);
    }
    void Run(const float* src, float*, float* dst) const override {
        RunActivated(src, dst, p_.activation);
    }
    void RunAdd(const float* src, float*, const float* add, float* dst) const override {
        RunActivated(src, dst, SimdConvolutionActivationIdentity);
        AddActivateOutput(*this, add, dst);
    }
    // The convolution with activation `type` (the context's, or the identity before a
    // residual). Threads take ranges of the output rows of the batch.
    void RunActivated(const float* src, float* dst, SimdConvolutionActivationType type) const {
        const size_t rows = batch_ * q_.dstH;
        const double flop = 2.0 * double(rows) * double(q_.dstW * q_.dstC * q_.srcC * 9);
        const size_t parts = std::min(rows, ThreadPartsFor(flop));
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto range = PartRange(rows, part, count);
            for (size_t r = range.first; r < range.second; ++r) Row(src, dst, r, type);
        });
    }
    // Output row r of the batch (image r / dstH), every channel.
    void Row(const float* src, float* dst, size_t r, SimdConvolutionActivationType type) const {
        const size_t b = r / q_.dstH, dy = r % q_.dstH, plane = q_.srcH * q_.srcW;
        const float* image = src + b * q_.srcImage;
        const float* rows[3 * kNchwRowsMaxSrcC];
        for (size_t ci = 0; ci < q_.srcC; ++ci)
            for (size_t ky = 0; ky < 3; ++ky) {
                const ptrdiff_t sy = ptrdiff_t(dy * q_.sY + ky) - ptrdiff_t(q_.padY);
                rows[ci * 3 + ky] = sy >= 0 && sy < ptrdiff_t(q_.srcH)
                                        ? image + ci * plane + size_t(sy) * q_.srcW
                                        : zeroRow_.data();
            }
        float* out = dst + b * q_.dstImage + dy * q_.dstW;
        const Act act{type, param0_, param1_};
        // Cheap activations are applied in the blocks' stores, written out for the activation;
        // the others in a pass over the finished row, which also adds the bias.
        const bool cheap = ActivationIsCheap(act.type);
        const size_t K = q_.srcC * 9;
        auto blocks = [&](auto stride, auto kind) HWY_ATTR {
            for (size_t block = 0; block < blocks_; ++block) {
                const size_t c0 = block * kRowChannels;
                const size_t channels = std::min(kRowChannels, q_.dstC - c0);
                NchwRowsRow<decltype(stride)::value, decltype(kind)::value>(
                    rows, q_.srcC, weights_.data() + c0 * K,
                    cheap ? bias_.data() + c0 : zeros_.data(),
                    slope_.empty() ? zeros_.data() : slope_.data() + c0, act, out + c0 * q_.pixels,
                    q_.pixels, channels, q_.dstW);
            }
        };
        WithEpilogueKind(cheap ? act.type : SimdConvolutionActivationIdentity,
                         [&](auto kind) HWY_ATTR {
                             if (q_.sX == 1)
                                 blocks(std::integral_constant<size_t, 1>(), kind);
                             else
                                 blocks(std::integral_constant<size_t, 2>(), kind);
                         });
        if (!cheap)
            for (size_t c = 0; c < q_.dstC; ++c)
                BiasActivatePlane(out + c * q_.pixels, q_.dstW, bias_[c],
                                  slope_.empty() ? 0.0f : slope_[c], act);
    }

    Geometry q_;
    size_t blocks_;
    std::vector<float> zeroRow_;  // the source row above or below the image
    std::vector<float> zeros_;    // kRowChannels zeros: bias and slope where none applies
};

}  // namespace conv32f

bool NchwRowsFits(const SimdConvolutionParameters& p) {
    // With fewer than 8 lanes the shuffles weigh more per FMA: (e) 3x3 s2 3->32 224x224 took
    // 624 us on SSE4 against 574 through NHWC (AVX2 219 vs 228, AVX-512 110 vs 144).
    if (hn::MaxLanes(hn::ScalableTag<float>()) < 8) return false;
    const conv32f::Geometry q(p);
    // Stride 2: every tap column inside the row; stride 1: "same" padding across.
    const bool stride2 = q.sY == 2 && q.sX == 2 && 2 * q.dstW <= q.srcW;
    const bool stride1 = q.sY == 1 && q.sX == 1 && q.dstW == q.srcW;
    return q.G == 1 && q.kY == 3 && q.kX == 3 && (stride1 || stride2) && q.dY == 1 && q.dX == 1 &&
           q.padX == 1 && q.srcC <= conv32f::kNchwRowsMaxSrcC;
}

Convolution32f* NchwRowsCreate(size_t batch, const SimdConvolutionParameters& p) {
    return new conv32f::NchwRows(batch, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
