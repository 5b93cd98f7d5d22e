// Walking a run of floats in vector steps that shrink at its end, per Highway target.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_VECTOR_STEPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_VECTOR_STEPS_INL_H_
#undef SIMD_SYNET_CORE_VECTOR_STEPS_INL_H_
#else
#define SIMD_SYNET_CORE_VECTOR_STEPS_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Calls f(dv, i) for i in [0, n) in steps of one vector of dv: whole vectors of D, then one of
// 8 and one of 4 lanes where they fit, then single lanes. A run of 24 floats on AVX-512 is a
// whole vector and a half one, not a vector and 8 scalar steps.
template <class D, class F>
HWY_INLINE void ForEachVectorStep(D, size_t n, const F& f) {
    constexpr size_t L = hn::MaxLanes(D());
    size_t i = 0;
    for (; i + L <= n; i += L) f(D(), i);
#if HWY_TARGET != HWY_SCALAR
    if constexpr (L > 8) {
        if (i + 8 <= n) {
            f(hn::CappedTag<hn::TFromD<D>, 8>(), i);
            i += 8;
        }
    }
    if constexpr (L > 4) {
        if (i + 4 <= n) {
            f(hn::CappedTag<hn::TFromD<D>, 4>(), i);
            i += 4;
        }
    }
#endif
    for (; i < n; ++i) f(hn::CappedTag<hn::TFromD<D>, 1>(), i);
}

// dst[i] += src[i] for i < n.
HWY_INLINE void AddInPlace(const float* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst) {
    ForEachVectorStep(hn::ScalableTag<float>(), n, [&](auto d, size_t i) HWY_ATTR {
        hn::StoreU(hn::Add(hn::LoadU(d, dst + i), hn::LoadU(d, src + i)), d, dst + i);
    });
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
