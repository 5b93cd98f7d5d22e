// SimdSynetUnaryOperation32fLayerForward (SUPPLEMENT.md §4.10): eight element-wise operations
// selected by an enum. The switch on the type happens once per call, inside the dispatched
// kernel, so each operation runs its own unrolled loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "activation/UnaryOperation.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "SimdSynet.h"
#include "activation/GroupLoop-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Functors have internal linkage: other families may name their own functors alike.
namespace {

struct AbsOp {
    template <class D, class V>
    HWY_INLINE V operator()(D, V x) const {
        return hn::Abs(x);  // clears the sign bit: -0 -> +0, exact
    }
};
// Transcendental operations as group functors for GroupUnaryLoop (see core/Math-inl.h).
struct ExpOp {
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        Exp(d, v);
    }
};
struct LogOp {
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        Log(d, v);
    }
};
struct TanhOp {
    template <size_t K, class D, class V>
    HWY_INLINE void operator()(D d, V (&v)[K]) const {
        Tanh(d, v);
    }
};
struct NegOp {
    template <class D, class V>
    HWY_INLINE V operator()(D, V x) const {
        return hn::Neg(x);
    }
};
// Correctly rounded sqrt then a correctly rounded division: within 1 ulp of 1/sqrt(x).
struct RsqrtOp {
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x) const {
        return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(x));
    }
};
struct SqrtOp {
    template <class D, class V>
    HWY_INLINE V operator()(D, V x) const {
        return hn::Sqrt(x);
    }
};
}  // namespace

// The output does not depend on the input, so nothing is read.
void FillZero(size_t size, float* dst) {
    const DF d;
    const size_t L = hn::Lanes(d);
    const auto zero = hn::Zero(d);
    size_t i = 0;
    if (size >= 4 * L) {
        for (; i <= size - 4 * L; i += 4 * L) {
            hn::StoreU(zero, d, dst + i + 0 * L);
            hn::StoreU(zero, d, dst + i + 1 * L);
            hn::StoreU(zero, d, dst + i + 2 * L);
            hn::StoreU(zero, d, dst + i + 3 * L);
        }
    }
    for (; i + L <= size; i += L) hn::StoreU(zero, d, dst + i);
    const DF1 d1;
    for (; i < size; ++i) hn::StoreU(hn::Zero(d1), d1, dst + i);
}

// `type` has been validated by the entry point.
void UnaryOperation32f(const float* src, size_t size, int type, float* dst) {
    switch (type) {
        case SimdSynetUnaryOperation32fAbs:
            return UnaryLoop(src, size, dst, AbsOp{});
        case SimdSynetUnaryOperation32fExp:
            return GroupUnaryLoop(src, size, dst, ExpOp{});
        case SimdSynetUnaryOperation32fLog:
            return GroupUnaryLoop(src, size, dst, LogOp{});
        case SimdSynetUnaryOperation32fNeg:
            return UnaryLoop(src, size, dst, NegOp{});
        case SimdSynetUnaryOperation32fRsqrt:
            return UnaryLoop(src, size, dst, RsqrtOp{});
        case SimdSynetUnaryOperation32fSqrt:
            return UnaryLoop(src, size, dst, SqrtOp{});
        case SimdSynetUnaryOperation32fTanh:
            return GroupUnaryLoop(src, size, dst, TanhOp{});
        default:
            return FillZero(size, dst);  // SimdSynetUnaryOperation32fZero
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "core/Error.h"
#include "core/Format.h"
#include "core/ParallelElements.h"

namespace simd {
HWY_EXPORT(UnaryOperation32f);
}  // namespace simd

SIMD_API void SimdSynetUnaryOperation32fLayerForward(const float* src, size_t size,
                                                     SimdSynetUnaryOperation32fType type,
                                                     float* dst) {
    simd::ClearLastError();
    if (size == 0) return;
    SIMD_FAIL_IF(!src || !dst,
                 "SimdSynetUnaryOperation32fLayerForward: src and dst must not be NULL");
    SIMD_FAIL_IF(!simd::FitsInMemory(size, 1, sizeof(float)),
                 "SimdSynetUnaryOperation32fLayerForward: size * sizeof(float) overflows size_t");
    SIMD_FAIL_IF(
        unsigned(type) > unsigned(SimdSynetUnaryOperation32fZero),
        "SimdSynetUnaryOperation32fLayerForward: type is not a SimdSynetUnaryOperation32fType");
    simd::ParallelElements(size, [&](size_t b, size_t e) {
        SIMD_DISPATCH(simd::UnaryOperation32f)(src + b, e - b, int(type), dst + b);
    });
}
#endif  // HWY_ONCE
