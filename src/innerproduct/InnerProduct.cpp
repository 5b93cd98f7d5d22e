// SimdSynetInnerProductLayerForward (SUPPLEMENT.md §4.6): dst[i] = bias[i] + dot(src, row i of
// weight), weight row-major [count][size].
//
// The weights (count*size floats, typically megabytes) are the only large stream and each is
// read once, in order. For src arrays that fit in L1 the rows go one at a time (one sequential
// weight stream, the fastest pattern measured; src is re-read from L1); longer src arrays are
// shared by kRows rows per pass so that src is not re-read from L2 per row. Several
// accumulators per row hide the FMA latency; they are folded into a per-row total every
// kFoldSteps steps, so no accumulator lane sums more than a few hundred products however long
// the rows are. Large layers split their rows over the thread budget.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "innerproduct/InnerProduct.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"  // SIMD_SYNET_EACH
#include "core/ThreadPool.h"
#include "softmax/PartialTail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace {

// Measured on Zen4 (1024 inputs -> 1000 outputs, 4 MB of weights from L3): one row at a time
// with four accumulators reads the weights at 95-100% of a plain streaming sum, while 2, 4 or 8
// rows side by side (fewer loads of src, but 2-8 interleaved weight streams) reached only
// 75-90%. Rows therefore go one by one while src fits comfortably in L1 (it is re-read per row
// from there); longer src arrays would be re-read from L2 or beyond, so then kRows rows share
// each src load.
constexpr size_t kSingleRowMaxSize = 4096;
constexpr size_t kRows = 4;
constexpr size_t kRowAccumulators = 2;  // 4 rows x 2 + 4 totals + 2 src: 14 AVX2 registers
constexpr size_t kSingleAccumulators = 4;
// Steps per fold of the accumulators into the totals (at most 128 products per lane).
constexpr size_t kFoldSteps = 128;

// out[r] = dot(src, weight + r*size) for r < R, with A accumulators per row.
template <size_t R, size_t A>
HWY_INLINE void DotRows(const float* src, const float* weight, size_t size, float* out) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    const float* w[R];
    SIMD_SYNET_EACH(r, R) w[r] = weight + r * size;
    V total[R];
    SIMD_SYNET_EACH(r, R) total[r] = hn::Zero(d);
    size_t j = 0;
    while (size - j >= A * L) {
        const size_t steps = HWY_MIN((size - j) / (A * L), kFoldSteps);
        V acc[R][A];
        SIMD_SYNET_EACH(r, R) SIMD_SYNET_EACH(a, A) acc[r][a] = hn::Zero(d);
        for (size_t step = 0; step < steps; ++step, j += A * L) {
            V s[A];
            SIMD_SYNET_EACH(a, A) s[a] = hn::LoadU(d, src + j + a * L);
            SIMD_SYNET_EACH(r, R)
            SIMD_SYNET_EACH(a, A)
            acc[r][a] = hn::MulAdd(hn::LoadU(d, w[r] + j + a * L), s[a], acc[r][a]);
        }
        SIMD_SYNET_EACH(r, R) {
            for (size_t width = A; width > 1; width /= 2)
                for (size_t a = 0; a < width / 2; ++a)
                    acc[r][a] = hn::Add(acc[r][a], acc[r][a + width / 2]);
            total[r] = hn::Add(total[r], acc[r][0]);
        }
    }
    for (; j + L <= size; j += L) {
        const V s0 = hn::LoadU(d, src + j);
        SIMD_SYNET_EACH(r, R) total[r] = hn::MulAdd(hn::LoadU(d, w[r] + j), s0, total[r]);
    }
    SIMD_SYNET_EACH(r, R) out[r] = hn::GetLane(hn::SumOfLanes(d, total[r]));
    PartialTail(j, size, [&](auto dc, size_t t) {
        const auto s0 = hn::LoadU(dc, src + t);
        SIMD_SYNET_EACH(r, R)
        out[r] += hn::GetLane(hn::SumOfLanes(dc, hn::Mul(hn::LoadU(dc, w[r] + t), s0)));
    });
}

}  // namespace

// Rows [i0, i1) of dst; i0 a multiple of kRows. Which rows share a pass depends on the row
// index alone (groups of kRows from row 0, the last count % kRows rows one by one), so every
// output has the same bits however the rows are split over threads.
void InnerProductRows(const float* src, const float* weight, const float* bias, size_t count,
                      size_t size, size_t i0, size_t i1, float* dst) {
    size_t i = i0;
    if (size > kSingleRowMaxSize) {
        const size_t grouped = HWY_MIN(i1, count - count % kRows);
        for (; i + kRows <= grouped; i += kRows) {
            float out[kRows];
            DotRows<kRows, kRowAccumulators>(src, weight + i * size, size, out);
            SIMD_SYNET_EACH(r, kRows) dst[i + r] = bias ? bias[i + r] + out[r] : out[r];
        }
    }
    for (; i < i1; ++i) {
        float out[1];
        DotRows<1, kSingleAccumulators>(src, weight + i * size, size, out);
        dst[i] = bias ? bias[i] + out[0] : out[0];
    }
}

// The rows are split over the thread budget in ranges of whole kRows groups: the weights are
// read once whatever the split, and each core streams its share with its own caches and
// bandwidth (Zen 5 guest, 2 vCPUs: 4096 -> 1024, 16 MB, 288 -> 98 us; 25088 -> 4096, 411 MB
// from memory, 13.3 -> 8.1 ms).
void InnerProductLayerForward(const float* src, const float* weight, const float* bias,
                              size_t count, size_t size, float* dst) {
    const size_t units = (count + kRows - 1) / kRows;
    const double weightBytes = double(count) * double(size) * sizeof(float);
    const size_t parts =
        HWY_MIN(units, ThreadPartsFor(2.0 * double(count) * double(size), weightBytes));
    ParallelParts(parts, [&](size_t part, size_t n) {
        const auto range = PartRange(units, part, n);
        InnerProductRows(src, weight, bias, count, size, range.first * kRows,
                         HWY_MIN(count, range.second * kRows), dst);
    });
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
HWY_EXPORT(InnerProductLayerForward);
}  // namespace simd

SIMD_API void SimdSynetInnerProductLayerForward(const float* src, const float* weight,
                                                const float* bias, size_t count, size_t size,
                                                float* dst) {
    simd::ClearLastError();
    // SUPPLEMENT.md §0.3: a zero extent (count or size) is a no-op, dst is not written.
    if (count == 0 || size == 0) return;
    SIMD_FAIL_IF(!src || !weight || !dst,
                 "SimdSynetInnerProductLayerForward: src, weight and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(count, size, sizeof(float)),
                 "SimdSynetInnerProductLayerForward: count * size * sizeof(float) overflows "
                 "size_t");
    SIMD_DISPATCH(simd::InnerProductLayerForward)(src, weight, bias, count, size, dst);
}
#endif  // HWY_ONCE
