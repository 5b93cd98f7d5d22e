// The NHWC direct convolution of the FP32 framework (Convolution32f.cpp), per Highway target:
// class NhwcGemm, dst[pixels x Dg] = im2row(src) * W on the GEMM core, micro-tiles of output
// pixels read in place where their taps are inside the image (see Convolution32f.cpp for the
// algorithm list). Included by Convolution32f.cpp alone; its NCHW algorithms derive from it.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_NHWC_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_NHWC_GEMM_INL_H_
#undef SIMD_SYNET_CONVOLUTION_NHWC_GEMM_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_NHWC_GEMM_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "convolution/Activate-inl.h"
#include "convolution/Convolution32f.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"
#include "core/IsaName.h"
#include "core/ThreadPool.h"
#include "gemm/Gemm-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {
namespace hn = hwy::HWY_NAMESPACE;

inline const char* TargetIsa() {
    return IsaNameOf(HWY_TARGET);
}

using Geometry = ConvGeometry;

// Calls f(std::integral_constant<size_t, V>) with V the vectors of a panel of `cols` columns
// in a layer whose panels have NV vectors: fewer than NV for the last panel of a channel count
// that is not a multiple of the panel width, which is packed that narrow (PackWeights) and
// computed by a kernel of that width. With NV vectors it cost a whole panel of zeros (Sapphire
// Rapids, 1 thread, 7 x 48 tiles: 1x1 160->160 14x14 61.6 -> 50.5 us, 80->80 28x28 65.6 ->
// 53.2, 160->400 14x14 139.5 -> 125.0; regnet_x_400mf 6.10 -> 5.78 ms). Single-row tiles (a
// classifier on a 1x1 image) keep NV: their tail is one row's worth.
template <size_t MR, size_t NV, size_t kLanes, class F>
HWY_INLINE void WithPanelVecs(size_t cols, const F& f) {
    if constexpr (MR > 1 && NV > 1) {
        const size_t vecs = (cols + kLanes - 1) / kLanes;
        if (vecs == 1) return f(std::integral_constant<size_t, 1>());
        if constexpr (NV > 2) {
            if (vecs == 2) return f(std::integral_constant<size_t, 2>());
        }
        if constexpr (NV > 3) {
            if (vecs == 3) return f(std::integral_constant<size_t, 3>());
        }
    }
    f(std::integral_constant<size_t, NV>());
}

// ---------------------------------------------------------------------------------------------
// NHWC: direct convolution on the GEMM core (im2row packed only for border tiles).

class NhwcGemm : public Convolution32f {
protected:
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NhwcGemm(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm)
        : Convolution32f(batch, p, gemm), q_(p), tile_(q_.Dg, batch * q_.pixels) {
        // Few output channels (a first layer) would leave most of a kVecs-wide tile on the
        // zero padding of the weights: AVX-512 then takes 14 x 2- or 14 x 1-vector tiles
        // (GemmTileShape). Zen 5: 14 rows instead of 12 for 3x3 s2 3->32 224x224, 118 -> 110
        // us; 1 vector instead of 2 for 16 output channels, 3x3 s2 3->16 224x224 109 -> 78 us,
        // 3x3 s1 426 -> 309, 1x1 32->16 112x112 132 -> 90.
        // A 7-pixel output row (the last stage of most CNNs) under the narrow tile takes tiles of
        // one row, read in place as row tiles: 14-row tiles spanned two rows, so every tile was
        // packed from im2row (Zen 5, regnet_x_400mf's 25-group 3x3 400->400, 16 channels a
        // group: 7x7 81-104 -> 41 us, 55-70 -> 136-138 GFLOP/s; stride 2 from 14x14 81-103 ->
        // 46 us).
        K_ = q_.kY * q_.kX * q_.Cg;
        if (tile_.rows == GemmTileShape<D>::kNarrowRows && q_.dstW == kShortRows && !gemm &&
            !q_.Pointwise() &&
            K_ <= GemmChooseBlocks(q_.pixels, q_.Dg, K_, kShortRows, tile_.Cols()).kc)
            tile_.rows = kShortRows;
        // Wide 6 x 4-vector tiles on 7x7 maps compute 54 rows for 49 pixels per image; 7 x
        // 3-vector tiles compute exactly 49, on panels 48 channels wide: taken for images of a
        // multiple of 7 pixels where that pads fewer products (1x1 400->400 7x7 on Sapphire
        // Rapids: 106 -> 101 us; 2048->512 735 -> 732: the 7 x 3 kernel runs a few percent
        // below the wide one per FMA).
        if (T::kVecs == 4 && tile_.rows == T::kRows && tile_.vecs == T::kVecs && !gemm &&
            q_.pixels % kShortRows == 0 && ShortTileWastesLess(q_.pixels, q_.Dg))
            tile_.rows = kShortRows, tile_.vecs = 3;
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
                    const auto pack = [&](auto rows, auto vecs) HWY_ATTR {
                        constexpr size_t NR = decltype(vecs)::value * T::kLanes;
                        const size_t full = nc / NR * NR;
                        GemmPackB<D, NR>(d, kc, full, from, q_.dstC, to);
                        if (full == nc) return;
                        WithPanelVecs<decltype(rows)::value, decltype(vecs)::value, T::kLanes>(
                            nc - full, [&](auto tail) HWY_ATTR {
                                GemmPackB<D, decltype(tail)::value * T::kLanes>(
                                    d, kc, nc - full, from + full, q_.dstC, to + full * kc);
                            });
                    };
                    // The 3-vector panels of the 7-row tiles are not among WithGemmTile's.
                    if constexpr (T::kVecs == 4) {
                        if (tile_.vecs == 3) {
                            pack(std::integral_constant<size_t, kShortRows>(),
                                 std::integral_constant<size_t, 3>());
                            continue;
                        }
                    }
                    WithGemmTile(tile_, pack);
                }
            }
    }
    size_t BOffset(size_t g, size_t j, size_t k, size_t nc) const {
        return g * K_ * dgPad_ + j * K_ + k * RoundUp(nc, nr_);
    }
    // Bias, residual (add: NULL or the residual of dst) and activation of group g of `rows`
    // pixels.
    void BiasActivate(float* dst, size_t rows, size_t g, const float* add) const {
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data() + g * q_.Dg;
        BiasActivatePixels(dst + g * q_.Dg, rows, q_.dstC, q_.Dg, bias_.data() + g * q_.Dg, slope,
                           act, add ? add + g * q_.Dg : nullptr);
    }
    void Run(const float* src, float* buf, float* dst) const override {
        RunAdd(src, buf, nullptr, dst);
    }
    // The residual goes into the tiles' epilogue (a separate pass over the output cost
    // resnet50 2 ms of its 25 at 2 threads, mostly reading the other core's half of the output).
    void RunAdd(const float* src, float* buf, const float* add, float* dst) const override {
        if (gemm_) {
            for (size_t b = 0; b < batch_; ++b, src += q_.srcImage, dst += q_.dstImage) {
                for (size_t g = 0; g < q_.G; ++g) RunUser(src, buf, dst, g, add);
                if (add) add += q_.dstImage;
            }
            return;
        }
        RunImages(src, buf, dst, batch_, add);
    }
    // The own-GEMM path for `images` NHWC images; add: NULL or the residual of dst.
    void RunImages(const float* src, float* buf, float* dst, size_t images,
                   const float* add = nullptr) const {
        // Threads take ranges of output pixels (rows of the product, in whole micro-tiles), or
        // ranges of output channels in whole panels when there are too few pixels to share.
        // Every output's sum runs over the same K blocks in the same order either way, so the
        // split never changes a result.
        // Row tiles split in whole output rows, so no part starts a tile inside a row.
        const size_t rows = images * q_.pixels, unit = RowUnit();
        const size_t parts = ThreadPartsFor(2.0 * double(rows) * double(q_.dstC) * double(K_),
                                            double(weights_.size()) * sizeof(float));
        // Channels also when the weights outweigh the input (small maps, many channels: the
        // 7x7 stages): each thread then streams only its share of the weights instead of all of
        // them (resnet50's layer4 at 2 threads on Sapphire Rapids: see the commit).
        const size_t rowUnits = (rows + unit - 1) / unit, panelUnits = (q_.Dg + nr_ - 1) / nr_;
        bool byRows = rows >= parts * 4 * mr_ &&
                      (parts == 1 || double(rows) * double(K_) >= double(weights_.size() / q_.G) ||
                       panelUnits < parts);
        // Grouped layers with a panel or so per group have too few panels to share: rows then,
        // whenever there are more of them (regnet_x_400mf's 25 groups of 16 at 7x7 ran on one
        // thread at any budget: 55 us a call on Sapphire Rapids; asking for a unit per part
        // left them serial again above 7 threads: 2x slower at 16 than at 4 on a 16-core Xeon),
        // or whole groups where those balance better: each part then reads only its groups'
        // weights and input channels (25 groups share 13/12 where 7 rows share 4/3).
        if (!byRows && panelUnits < parts && rowUnits > panelUnits) byRows = true;
        const bool byGroups = q_.G > 1 && panelUnits < parts &&
                              SharedUnits(q_.G, parts) > SharedUnits(rowUnits, parts);
        const size_t units = byGroups ? q_.G : byRows ? rowUnits : panelUnits;
        if (!ParallelPartsWithScratch(
                std::min(parts, units), buf, ExternalBufferSize(),
                [&](size_t part, size_t count, float* scratch) {
                    const auto r = PartRange(units, part, count);
                    if (byGroups) {
                        RunBlock(src, dst, 0, rows, 0, q_.Dg, scratch, 0, r.first, r.second, add);
                    } else if (byRows) {
                        RunBlock(src, dst, r.first * unit, std::min(rows, r.second * unit), 0,
                                 q_.Dg, scratch, 0, 0, SIZE_MAX, add);
                    } else {
                        const auto c = PanelChannels(part, count);
                        if (c.first < c.second)
                            RunBlock(src, dst, 0, rows, c.first, c.second, scratch, 0, 0, SIZE_MAX,
                                     add);
                    }
                }))
            throw std::bad_alloc();
    }
    // Output channels [first, second) of part `part` of `parts` in whole panels. Panels are
    // shared by channels, not by count, where that makes the widest part narrower: 400
    // channels in panels of 48 are 8 full panels and one of 16, which 5 + 4 panels split 240 +
    // 160, and edges at the panel boundary nearest each equal share 192 + 208 (with the narrow
    // last panel of WithPanelVecs, 1x1 400->400 7x7 on Sapphire Rapids at 2 threads: 53 -> 48
    // us, 1 thread 89 -> 84).
    std::pair<size_t, size_t> PanelChannels(size_t part, size_t parts) const {
        const size_t panels = (q_.Dg + nr_ - 1) / nr_;
        const auto byCount = [&](size_t i) {
            return i == parts ? q_.Dg : std::min(q_.Dg, PartRange(panels, i, parts).first * nr_);
        };
        const auto byChannels = [&](size_t i) {
            const size_t share = (i * q_.Dg + parts / 2) / parts;
            return i == parts ? q_.Dg : std::min(q_.Dg, (share + nr_ / 2) / nr_ * nr_);
        };
        size_t widestByCount = 0, widestByChannels = 0;
        for (size_t i = 0; i < parts; ++i) {
            widestByCount = std::max(widestByCount, byCount(i + 1) - byCount(i));
            widestByChannels = std::max(widestByChannels, byChannels(i + 1) - byChannels(i));
        }
        if (widestByChannels < widestByCount) return {byChannels(part), byChannels(part + 1)};
        return {byCount(part), byCount(part + 1)};
    }
    // How many parts' worth of work `units` equal units give `parts` threads: the units over
    // the largest part's share.
    static double SharedUnits(size_t units, size_t parts) {
        const size_t p = std::min(units, parts);
        return double(units) / double((units + p - 1) / p);
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
    // The pixels that the tile of mr_ output pixels starting at (dy, dx) reads, regionH_ rows
    // of regionW_, zero where they fall in the padding: input channels [c0, c1) of each pixel
    // (the groups of a part: on a 7x7 map every tile is a border tile, and parts that each
    // filled every channel split regnet_x_400mf's 3x3 400->400 in 25 groups poorly; Sapphire
    // Rapids at 2 threads: 7x7 32.5 -> 28.6 us against 48.8 at 1, 14x14 stride 2 38.0 ->
    // 33.3 us against 55.1).
    void FillRegion(const float* image, size_t dy, size_t dx, float* region, size_t c0,
                    size_t c1) const {
        const ptrdiff_t sy0 = ptrdiff_t(dy * q_.sY) - ptrdiff_t(q_.padY);
        const ptrdiff_t sx0 = ptrdiff_t(dx * q_.sX) - ptrdiff_t(q_.padX);
        const ptrdiff_t w = ptrdiff_t(regionW_);
        // Columns [lo, hi) of the region are inside the image.
        const ptrdiff_t lo = std::min(std::max<ptrdiff_t>(-sx0, 0), w);
        const ptrdiff_t hi = std::max(std::min(ptrdiff_t(q_.srcW) - sx0, w), lo);
        const size_t C = q_.srcC, rowFloats = regionW_ * C, n = c1 - c0;
        // Every channel: a region row is one run; a part's channels: one run per pixel.
        const bool whole = c0 == 0 && c1 == C;
        for (size_t i = 0; i < regionH_; ++i, region += rowFloats) {
            const ptrdiff_t sy = sy0 + ptrdiff_t(i);
            const bool inside = sy >= 0 && sy < ptrdiff_t(q_.srcH);
            const float* from =
                inside ? image + (size_t(sy) * q_.srcW + size_t(sx0 + lo)) * C : nullptr;
            if (!whole) {
                for (ptrdiff_t x = 0; x < w; ++x) {
                    float* to = region + size_t(x) * C + c0;
                    if (inside && x >= lo && x < hi)
                        CopyRun(from + size_t(x - lo) * C + c0, n, to);
                    else
                        ZeroRun(n, to);
                }
            } else if (!inside) {
                ZeroRun(rowFloats, region);
            } else {
                ZeroRun(size_t(lo) * C, region);
                CopyRun(from, size_t(hi - lo) * C, region + size_t(lo) * C);
                ZeroRun(size_t(w - hi) * C, region + size_t(hi) * C);
            }
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
    // last partial tile) are packed from im2row first. add: NULL, or the residual of dst
    // (the same pixels and channels), added before the activation.
    void RunBlock(const float* src, float* dst, size_t r0, size_t r1, size_t c0, size_t c1,
                  float* buf, size_t dstRow0 = 0, size_t g0 = 0, size_t g1 = SIZE_MAX,
                  const float* add = nullptr) const {
        g1 = std::min(g1, q_.G);
        const auto run = [&](auto rows, auto vecs) HWY_ATTR {
            constexpr size_t MR = decltype(rows)::value, NV = decltype(vecs)::value;
            if (rowTiles_)
                return RunRowTiles<MR, NV>(src, dst, r0, r1, c0, c1, buf, dstRow0, g0, g1, add);
            RunTiles<MR, NV>(src, dst, r0, r1, c0, c1, buf, dstRow0, g0, g1, add);
        };
        // The 7-row tiles are dispatched here, not in WithGemmTile: Winograd and the
        // deconvolutions also go through that one and would compile them for nothing.
        if constexpr (T::kVecs == 4) {
            using Short = std::integral_constant<size_t, kShortRows>;
            if (mr_ == kShortRows && tile_.vecs == 1)
                return run(Short(), std::integral_constant<size_t, 1>());
            if (mr_ == kShortRows && tile_.vecs == 2)
                return run(Short(), std::integral_constant<size_t, 2>());
            if (mr_ == kShortRows && tile_.vecs == 3)
                return run(Short(), std::integral_constant<size_t, 3>());
        }
        WithGemmTile(tile_, run);
    }
    // RunBlock for layers whose K is one block (rowTiles_): the tiles of each output row start
    // at its first pixel and the last one ends at its last pixel, overlapping its predecessor
    // (the overlapped outputs are computed again in the same order, so they do not change), so
    // no tile spans two rows. Every tile then reads its A rows in place: from the image inside
    // it, else from a zero-padded copy of the few pixels it reads (FillRegion). Packing a
    // border tile from im2row cost about four times its FMAs on a 3-channel first layer, and
    // tiles that spanned two rows were all packed. [r0, r1) are whole output rows (RowUnit).
    // (An overlapped output is stored again with the same residual added to the same sums.)
    template <size_t MR, size_t NV>
    void RunRowTiles(const float* src, float* dst, size_t r0, size_t r1, size_t c0, size_t c1,
                     float* buf, size_t dstRow0, size_t g0, size_t g1, const float* add) const {
        const D d;
        constexpr size_t NR = NV * T::kLanes;
        const Act act{p_.activation, param0_, param1_};
        const size_t aStride = q_.sX * q_.srcC;
        const bool fuse = ActivationIsCheap(act.type) && (!add || ResidualFusesWith(act.type));
        float* region = buf;
        const size_t W = q_.dstW;
        for (size_t r = r0; r < r1; r += W) {
            const size_t b = r / q_.pixels, dy = r % q_.pixels / W;
            const float* image = src + b * q_.srcImage;
            float* out = dst + (r - dstRow0) * q_.dstC;
            const float* addOut = add ? add + (out - dst) : nullptr;
            for (size_t t = 0; t < W; t += MR) {
                const size_t dx = std::min(t, W - MR);
                const float* a = image;
                const GemmASegment* segments = segments_.data();
                size_t count = segments_.size(), base;
                if (DirectTile(dy, dx, &base)) {
                    a += base;
                } else {
                    FillRegion(image, dy, dx, region, g0 * q_.Cg, g1 * q_.Cg);
                    a = region;
                    segments = regionSegments_.data();
                    count = regionSegments_.size();
                }
                // No software prefetch of later tiles' outputs as in RunTiles: on Zen 5 it
                // made a first layer slower (3x3 s2 3->32 224x224: 110 us with it, 102
                // without).
                float* tileOut = out + dx * q_.dstC;
                for (size_t g = g0; g < g1; ++g) {
                    for (size_t j = c0 / blocks_.nc * blocks_.nc; j < c1; j += blocks_.nc) {
                        const size_t nc = std::min(blocks_.nc, q_.Dg - j);
                        const size_t j0 = std::max(j, c0), j1 = std::min(j + nc, c1);
                        const float* panels = weights_.data() + BOffset(g, j, 0, nc);
                        for (size_t jp = j0; jp < j1; jp += NR) {
                            const size_t cols = std::min(NR, j1 - jp);
                            const float* panel = panels + (jp - j) * K_;
                            float* c = tileOut + g * q_.Dg + jp;
                            auto tile = [&](const auto& epi) {
                                WithPanelVecs<MR, NV, T::kLanes>(cols, [&](auto vecs) HWY_ATTR {
                                    GemmMicroKernelSegments<D, MR, decltype(vecs)::value>(
                                        d, a + g * q_.Cg, aStride, segments, count, panel, c,
                                        q_.dstC, cols, GemmStore::kOverwrite, epi);
                                });
                            };
                            if (fuse)
                                WithConvEpilogue(
                                    bias_.data() + g * q_.Dg + jp,
                                    slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + jp, act,
                                    tile, add, dst);
                            else
                                tile(GemmNoEpilogue());
                        }
                    }
                }
            }
            // After the whole row: an overlapping tile stores its sums again.
            if (!fuse)
                for (size_t g = g0; g < g1; ++g) {
                    const float* slope = slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + c0;
                    BiasActivatePixels(out + g * q_.Dg + c0, W, q_.dstC, c1 - c0,
                                       bias_.data() + g * q_.Dg + c0, slope, act,
                                       addOut ? addOut + g * q_.Dg + c0 : nullptr);
                }
        }
    }
    // RunBlock with micro-tiles of MR pixels x NV vectors of channels.
    template <size_t MR, size_t NV>
    void RunTiles(const float* src, float* dst, size_t r0, size_t r1, size_t c0, size_t c1,
                  float* buf, size_t dstRow0, size_t g0, size_t g1, const float* add) const {
        const D d;
        constexpr size_t NR = NV * T::kLanes;
        const Act act{p_.activation, param0_, param1_};
        const size_t aStride = q_.sX * q_.srcC;
        const bool fuse = ActivationIsCheap(act.type) && (!add || ResidualFusesWith(act.type));
        for (size_t r = r0; r < r1;) {
            const size_t b = r / q_.pixels, i = r % q_.pixels;
            const size_t mc = std::min({blocks_.mc, r1 - r, q_.pixels - i});
            const size_t tiles = (mc + MR - 1) / MR;
            const float* image = src + b * q_.srcImage;
            float* out = dst + (r - dstRow0) * q_.dstC;
            const float* addOut = add ? add + (out - dst) : nullptr;
            for (size_t g = g0; g < g1; ++g) {
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
                            const float* next = NextPanel(panel, NR * kc, jp + NR < j1, c0, c1);
                            for (size_t t = 0, dy = i / q_.dstW, dx = i % q_.dstW; t < tiles;
                                 ++t, c += MR * q_.dstC) {
                                const size_t rows = std::min(MR, mc - t * MR);
                                const GemmLinePrefetch pf =
                                    GemmPrefetchShare(next, NR * kc, tiles, t, kc);
                                // Output rows of a later tile requested ahead (1x1 56x56
                                // NHWC, Zen4: 64->256 1135 -> 1053 us, 128->256 2291 ->
                                // 1986 us).
                                if (t + kGemmPrefetchTiles < tiles)
                                    GemmPrefetchTile<MR>(c + kGemmPrefetchTiles * MR * q_.dstC,
                                                         q_.dstC, cols);
                                auto tile = [&](const auto& epi) {
                                    WithPanelVecs<MR, NV, T::kLanes>(cols, [&](auto vecs) HWY_ATTR {
                                        constexpr size_t V = decltype(vecs)::value;
                                        if (rows == MR && DirectTile(dy, dx, &base))
                                            GemmMicroKernelSegments<D, MR, V>(
                                                d, image + base + g * q_.Cg, aStride, segments,
                                                segmentCount, panel, c, q_.dstC, cols, mode, epi,
                                                pf);
                                        else
                                            GemmMicroKernel<D, MR, V>(d, kc, buf + t * MR * kc, kc,
                                                                      panel, c, q_.dstC, rows, cols,
                                                                      1.0f, 0.0f, mode, epi,
                                                                      V * T::kLanes, pf);
                                    });
                                };
                                if (last && fuse)
                                    WithConvEpilogue(
                                        bias_.data() + g * q_.Dg + jp,
                                        slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + jp,
                                        act, tile, add, dst);
                                else
                                    tile(GemmNoEpilogue());
                                for (dx += MR; dx >= q_.dstW && dy < q_.dstH;) dx -= q_.dstW, ++dy;
                            }
                        }
                    }
                }
                if (!fuse) {
                    const float* slope = slope_.empty() ? nullptr : slope_.data() + g * q_.Dg + c0;
                    BiasActivatePixels(out + g * q_.Dg + c0, mc, q_.dstC, c1 - c0,
                                       bias_.data() + g * q_.Dg + c0, slope, act,
                                       addOut ? addOut + g * q_.Dg + c0 : nullptr);
                }
            }
            r += mc;
        }
    }
    // RunTiles streams each B panel (`floats` long) from L2 once per tile, but the first tile
    // finds it in L3 or memory when the layer's weights exceed L2, or when other layers ran in
    // between (a network): then that tile waits on every line. So the tiles of one panel ask
    // for the next one, one line per K step, and its fetch overlaps their FMAs (Sapphire
    // Rapids, 1 thread: 1x1 2048->512 7x7 720 -> 630 us, 3x3 512->512 7x7 1680 -> 1450;
    // in regnet_x_400mf the 1x1 400->400 7x7 layers 0.14 -> 0.11-0.12 ms, and the whole
    // network 7.54 -> 6.79 ms; resnet50 61.0 -> 56.4, resnet18 22.1 -> 19.8). The next panel
    // is used next when it follows in memory: within a panel block, or, where this part runs
    // every channel of one column block, the next K block's or group's first panel. Null
    // otherwise (a part of the channels would fetch its neighbour's panel).
    const float* NextPanel(const float* panel, size_t floats, bool inBlock, size_t c0,
                           size_t c1) const {
        const bool wholeRows = c0 == 0 && c1 >= q_.Dg && blocks_.nc >= q_.Dg;
        const float* next = panel + floats;
        return (inBlock || wholeRows) && next < weights_.data() + weights_.size() ? next : nullptr;
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
    void RunUser(const float* image, float* buf, float* dst, size_t g, const float* add) const {
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
        BiasActivate(dst, q_.pixels, g, add);
    }

    // Rows of the narrow tile for 7-pixel output rows (see the constructor).
    static constexpr size_t kShortRows = 7;
    // Whether 7 x 3-vector tiles compute fewer padded products than the wide tile for images
    // of `pixels` (a multiple of 7) and `channels` output channels per group.
    static bool ShortTileWastesLess(size_t pixels, size_t channels) {
        const size_t L = T::kLanes;
        const double wide = double(RoundUp(pixels, T::kRows)) * RoundUp(channels, T::kCols);
        const double shortTile = double(pixels) * RoundUp(channels, 3 * L);
        return shortTile < wide;
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

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
