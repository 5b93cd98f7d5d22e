// Normalization layers (SUPPLEMENT.md §6): SimdSynetNormalizeLayerForward (V1, L2 norm),
// V2 (layer norm over channels), V3 (instance norm over pixels), V4 (channel-norm reweighting)
// and the BF16 V2, in Nchw and Nhwc (16bV2: Nhwc).
//
// Each layout maps to one of the two orientations of normalization/Reduce-inl.h: statistics
// along contiguous rows (V1/V2 in Nhwc, V3/V4 in Nchw) or down the columns of a row-major block
// (V1/V2 in Nchw, V3/V4 in Nhwc). No function needs the caller's scratch buffer except V4, which
// keeps one value per channel there (or in an internal array when buf is NULL).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "normalization/Normalize.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <cfloat>
#include <cmath>

#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/PerChannel-inl.h"
#include "normalization/Reduce-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// x * scale[c] * r (V1 across spatial).
struct NormalizeScaleByOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 1;
    float r;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x, V, V scale, V, V) const {
        return hn::Mul(hn::Mul(x, scale), hn::Set(d, r));
    }
};

void NormalizeLayerV1(const float* src, size_t batch, size_t C, size_t S, const float* scale,
                      float eps, bool across, bool nhwc, float* dst) {
    const size_t item = C * S;
    for (size_t b = 0; b < batch; ++b) {
        const float* s = src + b * item;
        float* o = dst + b * item;
        if (across) {
            double squares;
            norm::ReduceRow(s, item, 0.0f, norm::SquareTerm(), &squares);
            const float r = float(1.0 / std::sqrt(squares + double(eps)));
            ChannelArgs<float, float> args{s, nullptr, {scale, nullptr, nullptr}, o};
            PerChannel(NormalizeScaleByOp{r}, C, S, 1, nhwc, args);
        } else if (nhwc) {
            for (size_t p = 0; p < S; ++p) {
                const norm::RowStats st = norm::RowStatistics(s + p * C, C, false, eps);
                norm::ApplyRowPattern(s + p * C, C, o + p * C, 0.0f, 0.0f, st.r, scale, nullptr);
            }
        } else {
            norm::NormalizeAllColumns(s, C, S, o, false, eps, scale, nullptr, nullptr, nullptr);
        }
    }
}

// V2 in FP32 (both layouts) and BF16 (Nhwc only; the entry point checks).
template <class T>
void NormalizeLayerV2T(const T* src, size_t batch, size_t C, size_t S, const float* scale,
                       const float* shift, float eps, bool nhwc, T* dst) {
    const size_t item = C * S;
    for (size_t b = 0; b < batch; ++b) {
        const T* s = src + b * item;
        T* o = dst + b * item;
        if (nhwc) {
            for (size_t p = 0; p < S; ++p) {
                const norm::RowStats st = norm::RowStatistics(s + p * C, C, true, eps);
                norm::ApplyRowPattern(s + p * C, C, o + p * C, st.m0, st.delta, st.r, scale, shift);
            }
        } else {
            norm::NormalizeAllColumns(s, C, S, o, true, eps, scale, shift, nullptr, nullptr);
        }
    }
}

void NormalizeLayerV2(const float* src, size_t batch, size_t C, size_t S, const float* scale,
                      const float* shift, float eps, bool nhwc, float* dst) {
    NormalizeLayerV2T(src, batch, C, S, scale, shift, eps, nhwc, dst);
}

// Channel counts up to this use the BF16 pair path (parameters split on the stack).
constexpr size_t kMaxSplitChannels = 4096;
// Rows up to this width go through the two-row path with widened deviations (32 KiB on the
// stack, in L1 between the two passes).
constexpr size_t kMaxWideChannels = 2048;

// Statistics of two BF16 rows of n elements (n a multiple of 2 vectors) in one interleaved pass,
// so that the two rows' accumulation chains, horizontal sums, square roots and divisions
// overlap instead of running one after the other. Same arithmetic as RowStatistics (centre from
// the first vector pair, block sums with Kahan compensation); returns false when a row's centre
// is far from its mean, which RowStatistics then handles with its second pass.
//
// kStore: the deviations x - m0 it computes are also stored, widened to FP32, to dev[k] (even
// elements of a vector pair, then odd ones), so the output pass neither reloads nor unpacks
// the row.
template <bool kStore>
HWY_INLINE bool TwoRowStatisticsBf16(const uint16_t* p0, const uint16_t* p1, size_t n, float eps,
                                     norm::RowStats* st, float* const* dev, double* squaresOut) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    const uint16_t* rows[2] = {p0, p1};
    // Local copies: stores through dev[k] could otherwise alias the caller's pointers.
    float* out[2] = {kStore ? dev[0] : nullptr, kStore ? dev[1] : nullptr};
    V c[2];
    float c0[2];
    for (size_t k = 0; k < 2; ++k) {
        V e, o;
        norm::LoadPairs(d, rows[k], e, o);
        c0[k] = hn::GetLane(hn::SumOfLanes(d, hn::Add(e, o))) * (0.5f / float(L));
        c[k] = hn::Set(d, c0[k]);
    }
    // total/comp: [row][sum of d, sum of d^2]
    V total[2][2], comp[2][2];
    for (size_t k = 0; k < 2; ++k)
        for (size_t q = 0; q < 2; ++q) total[k][q] = comp[k][q] = hn::Zero(d);
    size_t i = 0;
    while (i < n) {
        // Per row: even and odd sums of d and d^2 (4 independent chains per row).
        V se[2], so[2], qe[2], qo[2];
        for (size_t k = 0; k < 2; ++k) se[k] = so[k] = qe[k] = qo[k] = hn::Zero(d);
        for (size_t steps = 0; steps < 2 * norm::kBlockSteps && i < n; ++steps, i += 2 * L) {
            for (size_t k = 0; k < 2; ++k) {
                V e, o;
                norm::LoadPairs(d, rows[k] + i, e, o);
                const V de = hn::Sub(e, c[k]), dodd = hn::Sub(o, c[k]);
                if (kStore) {
                    hn::Store(de, d, out[k] + i);
                    hn::Store(dodd, d, out[k] + i + L);
                }
                se[k] = hn::Add(se[k], de);
                so[k] = hn::Add(so[k], dodd);
                qe[k] = hn::MulAdd(de, de, qe[k]);
                qo[k] = hn::MulAdd(dodd, dodd, qo[k]);
            }
        }
        for (size_t k = 0; k < 2; ++k) {
            norm::KahanAdd(total[k][0], comp[k][0], hn::Add(se[k], so[k]));
            norm::KahanAdd(total[k][1], comp[k][1], hn::Add(qe[k], qo[k]));
        }
    }
    const double invN = 1.0 / double(n);
    double delta[2], variance[2];
    for (size_t k = 0; k < 2; ++k) {
        const double sum = hn::GetLane(hn::SumOfLanes(d, hn::Sub(total[k][0], comp[k][0])));
        const double squares = hn::GetLane(hn::SumOfLanes(d, hn::Sub(total[k][1], comp[k][1])));
        squaresOut[k] = squares;
        delta[k] = sum * invN;
        variance[k] = squares * invN - delta[k] * delta[k];
    }
    if (delta[0] * delta[0] > 4.0 * variance[0] || delta[1] * delta[1] > 4.0 * variance[1])
        return false;
    for (size_t k = 0; k < 2; ++k) {
        st[k].m0 = c0[k];
        st[k].delta = float(delta[k]);
        const double var = variance[k] < 0.0 ? 0.0 : variance[k];
        st[k].r = 1.0f / std::sqrt(float(var + double(eps)));
    }
    return true;
}

// ApplyRowPairs for two rows at once (n a multiple of 2 vectors): the split parameters are
// loaded once for both rows.
HWY_INLINE void ApplyTwoRowsBf16(const uint16_t* s0, const uint16_t* s1, size_t n, uint16_t* o0,
                                 uint16_t* o1, const norm::RowStats* st,
                                 const norm::SplitParams& split) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    const uint16_t* src[2] = {s0, s1};
    uint16_t* dst[2] = {o0, o1};
    V vm[2], vd[2], vr[2];
    for (size_t k = 0; k < 2; ++k) {
        vm[k] = hn::Set(d, st[k].m0);
        vd[k] = hn::Set(d, st[k].delta);
        vr[k] = hn::Set(d, st[k].r);
    }
    for (size_t i = 0; i < n; i += 2 * L) {
        const size_t j = i / 2;
        const V scE = hn::LoadU(d, split.scaleEven + j), scO = hn::LoadU(d, split.scaleOdd + j);
        const V shE = hn::LoadU(d, split.shiftEven + j), shO = hn::LoadU(d, split.shiftOdd + j);
        for (size_t k = 0; k < 2; ++k) {
            V e, o;
            norm::LoadPairs(d, src[k] + i, e, o);
            e = hn::MulAdd(hn::Sub(hn::Sub(e, vm[k]), vd[k]), hn::Mul(vr[k], scE), shE);
            o = hn::MulAdd(hn::Sub(hn::Sub(o, vm[k]), vd[k]), hn::Mul(vr[k], scO), shO);
            norm::StorePairs(d, e, o, dst[k] + i);
        }
    }
}

// StorePairs without the NaN case: the ABI rounding (ties to even, overflow to infinity) for
// vectors known to hold no NaN, 4 instead of 7 operations per vector.
template <class D>
HWY_INLINE void StorePairsNoNaN(D, hn::Vec<D> even, hn::Vec<D> odd, uint16_t* p) {
    const hn::RebindToUnsigned<D> du32;
    const auto half = hn::Set(du32, 0x7FFFu), one = hn::Set(du32, 1u);
    const auto be = hn::BitCast(du32, even), bo = hn::BitCast(du32, odd);
    const auto re = hn::Add(hn::Add(be, half), hn::And(hn::ShiftRight<16>(be), one));
    const auto ro = hn::Add(hn::Add(bo, half), hn::And(hn::ShiftRight<16>(bo), one));
    hn::StoreU(hn::Or(hn::ShiftRight<16>(re), hn::And(ro, hn::Set(du32, 0xFFFF0000u))), du32,
               reinterpret_cast<uint32_t*>(p));
}

// The output pass of two rows from the deviations dev[k] stored by TwoRowStatisticsBf16:
// ((x - m0) r - delta r) scale + shift, two multiply-adds per vector. kNoNaN: the caller has
// shown that no output can be NaN (see RowsFinite), so the cheaper rounding applies.
template <bool kNoNaN>
HWY_INLINE void ApplyTwoRowsWideBf16(float* const* dev, size_t n, uint16_t* const* dst,
                                     const norm::RowStats* st, const norm::SplitParams& split) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    // Local copies of the pointers (the stores could otherwise alias them).
    const float* in[2] = {dev[0], dev[1]};
    uint16_t* out[2] = {dst[0], dst[1]};
    V vr[2], vdr[2];
    for (size_t k = 0; k < 2; ++k) {
        vr[k] = hn::Set(d, st[k].r);
        vdr[k] = hn::Set(d, -float(double(st[k].delta) * double(st[k].r)));
    }
    for (size_t i = 0; i < n; i += 2 * L) {
        const size_t j = i / 2;
        const V scE = hn::LoadU(d, split.scaleEven + j), scO = hn::LoadU(d, split.scaleOdd + j);
        const V shE = hn::LoadU(d, split.shiftEven + j), shO = hn::LoadU(d, split.shiftOdd + j);
        for (size_t k = 0; k < 2; ++k) {
            const V e = hn::MulAdd(hn::MulAdd(hn::Load(d, in[k] + i), vr[k], vdr[k]), scE, shE);
            const V o = hn::MulAdd(hn::MulAdd(hn::Load(d, in[k] + i + L), vr[k], vdr[k]), scO, shO);
            if (kNoNaN)
                StorePairsNoNaN(d, e, o, out[k] + i);
            else
                norm::StorePairs(d, e, o, out[k] + i);
        }
    }
}

// True when every intermediate of ApplyTwoRowsWideBf16 is finite for both rows, so no output is
// NaN: finite statistics (no NaN or infinite input), and the bound |x - m0| <= sqrt(sum of
// squares) on the deviations keeps the products below FLT_MAX for the largest |scale| and
// |shift| (maxParam, infinite if any parameter is not finite).
HWY_INLINE bool RowsFinite(const norm::RowStats* st, const double* squares, double maxParam) {
    for (size_t k = 0; k < 2; ++k) {
        const double bound =
            (std::sqrt(squares[k]) + std::fabs(double(st[k].delta))) * double(st[k].r) * maxParam +
            maxParam;
        if (!(bound < 1e38)) return false;
    }
    return true;
}

// even[j] = x[2j], odd[j] = x[2j + 1] for j < n.
HWY_INLINE void SplitEvenOdd(const float* x, size_t n, float* even, float* odd) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t j = 0;
#if HWY_TARGET != HWY_SCALAR  // no ConcatEven/ConcatOdd on 1-lane vectors
    for (; j + L <= n; j += L) {
        const auto lo = hn::LoadU(d, x + 2 * j), hi = hn::LoadU(d, x + 2 * j + L);
        hn::StoreU(hn::ConcatEven(d, hi, lo), d, even + j);
        hn::StoreU(hn::ConcatOdd(d, hi, lo), d, odd + j);
    }
#else
    (void)d;
    (void)L;
#endif
    for (; j < n; ++j) even[j] = x[2 * j], odd[j] = x[2 * j + 1];
}

// The largest |scale[c]| or |shift[c]|, infinite when any of them is not finite. Vectors with
// plain comparisons: per-element std::fmax calls into libm were 9% of a 768 x 196 call.
HWY_INLINE double MaxAbsParam(const float* scale, const float* shift, size_t C) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const auto limit = hn::Set(d, HUGE_VALF), finiteMax = hn::Set(d, FLT_MAX);
    // NaN and infinity become infinity (a NaN fails the comparison).
    auto bounded = [&](hn::Vec<DF> x) {
        const auto a = hn::Abs(x);
        return hn::IfThenElse(hn::Le(a, finiteMax), a, limit);
    };
    auto m = hn::Zero(d);
    size_t c = 0;
    for (; c + L <= C; c += L)
        m = hn::Max(m, hn::Max(bounded(hn::LoadU(d, scale + c)), bounded(hn::LoadU(d, shift + c))));
    float result = hn::GetLane(hn::MaxOfLanes(d, m));
    for (; c < C; ++c)
        for (const float x : {scale[c], shift[c]}) {
            const float a = std::fabs(x);
            result = a <= FLT_MAX ? (a > result ? a : result) : HUGE_VALF;
        }
    return result <= FLT_MAX ? double(result) : HUGE_VAL;
}

void NormalizeLayer16bV2(const uint16_t* src, size_t batch, size_t C, size_t S, const float* scale,
                         const float* shift, float eps, uint16_t* dst) {
    if (C > kMaxSplitChannels) {
        NormalizeLayerV2T(src, batch, C, S, scale, shift, eps, true, dst);
        return;
    }
    HWY_ALIGN float split[4][kMaxSplitChannels / 2];
    SplitEvenOdd(scale, C / 2, split[0], split[1]);
    SplitEvenOdd(shift, C / 2, split[2], split[3]);
    const norm::SplitParams params{split[0], split[1], split[2], split[3]};
    const size_t rows = batch * S;
    size_t p = 0;
    // Two rows at a time where the rows are whole vector pairs (the common transformer widths).
    if (C % (2 * hn::Lanes(DF())) == 0 && C > kMaxWideChannels) {
        for (; p + 2 <= rows; p += 2) {
            const uint16_t* s0 = src + p * C;
            norm::RowStats st[2];
            double squares[2];
            if (!TwoRowStatisticsBf16<false>(s0, s0 + C, C, eps, st, nullptr, squares)) {
                st[0] = norm::RowStatistics(s0, C, true, eps);
                st[1] = norm::RowStatistics(s0 + C, C, true, eps);
            }
            ApplyTwoRowsBf16(s0, s0 + C, C, dst + p * C, dst + p * C + C, st, params);
        }
    } else if (C % (2 * hn::Lanes(DF())) == 0) {
        // The deviations from their centres of two pairs of rows, widened (see
        // TwoRowStatisticsBf16): the statistics of the next pair are computed before the output
        // pass of the current one, so the horizontal sums, square roots and divisions that end
        // a pair's statistics overlap with vector work instead of stalling the output pass
        // (768 x 196 on Zen 5: 11.4 -> 11.2 us; the same two-slot code computing each pair just
        // before its output pass ran at 12.6-13.0).
        const double maxParam = MaxAbsParam(scale, shift, C);
        HWY_ALIGN float wide[2][2][kMaxWideChannels];
        struct PairStats {
            norm::RowStats st[2];
            double squares[2];
            bool centred;  // false: the centres were far from the means (see below)
        } stats[2];
        auto statistics = [&](size_t pair, size_t slot) {
            const uint16_t* s0 = src + pair * C;
            float* const dev[2] = {wide[slot][0], wide[slot][1]};
            stats[slot].centred = TwoRowStatisticsBf16<true>(s0, s0 + C, C, eps, stats[slot].st,
                                                             dev, stats[slot].squares);
        };
        if (rows >= 2) statistics(0, 0);
        for (size_t slot = 0; p + 2 <= rows; p += 2, slot ^= 1) {
            if (p + 4 <= rows) statistics(p + 2, slot ^ 1);
            const uint16_t* s0 = src + p * C;
            uint16_t* const out[2] = {dst + p * C, dst + p * C + C};
            float* const dev[2] = {wide[slot][0], wide[slot][1]};
            norm::RowStats* st = stats[slot].st;
            if (!stats[slot].centred) {
                // Re-centred statistics: the stored deviations are from the old centre.
                st[0] = norm::RowStatistics(s0, C, true, eps);
                st[1] = norm::RowStatistics(s0 + C, C, true, eps);
                ApplyTwoRowsBf16(s0, s0 + C, C, out[0], out[1], st, params);
            } else if (RowsFinite(st, stats[slot].squares, maxParam)) {
                ApplyTwoRowsWideBf16<true>(dev, C, out, st, params);
            } else {
                ApplyTwoRowsWideBf16<false>(dev, C, out, st, params);
            }
        }
    }
    for (; p < rows; ++p) {
        const norm::RowStats st = norm::RowStatistics(src + p * C, C, true, eps);
        norm::ApplyRowPairs(src + p * C, C, dst + p * C, st.m0, st.delta, st.r, params, scale,
                            shift);
    }
}

void NormalizeLayerV3(const float* src, size_t batch, size_t C, size_t S, const float* scale,
                      const float* shift, float eps, bool nhwc, float* dst) {
    const size_t item = C * S;
    for (size_t b = 0; b < batch; ++b) {
        const float* s = src + b * item;
        float* o = dst + b * item;
        if (nhwc) {
            norm::NormalizeAllColumns(s, S, C, o, true, eps, nullptr, nullptr, scale, shift);
        } else {
            for (size_t c = 0; c < C; ++c) {
                const norm::RowStats st = norm::RowStatistics(s + c * S, S, true, eps);
                norm::ApplyRowBroadcast(s + c * S, S, o + c * S, st.m0, st.delta, st.r * scale[c],
                                        shift[c]);
            }
        }
    }
}

// sums[j] = sum over the m rows of x^2 in column j of a row-major m x n block.
template <class D>
HWY_INLINE void ColumnSquares(D d, const float* src, size_t m, size_t n, size_t col, size_t w,
                              float* sums) {
    HWY_ALIGN float zeros[norm::kMaxTile] = {};
    HWY_ALIGN float stats[norm::kMaxTile];
    norm::ReduceColumns(d, src + col, m, n, w, zeros, norm::SquareTerm(), stats);
    for (size_t j = 0; j < w; ++j) sums[col + j] = stats[j];
}

// `a` receives channels values (the caller's buf or an internal array).
void NormalizeLayerV4(const float* src, size_t batch, size_t C, size_t S, const float* scale,
                      const float* shift, float eps, bool nhwc, float* a, float* dst) {
    const size_t item = C * S;
    for (size_t b = 0; b < batch; ++b) {
        const float* s = src + b * item;
        float* o = dst + b * item;
        // a[c] = sum of squares of channel c.
        if (nhwc) {
            norm::ForEachColumnTile(S, C, sizeof(float), [&](auto dn, size_t col, size_t w) {
                ColumnSquares(dn, s, S, C, col, w, a);
            });
        } else {
            for (size_t c = 0; c < C; ++c) {
                double squares;
                norm::ReduceRow(s + c * S, S, 0.0f, norm::SquareTerm(), &squares);
                a[c] = float(squares);
            }
        }
        double sum = 0.0;
        for (size_t c = 0; c < C; ++c) sum += std::sqrt(double(a[c]));
        const double r = 1.0 / (sum / double(C) + double(eps));
        for (size_t c = 0; c < C; ++c)
            a[c] = float(1.0 + double(scale[c]) * std::sqrt(double(a[c])) * r);
        ChannelArgs<float, float> args{s, nullptr, {a, shift, nullptr}, o};
        PerChannel(AffineOp{}, C, S, 1, nhwc, args);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstdlib>
#include <memory>

#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(NormalizeLayerV1);
HWY_EXPORT(NormalizeLayerV2);
HWY_EXPORT(NormalizeLayerV3);
HWY_EXPORT(NormalizeLayerV4);
HWY_EXPORT(NormalizeLayer16bV2);

namespace {
// Layout and size checks shared by the entry points (§6, §15): Nchw or Nhwc (Nhwc only when
// nhwcOnly), and batch*channels*spatial elements of `bytes` bytes addressable. Records a
// message naming `function` and returns false when the call is rejected.
bool CheckNormalizeShape(const char* function, size_t batch, size_t channels, size_t spatial,
                         SimdTensorFormatType format, bool nhwcOnly, size_t bytes) {
    if (nhwcOnly && format != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: format %d is not Nhwc", function, int(format));
    if (format != SimdTensorFormatNchw && format != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: format %d is not Nchw or Nhwc", function, int(format));
    size_t planes;
    if (!CheckedMul(batch, channels, &planes) || !FitsInMemory(planes, spatial, bytes))
        return SetLastErrorF("%s: batch * channels * spatial is too large for memory", function);
    return true;
}
}  // namespace
}  // namespace simd

SIMD_API void SimdSynetNormalizeLayerForward(const float* src, size_t batch, size_t channels,
                                             size_t spatial, const float* scale, const float* eps,
                                             SimdBool acrossSpatial, SimdTensorFormatType format,
                                             float* buf, float* dst) {
    (void)buf;  // not needed: Nchw statistics live in stack tiles
    simd::ClearLastError();
    SIMD_FAIL_IF(acrossSpatial != SimdFalse && acrossSpatial != SimdTrue,
                 "SimdSynetNormalizeLayerForward: acrossSpatial must be SimdFalse or SimdTrue");
    if (!simd::CheckNormalizeShape("SimdSynetNormalizeLayerForward", batch, channels, spatial,
                                   format, false, sizeof(float)))
        return;
    if (batch == 0 || channels == 0 || spatial == 0) return;
    SIMD_FAIL_IF(!src || !scale || !eps || !dst,
                 "SimdSynetNormalizeLayerForward: src, scale, eps and dst must not be NULL");
    SIMD_DISPATCH(simd::NormalizeLayerV1)
    (src, batch, channels, spatial, scale, *eps, acrossSpatial == SimdTrue,
     format == SimdTensorFormatNhwc, dst);
}

SIMD_API void SimdSynetNormalizeLayerForwardV2(const float* src, size_t batch, size_t channels,
                                               size_t spatial, const float* scale,
                                               const float* shift, const float* eps,
                                               SimdTensorFormatType format, float* buf,
                                               float* dst) {
    (void)buf;  // not needed: Nchw statistics live in stack tiles
    simd::ClearLastError();
    if (!simd::CheckNormalizeShape("SimdSynetNormalizeLayerForwardV2", batch, channels, spatial,
                                   format, false, sizeof(float)))
        return;
    if (batch == 0 || channels == 0 || spatial == 0) return;
    SIMD_FAIL_IF(!src || !scale || !shift || !eps || !dst,
                 "SimdSynetNormalizeLayerForwardV2: src, scale, shift, eps and dst must not be "
                 "NULL");
    SIMD_DISPATCH(simd::NormalizeLayerV2)
    (src, batch, channels, spatial, scale, shift, *eps, format == SimdTensorFormatNhwc, dst);
}

SIMD_API void SimdSynetNormalizeLayerForwardV3(const float* src, size_t batch, size_t channels,
                                               size_t spatial, const float* scale,
                                               const float* shift, const float* eps,
                                               SimdTensorFormatType format, float* buf,
                                               float* dst) {
    (void)buf;  // not needed: Nhwc statistics live in stack tiles
    simd::ClearLastError();
    if (!simd::CheckNormalizeShape("SimdSynetNormalizeLayerForwardV3", batch, channels, spatial,
                                   format, false, sizeof(float)))
        return;
    if (batch == 0 || channels == 0 || spatial == 0) return;
    SIMD_FAIL_IF(!src || !scale || !shift || !eps || !dst,
                 "SimdSynetNormalizeLayerForwardV3: src, scale, shift, eps and dst must not be "
                 "NULL");
    SIMD_DISPATCH(simd::NormalizeLayerV3)
    (src, batch, channels, spatial, scale, shift, *eps, format == SimdTensorFormatNhwc, dst);
}

SIMD_API void SimdSynetNormalizeLayerForwardV4(const float* src, size_t batch, size_t channels,
                                               size_t spatial, const float* scale,
                                               const float* shift, const float* eps,
                                               SimdTensorFormatType format, float* buf,
                                               float* dst) {
    simd::ClearLastError();
    if (!simd::CheckNormalizeShape("SimdSynetNormalizeLayerForwardV4", batch, channels, spatial,
                                   format, false, sizeof(float)))
        return;
    if (batch == 0 || channels == 0 || spatial == 0) return;
    SIMD_FAIL_IF(!src || !scale || !shift || !eps || !dst,
                 "SimdSynetNormalizeLayerForwardV4: src, scale, shift, eps and dst must not be "
                 "NULL");
    // One value per channel; without a caller buffer an internal one (freed on return).
    // (malloc, not new[]: new[] throws for impossible sizes even with std::nothrow.)
    std::unique_ptr<float, decltype(&std::free)> owned(nullptr, &std::free);
    if (!buf) {
        owned.reset(static_cast<float*>(std::malloc(channels * sizeof(float))));
        SIMD_FAIL_IF(!owned,
                     "SimdSynetNormalizeLayerForwardV4: could not allocate the channel buffer");
        buf = owned.get();
    }
    SIMD_DISPATCH(simd::NormalizeLayerV4)
    (src, batch, channels, spatial, scale, shift, *eps, format == SimdTensorFormatNhwc, buf, dst);
}

SIMD_API void SimdSynetNormalizeLayerForward16bV2(const uint16_t* src, size_t batch,
                                                  size_t channels, size_t spatial,
                                                  const float* scale, const float* shift,
                                                  const float* eps, SimdTensorFormatType format,
                                                  float* buf, uint16_t* dst) {
    (void)buf;  // not needed: each row is converted on the fly
    simd::ClearLastError();
    if (!simd::CheckNormalizeShape("SimdSynetNormalizeLayerForward16bV2", batch, channels, spatial,
                                   format, true, sizeof(uint16_t)))
        return;
    if (batch == 0 || channels == 0 || spatial == 0) return;
    SIMD_FAIL_IF(!src || !scale || !shift || !eps || !dst,
                 "SimdSynetNormalizeLayerForward16bV2: src, scale, shift, eps and dst must not "
                 "be NULL");
    SIMD_DISPATCH(simd::NormalizeLayer16bV2)
    (src, batch, channels, spatial, scale, shift, *eps, dst);
}
#endif  // HWY_ONCE
