// The band driver of the column algorithms (DeconvolutionNchwGemm.cpp,
// DeconvolutionNhwcGemm.cpp), per Highway target: per band of source rows the algorithm's GEMM
// fills a column matrix (one value per source pixel, kernel tap and output channel), then each
// output row gathers its taps from it (col2im as a gather): every output value of the band is
// the partial sum left by the previous band plus its taps in (ky, kx) order, finished with bias
// and activation in the band after which no source row reaches it. The bands are a fixed grid
// of source rows (sized so one band's column buffer takes about half of L2), so the order in
// which any output value is summed depends on the shape only.
//
// Threads: Forward splits the output rows over the thread budget; a part computes the columns
// of just the source rows its rows need (at most one halo row band shared with a neighbour),
// and sums every output value in the same order as a single thread.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_DECONVOLUTION_COLUMN_BANDS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_DECONVOLUTION_COLUMN_BANDS_INL_H_
#undef SIMD_SYNET_DECONVOLUTION_COLUMN_BANDS_INL_H_
#else
#define SIMD_SYNET_DECONVOLUTION_COLUMN_BANDS_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "core/Bf16-inl.h"
#include "core/ThreadPool.h"
#include "deconvolution/Deconvolution32f.h"
#include "deconvolution/ElementTypes-inl.h"
#include "gemm/GemmBlocking.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

// Taps of one output run are listed in chunks of this many (kernels larger than this per
// output value continue from the stored partial sum, in the same order).
constexpr size_t kTapChunk = 32;

// Where a Gather writes: output channel dl (of the group) row dy is at
// base + dl*plane + (dy - first)*rowFloats (NCHW rowFloats = dstW; NHWC, one group,
// rowFloats = dstW*dstC and dl is 0). The FP32 destination itself, or the FP32 staging rows of
// a BF16 destination.
struct OutRows {
    float* base;
    size_t plane, first;
    // A BF16 NHWC destination image that a Gather which FinishesBf16() writes each finished row
    // into itself (row dy at bf16 + dy*dstW*dstC), while it is in L1; null otherwise.
    uint16_t* bf16 = nullptr;
};

class Banded : public Deconvolution32f {
public:
    Banded(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm, bool bf16)
        : Deconvolution32f(batch, p, gemm, bf16), q_(p) {
        colPerRow_ = q_.Dg * q_.K * q_.srcW;
        const size_t target = GemmCaches().l2 / 2 / sizeof(float);
        bandRows_ = std::min(q_.srcH, std::max<size_t>(1, target / colPerRow_));
        // Border vectors of the gather may read (and discard) up to |off| + one vector beyond
        // a row of the column buffer, off = (px + padX - kx*dX)/sX: a margin on both sides of
        // the buffer keeps those reads inside the scratch.
        const size_t reach = (q_.padX + (q_.kX - 1) * q_.dX) / q_.sX + 2;
        maskedBorders_ = reach <= 256;
        margin_ = maskedBorders_ ? reach + 64 : 0;
        AxisTaps(q_.dstH, q_.kY, q_.dY, q_.sY, q_.padY, q_.srcH, yTaps_, yFirst_);
        AxisTaps(q_.dstW, q_.kX, q_.dX, q_.sX, q_.padX, q_.srcW, xTaps_, xFirst_);
        // A BF16 destination cannot hold the partial sums between bands nor take the FP32
        // bias and activation pass: chunks of stageRows_ output rows are computed into FP32
        // staging rows (about half of L2) and rounded once when complete. The chunks split the
        // rows as threads do, so the sums are those of a single pass.
        stageRows_ = 0;
        if (dstBf16_) {
            const size_t rowFloats = q_.Dg * q_.dstW;
            const size_t budget = GemmCaches().l2 / 2 / sizeof(float);
            stageRows_ = std::min(q_.dstH, std::max<size_t>(1, budget / rowFloats));
        }
    }
    size_t ExternalBufferSize() const override {
        return std::max<size_t>(1, PackFloats() + bandRows_ * colPerRow_ + 2 * margin_ +
                                       TempFloats() + stageRows_ * q_.Dg * q_.dstW);
    }

protected:
    // Kernel index k and source index s of one tap that reaches an output row (column).
    struct AxisTap {
        size_t k, s;
    };
    // taps[first[o] .. first[o + 1]) for every output index o < extent, in kernel order: the
    // divisions of the tap search are done once here, not per output value.
    static void AxisTaps(size_t extent, size_t kernel, size_t dilation, size_t stride, size_t pad,
                         size_t src, std::vector<AxisTap>& taps, std::vector<size_t>& first) {
        for (size_t o = 0; o < extent; ++o) {
            first.push_back(taps.size());
            for (size_t k = 0; k < kernel; ++k) {
                const ptrdiff_t num = ptrdiff_t(o + pad) - ptrdiff_t(k * dilation);
                if (num < 0 || num % ptrdiff_t(stride) != 0) continue;
                const size_t s = size_t(num) / stride;
                if (s < src) taps.push_back({k, s});
            }
        }
        first.push_back(taps.size());
    }
    virtual size_t PackFloats() const = 0;
    virtual size_t TempFloats() const { return 0; }
    // Whether Gather converts finished NHWC rows to a BF16 destination itself (OutRows::bf16).
    virtual bool FinishesBf16() const { return false; }
    // The column buffer of source rows [a, e) of group g (image: one image of srcT).
    virtual void Columns(const void* image, size_t g, size_t a, size_t e, float* pack,
                         float* col) const = 0;
    // Output rows [r0, r1) of group g plus the taps of source rows [a, e): rows below
    // partialBelow hold partial sums (others start from zero); rows below finishBelow are
    // complete after this band and get bias and activation.
    virtual void Gather(const OutRows& out, size_t g, const float* col, size_t a, size_t e,
                        size_t r0, size_t r1, size_t partialBelow, size_t finishBelow,
                        float* temp) const = 0;

    void Run(const float* src, float* buf, float* dst) const override {
        RunImages(src, buf, dst, batch_);
    }
    // `images` images; buf holds Banded::ExternalBufferSize() floats (a derived class may ask
    // for more and keep its own data after them).
    void RunImages(const float* src, float* buf, float* dst, size_t images) const {
        const auto* srcBytes = reinterpret_cast<const uint8_t*>(src);
        auto* dstBytes = reinterpret_cast<uint8_t*>(dst);
        const size_t parts = std::min(ThreadBudget(), q_.dstH);
        const bool ok = ParallelPartsWithScratch(
            parts, buf, Banded::ExternalBufferSize(),
            [&](size_t part, size_t count, float* scratch) {
                const auto rows = PartRange(q_.dstH, part, count);
                if (rows.first >= rows.second) return;
                for (size_t b = 0; b < images; ++b) {
                    const uint8_t* image = srcBytes + b * q_.srcImage * SrcSize(*this);
                    uint8_t* out = dstBytes + b * q_.dstImage * DstSize(*this);
                    for (size_t g = 0; g < q_.G; ++g) {
                        if (dstBf16_) {
                            RunStaged(image, reinterpret_cast<uint16_t*>(out), g, rows.first,
                                      rows.second, scratch);
                        } else {
                            float* group = reinterpret_cast<float*>(out) + g * q_.Dg * q_.dstPlane;
                            RunRows(image, OutRows{group, q_.dstPlane, 0}, g, rows.first,
                                    rows.second, scratch);
                        }
                    }
                }
            });
        if (!ok) throw std::bad_alloc();
    }

    // Rows [dy0, dy1) of group g into a BF16 image: chunks through the FP32 staging rows.
    void RunStaged(const uint8_t* image, uint16_t* out, size_t g, size_t dy0, size_t dy1,
                   float* scratch) const {
        float* stage = scratch + PackFloats() + bandRows_ * colPerRow_ + 2 * margin_ + TempFloats();
        const bool nhwc = p_.dstF == SimdTensorFormatNhwc;
        for (size_t c0 = dy0; c0 < dy1; c0 += stageRows_) {
            const size_t c1 = std::min(dy1, c0 + stageRows_), n = (c1 - c0) * q_.dstW;
            if (nhwc && FinishesBf16()) {
                RunRows(image, OutRows{stage, n, c0, out}, g, c0, c1, scratch);
                continue;
            }
            RunRows(image, OutRows{stage, n, c0}, g, c0, c1, scratch);
            if (nhwc) {
                ConvertRow(stage, n * q_.dstC, out + c0 * q_.dstW * q_.dstC);
            } else {
                for (size_t dl = 0; dl < q_.Dg; ++dl)
                    ConvertRow(stage + dl * n, n,
                               out + (g * q_.Dg + dl) * q_.dstPlane + c0 * q_.dstW);
            }
        }
    }

    void RunRows(const void* src, const OutRows& dst, size_t g, size_t dy0, size_t dy1,
                 float* scratch) const {
        float* pack = scratch;
        float* col = pack + PackFloats() + margin_;
        float* temp = col + bandRows_ * colPerRow_ + margin_;
        const auto sources = q_.SourceRows(dy0, dy1);
        size_t done = dy0, stored = dy0;
        for (size_t a = sources.first; a < sources.second;) {
            const size_t e = std::min((a / bandRows_ + 1) * bandRows_, sources.second);
            Columns(src, g, a, e, pack, col);
            const size_t finish =
                e == sources.second ? dy1 : std::min(dy1, std::max(done, q_.FinishedBelow(e)));
            const size_t end = std::max(finish, std::min(dy1, std::max(dy0, q_.TouchedBelow(e))));
            if (end > done) Gather(dst, g, col, a, e, done, end, stored, finish, temp);
            stored = std::max(stored, end);
            done = finish;
            a = e;
        }
        // Rows no source row reaches: bias and activation of zero.
        if (done < dy1) Gather(dst, g, col, 0, 0, done, dy1, stored, dy1, temp);
    }

    DeconvGeometry q_;
    size_t colPerRow_, bandRows_, margin_, stageRows_;
    bool maskedBorders_;
    std::vector<AxisTap> yTaps_, xTaps_;
    std::vector<size_t> yFirst_, xFirst_;
};

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
