// Building blocks of the normalization family (SUPPLEMENT.md §6): accurate sums over rows and
// columns of a tensor, and the row passes that apply the normalization.
//
// Two orientations cover every layout of every function:
//  - rows: the statistics run along contiguous memory (NHWC over channels, NCHW over a plane);
//  - columns: the statistics run across rows of a row-major m x n block, one result per column
//    (NCHW over channels, NHWC over pixels); each lane is one column.
//
// Accuracy: the functions promise |error| <= 2e-6*|ref| + 1e-6 for rows of up to ~1e5 elements,
// so sums must not lose precision with length. Every sum runs in FP32 vector accumulators over
// short blocks (16 terms per lane), and the block sums are added with Kahan compensation; the
// result is then good to a few FP32 ulps whatever the length.
// Centred statistics sum d = x - m0 and d^2 around a centre m0 close to the mean (x - m0 is
// exact when x is close to m0, which is exactly the case where the mean matters), so the true
// mean is m0 + delta with delta = sum(d)/n, and variance = sum(d^2)/n - delta^2. The outputs use
// ((x - m0) - delta): no catastrophic cancellation even for rows of large mean and tiny
// variance. Rows take m0 from their first vector (one pass; a second one when m0 turns out to
// be far from the mean), columns from a first pass computing the FP32 mean.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_NORMALIZATION_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_NORMALIZATION_REDUCE_INL_H_
#undef SIMD_SYNET_NORMALIZATION_REDUCE_INL_H_
#else
#define SIMD_SYNET_NORMALIZATION_REDUCE_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "core/Bf16-inl.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace norm {

// Loop iterations (of 4 vectors in rows, of one row in columns) summed in FP32 before the block
// sum is added to the compensated total.
constexpr size_t kBlockSteps = 16;
// Widest column tile (floats): the per-column statistics of a tile live in stack arrays.
constexpr size_t kMaxTile = 512;

// LoadF / StoreF (FP32 and BF16 as FP32 vectors) come from core/Bf16-inl.h.

// total += value with Kahan compensation (comp holds minus the lost low part).
template <class V>
HWY_INLINE void KahanAdd(V& total, V& comp, V value) {
    const V y = hn::Sub(value, comp);
    const V t = hn::Add(total, y);
    comp = hn::Sub(hn::Sub(t, total), y);
    total = t;
}

// ---- Terms: what a pass sums. acc has kQ accumulators; c is the centre (or unused). ----------

// sum x
struct SumTerm {
    static constexpr size_t kQ = 1;
    template <class D, class V>
    HWY_INLINE void operator()(D, V x, V, V* acc) const {
        acc[0] = hn::Add(acc[0], x);
    }
};
// sum x^2
struct SquareTerm {
    static constexpr size_t kQ = 1;
    template <class D, class V>
    HWY_INLINE void operator()(D, V x, V, V* acc) const {
        acc[0] = hn::MulAdd(x, x, acc[0]);
    }
};
// sum (x - c) and sum (x - c)^2
struct DeviationTerm {
    static constexpr size_t kQ = 2;
    template <class D, class V>
    HWY_INLINE void operator()(D, V x, V c, V* acc) const {
        const V dev = hn::Sub(x, c);
        acc[0] = hn::Add(acc[0], dev);
        acc[1] = hn::MulAdd(dev, dev, acc[1]);
    }
};

// ---- Rows --------------------------------------------------------------------------------

// out[q] = sum over the n elements at p of the term's quantity q, with centre `centre`.
template <class Term, class T>
HWY_INLINE void ReduceRow(const T* p, size_t n, float centre, const Term& term, double* out) {
    constexpr size_t kQ = Term::kQ;
    const DF d;
    const DF1 d1;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    const V c = hn::Set(d, centre);
    V total[kQ], comp[kQ];
    for (size_t q = 0; q < kQ; ++q) total[q] = comp[q] = hn::Zero(d);
    size_t i = 0;
    // Full blocks of kBlockSteps groups of 4 vectors, then one partial block.
    while (i + L <= n) {
        V a0[kQ], a1[kQ], a2[kQ], a3[kQ];
        for (size_t q = 0; q < kQ; ++q) a0[q] = a1[q] = a2[q] = a3[q] = hn::Zero(d);
        size_t steps = 0;
        for (; steps < kBlockSteps && i + 4 * L <= n; ++steps, i += 4 * L) {
            term(d, LoadF(d, p + i + 0 * L), c, a0);
            term(d, LoadF(d, p + i + 1 * L), c, a1);
            term(d, LoadF(d, p + i + 2 * L), c, a2);
            term(d, LoadF(d, p + i + 3 * L), c, a3);
        }
        if (steps < kBlockSteps)
            for (; i + L <= n; i += L) term(d, LoadF(d, p + i), c, a0);
        for (size_t q = 0; q < kQ; ++q)
            KahanAdd(total[q], comp[q], hn::Add(hn::Add(a0[q], a1[q]), hn::Add(a2[q], a3[q])));
    }
    using V1 = hn::Vec<DF1>;
    V1 tail[kQ];
    for (size_t q = 0; q < kQ; ++q) tail[q] = hn::Zero(d1);
    const V1 c1 = hn::Set(d1, centre);
    for (; i < n; ++i) term(d1, LoadF(d1, p + i), c1, tail);
    // Lanes combined in FP32 (a log2(L)-step tree, error a few ulps of the sum of magnitudes):
    // no caller needs more (see RowStatistics), and a scalar loop over the lanes would sit on
    // the critical path of every short row.
    for (size_t q = 0; q < kQ; ++q)
        out[q] = double(hn::GetLane(hn::SumOfLanes(d, hn::Sub(total[q], comp[q])))) +
                 double(hn::GetLane(tail[q]));
}

// ---- BF16 rows as pairs --------------------------------------------------------------------
// A 32-bit lane holds BF16 elements 2j (low half) and 2j + 1 (high half) on little-endian
// targets, so one integer load gives the even and the odd elements as FP32 with one operation
// each, and one store takes two rounded vectors back, without the cross-lane shuffles of a
// 16 <-> 32-bit conversion. Sums do not care about the order; the affine pass takes its
// parameters split into even and odd channels.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "BF16 pairs assume little-endian lanes");

template <class D>
HWY_INLINE void LoadPairs(D d, const uint16_t* p, hn::Vec<D>& even, hn::Vec<D>& odd) {
    const hn::RebindToUnsigned<D> du32;
    const auto v = hn::LoadU(du32, reinterpret_cast<const uint32_t*>(p));
    even = hn::BitCast(d, hn::ShiftLeft<16>(v));
    odd = hn::BitCast(d, hn::And(v, hn::Set(du32, 0xFFFF0000u)));
}

// The FP32 pattern of v rounded to BF16 (ABI.md) in the upper half; the lower half is garbage.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> RoundedBf16Bits(D, hn::Vec<D> v) {
    const hn::RebindToUnsigned<D> du32;
    const auto bits = hn::BitCast(du32, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
    const auto rounded = hn::Add(hn::Add(bits, hn::Set(du32, 0x7FFFu)), lsb);
    const auto quiet = hn::Or(bits, hn::Set(du32, 0x00400000u));
    return hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), quiet, rounded);
}

template <class D>
HWY_INLINE void StorePairs(D d, hn::Vec<D> even, hn::Vec<D> odd, uint16_t* p) {
    const hn::RebindToUnsigned<D> du32;
    const auto lo = hn::ShiftRight<16>(RoundedBf16Bits(d, even));
    const auto hi = hn::And(RoundedBf16Bits(d, odd), hn::Set(du32, 0xFFFF0000u));
    hn::StoreU(hn::Or(lo, hi), du32, reinterpret_cast<uint32_t*>(p));
}

// ReduceRow for BF16: whole groups of 4 vectors from 2 pair loads, the rest through ReduceRow.
template <class Term>
HWY_INLINE void ReduceRowPairs(const uint16_t* p, size_t n, float centre, const Term& term,
                               double* out) {
    constexpr size_t kQ = Term::kQ;
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    const V c = hn::Set(d, centre);
    V total[kQ], comp[kQ];
    for (size_t q = 0; q < kQ; ++q) total[q] = comp[q] = hn::Zero(d);
    size_t i = 0;
    while (i + 4 * L <= n) {
        V a0[kQ], a1[kQ], a2[kQ], a3[kQ];
        for (size_t q = 0; q < kQ; ++q) a0[q] = a1[q] = a2[q] = a3[q] = hn::Zero(d);
        for (size_t steps = 0; steps < kBlockSteps && i + 4 * L <= n; ++steps, i += 4 * L) {
            V e0, o0, e1, o1;
            LoadPairs(d, p + i, e0, o0);
            LoadPairs(d, p + i + 2 * L, e1, o1);
            term(d, e0, c, a0);
            term(d, o0, c, a1);
            term(d, e1, c, a2);
            term(d, o1, c, a3);
        }
        for (size_t q = 0; q < kQ; ++q)
            KahanAdd(total[q], comp[q], hn::Add(hn::Add(a0[q], a1[q]), hn::Add(a2[q], a3[q])));
    }
    double rest[kQ] = {};
    if (i < n) ReduceRow(p + i, n - i, centre, term, rest);
    for (size_t q = 0; q < kQ; ++q)
        out[q] = double(hn::GetLane(hn::SumOfLanes(d, hn::Sub(total[q], comp[q])))) + rest[q];
}

template <class Term>
HWY_INLINE void ReduceAnyRow(const float* p, size_t n, float centre, const Term& term,
                             double* out) {
    ReduceRow(p, n, centre, term, out);
}
template <class Term>
HWY_INLINE void ReduceAnyRow(const uint16_t* p, size_t n, float centre, const Term& term,
                             double* out) {
    ReduceRowPairs(p, n, centre, term, out);
}

// Row statistics: the centre m0, the mean correction delta (0 without centring) and the factor
// r = 1/sqrt(variance + eps) (centred) or 1/sqrt(sum x^2 + eps) (not centred).
struct RowStats {
    float m0, delta, r;
};

template <class T>
HWY_INLINE RowStats RowStatistics(const T* p, size_t n, bool centre, float eps) {
    RowStats s{0.0f, 0.0f, 0.0f};
    if (!centre) {
        double squares;
        ReduceAnyRow(p, n, 0.0f, SquareTerm(), &squares);
        s.r = float(1.0 / std::sqrt(squares + double(eps)));
        return s;
    }
    // One pass around a provisional centre c0 (the mean of the first vector), giving
    // delta = mean - c0 and variance = sum(d^2)/n - delta^2. The subtraction loses about
    // delta^2/variance ulps, so when c0 is more than 2 standard deviations from the mean (outlier
    // channels at the start of the row) the pass is repeated around c0 + delta.
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    const double invN = 1.0 / double(n);
    float c0 = n >= L ? hn::GetLane(hn::SumOfLanes(d, LoadF(d, p))) * (1.0f / float(L))
                      : hn::GetLane(LoadF(d1, p));
    double dev[2];
    ReduceAnyRow(p, n, c0, DeviationTerm(), dev);
    double delta = dev[0] * invN;
    double variance = dev[1] * invN - delta * delta;
    if (delta * delta > 4.0 * variance) {
        c0 = float(double(c0) + delta);
        ReduceAnyRow(p, n, c0, DeviationTerm(), dev);
        delta = dev[0] * invN;
        variance = dev[1] * invN - delta * delta;
    }
    s.m0 = c0;
    if (variance < 0.0) variance = 0.0;
    s.delta = float(delta);
    // In FP32: 1 ulp each for the square root and the division, well inside the bound, and
    // shorter latency than double on the critical path of short rows.
    s.r = 1.0f / std::sqrt(float(variance + double(eps)));
    return s;
}

// dst[i] = ((src[i] - m0) - delta) * k + shift for a row of n elements (k, shift per row).
template <class T>
HWY_INLINE void ApplyRowBroadcast(const T* src, size_t n, T* dst, float m0, float delta, float k,
                                  float shift) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    const auto vm = hn::Set(d, m0), vd = hn::Set(d, delta), vk = hn::Set(d, k),
               vs = hn::Set(d, shift);
    auto f = [&](auto x) { return hn::MulAdd(hn::Sub(hn::Sub(x, vm), vd), vk, vs); };
    size_t i = 0;
    for (; i + 4 * L <= n; i += 4 * L) {
        const auto y0 = f(LoadF(d, src + i + 0 * L));
        const auto y1 = f(LoadF(d, src + i + 1 * L));
        const auto y2 = f(LoadF(d, src + i + 2 * L));
        const auto y3 = f(LoadF(d, src + i + 3 * L));
        StoreF(d, y0, dst + i + 0 * L);
        StoreF(d, y1, dst + i + 1 * L);
        StoreF(d, y2, dst + i + 2 * L);
        StoreF(d, y3, dst + i + 3 * L);
    }
    for (; i + L <= n; i += L) StoreF(d, f(LoadF(d, src + i)), dst + i);
    for (; i < n; ++i) {
        const auto x = LoadF(d1, src + i);
        StoreF(d1,
               hn::MulAdd(hn::Sub(hn::Sub(x, hn::Set(d1, m0)), hn::Set(d1, delta)), hn::Set(d1, k),
                          hn::Set(d1, shift)),
               dst + i);
    }
}

// dst[i] = ((src[i] - m0) - delta) * (r * scale[i]) + shift[i]; shift may be NULL (0).
template <class T>
HWY_INLINE void ApplyRowPattern(const T* src, size_t n, T* dst, float m0, float delta, float r,
                                const float* scale, const float* shift) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    const auto vm = hn::Set(d, m0), vd = hn::Set(d, delta), vr = hn::Set(d, r);
    auto f = [&](auto x, size_t j) {
        const auto sh = shift ? hn::LoadU(d, shift + j) : hn::Zero(d);
        return hn::MulAdd(hn::Sub(hn::Sub(x, vm), vd), hn::Mul(vr, hn::LoadU(d, scale + j)), sh);
    };
    size_t i = 0;
    for (; i + 4 * L <= n; i += 4 * L) {
        const auto y0 = f(LoadF(d, src + i + 0 * L), i + 0 * L);
        const auto y1 = f(LoadF(d, src + i + 1 * L), i + 1 * L);
        const auto y2 = f(LoadF(d, src + i + 2 * L), i + 2 * L);
        const auto y3 = f(LoadF(d, src + i + 3 * L), i + 3 * L);
        StoreF(d, y0, dst + i + 0 * L);
        StoreF(d, y1, dst + i + 1 * L);
        StoreF(d, y2, dst + i + 2 * L);
        StoreF(d, y3, dst + i + 3 * L);
    }
    for (; i + L <= n; i += L) StoreF(d, f(LoadF(d, src + i), i), dst + i);
    for (; i < n; ++i) {
        const auto x = LoadF(d1, src + i);
        const auto sh = shift ? hn::LoadU(d1, shift + i) : hn::Zero(d1);
        const auto k = hn::Mul(hn::Set(d1, r), hn::LoadU(d1, scale + i));
        StoreF(d1, hn::MulAdd(hn::Sub(hn::Sub(x, hn::Set(d1, m0)), hn::Set(d1, delta)), k, sh),
               dst + i);
    }
}

// Channels split into even and odd ones for ApplyRowPairs: even[j] = channel 2j,
// odd[j] = channel 2j + 1, for the `count` = C/2 pairs.
struct SplitParams {
    const float *scaleEven, *scaleOdd, *shiftEven, *shiftOdd;
};

// ApplyRowPattern on a BF16 row: pairs of vectors with split parameters, then the rest.
HWY_INLINE void ApplyRowPairs(const uint16_t* src, size_t n, uint16_t* dst, float m0, float delta,
                              float r, const SplitParams& split, const float* scale,
                              const float* shift) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const auto vm = hn::Set(d, m0), vd = hn::Set(d, delta), vr = hn::Set(d, r);
    auto f = [&](hn::Vec<DF> x, const float* sc, const float* sh) {
        return hn::MulAdd(hn::Sub(hn::Sub(x, vm), vd), hn::Mul(vr, hn::LoadU(d, sc)),
                          hn::LoadU(d, sh));
    };
    size_t i = 0;
    for (; i + 4 * L <= n; i += 4 * L) {
        const size_t j = i / 2;
        hn::Vec<DF> e0, o0, e1, o1;
        LoadPairs(d, src + i, e0, o0);
        LoadPairs(d, src + i + 2 * L, e1, o1);
        e0 = f(e0, split.scaleEven + j, split.shiftEven + j);
        o0 = f(o0, split.scaleOdd + j, split.shiftOdd + j);
        e1 = f(e1, split.scaleEven + j + L, split.shiftEven + j + L);
        o1 = f(o1, split.scaleOdd + j + L, split.shiftOdd + j + L);
        StorePairs(d, e0, o0, dst + i);
        StorePairs(d, e1, o1, dst + i + 2 * L);
    }
    for (; i + 2 * L <= n; i += 2 * L) {
        const size_t j = i / 2;
        hn::Vec<DF> e, o;
        LoadPairs(d, src + i, e, o);
        StorePairs(d, f(e, split.scaleEven + j, split.shiftEven + j),
                   f(o, split.scaleOdd + j, split.shiftOdd + j), dst + i);
    }
    ApplyRowPattern(src + i, n - i, dst + i, m0, delta, r, scale + i, shift + i);
}

// ---- Columns -----------------------------------------------------------------------------

// For the G*L columns starting at `col` of m rows (row j at p + j*stride): adds the term's sums
// to the compensated totals total[q*kMaxTile + col...] / comp[...] (tile arrays).
template <size_t G, class Term, class D, class T>
HWY_INLINE void ReduceColumnGroup(D d, const T* p, size_t m, size_t stride, size_t col,
                                  const float* centre, const Term& term, float* total,
                                  float* comp) {
    constexpr size_t kQ = Term::kQ;
    using V = hn::Vec<D>;
    const size_t L = hn::Lanes(d);
    V c[G];
    for (size_t g = 0; g < G; ++g) c[g] = hn::LoadU(d, centre + col + g * L);
    for (size_t r0 = 0; r0 < m; r0 += kBlockSteps) {
        const size_t r1 = m - r0 < kBlockSteps ? m : r0 + kBlockSteps;
        // K rows at a time into K accumulator sets: at least 4 independent chains, also for
        // narrow groups (otherwise one add per row waits for the previous one).
        constexpr size_t K = 4 / G;
        V acc[K][G][kQ];
        for (size_t k = 0; k < K; ++k)
            for (size_t g = 0; g < G; ++g)
                for (size_t q = 0; q < kQ; ++q) acc[k][g][q] = hn::Zero(d);
        size_t r = r0;
        for (; r + K <= r1; r += K)
            for (size_t k = 0; k < K; ++k) {
                const T* row = p + (r + k) * stride + col;
                for (size_t g = 0; g < G; ++g) term(d, LoadF(d, row + g * L), c[g], acc[k][g]);
            }
        for (; r < r1; ++r) {
            const T* row = p + r * stride + col;
            for (size_t g = 0; g < G; ++g) term(d, LoadF(d, row + g * L), c[g], acc[0][g]);
        }
        for (size_t k = 1; k < K; ++k)
            for (size_t g = 0; g < G; ++g)
                for (size_t q = 0; q < kQ; ++q) acc[0][g][q] = hn::Add(acc[0][g][q], acc[k][g][q]);
        for (size_t g = 0; g < G; ++g)
            for (size_t q = 0; q < kQ; ++q) {
                float* t = total + q * kMaxTile + col + g * L;
                float* k = comp + q * kMaxTile + col + g * L;
                V tv = hn::LoadU(d, t), kv = hn::LoadU(d, k);
                KahanAdd(tv, kv, acc[0][g][q]);
                hn::StoreU(tv, d, t);
                hn::StoreU(kv, d, k);
            }
    }
}

// Sums of the term over m rows for the w columns of a tile (w a multiple of Lanes(d)):
// out[q*kMaxTile + j] for column j < w.
template <class Term, class D, class T>
HWY_INLINE void ReduceColumns(D d, const T* p, size_t m, size_t stride, size_t w,
                              const float* centre, const Term& term, float* out) {
    constexpr size_t kQ = Term::kQ;
    const size_t L = hn::Lanes(d);
    HWY_ALIGN float comp[kQ * kMaxTile];
    for (size_t q = 0; q < kQ; ++q)
        for (size_t j = 0; j < w; j += L) {
            hn::StoreU(hn::Zero(d), d, out + q * kMaxTile + j);
            hn::StoreU(hn::Zero(d), d, comp + q * kMaxTile + j);
        }
    size_t col = 0;
    // Four columns vectors at a time: four independent accumulation chains.
    for (; col + 4 * L <= w; col += 4 * L)
        ReduceColumnGroup<4>(d, p, m, stride, col, centre, term, out, comp);
    for (; col < w; col += L) ReduceColumnGroup<1>(d, p, m, stride, col, centre, term, out, comp);
    for (size_t q = 0; q < kQ; ++q)
        for (size_t j = 0; j < w; j += L) {
            float* t = out + q * kMaxTile + j;
            hn::StoreU(hn::Sub(hn::LoadU(d, t), hn::LoadU(d, comp + q * kMaxTile + j)), d, t);
        }
}

// Normalizes the w columns of a tile over its m rows (row j at src + j*stride, same in dst):
//   centred:     y = ((x - m0) - delta) * r * colScale[j] * rowScale[row] + colShift[j] +
//   rowShift[row] not centred: y = x * r * colScale[j] * rowScale[row]
// with r from the column statistics (see RowStatistics). Any of the four parameter arrays may
// be NULL (factor 1, shift 0); colScale/colShift point at the tile's first column.
template <class D, class T>
HWY_INLINE void NormalizeColumns(D d, const T* src, size_t m, size_t stride, size_t w, T* dst,
                                 bool centre, float eps, const float* rowScale,
                                 const float* rowShift, const float* colScale,
                                 const float* colShift) {
    const size_t L = hn::Lanes(d);
    HWY_ALIGN float stats[2 * kMaxTile];
    HWY_ALIGN float m0[kMaxTile], delta[kMaxTile], factor[kMaxTile], shift[kMaxTile];
    const auto invM = hn::Set(d, float(1.0 / double(m)));
    const auto vEps = hn::Set(d, eps);
    const auto one = hn::Set(d, 1.0f);
    for (size_t j = 0; j < w; j += L) hn::StoreU(hn::Zero(d), d, m0 + j);
    if (centre) {
        // Provisional centres: the means of the first (up to) 8 rows. One deviation pass
        // around them, repeated around the corrected centres when any column's centre is more
        // than 2 standard deviations from its mean (see RowStatistics).
        const size_t head = m < 8 ? m : 8;
        const auto invHead = hn::Set(d, 1.0f / float(head));
        for (size_t j = 0; j < w; j += L) {
            auto sum = hn::Zero(d);
            for (size_t r = 0; r < head; ++r) sum = hn::Add(sum, LoadF(d, src + r * stride + j));
            hn::StoreU(hn::Mul(sum, invHead), d, m0 + j);
        }
        for (int attempt = 0; attempt < 2; ++attempt) {
            ReduceColumns(d, src, m, stride, w, m0, DeviationTerm(), stats);
            bool far = false;
            for (size_t j = 0; j < w; j += L) {
                const auto dl = hn::Mul(hn::LoadU(d, stats + j), invM);
                auto var =
                    hn::Sub(hn::Mul(hn::LoadU(d, stats + kMaxTile + j), invM), hn::Mul(dl, dl));
                far = far ||
                      !hn::AllFalse(d, hn::Gt(hn::Mul(dl, dl), hn::Mul(hn::Set(d, 4.0f), var)));
                var = hn::Max(var, hn::Zero(d));
                hn::StoreU(dl, d, delta + j);
                hn::StoreU(hn::Div(one, hn::Sqrt(hn::Add(var, vEps))), d, factor + j);
            }
            if (!far || attempt == 1) break;
            for (size_t j = 0; j < w; j += L)
                hn::StoreU(hn::Add(hn::LoadU(d, m0 + j), hn::LoadU(d, delta + j)), d, m0 + j);
        }
    } else {
        ReduceColumns(d, src, m, stride, w, m0, SquareTerm(), stats);
        for (size_t j = 0; j < w; j += L) {
            hn::StoreU(hn::Zero(d), d, delta + j);
            hn::StoreU(hn::Div(one, hn::Sqrt(hn::Add(hn::LoadU(d, stats + j), vEps))), d,
                       factor + j);
        }
    }
    for (size_t j = 0; j < w; j += L) {
        if (colScale)
            hn::StoreU(hn::Mul(hn::LoadU(d, factor + j), hn::LoadU(d, colScale + j)), d,
                       factor + j);
        hn::StoreU(colShift ? hn::LoadU(d, colShift + j) : hn::Zero(d), d, shift + j);
    }
    for (size_t r = 0; r < m; ++r) {
        const auto rs = hn::Set(d, rowScale ? rowScale[r] : 1.0f);
        const auto rh = hn::Set(d, rowShift ? rowShift[r] : 0.0f);
        const T* s = src + r * stride;
        T* o = dst + r * stride;
        for (size_t j = 0; j < w; j += L) {
            const auto dev =
                hn::Sub(hn::Sub(LoadF(d, s + j), hn::LoadU(d, m0 + j)), hn::LoadU(d, delta + j));
            const auto k = hn::Mul(hn::LoadU(d, factor + j), rs);
            StoreF(d, hn::MulAdd(dev, k, hn::Add(hn::LoadU(d, shift + j), rh)), o + j);
        }
    }
}

// Width of the column tiles for m rows: the tile (m rows of it) should stay in L2 between the
// passes, but rows of at least 4 vectors keep the hardware prefetchers useful.
HWY_INLINE size_t ColumnTileWidth(size_t m, size_t elementBytes) {
    const size_t L = hn::Lanes(DF());
    constexpr size_t kTileBytes = 256 * 1024;
    size_t w = kTileBytes / (m * elementBytes);
    w = w / (4 * L) * (4 * L);  // whole groups of 4 vectors
    if (w < 4 * L) w = 4 * L;
    if (w > kMaxTile) w = kMaxTile;
    return w;
}

// Calls run(tag, col, w) over the n columns of a block of m rows: tiles of full vectors, then
// the leftover columns with 8- and 4-lane vectors (where the target's are wider), then single
// lanes. w is a multiple of the tag's lanes.
template <class Run>
HWY_INLINE void ForEachColumnTile(size_t m, size_t n, size_t elementBytes, const Run& run) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const size_t tile = ColumnTileWidth(m, elementBytes);
    size_t col = 0;
    while (n - col >= L) {
        const size_t w = n - col < tile ? (n - col) / L * L : tile;
        run(d, col, w);
        col += w;
    }
    const hn::CappedTag<float, 8> d8;
    const hn::CappedTag<float, 4> d4;
    if (n - col >= hn::Lanes(d8)) {
        const size_t w = (n - col) / hn::Lanes(d8) * hn::Lanes(d8);
        run(d8, col, w);
        col += w;
    }
    if (n - col >= hn::Lanes(d4)) {
        const size_t w = (n - col) / hn::Lanes(d4) * hn::Lanes(d4);
        run(d4, col, w);
        col += w;
    }
    if (col < n) run(DF1(), col, n - col);
}

// Normalizes every column of a row-major m x n block (statistics over the m rows of a column),
// parameters as in NormalizeColumns with colScale/colShift indexed by column.
template <class T>
HWY_INLINE void NormalizeAllColumns(const T* src, size_t m, size_t n, T* dst, bool centre,
                                    float eps, const float* rowScale, const float* rowShift,
                                    const float* colScale, const float* colShift) {
    ForEachColumnTile(m, n, sizeof(T), [&](auto dn, size_t col, size_t w) {
        NormalizeColumns(dn, src + col, m, n, w, dst + col, centre, eps, rowScale, rowShift,
                         colScale ? colScale + col : nullptr, colShift ? colShift + col : nullptr);
    });
}

}  // namespace norm
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_NORMALIZATION_REDUCE_INL_H_
