// The disjoint-patch algorithm of the deconvolution frameworks (Info "nhwc-direct-RxC",
// "nchw-via-nhwc-direct-RxC"): stride == kernel, dense, no padding, so every source pixel owns
// a disjoint kY x kX x dstC output patch and each kernel row is one GEMM written straight into
// the output rows (ldc = kX*dstC): no column buffer, no scatter; tiles sized to the source row,
// bias and cheap activations in their store. NCHW (FP32) packs its source blocks from the
// channel planes and transposes each source row's output patch into them, in L1.
//
// Threads: Forward splits the source rows over the thread budget (each owns its output rows).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deconvolution/DeconvolutionNhwcDirect.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "deconvolution/Algorithms.h"
#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "convolution/ImageTranspose-inl.h"
#include "core/Bf16-inl.h"
#include "deconvolution/ElementTypes-inl.h"
#include "deconvolution/NchwViaNhwc-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/ThreadPool.h"
#include "gemm/GemmBlocking.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

using conv32f::Act;
using conv32f::ActivationIsCheap;
using conv32f::BiasActivatePixels;
using conv32f::WithConvEpilogue;

// NHWC with disjoint patches: per source row and kernel row, one GEMM into the output row.
class NhwcDirect : public Deconvolution32f {
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NhwcDirect(size_t batch, const SimdConvolutionParameters& p, bool bf16)
        : Deconvolution32f(batch, p, nullptr, bf16), q_(p) {
        N_ = q_.kX * q_.dstC;
        // Each GEMM has one source row (srcW pixels) of A rows: on AVX-512 the 14 x 2-vector
        // tile where it wastes fewer rows than the 6 x 4 one (a 28-pixel row is 2 tiles of 14
        // against 5 of 6, one of them two-thirds empty). With bias and activation in the
        // store, 2x2 s2 on Zen 5: 128->64 28x28 250 -> 211-223 us, 32->16 56x56 173 -> 92 us.
        narrow_ = T::kVecs == 4 && RoundUp(q_.srcW, kNarrowRows) < RoundUp(q_.srcW, T::kRows);
        mr_ = narrow_ ? kNarrowRows : T::kRows;
        nr_ = narrow_ ? 2 * T::kLanes : T::kCols;
        nPad_ = RoundUp(N_, nr_);
        blocks_ = GemmChooseBlocks(q_.srcW, N_, q_.srcC, mr_, nr_);
        info_ = std::string(TargetIsa()) + "::nhwc-direct-" + std::to_string(mr_) + "x" +
                std::to_string(nr_) + TypeSuffix(*this);
    }
    size_t ExternalBufferSize() const override {
        return std::max<size_t>(1, PackFloats() + StageFloats());
    }

protected:
    // The packed A block of mr_-row micro-panels.
    size_t PackFloats() const { return GemmPackedASize<D>(blocks_.mc, blocks_.kc, mr_); }
    // Packed B of kernel row ky, column block j, K chunk k.
    size_t BOffset(size_t ky, size_t j, size_t k, size_t nc) const {
        return ky * q_.srcC * nPad_ + j * q_.srcC + k * RoundUp(nc, nr_);
    }
    // A BF16 or an NCHW destination: the kY output rows of one source row are computed in FP32
    // here, then rounded once or transposed to channel planes while they are in L1.
    size_t StageFloats() const { return dstBf16_ || nchw_ ? q_.kY * q_.dstW * q_.dstC : 0; }
    void PackWeights(const float* weight) override {
        std::vector<float> rounded;
        const float* w = FrameworkWeights(*this, weight, q_.srcC * q_.K * q_.dstC, rounded);
        const D d;
        const size_t ld = q_.K * q_.dstC;
        weights_.assign(q_.kY * q_.srcC * nPad_, 0.0f);
        for (size_t ky = 0; ky < q_.kY; ++ky)
            for (size_t j = 0; j < N_; j += blocks_.nc) {
                const size_t nc = std::min(blocks_.nc, N_ - j);
                for (size_t k = 0; k < q_.srcC; k += blocks_.kc) {
                    const size_t kc = std::min(blocks_.kc, q_.srcC - k);
                    const float* from = w + k * ld + ky * N_ + j;
                    float* to = weights_.data() + BOffset(ky, j, k, nc);
                    if (narrow_)
                        GemmPackB<D, 2 * T::kLanes>(d, kc, nc, from, ld, to);
                    else
                        GemmPackB(d, kc, nc, from, ld, to);
                }
            }
    }
    void Run(const float* src, float* buf, float* dst) const override {
        WithSourceReader(*this, [&](auto read) {
            RunOf<decltype(read)>(
                static_cast<const typename decltype(read)::Elem*>(static_cast<const void*>(src)),
                buf, dst, batch_);
        });
    }
    template <class Read>
    void RunOf(const typename Read::Elem* src, float* buf, float* dst, size_t images) const {
        const size_t parts = std::min(ThreadBudget(), q_.srcH);
        // Output rows of one source row (stride == kernel: kY whole rows).
        const size_t patch = q_.kY * q_.dstW * q_.dstC;
        const bool ok = ParallelPartsWithScratch(
            parts, buf, ExternalBufferSize(), [&](size_t part, size_t count, float* pack) {
                const auto rows = PartRange(q_.srcH, part, count);
                float* stage = pack + PackFloats();
                for (size_t b = 0; b < images; ++b)
                    for (size_t sy = rows.first; sy < rows.second; ++sy) {
                        const size_t at = b * q_.dstImage + sy * patch;
                        if (nchw_) {
                            // The kY rows of each channel plane are contiguous.
                            RunRow<Read>(src + b * q_.srcImage, stage, sy, pack);
                            const size_t pixels = q_.kY * q_.dstW;
                            TransposeStrided(stage, q_.dstC, dst + b * q_.dstImage + sy * pixels,
                                             q_.dstPlane, pixels, q_.dstC);
                        } else if (dstBf16_) {
                            RunRow<Read>(src + b * q_.srcImage, stage, sy, pack);
                            ConvertRow(stage, patch, reinterpret_cast<uint16_t*>(dst) + at);
                        } else {
                            RunRow<Read>(src + b * q_.srcImage, dst + at, sy, pack);
                        }
                    }
            });
        if (!ok) throw std::bad_alloc();
    }
    template <class Read>
    void RunRow(const typename Read::Elem* image, float* rows, size_t sy, float* pack) const {
        if constexpr (T::kVecs == 4)
            if (narrow_) return RunRowTiles<Read, kNarrowRows, 2>(image, rows, sy, pack);
        RunRowTiles<Read, T::kRows, T::kVecs>(image, rows, sy, pack);
    }
    // The kY output rows of source row sy into rows (FP32, kY*dstW*dstC values) with tiles of
    // MR pixels x NV vectors. Bias and a cheap activation are applied in the tiles' final
    // store when no panel spans two kernel taps' channels, otherwise by a pass over the rows.
    template <class Read, size_t MR, size_t NV>
    void RunRowTiles(const typename Read::Elem* image, float* rows, size_t sy, float* pack) const {
        const D d;
        constexpr size_t NR = NV * T::kLanes;
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data();
        const bool fuse = ActivationIsCheap(act.type) && q_.dstC % NR == 0;
        for (size_t i = 0; i < q_.srcW; i += blocks_.mc) {
            const size_t mc = std::min(blocks_.mc, q_.srcW - i);
            for (size_t k = 0; k < q_.srcC; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.srcC - k);
                PackSourceBlock<Read>(image, sy, i, mc, k, kc, pack, MR);
                const GemmStore mode = k == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                const bool last = k + kc == q_.srcC;
                for (size_t ky = 0; ky < q_.kY; ++ky) {
                    float* c = rows + (ky * q_.dstW + i * q_.kX) * q_.dstC;
                    for (size_t j = 0; j < N_; j += blocks_.nc) {
                        const size_t nc = std::min(blocks_.nc, N_ - j);
                        const float* panels = weights_.data() + BOffset(ky, j, k, nc);
                        for (size_t jp = 0; jp < nc; jp += NR) {
                            const size_t cols = std::min(NR, nc - jp);
                            for (size_t t = 0; t < mc; t += MR) {
                                const size_t tileRows = std::min(MR, mc - t);
                                auto tile = [&](const auto& epi) {
                                    GemmMicroKernel<D, MR, NV>(d, kc, pack + t * kc, kc,
                                                               panels + jp * kc,
                                                               c + t * N_ + j + jp, N_, tileRows,
                                                               cols, 1.0f, 0.0f, mode, epi);
                                };
                                const size_t channel = (j + jp) % q_.dstC;
                                if (fuse && last)
                                    WithConvEpilogue(bias_.data() + channel,
                                                     slope ? slope + channel : nullptr, act, tile);
                                else
                                    tile(GemmNoEpilogue());
                            }
                        }
                    }
                }
            }
            if (fuse) continue;
            for (size_t ky = 0; ky < q_.kY; ++ky) {
                float* c = rows + (ky * q_.dstW + i * q_.kX) * q_.dstC;
                BiasActivatePixels(c, mc * q_.kX, q_.dstC, q_.dstC, bias_.data(), slope, act);
            }
        }
    }

    // Source pixels [i, i + mc) of row sy, channels [k, k + kc), as GemmPackA's micro-panels.
    template <class Read>
    void PackSourceBlock(const typename Read::Elem* image, size_t sy, size_t i, size_t mc, size_t k,
                         size_t kc, float* pack, size_t mr) const {
        const D d;
        if constexpr (std::is_same_v<Read, GemmReadF32>)
            if (nchw_) {
                // Channel k's pixels are a contiguous run of its plane.
                TransposeStrided(image + k * q_.srcPlane + sy * q_.srcW + i, q_.srcPlane, pack, kc,
                                 kc, mc);
                GemmZero(d, (RoundUp(mc, mr) - mc) * kc, pack + mc * kc);
                return;
            }
        GemmPackA<Read>(d, mc, kc, image + (sy * q_.srcW + i) * q_.srcC + k, q_.srcC, pack, mr);
    }

    static constexpr size_t kNarrowRows = GemmTileShape<D>::kNarrowRows;
    DeconvGeometry q_;
    // FP32 NCHW source and destination (set by NchwVia): A blocks are packed straight from the
    // channel planes (a transpose into L1) and each source row's output patch is transposed
    // into dst, so no whole-image NHWC copy goes through the outer caches.
    bool nchw_ = false;
    size_t N_, nPad_;
    bool narrow_;
    size_t mr_, nr_;  // micro-tile: source pixels x columns
    GemmBlocks blocks_;
};

Deconvolution32f* CreateNhwcDirect(size_t batch, const SimdConvolutionParameters& p, bool bf16,
                                   bool nchw) {
    if (nchw) return new NchwVia<NhwcDirect>(batch, p, bf16);
    return new NhwcDirect(batch, p, bf16);
}

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
