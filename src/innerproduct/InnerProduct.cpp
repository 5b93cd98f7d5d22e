// SimdSynetInnerProductLayerForward (SUPPLEMENT.md §4.6): dst[i] = bias[i] + dot(src, row i of
// weight), weight row-major [count][size].
//
// The weights (count*size floats, typically megabytes) are the only large stream: the kernel
// reads each weight once, kRows rows side by side, so one load of src serves kRows multiply-adds
// and src stays in L1. Two accumulators per row (2*kRows independent FMA chains) hide the FMA
// latency. Accumulators are folded into a per-row total every kFoldVectors steps, so no single
// accumulator lane sums more than a few hundred products however long the rows are.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "innerproduct/InnerProduct.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"  // SIMD_SYNET_EACH
#include "softmax/PartialTail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace {

// Rows per pass: 4 rows x 2 accumulators + 4 totals + 2 src vectors fit the 16 registers of
// AVX2 with one to spare for the weight load.
constexpr size_t kRows = 4;
// Vector pairs per fold of the accumulators into the totals.
constexpr size_t kFoldSteps = 128;

// out[r] = dot(src, weight + r*size) for r < R.
template <size_t R>
HWY_INLINE void DotRows(const float* src, const float* weight, size_t size, float* out) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    const float* w[R];
    SIMD_SYNET_EACH(r, R) w[r] = weight + r * size;
    V total[R];
    SIMD_SYNET_EACH(r, R) total[r] = hn::Zero(d);
    size_t j = 0;
    while (size - j >= 2 * L) {
        const size_t steps = HWY_MIN((size - j) / (2 * L), kFoldSteps);
        V a0[R], a1[R];
        SIMD_SYNET_EACH(r, R) a0[r] = a1[r] = hn::Zero(d);
        for (size_t step = 0; step < steps; ++step, j += 2 * L) {
            const V s0 = hn::LoadU(d, src + j), s1 = hn::LoadU(d, src + j + L);
            SIMD_SYNET_EACH(r, R) {
                a0[r] = hn::MulAdd(hn::LoadU(d, w[r] + j), s0, a0[r]);
                a1[r] = hn::MulAdd(hn::LoadU(d, w[r] + j + L), s1, a1[r]);
            }
        }
        SIMD_SYNET_EACH(r, R) total[r] = hn::Add(total[r], hn::Add(a0[r], a1[r]));
    }
    if (size - j >= L) {
        const V s0 = hn::LoadU(d, src + j);
        SIMD_SYNET_EACH(r, R) total[r] = hn::MulAdd(hn::LoadU(d, w[r] + j), s0, total[r]);
        j += L;
    }
    SIMD_SYNET_EACH(r, R) out[r] = hn::GetLane(hn::SumOfLanes(d, total[r]));
    PartialTail(j, size, [&](auto dc, size_t t) {
        const auto s0 = hn::LoadU(dc, src + t);
        SIMD_SYNET_EACH(r, R)
        out[r] += hn::GetLane(hn::SumOfLanes(dc, hn::Mul(hn::LoadU(dc, w[r] + t), s0)));
    });
}

}  // namespace

void InnerProductLayerForward(const float* src, const float* weight, const float* bias,
                              size_t count, size_t size, float* dst) {
    size_t i = 0;
    for (; i + kRows <= count; i += kRows) {
        float out[kRows];
        DotRows<kRows>(src, weight + i * size, size, out);
        SIMD_SYNET_EACH(r, kRows) dst[i + r] = bias ? bias[i + r] + out[r] : out[r];
    }
    for (; i < count; ++i) {
        float out[1];
        DotRows<1>(src, weight + i * size, size, out);
        dst[i] = bias ? bias[i] + out[0] : out[0];
    }
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
