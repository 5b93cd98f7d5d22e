// FP32 and BF16 deconvolution frameworks (SUPPLEMENT.md §9.1, §9.2):
// SimdSynetDeconvolution32f* and SimdSynetDeconvolution16b* (Init / ExternalBufferSize /
// InternalBufferSize / SetParams / Forward / Info), one set of algorithms for both.
//
// Init picks one algorithm per shape and target and returns it as a context (a class derived
// from simd::Deconvolution32f):
//   nchw-gemm   NCHW, any group: per band of source rows, the column matrix
//               col[Dg*kY*kX x band pixels] = W^T * src (W^T packed into A panels at SetParams,
//               the band's channel rows packed into B panels), then col2im.
//   nhwc-gemm   NHWC (group 1): col[band pixels x kY*kX*dstC] = src * W (the weights, already
//               [srcC x kY*kX*dstC], packed into B panels at SetParams), then col2im.
//   nhwc-direct NHWC, stride == kernel, dense, no padding: every source pixel owns a disjoint
//               kY x kX x dstC output patch, so each kernel row is one GEMM written straight
//               into the output rows (ldc = kX*dstC), no column buffer, no scatter; tiles
//               sized to the source row, bias and cheap activations in their store.
//   nhwc-phases NHWC (FP32, group 1, no dilation), kernel a multiple of the stride: the outputs
//               of each stride phase are a stride-1 convolution of the source with a subset of
//               the taps, run by the convolution framework's NHWC direct algorithm and
//               interleaved into the output (NhwcPhases::Preferred says where it is faster).
//   nchw-via-nhwc-*  NCHW, group 1, FP32: nhwc-phases or nhwc-gemm (patches that overlap) or
//               nhwc-direct (disjoint patches, many FLOP per transposed float) between
//               transposes of the image and the output.
//   *-usergemm  the band GEMM through the caller's SimdGemm32fNNPtr.
// col2im is done as a gather per output row: every output value of the band is the partial sum
// left by the previous band plus its taps in (ky, kx) order, finished with bias and activation
// in the band after which no source row reaches it. (NCHW, kernel width 2, stride 2, no
// horizontal padding: a row of one tap row is two column rows interleaved, bias and activation
// applied on the way.) The bands are a fixed grid of source rows (sized so one band's column
// buffer takes about half of L2), so the order in which any output value is summed depends on
// the shape only.
//
// BF16 (16b framework): the source is rounded to BF16 (srcT 32f) or widened from BF16 (srcT 16b)
// while the GEMM packs it, the weights are rounded to BF16 at SetParams, the FP32 micro-kernel
// sums the exact products; a BF16 destination is produced through FP32 staging rows (see
// Banded::RunStaged, NhwcDirect::RunOf) that get bias and activation in FP32 and are rounded
// once.
//
// Threads: Forward splits the output rows (direct: the source rows) over the thread budget; a
// part computes the columns of just the source rows its rows need (at most one halo row band
// shared with a neighbour), and sums every output value in the same order as a single thread.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deconvolution/Deconvolution32f.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "deconvolution/Deconvolution32f.h"
#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"
#include "convolution/ImageTranspose-inl.h"
#include "convolution/NhwcDirect.h"
#include "core/Bf16-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "core/IsaName.h"
#include "core/ThreadPool.h"
#include "gemm/GemmBlocking.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

using conv32f::Act;
using conv32f::ActivationIsCheap;
using conv32f::BiasActivateChannels;
using conv32f::BiasActivatePlane;
using conv32f::CopyRun;
using conv32f::WithConvEpilogue;

const char* TargetIsa() {
    return IsaNameOf(HWY_TARGET);
}

// ---------------------------------------------------------------------------------------------
// Element types. The GEMM packs its source operand (the image) panel by panel; the readers
// below make that packing the one place where the source is rounded to BF16 (srcT 32f in the
// BF16 framework) or widened from BF16 (srcT 16b), so no FP32 copy of the image is made and the
// FP32 micro-kernel runs unchanged. Highway 1.0.3 has no target with BF16 dot products
// (AVX512_BF16 / AMX are not among its targets), so BF16 operands are widened on every target;
// products of two BF16 values are exact in FP32, so the sums equal those of a BF16 kernel with
// FP32 accumulation up to the summation order.

// FP32 source rounded to BF16, as FP32.
struct ReadF32AsBf16 {
    using Elem = float;
    template <class D>
    static HWY_INLINE hn::Vec<D> Load(D d, const float* p) {
        return RoundToBf16(d, hn::LoadU(d, p));
    }
};
// BF16 source widened to FP32 (exact).
struct ReadBf16 {
    using Elem = uint16_t;
    template <class D>
    static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* p) {
        return LoadF(d, p);
    }
};

// f(reader) with the reader of this context's source (one branch per band or call).
template <class F>
HWY_INLINE void WithSourceReader(const Deconvolution32f& c, F&& f) {
    if (c.srcBf16_)
        f(ReadBf16());
    else if (c.bf16_)
        f(ReadF32AsBf16());
    else
        f(GemmReadF32());
}

// The weights the GEMM multiplies: the caller's FP32 weights, or (BF16 framework) a copy of
// them rounded to BF16 in `rounded`.
const float* FrameworkWeights(const Deconvolution32f& c, const float* w, size_t n,
                              std::vector<float>& rounded) {
    if (!c.bf16_) return w;
    rounded.resize(n);
    RoundRowToBf16(w, n, rounded.data());
    return rounded.data();
}

// Info suffix of the BF16 framework: "-bf16-<srcT>-<dstT>".
std::string TypeSuffix(const Deconvolution32f& c) {
    if (!c.bf16_) return std::string();
    return std::string("-bf16-") + (c.srcBf16_ ? "16b" : "32f") + "-" +
           (c.dstBf16_ ? "16b" : "32f");
}

// Bytes of one source / destination element.
inline size_t SrcSize(const Deconvolution32f& c) {
    return c.srcBf16_ ? sizeof(uint16_t) : sizeof(float);
}
inline size_t DstSize(const Deconvolution32f& c) {
    return c.dstBf16_ ? sizeof(uint16_t) : sizeof(float);
}

// Taps of one output run are listed in chunks of this many (kernels larger than this per
// output value continue from the stored partial sum, in the same order).
constexpr size_t kTapChunk = 32;

// ---------------------------------------------------------------------------------------------
// The band driver shared by the NCHW and NHWC column algorithms.

// Where a Gather writes: output channel dl (of the group) row dy is at
// base + dl*plane + (dy - first)*rowFloats (NCHW rowFloats = dstW; NHWC, one group,
// rowFloats = dstW*dstC and dl is 0). The FP32 destination itself, or the FP32 staging rows of
// a BF16 destination.
struct OutRows {
    float* base;
    size_t plane, first;
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

// ---------------------------------------------------------------------------------------------
// NCHW: col[Dg*K x pixels] = W^T * src, gathered per output row and column phase.

class NchwGemm : public Banded {
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NchwGemm(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm, bool bf16)
        : Banded(batch, p, gemm, bf16) {
        M_ = q_.Dg * q_.K;
        blocks_ = GemmChooseBlocks(M_, bandRows_ * q_.srcW, q_.Cg, T::kRows, T::kCols);
        mPad_ = RoundUp(M_, T::kRows);
        phaseStride_ = (q_.dstW + q_.sX - 1) / q_.sX;
        // Output column dx = px + sX*t takes tap kx from source column t + off when
        // px + padX - kx*dX == off*sX; the interior [tLo, tHi) has every tap inside the row.
        for (size_t px = 0; px < std::min(q_.sX, q_.dstW); ++px) {
            Phase phase;
            phase.count = (q_.dstW - px + q_.sX - 1) / q_.sX;
            phase.first = taps_.size();
            ptrdiff_t lo = 0, hi = ptrdiff_t(phase.count);
            for (size_t kx = 0; kx < q_.kX; ++kx) {
                const ptrdiff_t num = ptrdiff_t(px + q_.padX) - ptrdiff_t(kx * q_.dX);
                if (num % ptrdiff_t(q_.sX) != 0) continue;
                const ptrdiff_t off = num / ptrdiff_t(q_.sX);
                taps_.push_back({kx, off});
                lo = std::max(lo, -off);
                hi = std::min(hi, ptrdiff_t(q_.srcW) - off);
            }
            phase.taps = taps_.size() - phase.first;
            phase.tLo = std::min(size_t(lo), phase.count);
            phase.tHi = std::max(phase.tLo, hi < 0 ? size_t(0) : size_t(hi));
            phases_.push_back(phase);
        }
        // Kernel width 2, stride 2, no horizontal padding (a 2x upsampling layer): every output
        // column takes exactly one tap, so a row with one tap row is two column rows interleaved.
        interleaveOnly_ = q_.sX == 2 && phases_.size() == 2 && q_.dstW == 2 * q_.srcW &&
                          phases_[0].taps == 1 && phases_[1].taps == 1 &&
                          taps_[phases_[0].first].off == 0 && taps_[phases_[1].first].off == 0;
        info_ = std::string(TargetIsa()) + (gemm ? "::nchw-usergemm-col2im"
                                                 : "::nchw-gemm-" + std::to_string(T::kRows) + "x" +
                                                       std::to_string(T::kCols) + "-col2im");
        info_ += "-band" + std::to_string(bandRows_) + TypeSuffix(*this);
    }

protected:
    struct Phase {
        size_t count, first, taps, tLo, tHi;
    };
    struct PhaseTap {
        size_t kx;
        ptrdiff_t off;
    };
    size_t PackFloats() const override {
        return gemm_ ? 0 : GemmPackedBSize<D>(blocks_.kc, blocks_.nc);
    }
    size_t TempFloats() const override { return q_.sX > 1 ? q_.sX * phaseStride_ : 0; }

    void PackWeights(const float* weight) override {
        std::vector<float> rounded;
        const float* w = FrameworkWeights(*this, weight, q_.srcC * M_, rounded);
        // W^T of group g: row dl*K + k, column ci = w[((g*Cg + ci)*Dg + dl)*K + k].
        AlignedFloats transposed(q_.G * M_ * q_.Cg);
        for (size_t g = 0; g < q_.G; ++g)
            for (size_t ci = 0; ci < q_.Cg; ++ci)
                for (size_t m = 0; m < M_; ++m)
                    transposed[(g * M_ + m) * q_.Cg + ci] = w[((g * q_.Cg + ci) * M_) + m];
        if (gemm_) {
            weights_.swap(transposed);
            return;
        }
        const D d;
        weights_.assign(q_.G * q_.Cg * mPad_, 0.0f);
        for (size_t g = 0; g < q_.G; ++g)
            for (size_t k = 0; k < q_.Cg; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.Cg - k);
                for (size_t i = 0; i < M_; i += blocks_.mc) {
                    const size_t mc = std::min(blocks_.mc, M_ - i);
                    GemmPackA(d, mc, kc, transposed.data() + (g * M_ + i) * q_.Cg + k, q_.Cg,
                              weights_.data() + g * q_.Cg * mPad_ + k * mPad_ + i * kc);
                }
            }
    }

    void Columns(const void* image, size_t g, size_t a, size_t e, float* pack,
                 float* col) const override {
        WithSourceReader(*this, [&](auto read) {
            ColumnsOf<decltype(read)>(static_cast<const typename decltype(read)::Elem*>(image), g,
                                      a, e, pack, col);
        });
    }
    template <class Read>
    void ColumnsOf(const typename Read::Elem* image, size_t g, size_t a, size_t e, float* pack,
                   float* col) const {
        const size_t N = (e - a) * q_.srcW;
        const auto* srcG = image + g * q_.Cg * q_.srcPlane + a * q_.srcW;
        if constexpr (std::is_same_v<Read, GemmReadF32>) {
            if (gemm_) {
                const float one = 1.0f, zero = 0.0f;
                gemm_(M_, N, q_.Cg, &one, weights_.data() + g * M_ * q_.Cg, q_.Cg, srcG,
                      q_.srcPlane, &zero, col, N);
                return;
            }
        }
        const D d;
        const float* weights = weights_.data() + g * q_.Cg * mPad_;
        for (size_t j = 0; j < N; j += blocks_.nc) {
            const size_t nc = std::min(blocks_.nc, N - j);
            for (size_t k = 0; k < q_.Cg; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.Cg - k);
                GemmPackB<D, T::kCols, Read>(d, kc, nc, srcG + k * q_.srcPlane + j, q_.srcPlane,
                                             pack);
                const GemmStore mode = k == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                for (size_t i = 0; i < M_; i += blocks_.mc) {
                    const size_t mc = std::min(blocks_.mc, M_ - i);
                    GemmMacroKernel(d, mc, nc, kc, weights + k * mPad_ + i * kc, pack,
                                    col + i * N + j, N, 1.0f, 0.0f, mode);
                }
            }
        }
    }

    // Whole vectors of dv from t while they end by tHi (every tap inside the row); returns
    // the first t not done.
    template <class DV>
    static size_t AccumulateInterior(DV dv, const float* col, const ptrdiff_t* base, size_t n,
                                     bool init, size_t t, size_t tHi, float* out) {
        const size_t L = hn::Lanes(dv);
        for (; t + L <= tHi; t += L) {
            auto acc = init ? hn::LoadU(dv, out + t) : hn::Zero(dv);
            for (size_t i = 0; i < n; ++i)
                acc = hn::Add(acc, hn::LoadU(dv, col + (base[i] + ptrdiff_t(t))));
            hn::StoreU(acc, dv, out + t);
        }
        return t;
    }

    // out[t] (t < phase.count) = (init ? out[t] : 0) + the n taps, each col[base + t] where its
    // source column t + off lies in the row.
    void AccumulateTaps(const Phase& phase, const float* col, const ptrdiff_t* base,
                        const ptrdiff_t* off, size_t n, bool init, float* out) const {
        const D d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d);
        const ptrdiff_t W = ptrdiff_t(q_.srcW);
        auto lane = [&](size_t t) {
            auto acc = init ? hn::LoadU(d1, out + t) : hn::Zero(d1);
            for (size_t i = 0; i < n; ++i) {
                const ptrdiff_t s = ptrdiff_t(t) + off[i];
                if (s >= 0 && s < W)
                    acc = hn::Add(acc, hn::LoadU(d1, col + (base[i] + ptrdiff_t(t))));
            }
            hn::StoreU(acc, d1, out + t);
        };
        size_t t = 0;
        for (; t < phase.tLo; ++t) lane(t);
        for (; t + 2 * L <= phase.tHi; t += 2 * L) {
            auto acc0 = init ? hn::LoadU(d, out + t) : hn::Zero(d);
            auto acc1 = init ? hn::LoadU(d, out + t + L) : hn::Zero(d);
            for (size_t i = 0; i < n; ++i) {
                const float* p = col + (base[i] + ptrdiff_t(t));
                acc0 = hn::Add(acc0, hn::LoadU(d, p));
                acc1 = hn::Add(acc1, hn::LoadU(d, p + L));
            }
            hn::StoreU(acc0, d, out + t);
            hn::StoreU(acc1, d, out + t + L);
        }
        t = AccumulateInterior(d, col, base, n, init, t, phase.tHi, out);
#if HWY_TARGET != HWY_SCALAR
        if (L > 8)
            t = AccumulateInterior(hn::CappedTag<float, 8>(), col, base, n, init, t, phase.tHi,
                                   out);
        if (L > 4)
            t = AccumulateInterior(hn::CappedTag<float, 4>(), col, base, n, init, t, phase.tHi,
                                   out);
#endif
        for (; t < phase.count; ++t) lane(t);
    }

    // One column phase of output row dy of channel dl.
    void GatherPhase(const Phase& phase, const float* col, size_t N, size_t dl, size_t dy, size_t a,
                     size_t e, bool partial, float* out) const {
        ptrdiff_t base[kTapChunk], off[kTapChunk];
        size_t n = 0;
        bool init = partial;
        for (size_t y = yFirst_[dy]; y < yFirst_[dy + 1]; ++y) {
            const size_t ky = yTaps_[y].k, sy = yTaps_[y].s;
            if (sy < a || sy >= e) continue;
            for (size_t i = 0; i < phase.taps; ++i) {
                const PhaseTap& tap = taps_[phase.first + i];
                base[n] =
                    ptrdiff_t((dl * q_.K + ky * q_.kX + tap.kx) * N + (sy - a) * q_.srcW) + tap.off;
                off[n] = tap.off;
                if (++n == kTapChunk) {
                    AccumulateTaps(phase, col, base, off, n, init, out);
                    init = true;
                    n = 0;
                }
            }
        }
        if (n > 0 || !init) AccumulateTaps(phase, col, base, off, n, init, out);
    }

    // Stride 2: pairs [t, tHi) of output columns (2t, 2t + 1), both phases summed in registers
    // and interleaved on store; returns the first pair not done.
    // Vectors outside the interior [tLo, tHi) (only when maskedBorders_) add each tap under
    // the mask of the lanes whose source column is inside the row; the masked-off lanes read
    // the neighbouring row or the buffer margin and are discarded.
    template <class DV>
    size_t GatherPairs(DV dv, const float* col, const ptrdiff_t* base0, const ptrdiff_t* off0,
                       size_t n0, const ptrdiff_t* base1, const ptrdiff_t* off1, size_t n1,
                       bool partial, size_t t, size_t tLo, size_t tHi, size_t end,
                       float* row) const {
        const size_t L = hn::Lanes(dv);
        const hn::RebindToSigned<DV> di;
        const auto lanes = hn::Iota(di, 0);
        const auto width = hn::Set(di, int32_t(q_.srcW));
        auto add = [&](hn::Vec<DV> acc, const ptrdiff_t* base, const ptrdiff_t* off, size_t n,
                       bool inside) {
            for (size_t i = 0; i < n; ++i) {
                const auto v = hn::LoadU(dv, col + (base[i] + ptrdiff_t(t)));
                if (inside) {
                    acc = hn::Add(acc, v);
                } else {
                    const auto sx = hn::Add(lanes, hn::Set(di, int32_t(ptrdiff_t(t) + off[i])));
                    const auto valid = hn::And(hn::Gt(sx, hn::Set(di, -1)), hn::Lt(sx, width));
                    acc = hn::Add(acc, hn::IfThenElseZero(hn::RebindMask(dv, valid), v));
                }
            }
            return acc;
        };
        for (; t + L <= end; t += L) {
            const bool inside = t >= tLo && t + L <= tHi;
            if (!inside && !maskedBorders_) break;
            hn::Vec<DV> v0 = hn::Zero(dv), v1 = hn::Zero(dv);
            if (partial) hn::LoadInterleaved2(dv, row + 2 * t, v0, v1);
            v0 = add(v0, base0, off0, n0, inside);
            v1 = add(v1, base1, off1, n1, inside);
            hn::StoreInterleaved2(v0, v1, dv, row + 2 * t);
        }
        return t;
    }

    // Output row dy of channel dl when interleaveOnly_ holds and the row has a single tap row,
    // inside the band [a, e), and no partial sum: row[2t + px] = the column row of phase px at
    // t, bias and activation applied on the way. (Such a row is always complete after its
    // band: the rows above it take no source row below its tap.)
    // The general GatherRow2 spends most of its time setting up its tap lists on rows this
    // short (a 56-wide row is three vector steps). Returns false, having written nothing,
    // otherwise.
    bool InterleaveRow(const float* col, size_t N, size_t dl, size_t dy, size_t a, size_t e,
                       float bias, float slope, const Act& act, float* row) const {
        if (yFirst_[dy + 1] - yFirst_[dy] != 1) return false;
        const AxisTap& tap = yTaps_[yFirst_[dy]];
        if (tap.s < a || tap.s >= e) return false;
        const size_t first = (dl * q_.K + tap.k * q_.kX) * N + (tap.s - a) * q_.srcW;
        const float* c0 = col + first + taps_[phases_[0].first].kx * N;
        const float* c1 = col + first + taps_[phases_[1].first].kx * N;
        const size_t pairs = q_.srcW;
        size_t t = 0;
        auto vectors = [&](auto dv) HWY_ATTR {
            const size_t L = hn::Lanes(dv);
            const auto b = hn::Set(dv, bias), sl = hn::Set(dv, slope);
            for (; t + L <= pairs; t += L) {
                const auto v0 = Activate(dv, hn::Add(hn::LoadU(dv, c0 + t), b), sl, act);
                const auto v1 = Activate(dv, hn::Add(hn::LoadU(dv, c1 + t), b), sl, act);
                hn::StoreInterleaved2(v0, v1, dv, row + 2 * t);
            }
        };
        vectors(D());
#if HWY_TARGET != HWY_SCALAR
        if (hn::Lanes(D()) > 8) vectors(hn::CappedTag<float, 8>());
        if (hn::Lanes(D()) > 4) vectors(hn::CappedTag<float, 4>());
        vectors(hn::CappedTag<float, 1>());
#endif
        return true;
    }

    // Output row dy of channel dl for stride 2 without the phase buffer: one pass that sums
    // both phases (same order as GatherPhase) and stores them interleaved. Returns false,
    // having written nothing, when a phase has more than kTapChunk taps in this band.
    bool GatherRow2(const float* col, size_t N, size_t dl, size_t dy, size_t a, size_t e,
                    bool partial, float* row) const {
        ptrdiff_t base[2][kTapChunk], off[2][kTapChunk];
        size_t n[2] = {0, 0};
        for (size_t y = yFirst_[dy]; y < yFirst_[dy + 1]; ++y) {
            const size_t ky = yTaps_[y].k, sy = yTaps_[y].s;
            if (sy < a || sy >= e) continue;
            for (size_t ph = 0; ph < 2; ++ph)
                for (size_t i = 0; i < phases_[ph].taps; ++i) {
                    const PhaseTap& tap = taps_[phases_[ph].first + i];
                    if (n[ph] == kTapChunk) return false;
                    base[ph][n[ph]] =
                        ptrdiff_t((dl * q_.K + ky * q_.kX + tap.kx) * N + (sy - a) * q_.srcW) +
                        tap.off;
                    off[ph][n[ph]++] = tap.off;
                }
        }
        const size_t pairs = q_.dstW / 2;
        const size_t tLo = std::min(std::max(phases_[0].tLo, phases_[1].tLo), pairs);
        const size_t tHi = std::max(tLo, std::min(std::min(phases_[0].tHi, phases_[1].tHi), pairs));
        const hn::CappedTag<float, 1> d1;
        const ptrdiff_t W = ptrdiff_t(q_.srcW);
        auto lane = [&](size_t t) {
            for (size_t ph = 0; ph < 2; ++ph) {
                const size_t x = 2 * t + ph;
                if (x >= q_.dstW) continue;
                auto acc = partial ? hn::LoadU(d1, row + x) : hn::Zero(d1);
                for (size_t i = 0; i < n[ph]; ++i) {
                    const ptrdiff_t sx = ptrdiff_t(t) + off[ph][i];
                    if (sx >= 0 && sx < W)
                        acc = hn::Add(acc, hn::LoadU(d1, col + (base[ph][i] + ptrdiff_t(t))));
                }
                hn::StoreU(acc, d1, row + x);
            }
        };
        size_t t = 0;
        // Without masked borders: single lanes up to the interior, vectors inside it.
        const size_t end = maskedBorders_ ? pairs : tHi;
        if (!maskedBorders_)
            for (; t < tLo; ++t) lane(t);
        const D d;
        t = GatherPairs(d, col, base[0], off[0], n[0], base[1], off[1], n[1], partial, t, tLo, tHi,
                        end, row);
#if HWY_TARGET != HWY_SCALAR
        const size_t L = hn::Lanes(d);
        if (L > 8)
            t = GatherPairs(hn::CappedTag<float, 8>(), col, base[0], off[0], n[0], base[1], off[1],
                            n[1], partial, t, tLo, tHi, end, row);
        if (L > 4)
            t = GatherPairs(hn::CappedTag<float, 4>(), col, base[0], off[0], n[0], base[1], off[1],
                            n[1], partial, t, tLo, tHi, end, row);
#endif
        for (; t < (q_.dstW + 1) / 2; ++t) lane(t);
        return true;
    }

    // Pairs [t, pairs) of a stride-2 row to or from its two phases, whole vectors of dv;
    // returns the first pair not done.
    template <bool toPhases, class DV>
    static size_t Interleave2(DV dv, float* row, float* t0, float* t1, size_t t, size_t pairs) {
        const size_t L = hn::Lanes(dv);
        for (; t + L <= pairs; t += L) {
            if (toPhases) {
                hn::Vec<DV> v0, v1;
                hn::LoadInterleaved2(dv, row + 2 * t, v0, v1);
                hn::StoreU(v0, dv, t0 + t);
                hn::StoreU(v1, dv, t1 + t);
            } else {
                hn::StoreInterleaved2(hn::LoadU(dv, t0 + t), hn::LoadU(dv, t1 + t), dv,
                                      row + 2 * t);
            }
        }
        return t;
    }

    // temp[px*phaseStride_ + t] = row[t*sX + px] (toPhases) or the reverse.
    template <bool toPhases>
    void Shuffle(float* row, float* temp) const {
        const D d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d);
        if (q_.sX == 2) {
            const size_t pairs = q_.dstW / 2;
            float* t0 = temp;
            float* t1 = temp + phaseStride_;
            size_t t = 0;
#if HWY_TARGET != HWY_SCALAR
            t = Interleave2<toPhases>(d, row, t0, t1, t, pairs);
            if (L > 8) t = Interleave2<toPhases>(hn::CappedTag<float, 8>(), row, t0, t1, t, pairs);
            if (L > 4) t = Interleave2<toPhases>(hn::CappedTag<float, 4>(), row, t0, t1, t, pairs);
#endif
            for (; t < pairs; ++t) {
                if (toPhases) {
                    hn::StoreU(hn::LoadU(d1, row + 2 * t), d1, t0 + t);
                    hn::StoreU(hn::LoadU(d1, row + 2 * t + 1), d1, t1 + t);
                } else {
                    hn::StoreU(hn::LoadU(d1, t0 + t), d1, row + 2 * t);
                    hn::StoreU(hn::LoadU(d1, t1 + t), d1, row + 2 * t + 1);
                }
            }
            if (q_.dstW % 2) {
                if (toPhases)
                    hn::StoreU(hn::LoadU(d1, row + 2 * pairs), d1, t0 + pairs);
                else
                    hn::StoreU(hn::LoadU(d1, t0 + pairs), d1, row + 2 * pairs);
            }
            return;
        }
        const hn::RebindToSigned<D> di;
        const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(q_.sX)));
        for (size_t px = 0; px < phases_.size(); ++px) {
            const size_t count = phases_[px].count;
            float* phase = temp + px * phaseStride_;
            float* strided = row + px;
            size_t t = 0;
            for (; t + L <= count; t += L) {
                if (toPhases)
                    hn::StoreU(hn::GatherIndex(d, strided + t * q_.sX, offsets), d, phase + t);
                else
                    hn::ScatterIndex(hn::LoadU(d, phase + t), d, strided + t * q_.sX, offsets);
            }
            for (; t < count; ++t) {
                if (toPhases)
                    hn::StoreU(hn::LoadU(d1, strided + t * q_.sX), d1, phase + t);
                else
                    hn::StoreU(hn::LoadU(d1, phase + t), d1, strided + t * q_.sX);
            }
        }
    }

    void Gather(const OutRows& out, size_t g, const float* col, size_t a, size_t e, size_t r0,
                size_t r1, size_t partialBelow, size_t finishBelow, float* temp) const override {
        const size_t N = (e - a) * q_.srcW;
        const Act act{p_.activation, param0_, param1_};
        for (size_t dl = 0; dl < q_.Dg; ++dl) {
            const size_t oc = g * q_.Dg + dl;
            const float bias = bias_[oc], slope = slope_.empty() ? 0.0f : slope_[oc];
            float* plane = out.base + dl * out.plane;  // row out.first of the channel
            for (size_t dy = r0; dy < r1; ++dy) {
                float* row = plane + (dy - out.first) * q_.dstW;
                const bool partial = dy < partialBelow;
                if (interleaveOnly_) {
                    // Bias and activation row by row, fused where the row is interleaved.
                    if (!partial && dy < finishBelow &&
                        InterleaveRow(col, N, dl, dy, a, e, bias, slope, act, row))
                        continue;
                    if (!GatherRow2(col, N, dl, dy, a, e, partial, row))
                        GatherShuffled(col, N, dl, dy, a, e, partial, row, temp);
                    if (dy < finishBelow) BiasActivatePlane(row, q_.dstW, bias, slope, act);
                    continue;
                }
                if (q_.sX == 1) {
                    GatherPhase(phases_[0], col, N, dl, dy, a, e, partial, row);
                } else if (q_.sX == 2 && phases_.size() == 2 &&
                           GatherRow2(col, N, dl, dy, a, e, partial, row)) {
                } else {
                    GatherShuffled(col, N, dl, dy, a, e, partial, row, temp);
                }
            }
            // The finished rows of the channel are one contiguous run: vector tails only once.
            const size_t finished = std::min(finishBelow, r1);
            if (!interleaveOnly_ && finished > r0)
                BiasActivatePlane(plane + (r0 - out.first) * q_.dstW, (finished - r0) * q_.dstW,
                                  bias, slope, act);
        }
    }

    // Output row dy of channel dl through the phase buffer `temp`, for any stride.
    void GatherShuffled(const float* col, size_t N, size_t dl, size_t dy, size_t a, size_t e,
                        bool partial, float* row, float* temp) const {
        if (partial) Shuffle<true>(row, temp);
        for (size_t px = 0; px < phases_.size(); ++px)
            GatherPhase(phases_[px], col, N, dl, dy, a, e, partial, temp + px * phaseStride_);
        Shuffle<false>(row, temp);
    }

    size_t M_, mPad_, phaseStride_;
    bool interleaveOnly_;
    GemmBlocks blocks_;
    std::vector<Phase> phases_;
    std::vector<PhaseTap> taps_;
};

// ---------------------------------------------------------------------------------------------
// NHWC: col[pixels x K*dstC] = src * W, gathered per output pixel along the channels.

class NhwcGemm : public Banded {
    using D = hn::ScalableTag<float>;
    using T = GemmTraits<D>;

public:
    NhwcGemm(size_t batch, const SimdConvolutionParameters& p, SimdGemm32fNNPtr gemm, bool bf16)
        : Banded(batch, p, gemm, bf16) {
        N_ = q_.K * q_.dstC;
        blocks_ = GemmChooseBlocks(bandRows_ * q_.srcW, N_, q_.srcC, T::kRows, T::kCols);
        info_ = std::string(TargetIsa()) + (gemm ? "::nhwc-usergemm-col2im"
                                                 : "::nhwc-gemm-" + std::to_string(T::kRows) + "x" +
                                                       std::to_string(T::kCols) + "-col2im");
        info_ += "-band" + std::to_string(bandRows_) + TypeSuffix(*this);
    }

protected:
    // One image (the NCHW wrapper's step).
    void RunImage(const float* src, float* buf, float* dst) const { RunImages(src, buf, dst, 1); }
    size_t PackFloats() const override {
        return gemm_ ? 0 : GemmPackedASize<D>(blocks_.mc, blocks_.kc);
    }
    size_t BOffset(size_t j, size_t k, size_t nc) const {
        return j * q_.srcC + k * RoundUp(nc, T::kCols);
    }
    void PackWeights(const float* weight) override {
        std::vector<float> rounded;
        const float* w = FrameworkWeights(*this, weight, q_.srcC * N_, rounded);
        if (gemm_) {
            weights_.assign(w, w + q_.srcC * N_);
            return;
        }
        const D d;
        weights_.assign(q_.srcC * RoundUp(N_, T::kCols), 0.0f);
        for (size_t j = 0; j < N_; j += blocks_.nc) {
            const size_t nc = std::min(blocks_.nc, N_ - j);
            for (size_t k = 0; k < q_.srcC; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.srcC - k);
                GemmPackB(d, kc, nc, w + k * N_ + j, N_, weights_.data() + BOffset(j, k, nc));
            }
        }
    }

    void Columns(const void* image, size_t g, size_t a, size_t e, float* pack,
                 float* col) const override {
        WithSourceReader(*this, [&](auto read) {
            ColumnsOf<decltype(read)>(static_cast<const typename decltype(read)::Elem*>(image), g,
                                      a, e, pack, col);
        });
    }
    template <class Read>
    void ColumnsOf(const typename Read::Elem* image, size_t, size_t a, size_t e, float* pack,
                   float* col) const {
        const size_t M = (e - a) * q_.srcW;
        const auto* A = image + a * q_.srcW * q_.srcC;
        if constexpr (std::is_same_v<Read, GemmReadF32>) {
            if (gemm_) {
                const float one = 1.0f, zero = 0.0f;
                gemm_(M, N_, q_.srcC, &one, A, q_.srcC, weights_.data(), N_, &zero, col, N_);
                return;
            }
        }
        const D d;
        for (size_t i = 0; i < M; i += blocks_.mc) {
            const size_t mc = std::min(blocks_.mc, M - i);
            for (size_t k = 0; k < q_.srcC; k += blocks_.kc) {
                const size_t kc = std::min(blocks_.kc, q_.srcC - k);
                GemmPackA<Read>(d, mc, kc, A + i * q_.srcC + k, q_.srcC, pack);
                const GemmStore mode = k == 0 ? GemmStore::kOverwrite : GemmStore::kAccumulate;
                for (size_t j = 0; j < N_; j += blocks_.nc) {
                    const size_t nc = std::min(blocks_.nc, N_ - j);
                    GemmMacroKernel(d, mc, nc, kc, pack, weights_.data() + BOffset(j, k, nc),
                                    col + i * N_ + j, N_, 1.0f, 0.0f, mode);
                }
            }
        }
    }

    // pix[c] = (init ? pix[c] : 0) + sum of col[base[i] + c] over the n taps (c < dstC).
    void AccumulateChannels(const float* col, const size_t* base, size_t n, bool init,
                            float* pix) const {
        const D d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d), C = q_.dstC;
        size_t c = 0;
        for (; c + 2 * L <= C; c += 2 * L) {
            auto acc0 = init ? hn::LoadU(d, pix + c) : hn::Zero(d);
            auto acc1 = init ? hn::LoadU(d, pix + c + L) : hn::Zero(d);
            for (size_t i = 0; i < n; ++i) {
                acc0 = hn::Add(acc0, hn::LoadU(d, col + base[i] + c));
                acc1 = hn::Add(acc1, hn::LoadU(d, col + base[i] + c + L));
            }
            hn::StoreU(acc0, d, pix + c);
            hn::StoreU(acc1, d, pix + c + L);
        }
        for (; c + L <= C; c += L) {
            auto acc = init ? hn::LoadU(d, pix + c) : hn::Zero(d);
            for (size_t i = 0; i < n; ++i) acc = hn::Add(acc, hn::LoadU(d, col + base[i] + c));
            hn::StoreU(acc, d, pix + c);
        }
        for (; c < C; ++c) {
            auto acc = init ? hn::LoadU(d1, pix + c) : hn::Zero(d1);
            for (size_t i = 0; i < n; ++i) acc = hn::Add(acc, hn::LoadU(d1, col + base[i] + c));
            hn::StoreU(acc, d1, pix + c);
        }
    }

    void Gather(const OutRows& out, size_t, const float* col, size_t a, size_t e, size_t r0,
                size_t r1, size_t partialBelow, size_t finishBelow, float*) const override {
        const Act act{p_.activation, param0_, param1_};
        const float* slope = slope_.empty() ? nullptr : slope_.data();
        size_t base[kTapChunk];
        for (size_t dy = r0; dy < r1; ++dy) {
            float* row = out.base + (dy - out.first) * q_.dstW * q_.dstC;
            const bool partial = dy < partialBelow;
            for (size_t dx = 0; dx < q_.dstW; ++dx) {
                float* pix = row + dx * q_.dstC;
                size_t n = 0;
                bool init = partial;
                for (size_t y = yFirst_[dy]; y < yFirst_[dy + 1]; ++y) {
                    const size_t ky = yTaps_[y].k, sy = yTaps_[y].s;
                    if (sy < a || sy >= e) continue;
                    for (size_t x = xFirst_[dx]; x < xFirst_[dx + 1]; ++x) {
                        const size_t kx = xTaps_[x].k, sx = xTaps_[x].s;
                        base[n] = ((sy - a) * q_.srcW + sx) * N_ + (ky * q_.kX + kx) * q_.dstC;
                        if (++n == kTapChunk) {
                            AccumulateChannels(col, base, n, init, pix);
                            init = true;
                            n = 0;
                        }
                    }
                }
                if (n > 0 || !init) AccumulateChannels(col, base, n, init, pix);
            }
            if (dy < finishBelow)
                for (size_t dx = 0; dx < q_.dstW; ++dx)
                    BiasActivateChannels(row + dx * q_.dstC, q_.dstC, bias_.data(), slope, act);
        }
    }

    size_t N_;
    GemmBlocks blocks_;
};

// ---------------------------------------------------------------------------------------------
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
                for (size_t x = 0; x < mc * q_.kX; ++x)
                    BiasActivateChannels(c + x * q_.dstC, q_.dstC, bias_.data(), slope, act);
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

// ---------------------------------------------------------------------------------------------
// NHWC by stride phases (FP32 framework, one group, no dilation, kernel a multiple of the
// stride): the outputs of one phase (dy % sY, dx % sX) take the taps ky = ry + m*sY,
// kx = rx + n*sX from the source pixels (y + by - m, x + bx - n), so they form a dense image that
// is a plain stride-1 convolution of the source with those kY/sY x kX/sX taps, flipped. Each
// phase runs as the convolution framework's NHWC direct convolution (bias and activation in its
// store) into a scratch image that is then interleaved into the output. Every output value is
// summed in registers, with no column matrix to write and gather back (on Zen 5 the gather was
// a fifth of 4x4 s2 p1 64->32 28x28).

// One axis of one phase as a convolution: `out` outputs from `taps` taps with the given pads
// over the source rows (or columns) [offset, offset + length).
struct PhaseAxis {
    size_t out, taps, first, offset, length, padBefore, padAfter;
    bool ok;  // false: the phase cannot be expressed as such a convolution
};

// Output positions phase, phase + stride, ... of an axis of `dst` outputs over `src` inputs.
// cropEnd: the convolution may see fewer source positions than there are (rows: yes; columns:
// no, they set the row stride of the NHWC image).
inline PhaseAxis MakePhaseAxis(size_t dst, size_t src, size_t kernel, size_t stride, size_t pad,
                               size_t phase, bool cropEnd) {
    PhaseAxis a{};
    a.out = dst > phase ? (dst - phase + stride - 1) / stride : 0;
    a.taps = kernel / stride;
    a.first = (phase + pad) % stride;  // tap of the last kernel index (m = 0)
    // Output i reads source i + shift + j for kernel index j = taps - 1 - m.
    const ptrdiff_t shift = ptrdiff_t((phase + pad) / stride) - ptrdiff_t(a.taps - 1);
    const ptrdiff_t end = ptrdiff_t(a.out) + shift + ptrdiff_t(a.taps) - 1;  // one past the last
    a.offset = shift > 0 ? size_t(shift) : 0;
    a.padBefore = shift < 0 ? size_t(-shift) : 0;
    a.padAfter = end > ptrdiff_t(src) ? size_t(end - ptrdiff_t(src)) : 0;
    const ptrdiff_t last = std::min(end, ptrdiff_t(src));
    a.length = last > ptrdiff_t(a.offset) ? size_t(last) - a.offset : 0;
    a.ok = a.out > 0 && a.length > 0 && (cropEnd || (a.offset == 0 && a.length == src));
    return a;
}

class NhwcPhases : public Deconvolution32f {
public:
    NhwcPhases(size_t batch, const SimdConvolutionParameters& p)
        : Deconvolution32f(batch, p, nullptr, false), q_(p) {
        for (size_t py = 0; py < q_.sY; ++py)
            for (size_t px = 0; px < q_.sX; ++px) {
                Phase ph;
                ph.py = py;
                ph.px = px;
                ph.y = MakePhaseAxis(q_.dstH, q_.srcH, q_.kY, q_.sY, q_.padY, py, true);
                ph.x = MakePhaseAxis(q_.dstW, q_.srcW, q_.kX, q_.sX, q_.padX, px, false);
                SimdConvolutionParameters c = p;
                c.srcF = c.dstF = SimdTensorFormatNhwc;  // also for the NCHW wrapper
                c.srcH = ph.y.length;
                c.dstH = ph.y.out;
                c.dstW = ph.x.out;
                c.kernelY = ph.y.taps;
                c.kernelX = ph.x.taps;
                c.strideY = c.strideX = 1;
                c.padY = ph.y.padBefore;
                c.padH = ph.y.padAfter;
                c.padX = ph.x.padBefore;
                c.padW = ph.x.padAfter;
                ph.conv.reset(NhwcDirectConvolutionCreate(1, c));
                // Scratch: the largest phase convolution's, then the largest phase image.
                convFloats_ =
                    std::max(convFloats_, RoundUp(ph.conv->ExternalBufferSize(), kLineFloats));
                imageFloats_ = std::max(imageFloats_, ph.y.out * ph.x.out * q_.dstC);
                phases_.push_back(std::move(ph));
            }
        const std::string& first = phases_.front().conv->info_;
        info_ =
            std::string(TargetIsa()) + "::nhwc-phases-" + first.substr(first.find("::nhwc-") + 7);
    }
    // The phases cover every output with convolutions of this form (checked before construction).
    static bool Applies(const SimdConvolutionParameters& p) {
        const DeconvGeometry q(p);
        if (q.G != 1 || q.dY != 1 || q.dX != 1 || q.kY % q.sY != 0 || q.kX % q.sX != 0 ||
            q.DisjointPatches())
            return false;
        for (size_t py = 0; py < q.sY; ++py)
            if (!MakePhaseAxis(q.dstH, q.srcH, q.kY, q.sY, q.padY, py, true).ok) return false;
        for (size_t px = 0; px < q.sX; ++px)
            if (!MakePhaseAxis(q.dstW, q.srcW, q.kX, q.sX, q.padX, px, false).ok) return false;
        return true;
    }
    // Applies, and measured faster than the column GEMM (Zen 5, AVX-512): 4x4 s2 p1 64->32 28x28
    // 258 -> 229 us, 3x3 s1 32->32 56x56 372 -> 253 us, 7x7 s1 3->16 28x28 112 -> 37 us. Not
    // where the tile's columns would be mostly padding (the phase convolution pads dstC to its
    // tile width as NhwcGemm of Convolution32f.cpp chooses it; 4x4 s2 17->33 28x28 128 vs
    // 157 us, 16->16 70 vs 75 us) unless the source has so few channels that the column GEMM
    // is worse still (8->8 56x56 334 vs 297 us), nor for phase images narrower than 8 pixels,
    // whose tiles are nearly all border tiles (4x4 s2 512->256 7x7 947 vs 1011 us).
    static bool Preferred(const SimdConvolutionParameters& p) {
        if (!Applies(p)) return false;
        using T = GemmTraits<hn::ScalableTag<float>>;
        const DeconvGeometry q(p);
        // The tile width as it was measured, before the 14 x 1-vector tile for at most 16
        // channels (GemmTileShape): with it, 9-16 channels would count as dense. Not
        // re-measured yet, so those layers keep the column GEMM.
        const bool narrow = T::kVecs == 4 && q.dstC <= 2 * T::kLanes;
        const size_t tile = narrow ? 2 * T::kLanes : T::kCols;
        const bool dense = 4 * RoundUp(q.dstC, tile) <= 5 * q.dstC;
        for (size_t px = 0; px < q.sX; ++px)
            if (MakePhaseAxis(q.dstW, q.srcW, q.kX, q.sX, q.padX, px, false).out < 8) return false;
        return dense || q.srcC < 16;
    }
    size_t ExternalBufferSize() const override { return convFloats_ + imageFloats_; }
    size_t InternalBufferSize() const override {
        size_t n = 0;
        for (const Phase& ph : phases_) n += ph.conv->InternalBufferSize();
        return n;
    }

protected:
    // [srcC][kY][kX][dstC] -> per phase [kY/sY][kX/sX][srcC][dstC], taps flipped; each phase
    // convolution gets the layer's bias and activation.
    void PackWeights(const float* weight) override {
        std::vector<float> params;
        switch (p_.activation) {
            case SimdConvolutionActivationPrelu:
                params = slope_;
                break;
            case SimdConvolutionActivationLeakyRelu:
                params = {slope_[0]};
                break;
            default:
                params = {param0_, param1_};
        }
        for (Phase& ph : phases_) {
            const size_t ty = ph.y.taps, tx = ph.x.taps;
            std::vector<float> w(ty * tx * q_.srcC * q_.dstC);
            for (size_t j = 0; j < ty; ++j)
                for (size_t i = 0; i < tx; ++i) {
                    const size_t ky = ph.y.first + (ty - 1 - j) * q_.sY;
                    const size_t kx = ph.x.first + (tx - 1 - i) * q_.sX;
                    for (size_t sc = 0; sc < q_.srcC; ++sc)
                        std::copy_n(weight + ((sc * q_.kY + ky) * q_.kX + kx) * q_.dstC, q_.dstC,
                                    w.data() + ((j * tx + i) * q_.srcC + sc) * q_.dstC);
                }
            ph.conv->SetParams(w.data(), bias_.data(), params.data());
        }
    }
    void Run(const float* src, float* buf, float* dst) const override {
        for (size_t b = 0; b < batch_; ++b)
            RunImage(src + b * q_.srcImage, buf, dst + b * q_.dstImage);
    }
    // One NHWC image; buf holds ExternalBufferSize() floats.
    void RunImage(const float* src, float* buf, float* dst) const {
        float* image = buf + convFloats_;
        const size_t C = q_.dstC;
        for (const Phase& ph : phases_) {
            ph.conv->Forward(src + ph.y.offset * q_.srcW * q_.srcC, buf, image);
            // Interleave: phase pixel (y, x) is output pixel (y*sY + py, x*sX + px).
            for (size_t y = 0; y < ph.y.out; ++y) {
                const float* from = image + y * ph.x.out * C;
                float* row = dst + ((y * q_.sY + ph.py) * q_.dstW + ph.px) * C;
                for (size_t x = 0; x < ph.x.out; ++x) CopyRun(from + x * C, C, row + x * q_.sX * C);
            }
        }
    }

    static constexpr size_t kLineFloats = 16;
    struct Phase {
        size_t py, px;
        PhaseAxis y, x;
        std::unique_ptr<Convolution32f> conv;
    };
    DeconvGeometry q_;
    std::vector<Phase> phases_;
    size_t convFloats_ = 1, imageFloats_ = 0;
};

// ---------------------------------------------------------------------------------------------
// NCHW with one group (FP32 framework, own GEMM): an NHWC algorithm (NhwcGemm, NhwcPhases or
// NhwcDirect) between transposes of the image and of the output. The NCHW column path gathers
// every output value from the stride phases of a channel-major column matrix, the NHWC ones add
// whole vectors of channels or sum in registers; where the two transposes cost less than that
// difference is measured in DeconvolutionCreate.

template <class Nhwc>
class NchwVia : public Nhwc {
public:
    template <class... Args>
    NchwVia(size_t batch, const SimdConvolutionParameters& p, Args... args)
        : Nhwc(batch, p, args...) {
        const std::string from = "::nhwc-";
        this->info_.replace(this->info_.find(from), from.size(), "::nchw-via-nhwc-");
        if constexpr (kInPlace) this->nchw_ = true;
    }
    size_t ExternalBufferSize() const override {
        if constexpr (kInPlace)
            return Nhwc::ExternalBufferSize();
        else
            return Nhwc::ExternalBufferSize() + this->q_.srcImage + this->q_.dstImage;
    }

protected:
    // [srcC][dstC][kY][kX] -> [srcC][kY][kX][dstC] (SUPPLEMENT.md §9.1 layouts): each input
    // channel's dstC x taps block is an NCHW "image" of dstC planes of taps pixels.
    void PackWeights(const float* weight) override {
        const DeconvGeometry& q = this->q_;
        std::vector<float> nhwc(q.srcC * q.K * q.dstC);
        for (size_t sc = 0; sc < q.srcC; ++sc)
            conv32f::NchwToNhwcImage(weight + sc * q.dstC * q.K, q.dstC, q.K,
                                     nhwc.data() + sc * q.K * q.dstC);
        Nhwc::PackWeights(nhwc.data());
    }
    void Run(const float* src, float* buf, float* dst) const override {
        if constexpr (kInPlace) {
            this->template RunOf<GemmReadF32>(src, buf, dst, this->batch_);
        } else {
            const DeconvGeometry& q = this->q_;
            float* srcT = buf + Nhwc::ExternalBufferSize();
            conv32f::RunNchwViaNhwc(src, q.srcC, q.srcPlane, dst, q.dstC, q.dstPlane, this->batch_,
                                    srcT, srcT + q.srcImage,
                                    [&](const float* s, float* d) { this->RunImage(s, buf, d); });
        }
    }

private:
    // The direct algorithm reads and writes the NCHW tensors itself, transposing blocks in L1
    // (NhwcDirect::nchw_), instead of whole NHWC images that leave the cache between passes.
    static constexpr bool kInPlace = std::is_same_v<Nhwc, NhwcDirect>;
};

}  // namespace deconv32f

// The algorithm for this shape on this target (parameters already validated). bf16: the BF16
// framework (gemm is then NULL).
Deconvolution32f* DeconvolutionCreate(size_t batch, const SimdConvolutionParameters* p,
                                      SimdGemm32fNNPtr gemm, bool bf16) {
    const DeconvGeometry q(*p);
    if (p->srcF == SimdTensorFormatNhwc) {
        if (gemm == nullptr && q.DisjointPatches())
            return new deconv32f::NhwcDirect(batch, *p, bf16);
        if (gemm == nullptr && !bf16 && deconv32f::NhwcPhases::Preferred(*p))
            return new deconv32f::NhwcPhases(batch, *p);
        return new deconv32f::NhwcGemm(batch, *p, gemm, bf16);
    }
    // NCHW, one group, FP32: an NHWC algorithm between transposes. Measured on Zen4 with
    // overlapping patches (4x4 s2 p1 64->32 28x28): 616 us through the NCHW columns, 555 us
    // through the NHWC columns between transposes. With disjoint patches the NCHW gather is a
    // plain interleave and the transposes pay off only with enough FLOP per transposed float.
    // The direct kernel transposes in L1, per block and source row (128->64 28x28 234-244 ->
    // 225-234 us against whole images), which on AVX-512 (16x16 transpose tiles) moved the
    // break-even from 128 to about 55 FLOP per float (Zen 5, 2x2 s2, columns vs transposes:
    // 64->64 28x28 141 vs 126 us, 64->32 56x56 267 vs 262, 32->32 56x56 155 vs 153, 32->16 56x56
    // 82 vs 96, 16->16 112x112 193 vs 347). AVX2 and SSE4 keep 128 (64->64 28x28: AVX2 237 vs
    // 245 us, SSE4 576 vs 649).
    if (p->group == 1 && gemm == nullptr && !bf16) {
        if (q.DisjointPatches()) {
            const double flop = 2.0 * double(q.srcC) * double(q.dstC) * double(q.K);
            constexpr double kFlopPerFloat = HWY_TARGET <= HWY_AVX3 ? 64.0 : 128.0;
            if (flop >= kFlopPerFloat * double(q.srcC + q.dstC * q.K))
                return new deconv32f::NchwVia<deconv32f::NhwcDirect>(batch, *p, false);
        } else if (deconv32f::NhwcPhases::Preferred(*p)) {
            return new deconv32f::NchwVia<deconv32f::NhwcPhases>(batch, *p);
        } else {
            return new deconv32f::NchwVia<deconv32f::NhwcGemm>(batch, *p, nullptr, false);
        }
    }
    return new deconv32f::NchwGemm(batch, *p, gemm, bf16);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstdint>
#include <new>

#include "SimdSynet.h"

#include "convolution/ContextApi.h"
#include "core/Dispatch.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(DeconvolutionCreate);

// Bytes the 16b entry points add to the external buffer size so that a caller's byte buffer of
// any alignment holds the float scratch from its next 64-byte boundary.
constexpr size_t kDeconvBufSlack = 64;

namespace {

// One output extent of the deconvolution size rule (§9.1), or 0 when the crop leaves nothing.
size_t DeconvExtent(size_t src, size_t padBefore, size_t padAfter, size_t kernel, size_t dilation,
                    size_t stride) {
    const size_t full = stride * (src - 1) + dilation * (kernel - 1) + 1;
    if (full <= padBefore + padAfter) return 0;
    return full - padBefore - padAfter;
}

// Checks the configuration of either framework (f: the Init function named in messages;
// bf16: srcT and dstT may also be 16b); on failure records a message naming the field and
// returns false.
bool ValidDeconvolution(size_t batch, const SimdConvolutionParameters* p, const char* f,
                        bool bf16) {
    if (p == nullptr) return SetLastErrorF("%s: conv is NULL", f);
    if (batch == 0) return SetLastErrorF("%s: batch is 0", f);
    auto allowed = [bf16](SimdTensorDataType t) {
        return t == SimdTensorData32f || (bf16 && t == SimdTensorData16b);
    };
    const char* types = bf16 ? "32f or 16b" : "32f";
    if (!allowed(p->srcT)) return SetLastErrorF("%s: srcT is not %s", f, types);
    if (!allowed(p->dstT)) return SetLastErrorF("%s: dstT is not %s", f, types);
    if (!ValidConvolutionFields(*p, f)) return false;
    if (p->srcF == SimdTensorFormatNhwc && p->group != 1)
        return SetLastErrorF("%s: group must be 1 for Nhwc", f);
    // Guard the size-rule arithmetic and the later products against overflow.
    const size_t big = size_t(1) << 30;
    if (p->srcH > big || p->srcW > big || p->padY > big || p->padX > big || p->padH > big ||
        p->padW > big || p->kernelY > big || p->kernelX > big || p->dilationY > big ||
        p->dilationX > big || p->strideY > big || p->strideX > big)
        return SetLastErrorF("%s: sizes too large", f);
    const size_t dstH =
        DeconvExtent(p->srcH, p->padY, p->padH, p->kernelY, p->dilationY, p->strideY);
    const size_t dstW =
        DeconvExtent(p->srcW, p->padX, p->padW, p->kernelX, p->dilationX, p->strideX);
    if (dstH == 0 || p->dstH != dstH)
        return SetLastErrorF("%s: dstH does not follow the size rule (expected %zu)", f, dstH);
    if (dstW == 0 || p->dstW != dstW)
        return SetLastErrorF("%s: dstW does not follow the size rule (expected %zu)", f, dstW);
    size_t n = 0;
    if (!FitsInMemory(p->srcC, p->srcH * p->srcW, sizeof(float)) ||
        !FitsInMemory(p->dstC, p->dstH * p->dstW, sizeof(float)) ||
        !CheckedMul(p->dstC / p->group * p->kernelY, p->kernelX, &n) ||
        !FitsInMemory(n, p->srcC, sizeof(float)) || !FitsInMemory(n, p->srcW, sizeof(float)) ||
        !FitsInMemory(batch, p->srcC * p->srcH * p->srcW, sizeof(float)) ||
        !FitsInMemory(batch, p->dstC * p->dstH * p->dstW, sizeof(float)))
        return SetLastErrorF("%s: tensor sizes overflow", f);
    return true;
}

}  // namespace
}  // namespace simd

extern "C" {

SIMD_API void* SimdSynetDeconvolution32fInit(size_t batch, const SimdConvolutionParameters* conv,
                                             SimdGemm32fNNPtr gemm) {
    simd::ClearLastError();
    if (!simd::ValidDeconvolution(batch, conv, "SimdSynetDeconvolution32fInit", false))
        return nullptr;
    try {
        return SIMD_DISPATCH(simd::DeconvolutionCreate)(batch, conv, gemm, false);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetDeconvolution32fInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetDeconvolution32fExternalBufferSize(const void* context) {
    return simd::LayerExternalBufferSize(context, "SimdSynetDeconvolution32f");
}

SIMD_API size_t SimdSynetDeconvolution32fInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, "SimdSynetDeconvolution32f");
}

SIMD_API void SimdSynetDeconvolution32fSetParams(void* context, const float* weight,
                                                 SimdBool* internal, const float* bias,
                                                 const float* params) {
    simd::ContextSetParams(context, weight, internal, bias, params, "SimdSynetDeconvolution32f");
}

SIMD_API void SimdSynetDeconvolution32fForward(void* context, const float* src, float* buf,
                                               float* dst) {
    simd::ContextForward(context, src, buf, dst, "SimdSynetDeconvolution32f");
}

SIMD_API const char* SimdSynetDeconvolution32fInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetDeconvolution32f");
}

// The BF16 framework: the same contexts (bf16 true) behind byte-based entry points. The
// context works in floats; sizes are converted here, and the caller's byte buffer is aligned
// up to a float boundary (kBufSlack bytes of slack are included in the external size).

SIMD_API void* SimdSynetDeconvolution16bInit(size_t batch, const SimdConvolutionParameters* conv,
                                             SimdSynetCompatibilityType compatibility) {
    (void)compatibility;  // stored by the reference, no effect on results (§9.2)
    simd::ClearLastError();
    if (!simd::ValidDeconvolution(batch, conv, "SimdSynetDeconvolution16bInit", true))
        return nullptr;
    try {
        return SIMD_DISPATCH(simd::DeconvolutionCreate)(batch, conv, nullptr, true);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetDeconvolution16bInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetDeconvolution16bExternalBufferSize(const void* context) {
    const size_t floats = simd::LayerExternalBufferSize(context, "SimdSynetDeconvolution16b");
    return floats == 0 ? 0 : floats * sizeof(float) + simd::kDeconvBufSlack;
}

SIMD_API size_t SimdSynetDeconvolution16bInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, "SimdSynetDeconvolution16b") * sizeof(float);
}

SIMD_API void SimdSynetDeconvolution16bSetParams(void* context, const float* weight,
                                                 const float* bias, const float* params) {
    simd::ContextSetParams(context, weight, nullptr, bias, params, "SimdSynetDeconvolution16b");
}

SIMD_API void SimdSynetDeconvolution16bForward(void* context, const uint8_t* src, uint8_t* buf,
                                               uint8_t* dst) {
    // src and dst travel as float pointers; the context reads and writes them as srcT / dstT.
    float* scratch = nullptr;
    if (buf != nullptr) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(buf);
        scratch = reinterpret_cast<float*>(
            buf + ((simd::kDeconvBufSlack - at % simd::kDeconvBufSlack) % simd::kDeconvBufSlack));
    }
    simd::ContextForward(context, reinterpret_cast<const float*>(src), scratch,
                         reinterpret_cast<float*>(dst), "SimdSynetDeconvolution16b");
}

SIMD_API const char* SimdSynetDeconvolution16bInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetDeconvolution16b");
}

}  // extern "C"

#endif  // HWY_ONCE
