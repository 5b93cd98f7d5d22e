// SimdSynetSoftmaxLayerForward (SUPPLEMENT.md §4.9): softmax along the middle axis of an
// [outer][count][inner] array, with the row maximum subtracted before exp.
//
// Three shapes of traversal:
// - inner == 1, long rows: each row in three vector passes (maximum; exp, store and sum;
//   scale), the middle pass in groups of independent vectors so several exp chains overlap.
// - inner == 1, short rows (many rows of a few elements, e.g. 21 classes): rows are taken in
//   L1-sized chunks and the exp runs once over the whole chunk as one contiguous array, shifted
//   by the chunk's maximum (rows that would underflow are redone with their own maximum); the
//   row sums of each block of L rows come out of one transposing tree, and the block (exactly
//   `count` whole vectors) is scaled vector by vector with its lanes' 1/z permuted into place
//   (see SoftmaxShortRows).
// - inner > 1: the reduction runs across `count` rows that are `inner` elements apart, with
//   every lane of a vector an independent softmax (adjacent inner positions).
//
// Sums: partial sums of at most kFoldEvery vectors per accumulator, folded into a compensated
// (Kahan) total, so the rounding error of z does not grow with the row length.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "softmax/Softmax.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <limits>

#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"
#include "softmax/PartialTail-inl.h"
#include "softmax/SoftmaxExp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace {

// Independent exp chains in flight: measured on Zen4 with the long-row benchmark, 4 beats 8
// by ~25% on AVX2 (8 spill the 16 registers) and equals it with AVX-512; 2 is slower on AVX2.
constexpr size_t kExpGroup = 4;
// Vectors summed into one plain accumulator before it is folded into the compensated total.
constexpr size_t kFoldEvery = 32;
// Rows shorter than this take the chunked path; a chunk holds at most kChunk elements (8 KiB of
// input, scratch and output: all stay in L1 between the passes).
constexpr size_t kShortRow = 64;
constexpr size_t kChunk = 2048;

// v = e^v for v <= 0 or NaN (inputs minus their maximum), to the softmax tolerance.
template <size_t K, class D, class V>
HWY_INLINE void ExpNonPositive(D d, V (&v)[K]) {
    SoftmaxExp(d, v);
}

// Kahan summation of vectors: total + carry hold the sum with an error independent of the
// number of additions (compiled with -ffp-contract=off, so the compensation is neither
// optimised away nor fused).
template <class V>
HWY_INLINE void KahanAdd(V v, V& total, V& carry) {
    const V y = hn::Sub(v, carry);
    const V t = hn::Add(total, y);
    carry = hn::Sub(hn::Sub(t, total), y);
    total = t;
}

// Calls step(d, offset) over [0, n): whole vectors, then partial tails.
template <class Step>
HWY_INLINE void ForEachVector(size_t n, const Step& step) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) step(d, i);
    PartialTail(i, n, step);
}

HWY_INLINE float MaxOf(float a, float b) {
    return b > a ? b : a;
}

// Maximum of n >= 1 elements.
HWY_INLINE float RowMax(const float* src, size_t n) {
    const DF d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    float max = -std::numeric_limits<float>::infinity();
    if (n >= L) {
        auto m0 = hn::LoadU(d, src), m1 = m0, m2 = m0, m3 = m0;
        if (n >= 4 * L) {
            for (; i <= n - 4 * L; i += 4 * L) {
                m0 = hn::Max(m0, hn::LoadU(d, src + i + 0 * L));
                m1 = hn::Max(m1, hn::LoadU(d, src + i + 1 * L));
                m2 = hn::Max(m2, hn::LoadU(d, src + i + 2 * L));
                m3 = hn::Max(m3, hn::LoadU(d, src + i + 3 * L));
            }
        }
        for (; i + L <= n; i += L) m0 = hn::Max(m0, hn::LoadU(d, src + i));
        max = hn::GetLane(hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));
    }
    PartialTail(i, n, [&](auto dc, size_t j) {
        max = MaxOf(max, hn::GetLane(hn::MaxOfLanes(dc, hn::LoadU(dc, src + j))));
    });
    return max;
}

// dst[i] = src[i] * scale over one row.
HWY_INLINE void RowScale(const float* src, size_t n, float scale, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const auto v = hn::Set(d, scale);
    size_t i = 0;
    if (n >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            const auto x0 = hn::LoadU(d, src + i + 0 * L), x1 = hn::LoadU(d, src + i + 1 * L);
            const auto x2 = hn::LoadU(d, src + i + 2 * L), x3 = hn::LoadU(d, src + i + 3 * L);
            hn::StoreU(hn::Mul(x0, v), d, dst + i + 0 * L);
            hn::StoreU(hn::Mul(x1, v), d, dst + i + 1 * L);
            hn::StoreU(hn::Mul(x2, v), d, dst + i + 2 * L);
            hn::StoreU(hn::Mul(x3, v), d, dst + i + 3 * L);
        }
    }
    for (; i + L <= n; i += L) hn::StoreU(hn::Mul(hn::LoadU(d, src + i), v), d, dst + i);
    PartialTail(i, n, [&](auto dc, size_t j) {
        hn::StoreU(hn::Mul(hn::LoadU(dc, src + j), hn::Set(dc, scale)), dc, dst + j);
    });
}

// dst[i] = e^(src[i] - max) for a long row; returns the sum of dst.
HWY_INLINE float RowExpSum(const float* src, size_t n, float max, float* dst) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    constexpr size_t K = kExpGroup;
    const V vmax = hn::Set(d, max);
    V total = hn::Zero(d), carry = hn::Zero(d);
    size_t i = 0;
    while (n - i >= L) {
        // One fold block: up to kFoldEvery vectors per accumulator.
        const size_t block = HWY_MIN(n - i, kFoldEvery * K * L);
        const size_t end = i + block;
        V sum[K];
        SIMD_SYNET_EACH(k, K) sum[k] = hn::Zero(d);
        if (block >= K * L) {
            for (; i <= end - K * L; i += K * L) {
                V v[K];
                SIMD_SYNET_EACH(k, K) v[k] = hn::Sub(hn::LoadU(d, src + i + k * L), vmax);
                ExpNonPositive(d, v);
                SIMD_SYNET_EACH(k, K) hn::StoreU(v[k], d, dst + i + k * L);
                SIMD_SYNET_EACH(k, K) sum[k] = hn::Add(sum[k], v[k]);
            }
        }
        for (; i + L <= end; i += L) {
            V v[1] = {hn::Sub(hn::LoadU(d, src + i), vmax)};
            ExpNonPositive(d, v);
            hn::StoreU(v[0], d, dst + i);
            sum[0] = hn::Add(sum[0], v[0]);
        }
        // Pairwise combination of the accumulators before the fold.
        for (size_t width = K; width > 1; width /= 2)
            for (size_t k = 0; k < width / 2; ++k) sum[k] = hn::Add(sum[k], sum[k + width / 2]);
        KahanAdd(sum[0], total, carry);
    }
    float result = hn::GetLane(hn::SumOfLanes(d, hn::Sub(total, carry)));
    PartialTail(i, n, [&](auto dc, size_t j) {
        hn::Vec<decltype(dc)> v[1] = {hn::Sub(hn::LoadU(dc, src + j), hn::Set(dc, max))};
        ExpNonPositive(dc, v);
        hn::StoreU(v[0], dc, dst + j);
        result += hn::GetLane(hn::SumOfLanes(dc, v[0]));
    });
    return result;
}

void SoftmaxLongRows(const float* src, size_t rows, size_t count, float* dst) {
    for (size_t r = 0; r < rows; ++r, src += count, dst += count) {
        const float max = RowMax(src, count);
        const float sum = RowExpSum(src, count, max, dst);
        RowScale(dst, count, 1.0f / sum, dst);
    }
}

// dst[i] = e^(src[i] - shift) for a shift >= every input (NaN inputs give NaN).
HWY_INLINE void ExpShifted(const float* src, size_t n, float shift, float* dst) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    constexpr size_t K = kExpGroup;
    const V vshift = hn::Set(d, shift);
    size_t i = 0;
    if (n >= K * L) {
        for (; i <= n - K * L; i += K * L) {
            V v[K];
            SIMD_SYNET_EACH(k, K) v[k] = hn::Sub(hn::LoadU(d, src + i + k * L), vshift);
            ExpNonPositive(d, v);
            SIMD_SYNET_EACH(k, K) hn::StoreU(v[k], d, dst + i + k * L);
        }
    }
    ForEachVector(n - i, [&](auto dv, size_t j) {
        hn::Vec<decltype(dv)> v[1] = {hn::Sub(hn::LoadU(dv, src + i + j), hn::Set(dv, shift))};
        ExpNonPositive(dv, v);
        hn::StoreU(v[0], dv, dst + i + j);
    });
}

// Rows of fewer than kShortRow elements, in chunks of whole rows. Per-row maxima and per-row
// exp calls would spend most of the time on reductions and short tails, so the exp runs once
// over the whole chunk, shifted by the chunk's maximum M instead of each row's. That is exact
// softmax arithmetic as long as no row's terms underflow: a row whose sum z comes out below
// kMinChunkSum (its maximum lies more than ~64 below M, or it holds NaN) is recomputed with its
// own maximum. Otherwise every term dropped to 0 by the shift is below e^-23 of its row's
// maximum term, far inside the accuracy bound.
//
// The exp values go to a scratch buffer padded by one vector. Pass 1 sums each row in whole
// vectors (the lanes of a row's last vector that belong to the next row are masked out), L rows
// at a time through RowSums, and settles the fallback rows, so src is no longer needed; pass 2
// writes dst = exp * (1/z) for whole blocks of L rows as aligned whole vectors, then for the
// remaining rows in whole vectors, in row order: a row's last vector spills into the next row,
// which that row then overwrites (the rows whose whole vectors would reach beyond the chunk
// end in partial vectors instead, so nothing beyond the chunk is written). dst may be src. Nothing
// stored is re-read at another alignment, which would stall on store forwarding.
constexpr float kMinChunkSum = 8.75651076e-27f;  // e^-60

// Lanes of a full vector, fixed at compile time on the targets this library builds.
constexpr size_t kLanes = hn::MaxLanes(DF());

// sums[l] = the sum of the lanes of rowLanes(r0 + l) for l < kLanes: the kLanes horizontal sums
// of a block of rows in one transposing tree (ConcatEven + ConcatOdd + Add halves the vector
// count and keeps the rows in order), about 3 operations per row instead of a full horizontal
// reduction each.
template <class RowLanes>
HWY_INLINE void RowSums(const RowLanes& rowLanes, size_t r0, float* sums) {
    const DF d;
    using V = hn::Vec<DF>;
    V part[kLanes];
    for (size_t l = 0; l < kLanes; ++l) part[l] = rowLanes(r0 + l);
#if HWY_TARGET != HWY_SCALAR  // one lane: part[0] is the sum already
    for (size_t width = kLanes; width > 1; width /= 2)
        for (size_t i = 0; i < width / 2; ++i)
            part[i] = hn::Add(hn::ConcatEven(d, part[2 * i + 1], part[2 * i]),
                              hn::ConcatOdd(d, part[2 * i + 1], part[2 * i]));
#endif
    hn::StoreU(part[0], d, sums);
}

void SoftmaxShortRows(const float* src, size_t rows, size_t count, float* dst) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    constexpr size_t kPadding = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float scratch[kChunk + kPadding];
    float scale[kChunk];
    for (size_t i = 0; i < kPadding; ++i) scratch[kChunk + i] = 0.0f;
    const size_t wholeVectors = count / L;
    const size_t rest = count % L;
    const size_t stored = wholeVectors + (rest ? 1 : 0);  // vectors written per row in pass 2
    const auto restMask = hn::FirstN(d, rest);
    const size_t chunkRows = kChunk / count;  // count < kShortRow <= kChunk
#if HWY_TARGET != HWY_SCALAR
    // A block of kLanes rows is exactly `count` whole vectors; lane l of its vector k belongs to
    // row (k kLanes + l) / count of the block, the lane index into the block's kLanes scales.
    const hn::RebindToSigned<DF> di;
    HWY_ALIGN int32_t rowOfLane[kShortRow * kLanes];
    for (size_t i = 0, row = 0, column = 0; i < count * kLanes; ++i) {
        rowOfLane[i] = int32_t(row);  // (no division: this runs on every call)
        if (++column == count) column = 0, ++row;
    }
#endif
    for (size_t r0 = 0; r0 < rows; r0 += chunkRows) {
        const size_t n = HWY_MIN(chunkRows, rows - r0);
        const float* s = src + r0 * count;
        float* t = dst + r0 * count;
        ExpShifted(s, n * count, RowMax(s, n * count), scratch);
        // Lane sums of a row's exp values (the lanes of its last vector that belong to the next
        // row masked out).
        auto rowLanes = [&](size_t r) {
            const float* e = scratch + r * count;
            V sum = hn::Zero(d);
            for (size_t v = 0; v < wholeVectors; ++v) sum = hn::Add(sum, hn::LoadU(d, e + v * L));
            if (rest)
                sum =
                    hn::Add(sum, hn::IfThenElseZero(restMask, hn::LoadU(d, e + wholeVectors * L)));
            return sum;
        };
        size_t r = 0;
        for (; r + kLanes <= n; r += kLanes) RowSums(rowLanes, r, scale + r);
        for (; r < n; ++r) scale[r] = hn::GetLane(hn::SumOfLanes(d, rowLanes(r)));
        // 1/z for the whole chunk in vectors (a scalar division per row would sit on the
        // critical path); rows below the threshold (or NaN) are redone with their own maximum.
        bool fallback = false;
        ForEachVector(n, [&](auto dv, size_t i) {
            const auto z = hn::LoadU(dv, scale + i);
            fallback |= !hn::AllTrue(dv, hn::Ge(z, hn::Set(dv, kMinChunkSum)));
            hn::StoreU(hn::Div(hn::Set(dv, 1.0f), z), dv, scale + i);
        });
        for (size_t r = 0; fallback && r < n; ++r) {
            // 1/z of a row that passed (up to the rounding of 1/z right at the threshold).
            if (scale[r] <= 1.0f / kMinChunkSum) continue;
            const float* row = s + r * count;
            scale[r] = 1.0f / RowExpSum(row, count, RowMax(row, count), scratch + r * count);
        }
        r = 0;
#if HWY_TARGET != HWY_SCALAR
        // Whole blocks of rows: aligned, non-overlapping stores of whole vectors, each scaled by
        // its lanes' 1/z picked out of the block's scales by one permutation.
        for (; r + kLanes <= n; r += kLanes) {
            const V blockScales = hn::LoadU(d, scale + r);
            const float* e = scratch + r * count;
            float* o = t + r * count;
            for (size_t k = 0; k < count; ++k) {
                const auto index = hn::IndicesFromVec(d, hn::Load(di, rowOfLane + k * L));
                hn::StoreU(
                    hn::Mul(hn::Load(d, e + k * L), hn::TableLookupLanes(blockScales, index)), d,
                    o + k * L);
            }
        }
#endif
        for (; r * count + stored * L <= n * count; ++r) {
            const float* e = scratch + r * count;
            const V k = hn::Set(d, scale[r]);
            for (size_t v = 0; v < stored; ++v)
                hn::StoreU(hn::Mul(hn::LoadU(d, e + v * L), k), d, t + r * count + v * L);
        }
        for (; r < n; ++r) RowScale(scratch + r * count, count, scale[r], t + r * count);
    }
}

// K adjacent columns of vectors (d lanes each) starting at src/dst, rows `stride` apart.
template <size_t K, class D>
HWY_INLINE void SoftmaxColumns(D d, const float* src, size_t count, size_t stride, float* dst) {
    using V = hn::Vec<D>;
    const size_t N = hn::Lanes(d);
    V max[K];
    SIMD_SYNET_EACH(k, K) max[k] = hn::LoadU(d, src + k * N);
    for (size_t c = 1; c < count; ++c)
        SIMD_SYNET_EACH(k, K) max[k] = hn::Max(max[k], hn::LoadU(d, src + c * stride + k * N));
    V total[K], carry[K];
    SIMD_SYNET_EACH(k, K) total[k] = carry[k] = hn::Zero(d);
    for (size_t c0 = 0; c0 < count; c0 += kFoldEvery) {
        const size_t end = HWY_MIN(count, c0 + kFoldEvery);
        V sum[K];
        SIMD_SYNET_EACH(k, K) sum[k] = hn::Zero(d);
        for (size_t c = c0; c < end; ++c) {
            V v[K];
            SIMD_SYNET_EACH(k, K) v[k] = hn::Sub(hn::LoadU(d, src + c * stride + k * N), max[k]);
            ExpNonPositive(d, v);
            SIMD_SYNET_EACH(k, K) hn::StoreU(v[k], d, dst + c * stride + k * N);
            SIMD_SYNET_EACH(k, K) sum[k] = hn::Add(sum[k], v[k]);
        }
        SIMD_SYNET_EACH(k, K) KahanAdd(sum[k], total[k], carry[k]);
    }
    V scale[K];
    SIMD_SYNET_EACH(k, K) scale[k] = hn::Div(hn::Set(d, 1.0f), hn::Sub(total[k], carry[k]));
    for (size_t c = 0; c < count; ++c) SIMD_SYNET_EACH(k, K) {
            float* p = dst + c * stride + k * N;
            hn::StoreU(hn::Mul(hn::LoadU(d, p), scale[k]), d, p);
        }
}

// Column vectors per group (independent exp chains). 4 measured best on Zen4 with AVX2 too,
// despite the spills of max, sum, total and carry of each column; on Zen 5 (1x21x3136) AVX2
// still runs best with 4 (13.2 us, 13.6-14.3 with 2) but AVX-512 with 2 (6.3-6.7 us, 7.4 with 4).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr size_t kColumns = 2;
#else
constexpr size_t kColumns = 4;
#endif

void SoftmaxStrided(const float* src, size_t outer, size_t count, size_t inner, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    for (size_t o = 0; o < outer; ++o) {
        const float* s = src + o * count * inner;
        float* t = dst + o * count * inner;
        size_t i = 0;
        if (inner >= kColumns * L)
            for (; i <= inner - kColumns * L; i += kColumns * L)
                SoftmaxColumns<kColumns>(d, s + i, count, inner, t + i);
        for (; i + L <= inner; i += L) SoftmaxColumns<1>(d, s + i, count, inner, t + i);
        PartialTail(i, inner,
                    [&](auto dc, size_t j) { SoftmaxColumns<1>(dc, s + j, count, inner, t + j); });
    }
}

}  // namespace

void SoftmaxLayerForward(const float* src, size_t outer, size_t count, size_t inner, float* dst) {
    if (inner > 1)
        SoftmaxStrided(src, outer, count, inner, dst);
    else if (count < kShortRow)
        SoftmaxShortRows(src, outer, count, dst);
    else
        SoftmaxLongRows(src, outer, count, dst);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(SoftmaxLayerForward);
}  // namespace simd

SIMD_API void SimdSynetSoftmaxLayerForward(const float* src, size_t outer, size_t count,
                                           size_t inner, float* dst) {
    simd::ClearLastError();
    if (outer == 0 || count == 0 || inner == 0) return;
    SIMD_FAIL_IF(!src || !dst, "SimdSynetSoftmaxLayerForward: src and dst must not be NULL");
    size_t rows;
    SIMD_FAIL_IF(
        !simd::CheckedMul(outer, count, &rows) || !simd::FitsInMemory(rows, inner, sizeof(float)),
        "SimdSynetSoftmaxLayerForward: outer * count * inner * sizeof(float) overflows "
        "size_t");
    SIMD_DISPATCH(simd::SoftmaxLayerForward)(src, outer, count, inner, dst);
}
#endif  // HWY_ONCE
