// Winograd algorithm of the FP32 convolution framework (SUPPLEMENT.md §8, transforms of §12):
// 3x3 kernels, stride 1, dilation 1, group 1, pads up to 2, NHWC and NCHW.
//
// F(m x m, 3x3) turns every output tile of m x m pixels into count = (m + 2)^2 products: with
// V_k the transformed input tiles (one row per tile, srcC columns) and U_k the transformed
// filters (srcC x dstC), M_k = V_k * U_k for every position k < count, then the output transform
// of the count values of each (tile, output channel) gives its m x m pixels. F(4x4) needs 36
// products for 16 pixels (2.25 per pixel against 9 for the direct form), F(2x2) 16 for 4.
//
// Layout and blocking (per part of the thread split):
//   * the tiles are cut into blocks of whole tile rows of one image, small enough that the
//     transformed input V (count x tiles x srcC) and the products M (count x tiles x dstC) of a
//     block stay in L2: the GEMM reads V hot from the input transform, the output transform
//     reads M hot from the GEMM;
//   * U_k is packed at SetParams into the GEMM core's B panels (kc x kCols micro-panels, the
//     same K chunks for every block), V_k is used in place as the A operand (row stride srcC),
//     so no packing happens in Forward;
//   * NCHW images are transposed to NHWC (one image at a time, into the caller's scratch),
//     convolved as NHWC and transposed back: the NCHW forms of the transforms scatter V by
//     srcC and gather M by dstC, which measured slower than the two transposes (Zen4, 3x3
//     64->64 56x56: 1485 -> 1065 us on AVX-512, 1664 -> 1146 us on AVX2; 256->256 14x14:
//     1176 -> 1055 and 1879 -> 1326 us).
// Bias and activation are applied by the output transform before the pixels are stored.
// Threads: the tile rows are split evenly over the parts, each part running its rows as
// blocks; when there are fewer blocks than threads, the output-channel panels of each block
// are split too (each such part transforms the input of its block itself). Every output value
// is computed by the same operations in the same order whatever the split, so results are
// bit-identical for any thread count.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/ConvolutionWinograd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/ConvolutionWinograd.h"
#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "convolution/ImageTranspose-inl.h"
#include "gemm/Gemm-inl.h"
#include "winograd/Transform-inl.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "convolution/Convolution32f.h"
#include "core/IsaName.h"
#include "core/ThreadPool.h"
#include "gemm/GemmBlocking.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace convwinograd {

using conv32f::Act;
using conv32f::Activate;
using conv32f::RunNchwViaNhwc;

// NHWC epilogue: lanes are output channels c0 + c ..., stored at `at` in dst; with kAdd the
// value stored at `at` is add[at - dst] more (a template argument, so the transform without a
// residual keeps its loop as it was).
template <bool kAdd>
struct BiasActivateChannelsPost {
    const float* bias;
    const float* slope;  // NULL when the activation reads none
    Act act;
    const float* add;  // kAdd: the residual of dst
    const float* dst;
    template <class D>
    HWY_INLINE hn::Vec<D> operator()(D d, hn::Vec<D> v, size_t c, const float* at) const {
        const hn::Vec<D> s = slope ? hn::LoadU(d, slope + c) : hn::Zero(d);
        v = hn::Add(v, hn::LoadU(d, bias + c));
        if constexpr (kAdd) v = hn::Add(v, hn::LoadU(d, add + (at - dst)));
        (void)at;
        return Activate(d, v, s, act);
    }
};

// AY = AX = winograd::AxisF43 (F(4x4, 3x3)) or winograd::AxisF23 (F(2x2, 3x3)).
template <class Axis>
class Winograd : public Convolution32f {
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;
    using S = winograd::Sizes<Axis, Axis>;
    static constexpr size_t kCount = size_t(S::kCount), kBlock = size_t(Axis::kBlock);

public:
    Winograd(size_t batch, const SimdConvolutionParameters& p, size_t l2Bytes)
        : Convolution32f(batch, p, nullptr),
          q_(p),
          nchw_(p.srcF == SimdTensorFormatNchw),
          tile_(p.dstC) {
        tileH_ = (q_.dstH + kBlock - 1) / kBlock;
        tileW_ = (q_.dstW + kBlock - 1) / kBlock;
        // Tile rows per block: V and M of the block within l2Bytes, at least one row; then the
        // rows are spread evenly over the blocks of an image.
        const size_t rowBytes = kCount * tileW_ * (q_.srcC + q_.dstC) * sizeof(float);
        size_t rows = std::max<size_t>(1, std::min(tileH_, l2Bytes / rowBytes));
        blocksPerImage_ = (tileH_ + rows - 1) / rows;
        blockRows_ = (tileH_ + blocksPerImage_ - 1) / blocksPerImage_;
        // The products take the direct kernel's tile for the output channels (GemmTileShape):
        // on AVX-512, 14 x 2 vectors for at most 32 and 14 x 1 for at most 16, where the
        // 6 x 4-vector tile left half or more of every panel on zeros. Zen 5, 3x3 NHWC:
        // 16->32 112x112 512 -> 291 us, 24->24 56x56 167 -> 103, 32->32 56x56 200 -> 111,
        // 32->16 112x112 728 -> 413 (2 vectors) -> 340 (1), 16->16 56x56 109 -> 60 -> 49.
        tilesPad_ = RoundUp(blockRows_ * tileW_, tile_.rows);
        kc_ = GemmChooseBlocks(tilesPad_, q_.dstC, q_.srcC, tile_.rows, tile_.Cols()).kc;
        dcPad_ = RoundUp(q_.dstC, tile_.Cols());
        vStride_ = tilesPad_ * q_.srcC;
        mStride_ = tilesPad_ * q_.dstC;
        info_ = std::string(IsaNameOf(HWY_TARGET)) + (nchw_ ? "::nchw-via-nhwc" : "::nhwc") +
                "-winograd-" + std::to_string(kBlock) + "x" + std::to_string(kBlock);
    }
    // The transposed images (NCHW: source, output, residual), then one part's V and M.
    size_t ExternalBufferSize() const override { return ImagesSize() + BlockScratchSize(); }

protected:
    void PackWeights(const float* w) override {
        const D d;
        const size_t srcC = q_.srcC, dstC = q_.dstC, size = srcC * dstC;
        std::vector<float> u(kCount * size), yxio;
        if (nchw_) {  // OIYX -> YXIO
            yxio.resize(9 * size);
            for (size_t o = 0; o < dstC; ++o)
                for (size_t i = 0; i < srcC; ++i)
                    for (size_t t = 0; t < 9; ++t)
                        yxio[(t * srcC + i) * dstC + o] = w[(o * srcC + i) * 9 + t];
            w = yxio.data();
        }
        // Plane k: srcC x dstC.
        winograd::SetFilter<Axis, Axis>(w, size, u.data(), true);
        weights_.assign(kCount * srcC * dcPad_, 0.0f);
        for (size_t k = 0; k < kCount; ++k)
            for (size_t k0 = 0; k0 < srcC; k0 += kc_) {
                const size_t kc = std::min(kc_, srcC - k0);
                float* packed = weights_.data() + k * srcC * dcPad_ + k0 * dcPad_;
                WithGemmTile(tile_, [&](auto, auto vecs) HWY_ATTR {
                    GemmPackB<D, decltype(vecs)::value * T::kLanes>(
                        d, kc, dstC, u.data() + k * size + k0 * dstC, dstC, packed);
                });
            }
    }

    size_t ImagesSize() const { return nchw_ ? q_.srcImage + 2 * q_.dstImage : 0; }
    size_t BlockScratchSize() const { return kCount * (vStride_ + mStride_); }

    void Run(const float* src, float* buf, float* dst) const override {
        RunAdd(src, buf, nullptr, dst);
    }
    // The residual is added in the output transform (NCHW: transposed to NHWC first).
    void RunAdd(const float* src, float* buf, const float* add, float* dst) const override {
        if (!nchw_) {
            RunBlocks(src, buf, dst, batch_, add);
            return;
        }
        RunNchwViaNhwc(
            src, q_.srcC, q_.srcH * q_.srcW, dst, q_.dstC, q_.pixels, batch_, buf,
            buf + q_.srcImage,
            [&](const float* s, float* d, const float* a) {
                RunBlocks(s, buf + ImagesSize(), d, 1, a);
            },
            add, buf + q_.srcImage + q_.dstImage);
    }

    // Every block of `images` images (tensors in the compute layout), split over the threads:
    // each part takes an equal share of the tile rows (not of the blocks: 14 rows in 4 blocks
    // of 4, 4, 3, 3 gave two threads 8 and 6 rows), computed in pieces of at most blockRows_
    // rows of one image. With more threads than blocks, the rows are shared finer than the
    // L2-sized blocks where that balances; otherwise the output-channel panels are split too
    // (each such part transforms its rows' input again), and when the panels run out the rows
    // are shared finer all the same: 3x3 64->64 56x56 (2 blocks, 1 panel) ran
    // on 2 of 16 Xeon threads, 1007 us on one, 465-488 us on 2 to 16. Each tile's sums do not
    // depend on which part computes it, so every split gives the same bits.
    void RunBlocks(const float* src, float* scratch, float* dst, size_t images,
                   const float* add) const {
        const size_t blocks = images * blocksPerImage_, rowUnits = images * tileH_;
        const size_t panels = dcPad_ / tile_.Cols();
        const size_t budget = ThreadBudget();
        size_t rowParts = budget, split = 1;
        // Fewer blocks than threads: the tile rows are shared finer than the blocks where they
        // balance (the largest share at most 4/3 of the mean), since a panel split makes every
        // part transform its rows' input again. At 2 threads on Sapphire Rapids: resnet50's
        // layer2 3x3 (28x28, 7 tile rows, 2 panels) 0.48-0.55 -> 0.35-0.38 ms, googlenet's
        // 3x3 layers 4.49 -> 3.59 ms in all.
        const size_t perPart = (rowUnits + budget - 1) / budget;
        if (budget > blocks && rowUnits >= budget && 3 * perPart * budget <= 4 * rowUnits) {
            rowParts = budget;
        } else if (budget > blocks) {
            split = std::min(panels, budget / blocks);
            rowParts = std::max(blocks, std::min(rowUnits, budget / split));
        }
        const bool ok = ParallelPartsWithScratch(
            rowParts * split, scratch, BlockScratchSize(),
            [&](size_t part, size_t count, float* own) {
                // Fewer parts than asked for when another thread lowered the budget since it
                // was read here: rows alone are split then.
                const size_t s = count == rowParts * split ? split : 1;
                const auto range = PartRange(rowUnits, part / s, count / s);
                const auto cols = PartRange(panels, part % s, s);
                const size_t dc0 = cols.first * tile_.Cols();
                const size_t dc1 = std::min(q_.dstC, cols.second * tile_.Cols());
                for (size_t r = range.first; r < range.second;) {
                    const size_t ty = r % tileH_;
                    const size_t n = std::min(range.second - r, tileH_ - ty);
                    const size_t pieces = (n + blockRows_ - 1) / blockRows_;
                    for (size_t i = 0; i < pieces; ++i) {
                        const auto rows = PartRange(n, i, pieces);
                        RunBlock(src, dst, r / tileH_, ty + rows.first, rows.second - rows.first,
                                 dc0, dc1, own, add);
                    }
                    r += n;
                }
            });
        if (!ok) throw std::bad_alloc();
    }

    // Tile rows [ty0, ty0 + rows) of image `image` (rows <= blockRows_), output channels
    // [dc0, dc1) (dc0 a multiple of the panel width); add: NULL or the residual of dst.
    void RunBlock(const float* src, float* dst, size_t image, size_t ty0, size_t rows, size_t dc0,
                  size_t dc1, float* scratch, const float* add) const {
        const D d;
        const size_t tiles = rows * tileW_, tilesR = RoundUp(tiles, tile_.rows);
        const size_t srcC = q_.srcC, dstC = q_.dstC;
        const float* srcImage = src + image * q_.srcImage;
        float* dstImage = dst + image * q_.dstImage;
        float* V = scratch;
        float* M = scratch + kCount * vStride_;

        // Input transform of the block's tile rows into V[k][tile][srcC].
        winograd::InputShape in{srcC,
                                q_.srcH,
                                q_.srcW,
                                ptrdiff_t(q_.padY) - ptrdiff_t(ty0 * kBlock),
                                ptrdiff_t(q_.padX),
                                rows,
                                tileW_,
                                V,
                                vStride_};
        winograd::SetInputNhwc<Axis, Axis>(srcImage, in);
        // Rows completing the last micro-panel are read by the micro-kernel: zero them.
        for (size_t k = 0; k < kCount; ++k)
            GemmZero(d, (tilesR - tiles) * srcC, V + k * vStride_ + tiles * srcC);

        // M_k[tiles x (dc0..dc1)] = V_k * U_k.
        WithGemmTile(tile_, [&](auto rowsTag, auto vecsTag) HWY_ATTR {
            constexpr size_t R = decltype(rowsTag)::value, NV = decltype(vecsTag)::value;
            constexpr size_t NR = NV * T::kLanes;
            for (size_t k = 0; k < kCount; ++k) {
                const float* A = V + k * vStride_;
                float* C = M + k * mStride_;
                const float* U = weights_.data() + k * srcC * dcPad_;
                for (size_t k0 = 0; k0 < srcC; k0 += kc_) {
                    const size_t kc = std::min(kc_, srcC - k0);
                    const GemmStore mode = k0 == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                    for (size_t j = dc0; j < dc1; j += NR) {
                        const size_t cols = std::min(NR, dc1 - j);
                        const float* b = U + k0 * dcPad_ + j * kc;
                        const float* next = NextPanel(b + NR * kc, j + NR < dc1, dc0, dc1);
                        for (size_t i = 0, t = 0; i < tiles; i += R, ++t)
                            GemmMicroKernel<D, R, NV>(
                                d, kc, A + i * srcC + k0, srcC, b, C + i * dstC + j, dstC,
                                std::min(R, tiles - i), cols, 1.0f, 0.0f, mode, GemmNoEpilogue(),
                                NR, GemmPrefetchShare(next, NR * kc, tilesR / R, t, kc));
                    }
                }
            }
        });

        // Output transform with bias and activation.
        const size_t y0 = ty0 * kBlock;
        winograd::OutputShape out{
            M + dc0, mStride_, dc1 - dc0, std::min(rows * kBlock, q_.dstH - y0),
            q_.dstW, rows,     tileW_};
        out.srcTileStride = dstC;
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data() + dc0;
        out.dstPixelStride = dstC;
        float* first = dstImage + y0 * q_.dstW * dstC + dc0;
        if (add)
            winograd::SetOutputNhwc<Axis, Axis>(
                out, first,
                BiasActivateChannelsPost<true>{bias_.data() + dc0, slope, act, add, dst});
        else
            winograd::SetOutputNhwc<Axis, Axis>(
                out, first,
                BiasActivateChannelsPost<false>{bias_.data() + dc0, slope, act, add, dst});
    }

    // The panel after the current one (its weights follow at `next`) when the products take it
    // next: within the part's panels, or, when the part has every output channel, the next K
    // block's or matrix's first one; else null. Its tiles then fetch it into L2 behind their
    // FMAs (GemmPrefetchShare): the transformed weights of a layer are 4x the kernel's (3x3
    // 256->256: 9.4 MB), far beyond L2, and with 16 tiles on a 14x14 map each panel served 3
    // micro-tiles, which waited on its lines (resnet50's layer3 ran 1.5 ms a layer where the
    // layer bench, its weights in L2 and L3, ran 0.82).
    const float* NextPanel(const float* next, bool inPart, size_t dc0, size_t dc1) const {
        const bool whole = dc0 == 0 && dc1 >= q_.dstC;
        return (inPart || whole) && next < weights_.data() + weights_.size() ? next : nullptr;
    }

    ConvGeometry q_;
    bool nchw_;
    GemmTileShape<D> tile_;  // the products' micro-tile: rows (tiles) x output channels
    size_t tileH_, tileW_, blocksPerImage_, blockRows_, tilesPad_, kc_, dcPad_, vStride_, mStride_;
};

// Multiplications per image of F(m x m) tiles: count * tiles.
size_t Products(size_t m, size_t dstH, size_t dstW) {
    return (m + 2) * (m + 2) * ((dstH + m - 1) / m) * ((dstW + m - 1) / m);
}

// The cost of F(m x m) per pair of input and output channels, in multiply-adds: its products,
// or, where its transformed weights outgrow L2, the time that streaming them from memory takes
// if longer. In a network other layers evict them between runs, so they come from memory once
// a run, at 4 bytes per weight against about 35 multiply-adds in the same time on one core
// (Sapphire Rapids: 13 GB/s, 230 GFLOP/s). resnet50's 3x3 256->256 on 14x14: F(4x4) has 16
// tiles against 9.4 MB of weights, F(2x2) 49 tiles against 4.2 MB, and ran 1.2 -> 1.0 ms a
// layer in the network, where the products alone chose F(4x4).
constexpr double kMulAddsPerStreamedWeight = 32;
double Cost(size_t m, size_t batch, const SimdConvolutionParameters& p, size_t l2) {
    const double products = double(batch) * double(Products(m, p.dstH, p.dstW));
    const size_t count = (m + 2) * (m + 2);
    if (count * p.srcC * p.dstC * sizeof(float) <= l2) return products;
    return std::max(products, double(count) * kMulAddsPerStreamedWeight);
}

}  // namespace convwinograd

Convolution32f* CreateConvolutionWinograd(size_t batch, const SimdConvolutionParameters& p) {
    if (p.kernelY != 3 || p.kernelX != 3 || p.strideY != 1 || p.strideX != 1 || p.dilationY != 1 ||
        p.dilationX != 1 || p.group != 1 || p.padY > 2 || p.padX > 2 || p.padH > 2 || p.padW > 2)
        return nullptr;
    const char* mode = std::getenv("SIMD_SYNET_WINOGRAD");
    const bool forced = mode && mode[0] == '1';
    if (mode && mode[0] == '0') return nullptr;
    // Selection, measured against the implicit GEMM of this library on Zen4 (one thread,
    // AVX-512 and SIMD_SYNET_MAX_ISA=avx2), NHWC 3x3 pad-1 layers, 3..1024 channels,
    // 2x2..112x112: Winograd wins 2-3x from 16 channels, except on images below 36 pixels
    // (4x4: 0.7x) and where few tiles meet large weights (512 channels 7x7: 0.86x on AVX2, the
    // products are a few rows against 37 MB). With fewer input channels than a vector has
    // lanes (at most 8, at least 3) the transforms outweigh the products and the direct
    // kernel's row tiles win (Zen 5, direct vs Winograd: AVX-512 3->32 224x224 420 vs 869 us,
    // 4->32 112x112 138 vs 190, but 8->32 254 vs 229 and 8->64 491 vs 389; AVX2 3->32 224x224
    // 763 vs 1255, 8->32 112x112 478 vs 339; SSE4 3->32 112x112 524 vs 525, 4->32 680 vs
    // 528). NCHW layers take the same rule: both algorithms run them as NHWC between the same
    // transposes.
    if (!forced) {
        const size_t tiles = batch * ((p.dstH + 3) / 4) * ((p.dstW + 3) / 4);
        const bool small = p.dstH * p.dstW < 36;
        const bool weightBound = p.srcC * p.dstC > 256 * 256 && tiles < 8;
        const bool fewInputs =
            p.srcC < std::max<size_t>(3, std::min<size_t>(8, hn::Lanes(hn::ScalableTag<float>())));
        if (p.dstC < 3 || fewInputs || small || weightBound) return nullptr;
    }
    // Block budget: V and M of a block within L2, or as large as the transformed weights when
    // they are larger (they are read once per block, from L3 or memory: 512 channels 14x14 ran
    // 1.5x faster with one block per image than with L2-sized blocks).
    const size_t l2 = std::max(GemmCaches().l2,
                               (p.kernelY + 3) * (p.kernelX + 3) * p.srcC * p.dstC * sizeof(float));
    if (convwinograd::Cost(2, batch, p, GemmCaches().l2) <
        convwinograd::Cost(4, batch, p, GemmCaches().l2))
        return new convwinograd::Winograd<winograd::AxisF23>(batch, p, l2);
    return new convwinograd::Winograd<winograd::AxisF43>(batch, p, l2);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
