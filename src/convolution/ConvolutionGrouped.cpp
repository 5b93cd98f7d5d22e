// Grouped convolution with few channels per group, NHWC, of the FP32 convolution framework
// (SUPPLEMENT.md §8): groups of G = 2, 4 or 8 input and output channels (ResNeXt's 32 groups of
// 4 or 8, RegNet's narrow groups) where a vector holds several groups.
//
// The GEMM path (nhwc-direct) computes one group at a time and pads its G outputs to a whole
// vector: 4 of 16 AVX-512 lanes are useful for G = 4. Here a vector holds L/G whole groups of
// output channels; output lane o of group g reads input channel j of g, which is input lane j
// of g's G lanes broadcast over them (Broadcast<j> within 128-bit blocks for G = 4,
// DupEven/DupOdd for 2, a table lookup for 8), so every lane of every multiply-add is useful.
// Each input vector costs G shuffles for G multiply-adds: on Intel the shuffles and half the
// FMAs share one port, so this runs at about half the FMA peak, against a quarter (G = 4) or
// half (G = 8) for the padded GEMM.
// Forward splits output rows over the threads.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/ConvolutionGrouped.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Activate-inl.h"
#include "convolution/ResidualAdd-inl.h"
#include "convolution/Convolution32f.h"
#include "convolution/ConvolutionGrouped.h"
#include "convolution/Geometry.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/IsaName.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {

using Geometry = ConvGeometry;

// One-lane vectors hold no group of two or more channels (and the scalar target has no DupOdd).
#if HWY_TARGET != HWY_SCALAR

// Output pixels per register block: kCols accumulators, G weight vectors, the input vector and
// its broadcast stay in registers (32 vector registers on AVX-512, 16 on AVX2).
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kGroupedCols = 12;
#else
constexpr size_t kGroupedCols = 8;
#endif

// Lane j of every block of kG lanes, broadcast over its block.
template <size_t kG, size_t kJ>
struct InGroup {
    template <class D, class V, class I>
    static HWY_INLINE V Broadcast(D, V v, const I* table) {
        if constexpr (kG == 2) {
            return kJ == 0 ? hn::DupEven(v) : hn::DupOdd(v);
        } else if constexpr (kG == 4) {
            return hn::Broadcast<int(kJ)>(v);  // within each 128-bit block: one group
        } else {
            return hn::TableLookupLanes(v, table[kJ]);
        }
    }
};

template <size_t kG, size_t kJ = 0, class D, class V, class I>
HWY_INLINE void AccumulateGroup(D d, const V* w, V x, const I* table, V& acc) {
    if constexpr (kJ < kG) {
        acc = hn::MulAdd(w[kJ], InGroup<kG, kJ>::Broadcast(d, x, table), acc);
        AccumulateGroup<kG, kJ + 1>(d, w, x, table, acc);
    }
}

struct GroupedArgs {
    const float* weights;  // [block][tap][j][L]
    const float* bias;
    const float* slope;  // NULL unless LeakyRelu/Prelu
    Act act;
};

// kCols output pixels (dy, dx ...) of one channel block; `kChecked`: some taps of these pixels
// fall left or right of the image (skipped; rows outside are skipped always).
template <size_t kG, size_t kCols, bool kChecked, class D, class I>
HWY_INLINE void GroupedBlock(D d, const Geometry& q, const GroupedArgs& a, const I* table,
                             const float* image, size_t block, size_t dy, size_t dx, size_t cols,
                             float* out) {
    using V = hn::Vec<D>;
    const size_t L = hn::Lanes(d), C = q.srcC, taps = q.kY * q.kX;
    const V bias = hn::LoadU(d, a.bias + block * L);
    V acc[kCols];
    for (size_t m = 0; m < kCols; ++m) acc[m] = bias;
    const float* wBlock = a.weights + block * taps * kG * L;
    for (size_t ky = 0; ky < q.kY; ++ky) {
        const ptrdiff_t sy = q.SrcY(dy, ky);
        if (sy < 0) continue;
        const float* row = image + size_t(sy) * q.srcW * C + block * L;
        for (size_t kx = 0; kx < q.kX; ++kx) {
            const float* wt = wBlock + (ky * q.kX + kx) * kG * L;
            V w[kG];
            for (size_t j = 0; j < kG; ++j) w[j] = hn::LoadU(d, wt + j * L);
            for (size_t m = 0; m < kCols; ++m) {
                if (kChecked && m >= cols) break;
                const ptrdiff_t sx = q.SrcX0(dx + m, kx);
                if (kChecked && (sx < 0 || sx >= ptrdiff_t(q.srcW))) continue;
                AccumulateGroup<kG>(d, w, hn::LoadU(d, row + size_t(sx) * C), table, acc[m]);
            }
        }
    }
    const V slope = a.slope ? hn::LoadU(d, a.slope + block * L) : hn::Zero(d);
    for (size_t m = 0; m < kCols; ++m) {
        if (kChecked && m >= cols) break;
        hn::StoreU(Activate(d, acc[m], slope, a.act), d, out + m * C + block * L);
    }
}

class GroupedNhwc : public Convolution32f {
public:
    GroupedNhwc(size_t batch, const SimdConvolutionParameters& p, size_t group)
        : Convolution32f(batch, p, nullptr), q_(p), g_(group) {
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nhwc-grouped-" + std::to_string(g_) + "x" +
                std::to_string(hn::Lanes(hn::ScalableTag<float>()));
        // Output columns whose taps all lie inside the image horizontally: [x0, x1).
        x0_ = std::min(q_.dstW, (q_.padX + q_.sX - 1) / q_.sX);
        const size_t reach = (q_.kX - 1) * q_.dX;  // last tap's offset from the first
        x1_ = q_.srcW + q_.padX >= reach + 1 ? (q_.srcW + q_.padX - reach - 1) / q_.sX + 1 : 0;
        x1_ = std::max(x0_, std::min(x1_, q_.dstW));
    }
    size_t ExternalBufferSize() const override { return 1; }

protected:
    // YXIO ([tap][j][dstC]) to [block][tap][j][L]: each block's weights in one run.
    void PackWeights(const float* yxio) override {
        const size_t L = hn::Lanes(hn::ScalableTag<float>()), taps = q_.kY * q_.kX;
        const size_t blocks = q_.dstC / L;
        weights_.assign(blocks * taps * g_ * L, 0.0f);
        for (size_t b = 0; b < blocks; ++b)
            for (size_t t = 0; t < taps; ++t)
                for (size_t j = 0; j < g_; ++j)
                    for (size_t o = 0; o < L; ++o)
                        weights_[((b * taps + t) * g_ + j) * L + o] =
                            yxio[(t * g_ + j) * q_.dstC + b * L + o];
    }
    void Run(const float* src, float*, float* dst) const override {
        RunActivated(src, dst, p_.activation);
    }
    void RunAdd(const float* src, float*, const float* add, float* dst) const override {
        RunActivated(src, dst, SimdConvolutionActivationIdentity);
        AddActivateOutput(*this, add, dst);
    }
    // The convolution with activation `type` (the context's, or the identity before a residual).
    void RunActivated(const float* src, float* dst, SimdConvolutionActivationType type) const {
        const size_t rows = batch_ * q_.dstH;
        const double flop =
            2.0 * double(batch_) * double(q_.dstImage) * double(q_.kY * q_.kX) * double(g_);
        const size_t parts = std::min(rows, ThreadPartsFor(flop));
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(rows, part, count);
            // Only the group sizes this target's vectors hold several of are compiled.
            if constexpr (HWY_LANES(float) > 2)
                if (g_ == 2) return RunRows<2>(src, dst, r.first, r.second, type);
            if constexpr (HWY_LANES(float) > 4)
                if (g_ == 4) return RunRows<4>(src, dst, r.first, r.second, type);
            if constexpr (HWY_LANES(float) > 8)
                if (g_ == 8) return RunRows<8>(src, dst, r.first, r.second, type);
        });
    }

private:
    template <size_t kG>
    void RunRows(const float* images, float* outputs, size_t r0, size_t r1,
                 SimdConvolutionActivationType type) const {
        const hn::ScalableTag<float> d;
        const size_t L = hn::Lanes(d), blocks = q_.dstC / L;
        // The lookup tables of kG = 8 (lane j of each block of 8); unused otherwise.
        using Indices = decltype(hn::SetTableIndices(d, static_cast<const int32_t*>(nullptr)));
        Indices table[kG];
        if constexpr (kG == 8) {
            HWY_ALIGN int32_t lanes[hn::MaxLanes(d)];
            for (size_t j = 0; j < kG; ++j) {
                for (size_t i = 0; i < L; ++i) lanes[i] = int32_t(i / kG * kG + j);
                table[j] = hn::SetTableIndices(d, lanes);
            }
        }
        const GroupedArgs args{weights_.data(), bias_.data(),
                               slope_.empty() ? nullptr : slope_.data(),
                               Act{type, param0_, param1_}};
        for (size_t row = r0; row < r1; ++row) {
            const size_t dy = row % q_.dstH;
            const float* image = images + row / q_.dstH * q_.srcImage;
            float* out = outputs + row / q_.dstH * q_.dstImage + dy * q_.dstW * q_.dstC;
            for (size_t b = 0; b < blocks; ++b) {
                for (size_t dx = 0; dx < x0_; ++dx)
                    GroupedBlock<kG, 1, true>(d, q_, args, table, image, b, dy, dx, 1,
                                              out + dx * q_.dstC);
                size_t dx = x0_;
                for (; dx + kGroupedCols <= x1_; dx += kGroupedCols)
                    GroupedBlock<kG, kGroupedCols, false>(d, q_, args, table, image, b, dy, dx,
                                                          kGroupedCols, out + dx * q_.dstC);
                for (; dx < q_.dstW; dx += kGroupedCols)
                    GroupedBlock<kG, kGroupedCols, true>(d, q_, args, table, image, b, dy, dx,
                                                         std::min(kGroupedCols, q_.dstW - dx),
                                                         out + dx * q_.dstC);
            }
        }
    }

    Geometry q_;
    size_t g_;        // channels per group
    size_t x0_, x1_;  // output columns with every tap inside the image
};

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace conv32f

Convolution32f* GroupedNhwcCreate(size_t batch, const SimdConvolutionParameters& p) {
#if HWY_TARGET == HWY_SCALAR
    (void)batch;
    (void)p;
    return nullptr;
#else
    const size_t L = hn::Lanes(hn::ScalableTag<float>());
    if (p.srcF != SimdTensorFormatNhwc || p.group < 2 || p.srcC != p.dstC) return nullptr;
    const size_t g = p.srcC / p.group;
    if (g != 2 && g != 4 && g != 8) return nullptr;
    // Whole groups per vector, more than one, and whole vectors per pixel (the loads of a
    // pixel's channels never reach the next pixel's).
    if (L <= g || L % g != 0 || p.srcC % L != 0) return nullptr;
    return new conv32f::GroupedNhwc(batch, p, g);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
