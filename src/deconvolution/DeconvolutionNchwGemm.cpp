// The NCHW column algorithm of the deconvolution frameworks, any group (Info
// "nchw-gemm-RxC-col2im", "nchw-usergemm-col2im"): per band of source rows (ColumnBands-inl.h), the
// column matrix col[Dg*kY*kX x band pixels] = W^T * src (W^T packed into A panels at SetParams, the
// band's channel rows packed into B panels), then gathered per output row and column phase. Kernel
// width 2, stride 2, no horizontal padding: a row of one tap row is two column rows
// interleaved, bias and activation applied on the way.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deconvolution/DeconvolutionNchwGemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "deconvolution/Algorithms.h"
#include "convolution/Activate-inl.h"
#include "convolution/Geometry.h"
#include "deconvolution/ColumnBands-inl.h"
#include "deconvolution/ElementTypes-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/AlignedVector.h"
#include "gemm/GemmBlocking.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

using conv32f::Act;
using conv32f::BiasActivatePlane;

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

Deconvolution32f* CreateNchwGemm(size_t batch, const SimdConvolutionParameters& p,
                                 SimdGemm32fNNPtr gemm, bool bf16) {
    return new NchwGemm(batch, p, gemm, bf16);
}

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
