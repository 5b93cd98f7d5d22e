// FP32 convolution framework (SUPPLEMENT.md §8): SimdSynetConvolution32fInit / ExternalBufferSize
// / InternalBufferSize / SetParams / Forward / Info.
//
// Init picks one algorithm per shape and target and returns it as a context (a class derived
// from simd::Convolution32f), so Forward makes no dispatch of its own (nhwc-direct: class
// NhwcGemm in NhwcGemm-inl.h; the NCHW ones here derive from it or stand alone):
//   nhwc-direct NHWC, any group: dst[pixels x Dg] = im2row(src) * W on the GEMM core without
//               an im2row copy: micro-tiles of output pixels whose kernel taps are inside the
//               image read it in place (runs of taps, GemmMicroKernelSegments). When K is one
//               block, tiles are aligned to output rows and border tiles read a zero-padded
//               copy of their pixels; otherwise border, row-end and partial tiles are packed
//               from im2row first (then Info says nhwc-gemm when no tile is interior).
//               Weights (YXIO is already K x dstC) become B panels at SetParams; bias and
//               cheap activations are applied in registers at the final store. Few outputs
//               per group use a 14 x 2-vector tile on AVX-512.
//   nchw-via-nhwc-direct  NCHW: the image is transposed to NHWC, convolved as above and
//               transposed back (weights re-ordered to YXIO once).
//   nchw-gemm   NCHW pointwise or few-output layers with many pixels: dst[Dg x pixels] =
//               W * im2col(src), the weights the packed A panels, im2col packed straight from
//               the image into B panels (pointwise: whole panels read the channel planes in
//               place, only a last partial panel is packed).
//   *-usergemm  through the caller's SimdGemm32fNNPtr with explicit im2col/im2row matrices
//               (none for unpadded 1x1 stride 1).
//   depthwise   group == srcC == dstC: ConvolutionDepthwise.cpp.
//   nhwc-grouped NHWC groups of 2, 4 or 8 channels, several to a vector: ConvolutionGrouped.cpp.
//   winograd    3x3 stride 1 where measured faster: ConvolutionWinograd.cpp.
// Forward splits pixel or channel ranges over the thread budget without changing any sum.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/Convolution32f.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Convolution32f.h"
#include "convolution/ConvolutionDepthwise.h"
#include "convolution/ConvolutionGrouped.h"
#include "convolution/ConvolutionNchwRows.h"
#include "convolution/ConvolutionWinograd.h"
#include "convolution/NhwcDirect.h"
#include "convolution/NhwcGemm-inl.h"
#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"
#include "convolution/ImageTranspose-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <new>
#include <string>
#include <vector>

#include "core/IsaName.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {

// ---------------------------------------------------------------------------------------------
// NCHW through the NHWC core: each image is transposed to NHWC in the scratch, convolved by the
// direct micro-kernel and transposed back; the weights are re-ordered from OIYX to YXIO once.
// The transposes are memory-bound and cheap next to a layer with a KxK kernel or few pixels,
// where W * im2col would pack a large im2col or pad a short pixel row to whole panels.
// With enough pixels the output goes through a band of about a quarter of L1 per thread,
// transposed to NCHW as soon as it is computed, instead of a whole NHWC image that leaves the
// cache between the two passes (3x3 s2 3->32 224x224: 357-382 -> 298-316 us on Intel).

class NchwViaNhwc : public NhwcGemm {
public:
    NchwViaNhwc(size_t batch, const SimdConvolutionParameters& p) : NhwcGemm(batch, p, nullptr) {
        info_ = std::string(TargetIsa()) + "::nchw-via-nhwc-direct-" + std::to_string(mr_) + "x" +
                std::to_string(nr_);
        const size_t bandPixels =
            std::max(GemmCaches().l1 / 4 / (q_.dstC * sizeof(float)), 2 * mr_);
        const size_t unit = RowUnit();  // bands of whole row-tile units
        band_ = std::max<size_t>(bandPixels / unit, 1) * unit;
        // Enough bands to share among threads (a fixed count: the budget may change after
        // Init, the buffer size may not); otherwise whole images, split by rows or, for few
        // pixels, by channels.
        if (q_.pixels < kMinBands * band_) band_ = 0;
        if (band_) info_ += "-band" + std::to_string(band_);
    }
    // With whole images, the NHWC output and residual images follow the source.
    size_t ExternalBufferSize() const override {
        return BandScratch() + q_.srcImage + (band_ ? 0 : 2 * q_.dstImage);
    }

protected:
    void PackWeights(const float* oiyx) override {
        const size_t taps = q_.kY * q_.kX;
        std::vector<float> yxio(K_ * q_.dstC);
        for (size_t o = 0; o < q_.dstC; ++o)
            for (size_t ci = 0; ci < q_.Cg; ++ci)
                for (size_t t = 0; t < taps; ++t)
                    yxio[(t * q_.Cg + ci) * q_.dstC + o] = oiyx[(o * q_.Cg + ci) * taps + t];
        NhwcGemm::PackWeights(yxio.data());
    }
    void Run(const float* src, float* buf, float* dst) const override {
        RunAdd(src, buf, nullptr, dst);
    }
    // The residual is transposed to NHWC beside the output (a band, or the image) and added in
    // the NHWC tiles' epilogue.
    void RunAdd(const float* src, float* buf, const float* add, float* dst) const override {
        float* srcT = buf + BandScratch();
        if (band_ == 0) {
            float* dstT = srcT + q_.srcImage;
            RunNchwViaNhwc(
                src, q_.srcC, q_.srcH * q_.srcW, dst, q_.dstC, q_.pixels, batch_, srcT, dstT,
                [&](const float* s, float* d, const float* a) { RunImages(s, buf, d, 1, a); }, add,
                dstT + q_.dstImage);
            return;
        }
        const size_t bands = (q_.pixels + band_ - 1) / band_;
        const size_t parts = ThreadPartsFor(2.0 * double(q_.pixels) * double(q_.dstC) * double(K_));
        for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage) {
            NchwToNhwcImage(src, q_.srcC, q_.srcH * q_.srcW, srcT);
            if (!ParallelPartsWithScratch(
                    std::min(parts, bands), buf, BandScratch(),
                    [&](size_t part, size_t count, float* scratch) {
                        float* bandT = scratch + NhwcGemm::ExternalBufferSize();
                        float* addT = bandT + band_ * q_.dstC;
                        const auto r = PartRange(bands, part, count);
                        for (size_t i = r.first; i < r.second; ++i) {
                            const size_t r0 = i * band_, r1 = std::min(q_.pixels, r0 + band_);
                            if (add)
                                TransposeStrided(add + b * q_.dstImage + r0, q_.pixels, addT,
                                                 q_.dstC, q_.dstC, r1 - r0);
                            RunBlock(srcT, bandT, r0, r1, 0, q_.Dg, scratch, r0, 0, SIZE_MAX,
                                     add ? addT : nullptr);
                            TransposeStrided(bandT, q_.dstC, dst + r0, q_.pixels, r1 - r0, q_.dstC);
                        }
                    }))
                throw std::bad_alloc();
        }
    }

private:
    // Per-thread scratch: the GEMM's, then the band and its residual (none without bands).
    size_t BandScratch() const { return NhwcGemm::ExternalBufferSize() + 2 * band_ * q_.dstC; }

    static constexpr size_t kMinBands = 16;
    size_t band_;  // output pixels per band, a multiple of the tile height; 0: whole images
};

// ---------------------------------------------------------------------------------------------
// NCHW: W * im2col.

class NchwGemm : public Convolution32f {
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NchwGemm(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm)
        : Convolution32f(batch, p, gemm), q_(p) {
        K_ = q_.Cg * q_.kY * q_.kX;
        blocks_ = GemmChooseBlocks(q_.Dg, q_.pixels, K_, T::kRows, T::kCols);
        mPad_ = RoundUp(q_.Dg, T::kRows);
        info_ = std::string(TargetIsa()) +
                (gemm ? "::nchw-usergemm"
                      : "::nchw-gemm-" + std::to_string(T::kRows) + "x" + std::to_string(T::kCols));
        // Runs of output pixels inside one output row and one B panel, in pixel order.
        for (size_t j = 0; j < q_.pixels;) {
            const size_t dy = j / q_.dstW, dx = j % q_.dstW;
            const size_t len = std::min(q_.dstW - dx, T::kCols - j % T::kCols);
            runs_.push_back({j, dy, dx, len});
            j += len;
        }
        // firstRun_[p]: the first run of panel p (runs never cross a panel boundary).
        const size_t panels = (q_.pixels + T::kCols - 1) / T::kCols;
        for (size_t panel = 0, r = 0; panel <= panels; ++panel) {
            while (r < runs_.size() && runs_[r].j < panel * T::kCols) ++r;
            firstRun_.push_back(r);
        }
    }
    size_t ExternalBufferSize() const override {
        if (gemm_) return q_.Pointwise() ? 1 : K_ * q_.pixels;
        // Pointwise packs at most one partial panel (see RunBlock).
        const size_t packedCols = q_.Pointwise() ? T::kCols : blocks_.nc;
        return std::max<size_t>(GemmPackedBSize<D>(blocks_.kc, packedCols), 1);
    }

protected:
    struct PixelRun {
        size_t j, dy, dx, len;
    };
    void PackWeights(const float* w) override {
        if (gemm_) {
            weights_.assign(w, w + K_ * q_.dstC);
            return;
        }
        const D d;
        weights_.assign(q_.G * K_ * mPad_, 0.0f);
        for (size_t g = 0; g < q_.G; ++g)
            for (size_t k = 0; k < K_; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, K_ - k);
                for (size_t i = 0; i < q_.Dg; i += blocks_.mc) {
                    const size_t mc = std::min(blocks_.mc, q_.Dg - i);
                    GemmPackA(d, mc, kc, w + (g * q_.Dg + i) * K_ + k, K_,
                              weights_.data() + g * K_ * mPad_ + k * mPad_ + i * kc);
                }
            }
    }
    // Channels [c0, c1) of group g, pixels [j, j + n); addG: NULL or the residual of dstG.
    void BiasActivate(float* dstG, size_t g, size_t c0, size_t c1, size_t j, size_t n,
                      const float* addG) const {
        const Act act{p_.activation, param0_, param1_};
        for (size_t c = c0; c < c1; ++c) {
            const size_t oc = g * q_.Dg + c;
            BiasActivatePlane(dstG + c * q_.pixels + j, n, bias_[oc],
                              slope_.empty() ? 0.0f : slope_[oc], act,
                              addG ? addG + c * q_.pixels + j : nullptr);
        }
    }
    void Run(const float* src, float* buf, float* dst) const override {
        RunAdd(src, buf, nullptr, dst);
    }
    // The residual joins the bias in the pass that follows each block's products.
    void RunAdd(const float* src, float* buf, const float* add, float* dst) const override {
        const size_t plane = q_.srcH * q_.srcW;
        if (gemm_) {
            for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage) {
                for (size_t g = 0; g < q_.G; ++g)
                    RunUser(src + g * q_.Cg * plane, buf, dst + g * q_.Dg * q_.pixels, g,
                            add ? add + g * q_.Dg * q_.pixels : nullptr);
                if (add) add += q_.dstImage;
            }
            return;
        }
        // Threads take ranges of output pixels (columns of the product, in whole panels), or
        // ranges of output channels in whole micro-tiles when there are too few pixels to
        // share; the sums over K are blocked the same way whatever the split.
        const size_t parts =
            ThreadPartsFor(2.0 * double(batch_) * double(q_.pixels) * double(q_.dstC) * K_);
        const bool byPixels = q_.pixels >= parts * 4 * T::kCols;
        const size_t units =
            byPixels ? (q_.pixels + T::kCols - 1) / T::kCols : (q_.Dg + T::kRows - 1) / T::kRows;
        if (!ParallelPartsWithScratch(
                std::min(parts, units), buf, ExternalBufferSize(),
                [&](size_t part, size_t count, float* scratch) {
                    const auto r = PartRange(units, part, count);
                    if (byPixels)
                        RunBlock(src, dst, r.first * T::kCols,
                                 std::min(q_.pixels, r.second * T::kCols), 0, q_.Dg, scratch, add);
                    else
                        RunBlock(src, dst, 0, q_.pixels, r.first * T::kRows,
                                 std::min(q_.Dg, r.second * T::kRows), scratch, add);
                }))
            throw std::bad_alloc();
    }
    // Output pixels [j0, j1) (j0 a multiple of the panel width) x channels [c0, c1) (c0 a
    // multiple of the micro-tile height) of every group of every image; add: NULL or the
    // residual of dst.
    void RunBlock(const float* src, float* dst, size_t j0, size_t j1, size_t c0, size_t c1,
                  float* buf, const float* add) const {
        const D d;
        const size_t plane = q_.srcH * q_.srcW;
        for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage) {
            for (size_t g = 0; g < q_.G; ++g) {
                const float* srcG = src + g * q_.Cg * plane;
                float* dstG = dst + g * q_.Dg * q_.pixels;
                const float* addG = add ? add + b * q_.dstImage + g * q_.Dg * q_.pixels : nullptr;
                const float* weights = weights_.data() + g * K_ * mPad_;
                for (size_t j = j0; j < j1; j += blocks_.nc) {
                    const size_t nc = std::min(blocks_.nc, j1 - j);
                    // Pointwise: the whole panels read the image rows in place; only a
                    // last partial panel is packed (with its zero columns).
                    const size_t inPlace = q_.Pointwise() ? nc / T::kCols * T::kCols : 0;
                    for (size_t k = 0; k < K_; k += blocks_.kc) {
                        const size_t kc = std::min(blocks_.kc, K_ - k);
                        const GemmStore mode =
                            k == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                        if (inPlace < nc) PackB(srcG, j + inPlace, nc - inPlace, k, kc, buf);
                        for (size_t i = c0 / blocks_.mc * blocks_.mc; i < c1; i += blocks_.mc) {
                            const size_t mc = std::min(blocks_.mc, q_.Dg - i);
                            const size_t i0 = std::max(i, c0), i1 = std::min(i + mc, c1);
                            const float* a = weights + k * mPad_ + i * kc + (i0 - i) * kc;
                            float* c = dstG + i0 * q_.pixels + j;
                            if (inPlace > 0)
                                GemmMacroKernelInPlaceB(d, i1 - i0, inPlace, kc, a,
                                                        srcG + k * q_.pixels + j, q_.pixels, c,
                                                        q_.pixels, mode);
                            if (inPlace < nc)
                                GemmMacroKernel(d, i1 - i0, nc - inPlace, kc, a, buf, c + inPlace,
                                                q_.pixels, 1.0f, 0.0f, mode);
                        }
                    }
                    BiasActivate(dstG, g, c0, c1, j, nc, addG);
                }
            }
        }
    }
    // Rows [k, k + kc) x columns [j, j + nc) of im2col as GemmPackB panels (j is a multiple of
    // the panel width).
    void PackB(const float* srcG, size_t j, size_t nc, size_t k, size_t kc, float* packed) const {
        const D d;
        constexpr size_t NR = T::kCols;
        if (q_.Pointwise()) {
            GemmPackB(d, kc, nc, srcG + k * q_.pixels + j, q_.pixels, packed);
            return;
        }
        const size_t plane = q_.srcH * q_.srcW;
        const size_t panelEnd = (j + nc + NR - 1) / NR;
        for (size_t kk = 0; kk < kc; ++kk) {
            const size_t row = k + kk;
            const size_t ci = row / (q_.kY * q_.kX), ky = row / q_.kX % q_.kY, kx = row % q_.kX;
            const float* channel = srcG + ci * plane;
            for (size_t r = firstRun_[j / NR]; r < firstRun_[panelEnd]; ++r) {
                const PixelRun& run = runs_[r];
                const size_t pos = run.j - j;
                const size_t len = std::min(run.len, nc - std::min(nc, pos));
                if (len == 0) break;
                float* out = packed + (pos / NR) * kc * NR + kk * NR + pos % NR;
                const ptrdiff_t sy = q_.SrcY(run.dy, ky);
                FillShifted(sy < 0 ? nullptr : channel + size_t(sy) * q_.srcW, q_.SrcX0(run.dx, kx),
                            q_.sX, q_.srcW, len, out);
            }
        }
        const size_t tail = nc % NR;
        if (tail != 0) {
            float* last = packed + (nc / NR) * kc * NR;
            for (size_t kk = 0; kk < kc; ++kk) ZeroRun(NR - tail, last + kk * NR + tail);
        }
    }
    void RunUser(const float* srcG, float* buf, float* dstG, size_t g, const float* addG) const {
        const float one = 1.0f, zero = 0.0f;
        const float* col = srcG;
        if (!q_.Pointwise()) {
            const size_t plane = q_.srcH * q_.srcW;
            for (size_t row = 0; row < K_; ++row) {
                const size_t ci = row / (q_.kY * q_.kX), ky = row / q_.kX % q_.kY, kx = row % q_.kX;
                for (size_t dy = 0; dy < q_.dstH; ++dy) {
                    const ptrdiff_t sy = q_.SrcY(dy, ky);
                    FillShifted(sy < 0 ? nullptr : srcG + ci * plane + size_t(sy) * q_.srcW,
                                q_.SrcX0(0, kx), q_.sX, q_.srcW, q_.dstW,
                                buf + row * q_.pixels + dy * q_.dstW);
                }
            }
            col = buf;
        }
        gemm_(q_.Dg, q_.pixels, K_, &one, weights_.data() + g * q_.Dg * K_, K_, col, q_.pixels,
              &zero, dstG, q_.pixels);
        BiasActivate(dstG, g, 0, q_.Dg, 0, q_.pixels, addG);
    }

    Geometry q_;
    size_t K_, mPad_;
    GemmBlocks blocks_;
    std::vector<PixelRun> runs_;
    std::vector<size_t> firstRun_;
};

}  // namespace conv32f

// The algorithm for this shape on this target (parameters already validated).
Convolution32f* Convolution32fCreate(size_t batch, const SimdConvolutionParameters* p,
                                     SimdGemm32fNNPtr gemm) {
    const bool depthwise = p->group == p->srcC && p->group == p->dstC;
    const bool nhwc = p->srcF == SimdTensorFormatNhwc;
    if (depthwise) {
        if (nhwc) return DepthwiseNhwcCreate(batch, *p);
        return DepthwiseNchwCreate(batch, *p);
    }
    // Winograd where it is faster (a caller's GEMM keeps the GEMM path).
    if (gemm == nullptr)
        if (Convolution32f* winograd = CreateConvolutionWinograd(batch, *p)) return winograd;
    // Other first layers in NCHW straight along the rows (a caller's GEMM keeps the GEMM path).
    if (!nhwc && gemm == nullptr && NchwRowsFits(*p)) return NchwRowsCreate(batch, *p);
    if (nhwc && gemm == nullptr)
        if (Convolution32f* grouped = GroupedNhwcCreate(batch, *p)) return grouped;
    if (nhwc) return new conv32f::NhwcGemm(batch, *p, gemm);
    // NCHW: W * im2col keeps its edge (no transposes) where B panels are filled without
    // padding waste and either no im2col expansion is needed (pointwise) or the outputs are too
    // few to fill the NHWC tile's columns (first layers; AVX-512 has its narrow NHWC tile for
    // them). Measured on Zen4: 1x1 256->64 56x56 1064 vs 1139 us; 3x3 s2 3->32 224x224 450 us
    // here vs 358 us through the narrow NHWC tile; 3x3 64->64 56x56 2717 vs 2150 us.
    using T = GemmTraits<hn::ScalableTag<float>>;
    const conv32f::Geometry q(*p);
    const bool manyPixels = q.pixels >= 4 * T::kCols;
    if (gemm == nullptr && !(manyPixels && (q.Pointwise() || (q.Dg < T::kCols && T::kVecs != 4))))
        return new conv32f::NchwViaNhwc(batch, *p);
    return new conv32f::NchwGemm(batch, *p, gemm);
}

Convolution32f* NhwcDirectConvolutionCreate(size_t batch, const SimdConvolutionParameters& p) {
    return new conv32f::NhwcGemm(batch, p, nullptr);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <new>

#include "SimdSynet.h"

#include "convolution/ContextApi.h"
#include "core/Dispatch.h"
#include "core/Error.h"

namespace simd {
HWY_EXPORT(Convolution32fCreate);

namespace {

// Checks the configuration; on failure records a message naming the field and returns false.
bool ValidConvolution(size_t batch, const SimdConvolutionParameters* p) {
    const char* f = "SimdSynetConvolution32fInit";
    if (p == nullptr) return SetLastErrorF("%s: conv is NULL", f);
    if (batch == 0) return SetLastErrorF("%s: batch is 0", f);
    if (p->srcT != SimdTensorData32f) return SetLastErrorF("%s: srcT is not 32f", f);
    if (p->dstT != SimdTensorData32f) return SetLastErrorF("%s: dstT is not 32f", f);
    return ValidConvolutionShape(batch, *p, f);
}

}  // namespace
}  // namespace simd

extern "C" {

SIMD_API void* SimdSynetConvolution32fInit(size_t batch, const SimdConvolutionParameters* conv,
                                           SimdGemm32fNNPtr gemm) {
    simd::ClearLastError();
    if (!simd::ValidConvolution(batch, conv)) return nullptr;
    try {
        return SIMD_DISPATCH(simd::Convolution32fCreate)(batch, conv, gemm);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetConvolution32fInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetConvolution32fExternalBufferSize(const void* context) {
    return simd::LayerExternalBufferSize(context, "SimdSynetConvolution32f");
}

SIMD_API size_t SimdSynetConvolution32fInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, "SimdSynetConvolution32f");
}

SIMD_API void SimdSynetConvolution32fSetParams(void* context, const float* weight,
                                               SimdBool* internal, const float* bias,
                                               const float* params) {
    simd::ContextSetParams(context, weight, internal, bias, params, "SimdSynetConvolution32f");
}

SIMD_API void SimdSynetConvolution32fForward(void* context, const float* src, float* buf,
                                             float* dst) {
    simd::ContextForward(context, src, buf, dst, "SimdSynetConvolution32f");
}

SIMD_API void SimdSynetConvolution32fForwardAdd(void* context, const float* src, float* buf,
                                                const float* add, float* dst) {
    simd::ContextForwardAdd(context, src, buf, add, dst, "SimdSynetConvolution32f");
}

SIMD_API const char* SimdSynetConvolution32fInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetConvolution32f");
}

}  // extern "C"

#endif  // HWY_ONCE
