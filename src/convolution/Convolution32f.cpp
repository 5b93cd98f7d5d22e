// FP32 convolution framework (SUPPLEMENT.md §8): SimdSynetConvolution32fInit / ExternalBufferSize
// / InternalBufferSize / SetParams / Forward / Info.
//
// Init picks one algorithm per shape and target and returns it as a context (a class derived
// from simd::Convolution32f), so Forward makes no dispatch of its own:
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
//   winograd    3x3 stride 1 where measured faster: ConvolutionWinograd.cpp.
// Forward splits pixel or channel ranges over the thread budget without changing any sum.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/Convolution32f.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Convolution32f.h"
#include "convolution/ConvolutionDepthwise.h"
#include "convolution/ConvolutionNchwRows.h"
#include "convolution/ConvolutionWinograd.h"
#include "convolution/NhwcDirect.h"
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

const char* TargetIsa() {
    return IsaNameOf(HWY_TARGET);
}

using Geometry = ConvGeometry;

// ---------------------------------------------------------------------------------------------
// NHWC: direct convolution on the GEMM core (im2row packed only for border tiles).

class NhwcGemm : public Convolution32f {
protected:
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NhwcGemm(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm)
        : Convolution32f(batch, p, gemm), q_(p), tile_(q_.Dg, batch * q_.pixels) {
        K_ = q_.kY * q_.kX * q_.Cg;
        // Few output channels (a first layer) would leave most of a kVecs-wide tile on the
        // zero padding of the weights: AVX-512 then takes 14 x 2- or 14 x 1-vector tiles
        // (GemmTileShape). Zen 5: 14 rows instead of 12 for 3x3 s2 3->32 224x224, 118 -> 110
        // us; 1 vector instead of 2 for 16 output channels, 3x3 s2 3->16 224x224 109 -> 78 us,
        // 3x3 s1 426 -> 309, 1x1 32->16 112x112 132 -> 90.
        mr_ = tile_.rows;
        nr_ = tile_.Cols();
        blocks_ = GemmChooseBlocks(q_.pixels, q_.Dg, K_, mr_, nr_);
        dgPad_ = RoundUp(q_.Dg, nr_);
        FindInterior();
        // Row tiles recompute the overlap of each row's last tile: not where that adds more
        // than a quarter (a 15-pixel row in 14-pixel tiles would compute 28).
        rowTiles_ = !gemm && !q_.Pointwise() && K_ <= blocks_.kc && q_.dstW >= mr_ &&
                    4 * (RoundUp(q_.dstW, mr_) - q_.dstW) <= q_.dstW;
        regionW_ = (mr_ - 1) * q_.sX + (q_.kX - 1) * q_.dX + 1;
        regionH_ = (q_.kY - 1) * q_.dY + 1;
        const bool direct = q_.Pointwise() || rowTiles_ || (dyLo_ < dyHi_ && dxLo_ + mr_ <= dxHi_);
        info_ = std::string(TargetIsa()) +
                (gemm ? "::nhwc-usergemm"
                      : std::string(direct ? "::nhwc-direct-" : "::nhwc-gemm-") +
                            std::to_string(mr_) + "x" + std::to_string(nr_));
        if (!gemm) {
            BuildSegments(q_.srcW, &segments_, &segmentBegin_);
            std::vector<size_t> regionBegins;  // one K block: [0, size)
            if (rowTiles_) BuildSegments(regionW_, &regionSegments_, &regionBegins);
        }
    }
    size_t ExternalBufferSize() const override {
        if (gemm_) return q_.Pointwise() ? 1 : q_.pixels * K_;
        if (rowTiles_) return RegionFloats();
        return std::max<size_t>(RoundUp(blocks_.mc, mr_) * blocks_.kc, 1);
    }

protected:
    void PackWeights(const float* w) override {
        if (gemm_) {
            weights_.assign(w, w + K_ * q_.dstC);
            return;
        }
        const D d;
        weights_.assign(q_.G * K_ * dgPad_, 0.0f);
        for (size_t g = 0; g < q_.G; ++g)
            for (size_t j = 0; j < q_.Dg; j += blocks_.nc) {
                const size_t nc = std::min(blocks_.nc, q_.Dg - j);
                for (size_t k = 0; k < K_; k += blocks_.kc) {
                    const size_t kc = std::min(blocks_.kc, K_ - k);
                    const float* from = w + k * q_.dstC + g * q_.Dg + j;
                    float* to = weights_.data() + BOffset(g, j, k, nc);
                    WithGemmTile(tile_, [&](auto, auto vecs) HWY_ATTR {
                        GemmPackB<D, decltype(vecs)::value * T::kLanes>(d, kc, nc, from, q_.dstC,
                                                                        to);
                    });
                }
            }
    }
    size_t BOffset(size_t g, size_t j, size_t k, size_t nc) const {
        return g * K_ * dgPad_ + j * K_ + k * RoundUp(nc, nr_);
    }
    void BiasActivate(float* dst, size_t rows, size_t g) const {
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data() + g * q_.Dg;
        for (size_t r = 0; r < rows; ++r)
            BiasActivateChannels(dst + r * q_.dstC + g * q_.Dg, q_.Dg, bias_.data() + g * q_.Dg,
                                 slope, act);
    }
    void Run(const float* src, float* buf, float* dst) const override {
        if (gemm_) {
            for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage)
                for (size_t g = 0; g < q_.G; ++g) RunUser(src, buf, dst, g);
            return;
        }
        RunImages(src, buf, dst, batch_);
    }
    // The own-GEMM path for `images` NHWC images.
    void RunImages(const float* src, float* buf, float* dst, size_t images) const {
        // Threads take ranges of output pixels (rows of the product, in whole micro-tiles), or
        // ranges of output channels in whole panels when there are too few pixels to share.
        // Every output's sum runs over the same K blocks in the same order either way, so the
        // split never changes a result.
        // Row tiles split in whole output rows, so no part starts a tile inside a row.
        const size_t rows = images * q_.pixels, unit = RowUnit();
        const size_t parts = ThreadPartsFor(2.0 * double(rows) * double(q_.dstC) * double(K_),
                                            double(weights_.size()) * sizeof(float));
        const bool byRows = rows >= parts * 4 * mr_;
        const size_t units = byRows ? (rows + unit - 1) / unit : (q_.Dg + nr_ - 1) / nr_;
        if (!ParallelPartsWithScratch(std::min(parts, units), buf, ExternalBufferSize(),
                                      [&](size_t part, size_t count, float* scratch) {
                                          const auto r = PartRange(units, part, count);
                                          if (byRows)
                                              RunBlock(src, dst, r.first * unit,
                                                       std::min(rows, r.second * unit), 0, q_.Dg,
                                                       scratch);
                                          else
                                              RunBlock(src, dst, 0, rows, r.first * nr_,
                                                       std::min(q_.Dg, r.second * nr_), scratch);
                                      }))
            throw std::bad_alloc();
    }
    // Output rows [dyLo_, dyHi_) and columns [dxLo_, dxHi_) have every kernel tap inside the
    // image.
    void FindInterior() {
        dyLo_ = std::min((q_.padY + q_.sY - 1) / q_.sY, q_.dstH);
        const ptrdiff_t lastY =
            ptrdiff_t(q_.srcH) - 1 + ptrdiff_t(q_.padY) - ptrdiff_t((q_.kY - 1) * q_.dY);
        dyHi_ = lastY < 0 ? 0 : std::min(q_.dstH, size_t(lastY) / q_.sY + 1);
        dxLo_ = std::min((q_.padX + q_.sX - 1) / q_.sX, q_.dstW);
        const ptrdiff_t lastX =
            ptrdiff_t(q_.srcW) - 1 + ptrdiff_t(q_.padX) - ptrdiff_t((q_.kX - 1) * q_.dX);
        dxHi_ = lastX < 0 ? 0 : std::min(q_.dstW, size_t(lastX) / q_.sX + 1);
    }
    // Pixels per unit of work: whole output rows for row tiles, else whole tiles.
    size_t RowUnit() const { return rowTiles_ ? q_.dstW : mr_; }
    size_t RegionFloats() const { return regionH_ * regionW_ * q_.srcC; }
    // The K values of each K block as runs that are contiguous in an NHWC image whose rows are
    // rowPixels wide (the source, or a border region), relative to the first tap of an output
    // pixel: one run per kernel tap, or per kernel row when the taps of a row are neighbouring
    // pixels (group 1, no dilation). begins: the first run of each K block, then the end.
    void BuildSegments(size_t rowPixels, std::vector<GemmASegment>* segments,
                       std::vector<size_t>* begins) const {
        for (size_t k0 = 0; k0 < K_; k0 += blocks_.kc) {
            begins->push_back(segments->size());
            const size_t k1 = std::min(K_, k0 + blocks_.kc);
            for (size_t k = k0; k < k1;) {
                const size_t tap = k / q_.Cg, ci = k % q_.Cg, ky = tap / q_.kX, kx = tap % q_.kX;
                const size_t run = q_.G == 1 && q_.dX == 1 ? (q_.kX - kx) * q_.Cg : q_.Cg;
                const size_t len = std::min(run - ci, k1 - k);
                segments->push_back({(ky * q_.dY * rowPixels + kx * q_.dX) * q_.srcC + ci, len});
                k += len;
            }
        }
        begins->push_back(segments->size());
    }
    // The pixels (all channels) that the tile of mr_ output pixels starting at (dy, dx) reads,
    // regionH_ rows of regionW_, zero where they fall in the padding.
    void FillRegion(const float* image, size_t dy, size_t dx, float* region) const {
        const ptrdiff_t sy0 = ptrdiff_t(dy * q_.sY) - ptrdiff_t(q_.padY);
        const ptrdiff_t sx0 = ptrdiff_t(dx * q_.sX) - ptrdiff_t(q_.padX);
        const ptrdiff_t w = ptrdiff_t(regionW_);
        // Columns [lo, hi) of the region are inside the image.
        const ptrdiff_t lo = std::min(std::max<ptrdiff_t>(-sx0, 0), w);
        const ptrdiff_t hi = std::max(std::min(ptrdiff_t(q_.srcW) - sx0, w), lo);
        const size_t C = q_.srcC, rowFloats = regionW_ * C;
        for (size_t i = 0; i < regionH_; ++i, region += rowFloats) {
            const ptrdiff_t sy = sy0 + ptrdiff_t(i);
            if (sy < 0 || sy >= ptrdiff_t(q_.srcH)) {
                ZeroRun(rowFloats, region);
                continue;
            }
            ZeroRun(size_t(lo) * C, region);
            CopyRun(image + (size_t(sy) * q_.srcW + size_t(sx0 + lo)) * C, size_t(hi - lo) * C,
                    region + size_t(lo) * C);
            ZeroRun(size_t(w - hi) * C, region + size_t(hi) * C);
        }
    }
    // True when the micro-tile of kRows output pixels starting at (dy, dx) reads its A rows in
    // place: `base` is then the offset of its first pixel's first tap in the image.
    bool DirectTile(size_t dy, size_t dx, size_t* base) const {
        if (q_.Pointwise()) {
            *base = (dy * q_.dstW + dx) * q_.srcC;
            return true;
        }
        if (dy < dyLo_ || dy >= dyHi_ || dx < dxLo_ || dx + mr_ > dxHi_) return false;
        *base = ((dy * q_.sY - q_.padY) * q_.srcW + dx * q_.sX - q_.padX) * q_.srcC;
        return true;
    }
    // Output pixels [r0, r1) of the batch (row r: image r / pixels) x channels [c0, c1) of every
    // group into dst, whose first row is output pixel dstRow0 (0: dst is the whole batch); c0 is
    // a multiple of the panel width. Micro-tiles of kRows consecutive pixels whose
    // taps are all inside the image (and, unless the convolution is pointwise, in one output
    // row) are read in place by the segment micro-kernel; the others (borders, row ends, the
    // last partial tile) are packed from im2row first.
    void RunBlock(const float* src, float* dst, size_t r0, size_t r1, size_t c0, size_t c1,
                  float* buf, size_t dstRow0 = 0) const {
        WithGemmTile(tile_, [&](auto rows, auto vecs) HWY_ATTR {
            constexpr size_t MR = decltype(rows)::value, NV = decltype(vecs)::value;
            if (rowTiles_) return RunRowTiles<MR, NV>(src, dst, r0, r1, c0, c1, buf, dstRow0);
            RunTiles<MR, NV>(src, dst, r0, r1, c0, c1, buf, dstRow0);
        });
    }
    // RunBlock for layers whose K is one block (rowTiles_): the tiles of each output row start
    // at its first pixel and the last one ends at its last pixel, overlapping its predecessor
    // (the overlapped outputs are computed again in the same order, so they do not change), so
    // no tile spans two rows. Every tile then reads its A rows in place: from the image inside
    // it, else from a zero-padded copy of the few pixels it reads (FillRegion). Packing a
    // border tile from im2row cost about four times its FMAs on a 3-channel first layer, and
    // tiles that spanned two rows were all packed. [r0, r1) are whole output rows (RowUnit).
    template <size_t MR, size_t NV>
    void RunRowTiles(const float* src, float* dst, size_t r0, size_t r1, size_t c0, size_t c1,
                     float* buf, size_t dstRow0) const {
        const D d;
        constexpr size_t NR = NV * T::kLanes;
        const Act act{p_.activation, param0_, param1_};
        const size_t aStride = q_.sX * q_.srcC;
        const bool fuse = ActivationIsCheap(act.type);
        float* region = buf;
        const size_t W = q_.dstW;
        for (size_t r = r0; r < r1; r += W) {
            const size_t b = r / q_.pixels, dy = r % q_.pixels / W;
            const float* image = src + b * q_.srcImage;
            float* out = dst + (r - dstRow0) * q_.dstC;
            for (size_t t = 0; t < W; t += MR) {
                const size_t dx = std::min(t, W - MR);
                const float* a = image;
                const GemmASegment* segments = segments_.data();
                size_t count = segments_.size(), base;
                if (DirectTile(dy, dx, &base)) {
                    a += base;
                } else {
                    FillRegion(image, dy, dx, region);
                    a = region;
                    segments = regionSegments_.data();
                    count = regionSegments_.size();
                }
                // No software prefetch of later tiles' outputs as in RunTiles: on Zen 5 it
                // made a first layer slower (3x3 s2 3->32 224x224: 110 us with it, 102
                // without).
                float* tileOut = out + dx * q_.dstC;
                for (size_t g = 0; g < q_.G; ++g) {
                    for (size_t j = c0 / blocks_.nc * blocks_.nc; j < c1; j += blocks_.nc) {
                        const size_t nc = std::min(blocks_.nc, q_.Dg - j);
                        const size_t j0 = std::max(j, c0), j1 = std::min(j + nc, c1);
                        const float* panels = weights_.data() + BOffset(g, j, 0, nc);
                        for (size_t jp = j0; jp < j1; jp += NR) {
                            const size_t cols = std::min(NR, j1 - jp);
                            const float* panel = panels + (jp - j) * K_;
                            float* c = tileOut + g * q_.Dg + jp;
                            auto tile = [&](const auto& epi) {
                                GemmMicroKernelSegments<D, MR, NV>(
                                    d, a + g * q_.Cg, aStride, segments, count, panel, c, q_.dstC,
                                    cols, GemmStore::kOverwrite, epi);
                            };
                            if (fuse)
                                WithConvEpilogue(
                                    bias_.data() + g * q_.Dg + jp,
                                    slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + jp, act,
                                    tile);
                            else
                                tile(GemmNoEpilogue());
                        }
                    }
                }
            }
            // After the whole row: an overlapping tile stores its sums again.
            if (!fuse)
                for (size_t g = 0; g < q_.G; ++g) {
                    const float* slope = slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + c0;
                    for (size_t m = 0; m < W; ++m)
                        BiasActivateChannels(out + m * q_.dstC + g * q_.Dg + c0, c1 - c0,
                                             bias_.data() + g * q_.Dg + c0, slope, act);
                }
        }
    }
    // RunBlock with micro-tiles of MR pixels x NV vectors of channels.
    template <size_t MR, size_t NV>
    void RunTiles(const float* src, float* dst, size_t r0, size_t r1, size_t c0, size_t c1,
                  float* buf, size_t dstRow0) const {
        const D d;
        constexpr size_t NR = NV * T::kLanes;
        const Act act{p_.activation, param0_, param1_};
        const size_t aStride = q_.sX * q_.srcC;
        const bool fuse = ActivationIsCheap(act.type);
        for (size_t r = r0; r < r1;) {
            const size_t b = r / q_.pixels, i = r % q_.pixels;
            const size_t mc = std::min({blocks_.mc, r1 - r, q_.pixels - i});
            const size_t tiles = (mc + MR - 1) / MR;
            const float* image = src + b * q_.srcImage;
            float* out = dst + (r - dstRow0) * q_.dstC;
            for (size_t g = 0; g < q_.G; ++g) {
                for (size_t k = 0, kb = 0; k < K_; k += blocks_.kc, ++kb) {
                    const size_t kc = std::min(blocks_.kc, K_ - k);
                    const GemmASegment* segments = segments_.data() + segmentBegin_[kb];
                    const size_t segmentCount = segmentBegin_[kb + 1] - segmentBegin_[kb];
                    size_t base;
                    for (size_t t = 0, dy = i / q_.dstW, dx = i % q_.dstW; t < tiles; ++t) {
                        const size_t rows = std::min(MR, mc - t * MR);
                        if (rows < MR || !DirectTile(dy, dx, &base))
                            PackTile(image, g, dy, dx, rows, k, kc, buf + t * MR * kc);
                        for (dx += MR; dx >= q_.dstW && dy < q_.dstH;) dx -= q_.dstW, ++dy;
                    }
                    const bool last = k + kc == K_;  // bias and activation at the final store
                    const GemmStore mode = k == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                    for (size_t j = c0 / blocks_.nc * blocks_.nc; j < c1; j += blocks_.nc) {
                        const size_t nc = std::min(blocks_.nc, q_.Dg - j);
                        const size_t j0 = std::max(j, c0), j1 = std::min(j + nc, c1);
                        const float* panels = weights_.data() + BOffset(g, j, k, nc);
                        for (size_t jp = j0; jp < j1; jp += NR) {
                            const size_t cols = std::min(NR, j1 - jp);
                            const float* panel = panels + (jp - j) * kc;
                            float* c = out + g * q_.Dg + jp;
                            for (size_t t = 0, dy = i / q_.dstW, dx = i % q_.dstW; t < tiles;
                                 ++t, c += MR * q_.dstC) {
                                const size_t rows = std::min(MR, mc - t * MR);
                                // Output rows of a later tile requested ahead (1x1 56x56
                                // NHWC, Zen4: 64->256 1135 -> 1053 us, 128->256 2291 ->
                                // 1986 us).
                                if (t + kGemmPrefetchTiles < tiles)
                                    GemmPrefetchTile<MR>(c + kGemmPrefetchTiles * MR * q_.dstC,
                                                         q_.dstC, cols);
                                auto tile = [&](const auto& epi) {
                                    if (rows == MR && DirectTile(dy, dx, &base))
                                        GemmMicroKernelSegments<D, MR, NV>(
                                            d, image + base + g * q_.Cg, aStride, segments,
                                            segmentCount, panel, c, q_.dstC, cols, mode, epi);
                                    else
                                        GemmMicroKernel<D, MR, NV>(d, kc, buf + t * MR * kc, kc,
                                                                   panel, c, q_.dstC, rows, cols,
                                                                   1.0f, 0.0f, mode, epi);
                                };
                                if (last && fuse)
                                    WithConvEpilogue(
                                        bias_.data() + g * q_.Dg + jp,
                                        slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + jp,
                                        act, tile);
                                else
                                    tile(GemmNoEpilogue());
                                for (dx += MR; dx >= q_.dstW && dy < q_.dstH;) dx -= q_.dstW, ++dy;
                            }
                        }
                    }
                }
                if (!fuse) {
                    const float* slope = slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + c0;
                    for (size_t m = 0; m < mc; ++m)
                        BiasActivateChannels(out + m * q_.dstC + g * q_.Dg + c0, c1 - c0,
                                             bias_.data() + g * q_.Dg + c0, slope, act);
                }
            }
            r += mc;
        }
    }
    // The A micro-panel (mr_ x kc, rows beyond `rows` zero) of the pixels starting at output
    // (dy, dx): columns [k, k + kc) of their im2row rows.
    void PackTile(const float* image, size_t g, size_t dy, size_t dx, size_t rows, size_t k,
                  size_t kc, float* packed) const {
        if (q_.Pointwise()) {
            const float* pixel = image + (dy * q_.dstW + dx) * q_.srcC + g * q_.Cg + k;
            for (size_t r = 0; r < rows; ++r) CopyRun(pixel + r * q_.srcC, kc, packed + r * kc);
        } else {
            for (size_t r = 0; r < rows; ++r) {
                Im2rowSegment(q_, image, g, dy, dx, k, k + kc, packed + r * kc);
                if (++dx == q_.dstW) dx = 0, ++dy;
            }
        }
        ZeroRun((mr_ - rows) * kc, packed + rows * kc);
    }
    void RunUser(const float* image, float* buf, float* dst, size_t g) const {
        const float one = 1.0f, zero = 0.0f;
        const float* a = image + g * q_.Cg;
        size_t lda = q_.srcC;
        if (!q_.Pointwise()) {
            for (size_t dy = 0, r = 0; dy < q_.dstH; ++dy)
                for (size_t dx = 0; dx < q_.dstW; ++dx, ++r)
                    Im2rowSegment(q_, image, g, dy, dx, 0, K_, buf + r * K_);
            a = buf;
            lda = K_;
        }
        gemm_(q_.pixels, q_.Dg, K_, &one, a, lda, weights_.data() + g * q_.Dg, q_.dstC, &zero,
              dst + g * q_.Dg, q_.dstC);
        BiasActivate(dst, q_.pixels, g);
    }

    Geometry q_;
    size_t K_, dgPad_;
    GemmBlocks blocks_;
    GemmTileShape<D> tile_;
    size_t mr_, nr_;  // micro-tile: pixels x output channels
    size_t dyLo_, dyHi_, dxLo_, dxHi_;
    std::vector<GemmASegment> segments_;
    std::vector<size_t> segmentBegin_;  // per K block, and the end
    // K is one block and output rows hold whole tiles with little overlap: RunRowTiles, whose
    // border tiles read a copy of the regionH_ x regionW_ pixels they cover through
    // regionSegments_.
    bool rowTiles_;
    size_t regionW_, regionH_;
    std::vector<GemmASegment> regionSegments_;
};

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
    size_t ExternalBufferSize() const override {
        return BandScratch() + q_.srcImage + (band_ ? 0 : q_.dstImage);
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
        float* srcT = buf + BandScratch();
        if (band_ == 0) {
            RunNchwViaNhwc(src, q_.srcC, q_.srcH * q_.srcW, dst, q_.dstC, q_.pixels, batch_, srcT,
                           srcT + q_.srcImage,
                           [&](const float* s, float* d) { RunImages(s, buf, d, 1); });
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
                        const auto r = PartRange(bands, part, count);
                        for (size_t i = r.first; i < r.second; ++i) {
                            const size_t r0 = i * band_, r1 = std::min(q_.pixels, r0 + band_);
                            RunBlock(srcT, bandT, r0, r1, 0, q_.Dg, scratch, r0);
                            TransposeStrided(bandT, q_.dstC, dst + r0, q_.pixels, r1 - r0, q_.dstC);
                        }
                    }))
                throw std::bad_alloc();
        }
    }

private:
    // Per-thread scratch: the GEMM's, then the band (none without bands).
    size_t BandScratch() const { return NhwcGemm::ExternalBufferSize() + band_ * q_.dstC; }

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
    // Channels [c0, c1) of group g, pixels [j, j + n).
    void BiasActivate(float* dstG, size_t g, size_t c0, size_t c1, size_t j, size_t n) const {
        const Act act{p_.activation, param0_, param1_};
        for (size_t c = c0; c < c1; ++c) {
            const size_t oc = g * q_.Dg + c;
            BiasActivatePlane(dstG + c * q_.pixels + j, n, bias_[oc],
                              slope_.empty() ? 0.0f : slope_[oc], act);
        }
    }
    void Run(const float* src, float* buf, float* dst) const override {
        const size_t plane = q_.srcH * q_.srcW;
        if (gemm_) {
            for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage)
                for (size_t g = 0; g < q_.G; ++g)
                    RunUser(src + g * q_.Cg * plane, buf, dst + g * q_.Dg * q_.pixels, g);
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
                                 std::min(q_.pixels, r.second * T::kCols), 0, q_.Dg, scratch);
                    else
                        RunBlock(src, dst, 0, q_.pixels, r.first * T::kRows,
                                 std::min(q_.Dg, r.second * T::kRows), scratch);
                }))
            throw std::bad_alloc();
    }
    // Output pixels [j0, j1) (j0 a multiple of the panel width) x channels [c0, c1) (c0 a
    // multiple of the micro-tile height) of every group of every image.
    void RunBlock(const float* src, float* dst, size_t j0, size_t j1, size_t c0, size_t c1,
                  float* buf) const {
        const D d;
        const size_t plane = q_.srcH * q_.srcW;
        for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage) {
            for (size_t g = 0; g < q_.G; ++g) {
                const float* srcG = src + g * q_.Cg * plane;
                float* dstG = dst + g * q_.Dg * q_.pixels;
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
                    BiasActivate(dstG, g, c0, c1, j, nc);
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
    void RunUser(const float* srcG, float* buf, float* dstG, size_t g) const {
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
        BiasActivate(dstG, g, 0, q_.Dg, 0, q_.pixels);
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

SIMD_API const char* SimdSynetConvolution32fInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetConvolution32f");
}

}  // extern "C"

#endif  // HWY_ONCE
