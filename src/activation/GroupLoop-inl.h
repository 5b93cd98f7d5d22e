// Element-wise loop driver for the transcendental kernels: like UnaryLoop (core/Loops-inl.h)
// but hands the kernel a group of K vectors at once, so that the kernel can advance the K
// independent dependency chains in lockstep (see core/Math-inl.h for why that matters).
//
// A group kernel is a functor with
//     template <size_t K, class D, class V> void operator()(D d, V (&v)[K]) const;
// that replaces every v[k] by f(v[k]). Remaining whole vectors run as groups of one, the last
// elements as groups of one 1-lane vector: nothing outside [0, n) is read or written.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_ACTIVATION_GROUP_LOOP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_ACTIVATION_GROUP_LOOP_INL_H_
#undef SIMD_SYNET_ACTIVATION_GROUP_LOOP_INL_H_
#else
#define SIMD_SYNET_ACTIVATION_GROUP_LOOP_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/Math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Vectors per group, measured on Zen4 with the activation benchmarks: eight chains in flight
// beat four by ~8% on AVX2 and SSE4 (the spills eight cause on 16-register targets cost less
// than the parallelism gains), sixteen are slower everywhere; with 512-bit vectors four beat
// eight by ~5%.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr size_t kGroup = 4;
#else
constexpr size_t kGroup = 8;
#endif

template <class Op>
HWY_INLINE void GroupUnaryLoop(const float* src, size_t n, float* dst, const Op& op) {
    const DF d;
    using V = hn::Vec<DF>;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    if (n >= kGroup * L) {
        for (; i <= n - kGroup * L; i += kGroup * L) {
            V v[kGroup];
            SIMD_SYNET_EACH(k, kGroup) v[k] = hn::LoadU(d, src + i + k * L);
            op(d, v);
            SIMD_SYNET_EACH(k, kGroup) hn::StoreU(v[k], d, dst + i + k * L);
        }
    }
    for (; i + L <= n; i += L) {
        V v[1] = {hn::LoadU(d, src + i)};
        op(d, v);
        hn::StoreU(v[0], d, dst + i);
    }
    const DF1 d1;
    for (; i < n; ++i) {
        hn::Vec<DF1> v[1] = {hn::LoadU(d1, src + i)};
        op(d1, v);
        hn::StoreU(v[0], d1, dst + i);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_ACTIVATION_GROUP_LOOP_INL_H_
