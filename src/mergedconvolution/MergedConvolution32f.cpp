// FP32 merged convolution (SUPPLEMENT.md §10): SimdSynetMergedConvolution32fInit /
// ExternalBufferSize / InternalBufferSize / SetParams / Forward / Info.
//
// Chains P -> D -> Q (expand, depthwise, project; optionally plus the input), P -> D and D -> Q
// run in bands of output rows of D: for each band the rows of P that the band's depthwise taps
// read are computed into a band buffer, D runs on that buffer into a second one, and Q turns it
// into the band's output rows (the residual is added while they are in cache). The band height
// is chosen so that one band's buffers take about half of L2, so the expanded tensors never
// go to memory. The rows of P shared by two neighbouring bands are moved to the top of the
// buffer instead of being computed again.
//
// The pieces are the convolution framework's: P (1x1 in place, otherwise through im2row rows)
// and Q are products with the GEMM micro-kernels of gemm/Gemm-inl.h over weights packed at
// SetParams (column panels as narrow as the channel count allows), bias and cheap activations
// applied in the micro-kernel's store (ConvEpilogueOf), other activations by a pass over the
// finished rows; D uses the depthwise NHWC kernels of convolution/DepthwiseNhwc-inl.h on the
// band buffer, whose geometry is that of D shifted to the band's first row: register blocks for
// 3x3 and 5x5 kernels of stride 1 and 2, the general per-pixel kernel for the others.
//
// Threads: Forward splits the output rows of D (over the batch) into ranges, one per thread,
// each with its own band buffers (P -> D chains with a 5x5 D split P's column panels, each part
// running every row on its channels); every value is computed by the same operations whatever
// the range and band it falls in, so results do not depend on the thread count.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "mergedconvolution/MergedConvolution32f.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Activate-inl.h"
#include "convolution/DepthwiseNhwc-inl.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"
#include "core/VectorSteps-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/IsaName.h"
#include "core/ThreadPool.h"
#include "gemm/GemmBlocking.h"
#include "mergedconvolution/MergedConvolution32f.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace merged32f {
namespace hn = hwy::HWY_NAMESPACE;

using conv32f::Act;
using conv32f::ActivationIsCheap;
using conv32f::BiasActivateChannels;
using conv32f::BiasActivatePixels;
using conv32f::WithConvEpilogue;

using D = hn::ScalableTag<float>;
using T = GemmTraits<D>;

// Micro-tile rows for a panel of NV vectors: the target's tile for full panels; narrower
// panels (few output channels) take more rows, as many as the register file holds.
constexpr size_t TileRows(size_t nv) {
    return nv == T::kVecs ? T::kRows
                          : (T::kRows * T::kVecs / nv < 12 ? T::kRows * T::kVecs / nv : 12);
}
constexpr size_t kMaxTileRows = 12;

// No half-width (8-lane) panels on AVX-512 for 17-24 remaining columns: they computed a
// 24-channel projection without the 8 wasted columns of two 16-lane vectors, a gain on Zen4
// (512-bit FMAs as two 256-bit halves) but on cores with full-width 512-bit FMA units a
// 256-bit FMA costs the same issue slot: on Zen 5 the 56x56 24->144->24 block ran 352-355 us
// with them, 326-327 us without.

// One column panel of packed weights: output channels [col, col + cols), nv vectors wide, K
// rows of nv vectors at `offset` of the packed array.
struct Panel {
    size_t col, cols, nv, offset;
};

// The panel that starts with `cols` columns left: full panels, else the narrowest of 1, 2 or 3
// vectors that covers them. Three-vector panels (4-vector targets: AVX-512) take 48 channels
// (mnasnet's 5x5 blocks project to 48) without a fourth vector of zero columns.
inline Panel NextPanel(size_t col, size_t cols) {
    const size_t L = T::kLanes;
    const size_t need = (cols + L - 1) / L;
    const size_t nv = need >= T::kVecs ? T::kVecs : need <= 1 ? 1 : need <= 2 ? 2 : need;
    return Panel{col, std::min(cols, nv * L), nv, 0};
}
// The width of 3-vector panels as a template argument: only targets of more than 3 vectors per
// tile make them, the others name an instance they have anyway.
constexpr size_t kThreeVecs = T::kVecs > 3 ? 3 : T::kVecs;

// A GEMM stage (P or Q): C[m][n] = Activate(sum_k A[m][k] * W[k][n] + bias[n]).
struct GemmStage {
    size_t K, N;
    const float* packed;
    const Panel* panels;
    size_t panelCount;
    const float* bias;
    const float* slope;
    const float* zeros;
    Act act;
};

// Rows [0, M) of one panel: whole tiles read A in place, a last partial tile of more than one
// row goes through `tail` (R rows of K floats, zero-padded), since the kernel reads R rows.
// The whole tiles fetch the next panel (`next`, `nextFloats` long) into L2 between them, as
// in the convolution's NhwcGemm (RunTiles): the weights of a 7x7 stage outgrow L2 with those of
// the layers around it, and each panel's first tile waited on its lines.
template <class DT, size_t R, size_t NV, class Epi>
HWY_NOINLINE void GemmPanelRows(const float* A, size_t lda, size_t M, size_t K, const float* b,
                                float* C, size_t ldc, size_t cols, const Epi& epi, float* tail,
                                const float* next, size_t nextFloats) {
    const DT d;
    constexpr size_t NR = NV * GemmTraits<DT>::kLanes;
    size_t i = 0;
    for (size_t t = 0; i + R <= M; i += R, ++t)
        GemmMicroKernel<DT, R, NV, Epi>(d, K, A + i * lda, lda, b, C + i * ldc, ldc, R, cols, 1.0f,
                                        0.0f, GemmStore::kOverwrite, epi, NR,
                                        GemmPrefetchShare(next, nextFloats, M / R, t, K));
    if (i == M) return;
    const size_t rows = M - i;
    if (rows == 1) {
        GemmMicroKernel<DT, R, NV, Epi>(d, K, A + i * lda, lda, b, C + i * ldc, ldc, 1, cols, 1.0f,
                                        0.0f, GemmStore::kOverwrite, epi);
        return;
    }
    for (size_t r = 0; r < rows; ++r) GemmCopy(d, A + (i + r) * lda, K, tail + r * K);
    GemmZero(d, (R - rows) * K, tail + rows * K);
    GemmMicroKernel<DT, R, NV, Epi>(d, K, tail, K, b, C + i * ldc, ldc, rows, cols, 1.0f, 0.0f,
                                    GemmStore::kOverwrite, epi);
}

template <class DT, size_t NV>
void GemmPanel(const GemmStage& s, const Panel& panel, const float* A, size_t lda, size_t M,
               float* C, size_t ldc, float* tail, const Panel* next) {
    const bool cheap = ActivationIsCheap(s.act.type);
    const Act act = cheap ? s.act : Act{SimdConvolutionActivationIdentity, 0.0f, 0.0f};
    WithConvEpilogue(
        s.bias + panel.col, s.slope ? s.slope + panel.col : nullptr, act, [&](const auto& epi) {
            GemmPanelRows<DT, TileRows(NV), NV>(
                A, lda, M, s.K, s.packed + panel.offset, C + panel.col, ldc, panel.cols, epi, tail,
                next ? s.packed + next->offset : nullptr, next ? s.K * next->nv * T::kLanes : 0);
        });
}

// The whole stage on M rows of A (row stride lda) into C (row stride ldc).
void RunGemm(const GemmStage& s, const float* A, size_t lda, size_t M, float* C, size_t ldc,
             float* tail) {
    for (size_t p = 0; p < s.panelCount; ++p) {
        const Panel& panel = s.panels[p];
        const Panel* next = p + 1 < s.panelCount ? &s.panels[p + 1] : nullptr;
        if (panel.nv == T::kVecs)
            GemmPanel<D, T::kVecs>(s, panel, A, lda, M, C, ldc, tail, next);
        else if (panel.nv == 2)
            GemmPanel<D, 2>(s, panel, A, lda, M, C, ldc, tail, next);
        else if (panel.nv == 3)
            GemmPanel<D, kThreeVecs>(s, panel, A, lda, M, C, ldc, tail, next);
        else
            GemmPanel<D, 1>(s, panel, A, lda, M, C, ldc, tail, next);
    }
    // Activations too costly for the micro-kernel's store: one pass over the finished rows
    // (the bias is already in), over the columns of these panels.
    if (!ActivationIsCheap(s.act.type) && s.panelCount > 0) {
        const Panel& last = s.panels[s.panelCount - 1];
        const size_t col0 = s.panels[0].col, cols = last.col + last.cols - col0;
        BiasActivatePixels(C + col0, M, ldc, cols, s.zeros + col0,
                           s.slope ? s.slope + col0 : nullptr, s.act);
    }
}

// The stage restricted to its panels [p0, p1): the output columns of a channel part.
inline GemmStage PanelRange(GemmStage s, size_t p0, size_t p1) {
    s.panels += p0;
    s.panelCount = p1 - p0;
    return s;
}

// Pixels per depthwise 3x3 block (as the depthwise convolution uses them).
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kDwCols2 = 6, kDwCols1 = 8;
#else
constexpr size_t kDwCols2 = 2, kDwCols1 = 4;
#endif
// Pixels per 5x5 row block (DepthwiseKxKRows): eight accumulators, five weights and a source
// vector fit 16 registers; on AVX-512, 16 pixels measured the same as 8.
constexpr size_t kDwCols5 = 8;
// Channel vectors per group of a band walk: the band buffer is L2-resident.
constexpr size_t kDwGroupVectors = 4;

// Offsets in floats are rounded to this (64 bytes) inside the scratch of one part.
constexpr size_t kAlignFloats = 16;

class MergedBand : public MergedConvolution32f {
public:
    MergedBand(size_t batch, const SimdConvolutionParameters* convs, size_t count, bool add)
        : MergedConvolution32f(batch, convs, count, add),
          hasP_(convs[0].group == 1),
          hasQ_(count == 3 || convs[0].group != 1),
          dI_(hasP_ ? 1 : 0),
          gD_(convs[dI_]) {
        const char* sequence = count == 3 ? "pdq" : hasP_ ? "pd" : "dq";
        if (hasP_) pointwiseP_ = ConvGeometry(convs[0]).Pointwise();
        if (hasQ_) {
            const SimdConvolutionParameters& q = convs[dI_ + 1];
            qPadded_ = q.padY || q.padX || q.padH || q.padW;
        }
        fast3x3_ = gD_.kY == 3 && gD_.sY == gD_.sX && (gD_.sX == 1 || gD_.sX == 2);
        if (fast3x3_) plan_ = conv32f::Depthwise3x3Plan(gD_);
        fast5x5_ = gD_.kY == 5 && gD_.sY == gD_.sX && (gD_.sX == 1 || gD_.sX == 2);

        // Band height: the P rows (stride rows per output row), the D rows and the output rows
        // of one band in about half of L2.
        const size_t C1 = gD_.srcC, W1 = gD_.srcW, W2 = gD_.dstW;
        const size_t outC = convs[count - 1].dstC;
        const size_t perRow = (hasP_ ? gD_.sY * W1 * C1 : 0) + (hasQ_ ? W2 * C1 : 0) + W2 * outC;
        const size_t budget = GemmCaches().l2 / 2 / sizeof(float);
        const size_t halo = hasP_ ? (gD_.kY > gD_.sY ? gD_.kY - gD_.sY : 0) * W1 * C1 : 0;
        bandH_ = budget > halo + perRow ? (budget - halo) / perRow : 1;
        bandH_ = std::max<size_t>(1, std::min(bandH_, gD_.dstH));

        // Scratch of one part.
        size_t at = 0;
        auto take = [&](size_t floats) {
            const size_t offset = at;
            at += RoundUp(floats, kAlignFloats);
            return offset;
        };
        size_t maxK = 1;
        if (hasP_) {
            const size_t rows = std::min(gD_.srcH, (bandH_ - 1) * gD_.sY + gD_.kY);
            pOffset_ = take(rows * W1 * C1);
            const ConvGeometry gp(convs[0]);
            kP_ = gp.kY * gp.kX * gp.srcC;
            if (!pointwiseP_) im2rowOffset_ = take(W1 * kP_);
            maxK = std::max(maxK, kP_);
        }
        if (hasQ_) {
            dOffset_ = take(bandH_ * W2 * C1);
            maxK = std::max(maxK, C1);
        }
        tailOffset_ = take(kMaxTileRows * maxK);
        partFloats_ = std::max<size_t>(at, 1);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::merged-" + sequence + "-band" +
                std::to_string(bandH_);
    }

    size_t ExternalBufferSize() const override { return partFloats_; }
    size_t InternalBufferSize() const override {
        return MergedConvolution32f::InternalBufferSize() + qBorder_.size();
    }

protected:
    void PackWeights(size_t stage, const float* w) override {
        const SimdConvolutionParameters& p = p_[stage];
        // Depthwise: [kY][kX][C] as given. Told by its index, not by group != 1: a depthwise
        // stage of one channel has group 1 (it was packed as a GEMM panel, and P -> D -> Q
        // through one channel gave wrong results on every SIMD target).
        if (stage == dI_) {
            weights_[stage].assign(w, w + p.kernelY * p.kernelX * p.srcC);
            return;
        }
        const size_t K = p.kernelY * p.kernelX * p.srcC, N = p.dstC;
        std::vector<Panel>& panels = panels_[stage];
        panels.clear();
        size_t size = 0;
        for (size_t col = 0; col < N;) {
            Panel panel = NextPanel(col, N - col);
            panel.offset = size;
            panels.push_back(panel);
            size += K * panel.nv * T::kLanes;
            col += panel.cols;
        }
        weights_[stage].assign(size, 0.0f);
        const D d;
        for (const Panel& panel : panels) {
            float* out = weights_[stage].data() + panel.offset;
            if (panel.nv == T::kVecs)
                GemmPackB<D, T::kVecs * T::kLanes>(d, K, panel.cols, w + panel.col, N, out);
            else if (panel.nv == 2)
                GemmPackB<D, 2 * T::kLanes>(d, K, panel.cols, w + panel.col, N, out);
            else if (panel.nv == 3)
                GemmPackB<D, kThreeVecs * T::kLanes>(d, K, panel.cols, w + panel.col, N, out);
            else
                GemmPackB<D, T::kLanes>(d, K, panel.cols, w + panel.col, N, out);
        }
        // SetParams has already taken this stage's bias and activation values.
        if (qPadded_ && stage == dI_ + 1) {
            qBorder_.assign(N, 0.0f);
            const Act act{p.activation, param0_[stage], param1_[stage]};
            BiasActivateChannels(qBorder_.data(), N, bias_[stage].data(),
                                 slope_[stage].empty() ? nullptr : slope_[stage].data(), act);
        }
    }

    GemmStage Stage(size_t i) const {
        const SimdConvolutionParameters& p = p_[i];
        return GemmStage{p.kernelY * p.kernelX * p.srcC,
                         p.dstC,
                         weights_[i].data(),
                         panels_[i].data(),
                         panels_[i].size(),
                         bias_[i].data(),
                         slope_[i].empty() ? nullptr : slope_[i].data(),
                         zeros_[i].data(),
                         Act{p.activation, param0_[i], param1_[i]}};
    }

    bool Run(const float* src, float* buf, float* dst) const override {
        const size_t rows = batch_ * gD_.dstH;
        double flop = 0;
        for (size_t i = 0; i < count_; ++i) {
            const SimdConvolutionParameters& p = p_[i];
            flop += 2.0 * double(p.dstC * p.dstH * p.dstW) * double(p.srcC / p.group) *
                    double(p.kernelY * p.kernelX);
        }
        flop *= double(batch_);
        // Parts split rows, not bands: a map of one band (7x7, 14x14, often 28x28) would give
        // the other threads nothing. A part narrower than a band recomputes the P rows of its
        // halo (kY - sY rows), which costs less than leaving a thread idle.
        // P -> D chains with a 5x5 D split P's column panels instead: each channel of P feeds
        // only its own channel of D, so a part computes its channels of both over every row
        // and nothing twice (the 5x5 halo is 4 rows: on a 7x7 map two row parts each computed
        // almost every P row; mobilenet_v3_large's last three such layers took 0.15-0.23 ms at
        // one thread and 0.14-0.17 ms at two).
        const size_t budget = ThreadPartsFor(flop);
        // Row parts do the work of this many parts once their P halo rows are discounted.
        const size_t rowParts = std::min(rows, budget);
        const double partRows = double(rows) / double(rowParts) * double(gD_.sY);
        const double rowWorth = double(rowParts) * partRows / (partRows + double(gD_.kY - gD_.sY));
        // The staged split hands half of D's output from core to core and waits twice: taken
        // where it does 1.6 times the row parts' work (at 2 threads on Sapphire Rapids the 7x7
        // 5x5 stages of mnasnet1_0 ran 0.27-0.30 -> 0.19-0.20 ms; those at 14x14, 0.15 ms, and
        // at 28x28, 0.10 -> 0.12, gained nothing or lost).
        if (StagedFits() && budget > 1) {
            const std::vector<size_t> bounds = PanelParts(budget);
            if (!bounds.empty() && double(bounds.size() - 1) >= 1.6 * rowWorth)
                return RunStaged(src, buf, dst, bounds);
        }
        // A 3x3 D on a map of one band: P split by its column panels over every row into one
        // shared output, then D and Q by rows of it, so no part computes P's halo rows again.
        if (hasP_ && fast3x3_ && bandH_ >= gD_.dstH && budget > 1) {
            const std::vector<size_t> bounds = PanelParts(budget);
            if (!bounds.empty() && double(bounds.size() - 1) >= kSharedPWorth * rowWorth)
                return RunSharedP(src, buf, dst, bounds);
        }
        if (!hasQ_ && fast5x5_ && budget > 1) {
            const std::vector<size_t> bounds = PanelParts(budget);
            if (!bounds.empty() && double(bounds.size() - 1) >= rowWorth) {
                // The pool may run fewer parts than planned (a busy machine's serial spell):
                // each then takes consecutive planned ranges.
                const size_t planned = bounds.size() - 1;
                return ParallelPartsWithScratch(
                    planned, buf, partFloats_, [&](size_t part, size_t count, float* scratch) {
                        const auto r = PartRange(planned, part, count);
                        if (r.first < r.second)
                            RunRows(src, dst, 0, rows, scratch, bounds[r.first], bounds[r.second]);
                    });
            }
        }
        const size_t parts = std::max<size_t>(1, std::min(rows, budget));
        if (qPadded_) FillQBorders(src, dst);
        return ParallelPartsWithScratch(parts, buf, partFloats_,
                                        [&](size_t part, size_t count, float* scratch) {
                                            const auto r = PartRange(rows, part, count);
                                            RunRows(src, dst, r.first, r.second, scratch);
                                        });
    }

    // P -> D (-> Q) with a 3x3 D on maps of one band, in two steps: P by P's column panel
    // ranges `bounds` over every row of the batch into one output shared by the parts, then D
    // and Q by rows of it. A row split of such a map computes P's halo rows in every part (9 P
    // rows for 7 at 2 threads on a 7x7 map). Every value is computed as a single part computes
    // it, so the bits do not change.
    bool RunSharedP(const float* src, float* buf, float* dst,
                    const std::vector<size_t>& bounds) const {
        const size_t H1 = gD_.srcH, rowP = gD_.srcW * gD_.srcC,
                     srcImage = p_[0].srcC * p_[0].srcH * p_[0].srcW;
        const CachedScratch shared(batch_ * H1 * rowP);
        float* pAll = shared.data();
        if (!pAll) return false;
        const size_t planned = bounds.size() - 1;
        if (!ParallelPartsWithScratch(
                planned, buf, partFloats_, [&](size_t part, size_t count, float* scratch) {
                    const auto r = PartRange(planned, part, count);
                    if (r.first < r.second)
                        for (size_t b = 0; b < batch_; ++b)
                            ComputeP(src + b * srcImage, 0, H1, pAll + b * H1 * rowP,
                                     scratch + tailOffset_, scratch + im2rowOffset_,
                                     bounds[r.first], bounds[r.second]);
                }))
            return false;
        const size_t rows = batch_ * gD_.dstH;
        if (qPadded_) FillQBorders(src, dst);
        return ParallelPartsWithScratch(std::min(rows, ThreadBudget()), buf, partFloats_,
                                        [&](size_t part, size_t count, float* scratch) {
                                            const auto r = PartRange(rows, part, count);
                                            RunRows(src, dst, r.first, r.second, scratch, 0,
                                                    SIZE_MAX, nullptr, pAll);
                                        });
    }

    // Whether RunStaged applies: P -> D -> Q with a 5x5 D (the only D that runs on a range of
    // channels) on maps of one band each, and a Q without padding.
    bool StagedFits() const {
        return hasP_ && hasQ_ && fast5x5_ && !qPadded_ && bandH_ >= gD_.dstH &&
               p_[dI_ + 1].padY == 0 && p_[dI_ + 1].padX == 0;
    }

    // P -> D -> Q on maps of one band, split in two steps: P and D by P's column panel ranges
    // `bounds` into one D output shared by the parts, then Q by rows of it. A row split of
    // such a map computes P's halo rows in every part (mnasnet1_0's 5x5 stages on 7x7 maps: 11
    // P rows for 7 at 2 threads). The parts compute every value as a single part does (P's,
    // D's and Q's sums per output, in the same order), so the bits do not change.
    bool RunStaged(const float* src, float* buf, float* dst,
                   const std::vector<size_t>& bounds) const {
        const size_t rows = batch_ * gD_.dstH, C1 = gD_.srcC;
        const size_t pixels = rows * gD_.dstW;
        const CachedScratch shared(pixels * C1);
        float* dAll = shared.data();
        if (!dAll) return false;
        const size_t planned = bounds.size() - 1;
        if (!ParallelPartsWithScratch(planned, buf, partFloats_,
                                      [&](size_t part, size_t count, float* scratch) {
                                          const auto r = PartRange(planned, part, count);
                                          if (r.first < r.second)
                                              RunRows(src, dst, 0, rows, scratch, bounds[r.first],
                                                      bounds[r.second], dAll);
                                      }))
            return false;
        const GemmStage stage = Stage(dI_ + 1);
        const size_t N = p_[dI_ + 1].dstC;
        return ParallelPartsWithScratch(
            std::min(pixels, ThreadBudget()), buf, partFloats_,
            [&](size_t part, size_t count, float* scratch) {
                const auto r = PartRange(pixels, part, count);
                if (r.first == r.second) return;
                float* c = dst + r.first * N;
                RunGemm(stage, dAll + r.first * C1, C1, r.second - r.first, c, N,
                        scratch + tailOffset_);
                if (add_) AddInPlace(src + r.first * N, (r.second - r.first) * N, c);
            });
    }

    // Boundaries of the most ranges of P's column panels, at most `parts`, that balance
    // (PanelBounds); empty when none do. Fewer balanced ranges can beat a row split of the
    // whole budget (Run weighs them): on a 7x7 map every row part computes 5 P rows for its 1
    // (efficientnet_b0's 1152 channels, 18 panels, do not balance in 16 ranges, and its 5x5
    // layers took 1.7x longer at 16 threads than at 4 on a 16-core Xeon).
    std::vector<size_t> PanelParts(size_t parts) const {
        if (!hasP_) return {};
        for (size_t p = std::min(parts, panels_[0].size()); p >= 2; --p) {
            std::vector<size_t> bounds = PanelBounds(p);
            if (!bounds.empty()) return bounds;
        }
        return {};
    }

    // Boundaries (panel indices) of `parts` ranges of P's column panels holding nearly equal
    // numbers of channels (each boundary the panel start nearest its share); empty when some
    // range would be empty or hold over 30% more than its share (72 channels are panels of 64
    // and 8: rows split better there).
    std::vector<size_t> PanelBounds(size_t parts) const {
        const std::vector<Panel>& panels = panels_[0];
        const size_t C1 = gD_.srcC, n = panels.size();
        const auto start = [&](size_t p) { return p < n ? panels[p].col : C1; };
        std::vector<size_t> bounds{0};
        for (size_t j = 1; j < parts; ++j) {
            const size_t target = C1 * j / parts;
            size_t best = bounds.back();
            for (size_t p = best + 1; p <= n; ++p) {
                const size_t d = start(p) > target ? start(p) - target : target - start(p);
                const size_t dBest =
                    start(best) > target ? start(best) - target : target - start(best);
                if (d < dBest) best = p;
            }
            bounds.push_back(best);
        }
        bounds.push_back(n);
        for (size_t j = 0; j < parts; ++j) {
            const size_t cols = start(bounds[j + 1]) - start(bounds[j]);
            if (cols == 0 || 10 * cols * parts > 13 * C1) return {};
        }
        return bounds;
    }

    // The pixels of a padded Q that no source pixel reaches: Activate(bias), plus the residual.
    void FillQBorders(const float* src, float* dst) const {
        const SimdConvolutionParameters& q = p_[dI_ + 1];
        const size_t N = q.dstC;
        for (size_t b = 0; b < batch_; ++b)
            for (size_t y = 0; y < q.dstH; ++y)
                for (size_t x = 0; x < q.dstW; ++x) {
                    if (y >= q.padY && y < q.padY + q.srcH && x >= q.padX && x < q.padX + q.srcW)
                        continue;
                    const size_t at = ((b * q.dstH + y) * q.dstW + x) * N;
                    conv32f::CopyRun(qBorder_.data(), N, dst + at);
                    if (add_) AddInPlace(src + at, N, dst + at);
                }
    }

    // Output rows [r0, r1) of D over the batch (row r: image r / dstH, row r % dstH); with a 5x5
    // D, only the channels of P's panels [p0, p1) (all by default). With `dAll`, D's output
    // goes there (rows of the batch, W2 * C1 floats each) and Q is left to the caller.
    // With `pAll`, P's output of every row of the batch is there (RunSharedP) and not computed.
    void RunRows(const float* src, float* dst, size_t r0, size_t r1, float* scratch, size_t p0 = 0,
                 size_t p1 = SIZE_MAX, float* dAll = nullptr, const float* pAll = nullptr) const {
        const SimdConvolutionParameters& first = p_[0];
        const SimdConvolutionParameters& last = p_[count_ - 1];
        const size_t srcImage = first.srcC * first.srcH * first.srcW;
        const size_t dstImage = last.dstC * last.dstH * last.dstW;
        const size_t C1 = gD_.srcC, W1 = gD_.srcW, W2 = gD_.dstW, H1 = gD_.srcH;
        const size_t rowP = W1 * C1;
        float* pBuf = scratch + pOffset_;
        float* dBuf = scratch + dOffset_;
        float* tail = scratch + tailOffset_;
        // P rows [pBegin, pEnd) of image pImage are in pBuf.
        size_t pImage = size_t(-1), pBegin = 0, pEnd = 0;
        for (size_t row = r0; row < r1;) {
            const size_t b = row / gD_.dstH, y0 = row % gD_.dstH;
            const size_t y1 = std::min({gD_.dstH, y0 + bandH_, y0 + (r1 - row)});
            const float* image = src + b * srcImage;
            float* out = dst + b * dstImage;
            // Source rows of D that the band's taps reach.
            const ptrdiff_t top = ptrdiff_t(y0 * gD_.sY) - ptrdiff_t(gD_.padY);
            const ptrdiff_t bottom = ptrdiff_t((y1 - 1) * gD_.sY + gD_.kY) - ptrdiff_t(gD_.padY);
            const size_t need0 = size_t(std::max<ptrdiff_t>(0, top));
            const size_t need1 =
                std::max(need0, size_t(std::max<ptrdiff_t>(0, std::min(bottom, ptrdiff_t(H1)))));
            const float* in;
            if (pAll) {
                in = pAll + (b * H1 + need0) * rowP;
            } else if (hasP_) {
                size_t from = need0;
                if (b == pImage && need0 >= pBegin && need0 < pEnd) {
                    const size_t keep = std::min(pEnd, need1) - need0;
                    if (need0 > pBegin)
                        std::memmove(pBuf, pBuf + (need0 - pBegin) * rowP,
                                     keep * rowP * sizeof(float));
                    from = need0 + keep;
                }
                ComputeP(image, from, need1, pBuf + (from - need0) * rowP, tail,
                         scratch + im2rowOffset_, p0, p1);
                pImage = b;
                pBegin = need0;
                pEnd = need1;
                in = pBuf;
            } else {
                in = image + need0 * rowP;
            }
            // D on the band: its geometry shifted so that the band's first row is row 0.
            ConvGeometry band = gD_;
            band.srcH = need1 - need0;
            band.dstH = y1 - y0;
            band.padY = size_t(ptrdiff_t(need0) - top);
            float* dOut = dAll ? dAll + row * W2 * C1 : hasQ_ ? dBuf : out + y0 * W2 * C1;
            RunDepthwise(band, in, dOut, p0, p1);
            if (hasQ_ && !dAll) {
                const SimdConvolutionParameters& q = p_[dI_ + 1];
                const GemmStage stage = Stage(dI_ + 1);
                if (q.padX == 0 && q.padW == 0) {
                    float* c = out + (y0 + q.padY) * q.dstW * q.dstC;
                    RunGemm(stage, dBuf, C1, (y1 - y0) * W2, c, q.dstC, tail);
                    if (add_)
                        AddInPlace(image + (y0 + q.padY) * q.dstW * q.dstC, (y1 - y0) * W2 * q.dstC,
                                   c);
                } else {
                    for (size_t y = y0; y < y1; ++y) {
                        const size_t at = ((y + q.padY) * q.dstW + q.padX) * q.dstC;
                        RunGemm(stage, dBuf + (y - y0) * W2 * C1, C1, W2, out + at, q.dstC, tail);
                        if (add_) AddInPlace(image + at, W2 * q.dstC, out + at);
                    }
                }
            }
            row += y1 - y0;
        }
    }

    // Rows [y0, y1) of P's output for one image into `out` (rows of W1*C1 floats), the columns
    // of P's panels [p0, p1).
    void ComputeP(const float* image, size_t y0, size_t y1, float* out, float* tail, float* im2row,
                  size_t p0, size_t p1) const {
        if (y1 <= y0) return;
        const GemmStage stage = PanelRange(Stage(0), p0, std::min(p1, panels_[0].size()));
        const size_t C1 = gD_.srcC, W1 = gD_.srcW;
        if (pointwiseP_) {
            const size_t C0 = p_[0].srcC;
            RunGemm(stage, image + y0 * W1 * C0, C0, (y1 - y0) * W1, out, C1, tail);
            return;
        }
        const ConvGeometry gp(p_[0]);
        for (size_t y = y0; y < y1; ++y) {
            for (size_t x = 0; x < W1; ++x)
                conv32f::Im2rowSegment(gp, image, 0, y, x, 0, kP_, im2row + x * kP_);
            RunGemm(stage, im2row, kP_, W1, out + (y - y0) * W1 * C1, C1, tail);
        }
    }

    // D for every output row of `band` (image `in`, output `out`, both NHWC); a 5x5 D only on
    // the channels of P's panels [p0, p1) when p0 > 0 or p1 is a panel count.
    void RunDepthwise(const ConvGeometry& band, const float* in, float* out, size_t p0,
                      size_t p1) const {
        using Plan = conv32f::Depthwise3x3Plan;
        const conv32f::DepthwiseParams params{weights_[dI_].data(), bias_[dI_].data(),
                                              slope_[dI_].empty() ? nullptr : slope_[dI_].data(),
                                              Act{p_[dI_].activation, param0_[dI_], param1_[dI_]}};
        const size_t group = kDwGroupVectors * hn::Lanes(D());
        if (fast5x5_) {
            size_t c0 = 0, c1 = band.srcC;
            if (hasP_ && p1 != SIZE_MAX) {
                const std::vector<Panel>& panels = panels_[0];
                c0 = panels[p0].col;
                c1 = panels[p1 - 1].col + panels[p1 - 1].cols;
            }
            if (band.sX == 1)
                conv32f::DepthwiseKxKRows<5, 1, kDwCols5>(params, band, in, out, 0, band.dstH,
                                                          group, c0, c1);
            else
                conv32f::DepthwiseKxKRows<5, 2, kDwCols5>(params, band, in, out, 0, band.dstH,
                                                          group, c0, c1);
            return;
        }
        for (size_t dy = 0; dy < band.dstH;) {
            if (fast3x3_ && Plan::RowInside(band, dy)) {
                const size_t rows = dy + 1 < band.dstH && Plan::RowInside(band, dy + 1) ? 2 : 1;
                if (band.sX == 1)
                    Band3x3<1>(params, band, in, out, dy, rows);
                else
                    Band3x3<2>(params, band, in, out, dy, rows);
                dy += rows;
            } else if (fast3x3_ && Plan::RowTopEdge(band, dy)) {
                conv32f::Depthwise3x3EdgeRow<true, false, kDwCols1>(params, plan_, band, in, out,
                                                                    dy, group);
                ++dy;
            } else if (fast3x3_ && Plan::RowBottomEdge(band, dy)) {
                conv32f::Depthwise3x3EdgeRow<false, true, kDwCols1>(params, plan_, band, in, out,
                                                                    dy, group);
                ++dy;
            } else {
                for (size_t dx = 0; dx < band.dstW; ++dx)
                    conv32f::DepthwiseGeneralPixel(params, band, in, out, dy, dx);
                ++dy;
            }
        }
    }

    // Rows [dy, dy + rows) of a 3x3 band whose taps rows are inside: the outer columns by the
    // blocks' edge forms or the general kernel, the interior by register blocks, four channel
    // vectors at a time.
    template <size_t kStride>
    void Band3x3(const conv32f::DepthwiseParams& p, const ConvGeometry& q, const float* in,
                 float* out, size_t dy, size_t rows) const {
        conv32f::Depthwise3x3BorderPixels(p, plan_, q, in, out, dy, rows);
        const size_t group = kDwGroupVectors * hn::Lanes(D());
        for (size_t c0 = 0; c0 < q.srcC; c0 += group) {
            const size_t c1 = std::min(q.srcC, c0 + group);
            if (plan_.left || plan_.right)
                conv32f::Depthwise3x3EdgeColumns<kStride>(p, plan_, q, in, out, dy, rows, c0, c1);
            if (rows == 2)
                conv32f::Depthwise3x3Span<2, kDwCols2, kStride>(p, plan_, q, in, out, dy, c0, c1);
            else
                conv32f::Depthwise3x3Span<1, kDwCols1, kStride>(p, plan_, q, in, out, dy, c0, c1);
        }
    }

    // RunSharedP is taken where its P split does this many times the row parts' work (halo
    // rows discounted): it waits once more between P and D.
    static constexpr double kSharedPWorth = 1.0;

    const bool hasP_, hasQ_;
    const size_t dI_;  // index of the depthwise stage
    const ConvGeometry gD_;
    bool pointwiseP_ = false, qPadded_ = false, fast3x3_ = false, fast5x5_ = false;
    conv32f::Depthwise3x3Plan plan_;  // 3x3 stride 1 or 2 only
    size_t bandH_ = 1, kP_ = 0;
    size_t pOffset_ = 0, im2rowOffset_ = 0, dOffset_ = 0, tailOffset_ = 0, partFloats_ = 1;
    std::vector<Panel> panels_[kMaxStages];
    // Activate(bias of Q) per output channel: what a padded Q writes where no source pixel
    // reaches (set by SetParams).
    std::vector<float> qBorder_;
};

}  // namespace merged32f

MergedConvolution32f* MergedConvolution32fCreate(size_t batch,
                                                 const SimdConvolutionParameters* convs,
                                                 size_t count, bool add) {
    return new merged32f::MergedBand(batch, convs, count, add);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <new>

#include "convolution/Convolution32f.h"
#include "core/Dispatch.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(MergedConvolution32fCreate);

namespace {

const char* const kInit = "SimdSynetMergedConvolution32fInit";

// §10.1 for convs[i] alone; on failure records a message naming the field.
bool ValidStage(const SimdConvolutionParameters& p, size_t i) {
    const char* f = kInit;
    if (p.srcT != SimdTensorData32f) return SetLastErrorF("%s: convs[%zu].srcT is not 32f", f, i);
    if (p.dstT != SimdTensorData32f) return SetLastErrorF("%s: convs[%zu].dstT is not 32f", f, i);
    if (p.srcF != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: convs[%zu].srcF is not Nhwc", f, i);
    if (p.dstF != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: convs[%zu].dstF is not Nhwc", f, i);
    if (p.srcC == 0 || p.srcH == 0 || p.srcW == 0)
        return SetLastErrorF("%s: convs[%zu].srcC, srcH or srcW is 0", f, i);
    if (p.dstC == 0) return SetLastErrorF("%s: convs[%zu].dstC is 0", f, i);
    if (p.kernelY != p.kernelX)
        return SetLastErrorF("%s: convs[%zu].kernelY differs from kernelX", f, i);
    if (p.kernelY != 1 && p.kernelY != 3 && p.kernelY != 5 && p.kernelY != 7)
        return SetLastErrorF("%s: convs[%zu].kernelY is not 1, 3, 5 or 7", f, i);
    if (p.strideY != p.strideX)
        return SetLastErrorF("%s: convs[%zu].strideY differs from strideX", f, i);
    if (p.strideY < 1 || p.strideY > 3)
        return SetLastErrorF("%s: convs[%zu].strideY is not 1, 2 or 3", f, i);
    if (p.dilationY != 1 || p.dilationX != 1)
        return SetLastErrorF("%s: convs[%zu].dilationY or dilationX is not 1", f, i);
    if (p.group == 0 || p.srcC % p.group != 0 || p.dstC % p.group != 0)
        return SetLastErrorF("%s: convs[%zu].group does not divide srcC and dstC", f, i);
    if (unsigned(p.activation) > unsigned(SimdConvolutionActivationGelu))
        return SetLastErrorF("%s: convs[%zu].activation is unknown", f, i);
    const size_t big = size_t(1) << 30;
    if (p.srcH > big || p.srcW > big || p.padY > big || p.padX > big || p.padH > big ||
        p.padW > big || p.srcC > big || p.dstC > big)
        return SetLastErrorF("%s: convs[%zu] sizes too large", f, i);
    const size_t k = p.kernelY;
    const size_t dstH = OutputExtent(p.srcH, p.padY, p.padH, k, 1, p.strideY);
    const size_t dstW = OutputExtent(p.srcW, p.padX, p.padW, k, 1, p.strideX);
    if (dstH == 0 || p.dstH != dstH)
        return SetLastErrorF("%s: convs[%zu].dstH does not follow the size rule (expected %zu)", f,
                             i, dstH);
    if (dstW == 0 || p.dstW != dstW)
        return SetLastErrorF("%s: convs[%zu].dstW does not follow the size rule (expected %zu)", f,
                             i, dstW);
    size_t n = 0;
    if (!FitsInMemory(p.srcC, p.srcH * p.srcW, sizeof(float)) ||
        !FitsInMemory(p.dstC, p.dstH * p.dstW, sizeof(float)) ||
        !CheckedMul(p.srcC / p.group * k, k, &n) || !FitsInMemory(n, p.dstC, sizeof(float)))
        return SetLastErrorF("%s: convs[%zu] tensor sizes overflow", f, i);
    return true;
}

bool IsP(const SimdConvolutionParameters& p) {
    return p.group == 1 && (p.kernelY == 1 || p.kernelY == 3);
}
bool IsD(const SimdConvolutionParameters& p) {
    return p.group == p.srcC && p.group == p.dstC && p.kernelY >= 3;
}
bool IsQ(const SimdConvolutionParameters& p) {
    return p.group == 1 && p.kernelY == 1 && p.strideY == 1;
}

bool ValidMerged(size_t batch, const SimdConvolutionParameters* convs, size_t count, bool add) {
    const char* f = kInit;
    if (convs == nullptr) return SetLastErrorF("%s: convs is NULL", f);
    if (count != 2 && count != 3)
        return SetLastErrorF("%s: count is %zu (2 or 3 required)", f, count);
    if (batch == 0) return SetLastErrorF("%s: batch is 0", f);
    for (size_t i = 0; i < count; ++i)
        if (!ValidStage(convs[i], i)) return false;
    for (size_t i = 0; i + 1 < count; ++i) {
        const SimdConvolutionParameters &a = convs[i], &b = convs[i + 1];
        if (b.srcC != a.dstC)
            return SetLastErrorF("%s: convs[%zu].srcC differs from convs[%zu].dstC", f, i + 1, i);
        if (b.srcH != a.dstH)
            return SetLastErrorF("%s: convs[%zu].srcH differs from convs[%zu].dstH", f, i + 1, i);
        if (b.srcW != a.dstW)
            return SetLastErrorF("%s: convs[%zu].srcW differs from convs[%zu].dstW", f, i + 1, i);
    }
    // Sequences P -> D -> Q, P -> D (convs[0].group == 1), D -> Q.
    const bool startsWithP = count == 3 || convs[0].group == 1;
    const size_t d = startsWithP ? 1 : 0;
    if (startsWithP && !IsP(convs[0]))
        return SetLastErrorF("%s: convs[0].kernelY must be 1 or 3 for the expanding convolution",
                             f);
    if (!IsD(convs[d]))
        return SetLastErrorF(
            "%s: convs[%zu].group must equal srcC and dstC, kernelY 3, 5 or 7 (depthwise)", f, d);
    if (d + 1 < count && !IsQ(convs[d + 1]))
        return SetLastErrorF("%s: convs[%zu].group must be 1, kernelY 1 and strideY 1 (projection)",
                             f, d + 1);
    if (count == 3 && add) {
        if (convs[0].srcC != convs[2].dstC)
            return SetLastErrorF("%s: add requires convs[0].srcC == convs[2].dstC", f);
        if (convs[0].srcH != convs[2].dstH)
            return SetLastErrorF("%s: add requires convs[0].srcH == convs[2].dstH", f);
        if (convs[0].srcW != convs[2].dstW)
            return SetLastErrorF("%s: add requires convs[0].srcW == convs[2].dstW", f);
    }
    const SimdConvolutionParameters &first = convs[0], &last = convs[count - 1];
    if (!FitsInMemory(batch, first.srcC * first.srcH * first.srcW, sizeof(float)) ||
        !FitsInMemory(batch, last.dstC * last.dstH * last.dstW, sizeof(float)))
        return SetLastErrorF("%s: batch tensor sizes overflow", f);
    return true;
}

MergedConvolution32f* ContextOf(const void* context, const char* function) {
    if (context == nullptr) {
        SetLastErrorF("SimdSynetMergedConvolution32f%s: context is NULL", function);
        return nullptr;
    }
    return static_cast<MergedConvolution32f*>(const_cast<void*>(context));
}

}  // namespace
}  // namespace simd

extern "C" {

SIMD_API void* SimdSynetMergedConvolution32fInit(size_t batch,
                                                 const SimdConvolutionParameters* convs,
                                                 size_t count, SimdBool add) {
    simd::ClearLastError();
    const bool residual = count == 3 && add != SimdFalse;
    if (!simd::ValidMerged(batch, convs, count, residual)) return nullptr;
    try {
        return SIMD_DISPATCH(simd::MergedConvolution32fCreate)(batch, convs, count, residual);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetMergedConvolution32fInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetMergedConvolution32fExternalBufferSize(const void* context) {
    return simd::LayerExternalBufferSize(context, "SimdSynetMergedConvolution32f");
}

SIMD_API size_t SimdSynetMergedConvolution32fInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, "SimdSynetMergedConvolution32f");
}

SIMD_API void SimdSynetMergedConvolution32fSetParams(void* context, const float* const* weight,
                                                     SimdBool* internal, const float* const* bias,
                                                     const float* const* params) {
    simd::ClearLastError();
    simd::MergedConvolution32f* c = simd::ContextOf(context, "SetParams");
    if (c == nullptr) return;
    const char* f = "SimdSynetMergedConvolution32fSetParams";
    if (weight == nullptr) {
        simd::SetLastErrorF("%s: weight is NULL", f);
        return;
    }
    for (size_t i = 0; i < c->count_; ++i) {
        if (weight[i] == nullptr) {
            simd::SetLastErrorF("%s: weight[%zu] is NULL", f, i);
            return;
        }
        if (simd::ActivationReadsParams(c->p_[i].activation) &&
            (params == nullptr || params[i] == nullptr)) {
            simd::SetLastErrorF("%s: params[%zu] is NULL but the activation of convs[%zu] reads it",
                                f, i, i);
            return;
        }
    }
    try {
        c->SetParams(weight, bias, params);
    } catch (const std::bad_alloc&) {
        simd::SetLastErrorF("%s: out of memory", f);
        return;
    }
    if (internal)
        for (size_t i = 0; i < c->count_; ++i) internal[i] = SimdTrue;
}

SIMD_API void SimdSynetMergedConvolution32fForward(void* context, const float* src, float* buf,
                                                   float* dst) {
    simd::ClearLastError();
    simd::MergedConvolution32f* c = simd::ContextOf(context, "Forward");
    if (c == nullptr) return;
    const char* f = "SimdSynetMergedConvolution32fForward";
    if (src == nullptr || dst == nullptr) {
        simd::SetLastErrorF("%s: src or dst is NULL", f);
        return;
    }
    if (!c->Ready()) {
        simd::SetLastErrorF("%s: SetParams was not called", f);
        return;
    }
    try {
        if (!c->Forward(src, buf, dst)) simd::SetLastErrorF("%s: out of memory", f);
    } catch (const std::bad_alloc&) {
        simd::SetLastErrorF("%s: out of memory", f);
    }
}

SIMD_API const char* SimdSynetMergedConvolution32fInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetMergedConvolution32f");
}

}  // extern "C"

#endif  // HWY_ONCE
