// Min and max of FP32 vectors that never turn NaN into a number: the library propagates NaN as
// the frameworks do (PyTorch's relu, clamp, maximum and max pooling, ONNX Runtime's): a NaN
// that enters an activation, a clamp, an element-wise max/min or a max-pooling window comes
// out as NaN (docs/ARCHITECTURE.md, "Floating point").
//
// Why helpers: Highway's Min/Max differ in what they return for NaN. On x86 they are
// MINPS/MAXPS, which return their second operand when either is NaN; the scalar and EMU128
// targets return the non-NaN operand; NEON returns NaN. Each helper picks the cheapest exact
// form per target.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CORE_MIN_MAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CORE_MIN_MAX_INL_H_
#undef SIMD_SYNET_CORE_MIN_MAX_INL_H_
#else
#define SIMD_SYNET_CORE_MIN_MAX_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Redefined for each target (this header is compiled once per target).
#undef SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN 1
#else
#define SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN 0
#endif

// min(x, limit) and max(x, limit) for a limit that is not NaN; x itself when x is NaN. On x86
// one instruction with x second.
template <class D, class V>
HWY_INLINE V MinKeepNaN(D d, V x, float limit) {
#if SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN
    return hn::Min(hn::Set(d, limit), x);
#else
    return hn::IfThenElse(hn::Gt(x, hn::Set(d, limit)), hn::Set(d, limit), x);
#endif
}
template <class D, class V>
HWY_INLINE V MaxKeepNaN(D d, V x, float limit) {
#if SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN
    return hn::Max(hn::Set(d, limit), x);
#else
    return hn::IfThenElse(hn::Lt(x, hn::Set(d, limit)), hn::Set(d, limit), x);
#endif
}

// a > b ? a : b and a < b ? a : b (SUPPLEMENT's max and min, so equal zeros give b), but NaN
// when either operand is NaN, whatever the order: the fold of a max pool or of an element-wise
// max then does not depend on the order it visits its inputs in. On x86 MAXPS already returns
// a NaN b, so only a NaN a needs the select.
template <class V>
HWY_INLINE V MaxPropagateNaN(V a, V b) {
#if SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN
    return hn::IfThenElse(hn::IsNaN(a), a, hn::Max(a, b));
#else
    return hn::IfThenElse(hn::Or(hn::Gt(a, b), hn::IsNaN(a)), a, b);
#endif
}
template <class V>
HWY_INLINE V MinPropagateNaN(V a, V b) {
#if SIMD_SYNET_MINMAX_RETURNS_SECOND_ON_NAN
    return hn::IfThenElse(hn::IsNaN(a), a, hn::Min(a, b));
#else
    return hn::IfThenElse(hn::Or(hn::Lt(a, b), hn::IsNaN(a)), a, b);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CORE_MIN_MAX_INL_H_
