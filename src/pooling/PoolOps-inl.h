// The pooling operations of every kernel: storage lane type, compute lane type, initial value,
// fold of one tap and final store, for FP32 max and average, UINT8 max, BF16 max widened to FP32
// (NCHW) and BF16 max on order-preserving int16 keys (NHWC).
//
// Order: the max folds give NaN for a window that holds a NaN (as PyTorch's and ONNX Runtime's
// max pools do) and otherwise SUPPLEMENT's max(a, b) = a > b ? a : b, so their result does not
// depend on the order in which a window is visited (up to the sign of a zero maximum); averages
// re-associate the window sum (LIN: few ulps of the sum of magnitudes) and scale by the
// reciprocal area in NCHW.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_POOLING_POOL_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_POOLING_POOL_OPS_INL_H_
#undef SIMD_SYNET_POOLING_POOL_OPS_INL_H_
#else
#define SIMD_SYNET_POOLING_POOL_OPS_INL_H_
#endif

#include <cfloat>
#include <cstddef>
#include <cstdint>

#include "core/MinMax-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Keeps v in a register: GCC folds a load that two operations use into both of them, and the
// second load takes a load slot (two when it straddles cache lines). Not in unoptimised
// builds (the fuzzer's -O0), where there is no folding and clang 14 cannot tie a 512-bit operand.
template <class V>
HWY_INLINE void KeepInRegister(V& v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && defined(__OPTIMIZE__)
    asm("" : "+v"(v.raw));
#else
    (void)v;
#endif
}

// A pooling operation: storage lane type T, compute lane type C, the initial accumulator, the
// fold of one tap, and the final store (average pools divide by the window area there).
struct MaxF32Op {
    static constexpr bool kAverage = false;
    using T = float;
    using C = float;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Set(d, -FLT_MAX);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D, hn::Vec<hn::Rebind<T, D>> v) const {
        return v;
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return MaxPropagateNaN(v, acc);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float, T* p) const {
        hn::StoreU(acc, d, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

struct AverageF32Op {
    static constexpr bool kAverage = true;
    bool excludePad;
    float kernelArea;  // kernelY*kernelX
    using T = float;
    using C = float;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Zero(d);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D, hn::Vec<hn::Rebind<T, D>> v) const {
        return v;
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return hn::Add(acc, v);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float area, T* p) const {
        hn::StoreU(hn::Div(acc, hn::Set(d, area)), d, p);
    }
    // Multiplies by the reciprocal of the area instead (division throughput is low where one
    // area serves many stores); within a few ulps of Store.
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float inverse, T* p) const {
        hn::StoreU(hn::Mul(acc, hn::Set(d, inverse)), d, p);
    }
    float Area(size_t rows, size_t cols) const {
        return excludePad ? float(rows * cols) : kernelArea;
    }
};

struct MaxU8Op {
    static constexpr bool kAverage = false;
    using T = uint8_t;
    using C = uint8_t;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Zero(d);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D, hn::Vec<hn::Rebind<T, D>> v) const {
        return v;
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return hn::Max(acc, v);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float, T* p) const {
        hn::StoreU(acc, d, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

// BF16 values are widened to FP32 (exact), folded like MaxF32Op and rounded back with the
// ABI.md rule (round to nearest even: only -FLT_MAX, the result of an empty window, changes,
// to 0xFF80).
struct MaxBf16Op {
    static constexpr bool kAverage = false;
    using T = uint16_t;
    using C = float;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        return hn::Set(d, -FLT_MAX);
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D d, hn::Vec<hn::Rebind<T, D>> v) const {
        const hn::Rebind<uint32_t, D> du;
        return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, v)));
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return MaxPropagateNaN(v, acc);
    }
    template <class D>
    HWY_INLINE void Store(D, hn::Vec<D> acc, float, T* p) const {
        const hn::Rebind<uint32_t, D> du;
        const hn::Rebind<int32_t, D> di;
        const hn::Rebind<uint16_t, D> dh;
        const auto bits = hn::BitCast(du, acc);
        const auto odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
        const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(hn::Set(du, 0x7FFFu), odd)));
        // rounded <= 0xFFFF, so the saturating narrowing keeps it unchanged.
        hn::StoreU(hn::DemoteTo(dh, hn::BitCast(di, rounded)), dh, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

// BF16 max in NHWC on 16-bit lanes, without widening: each BF16 pattern maps to an int16 key
// whose signed order is the FP32 order of the values (negative patterns flip their magnitude
// bits), offset by -0x7F with wrap-around so that every NaN pattern (negative NaNs, the lowest
// keys, wrap to the top; positive NaNs lie above +inf) sorts above the key of +inf. The fold is
// one integer max; a window that holds a NaN gives one of its NaNs, and one of -inf only gives
// 0xFF80, the rounding of the FP32 reference's -FLT_MAX. Ties between +0 and -0 give +0 (the
// reference keeps the first seen).
// Measured on Zen 5, 3x3 s2 p1 64x112x112 NHWC (copy of the same bytes 18.4-19.1 us): 37.4 us
// widening two channels per 32-bit lane to FP32 pixel by pixel; 22.2-22.7 us with these keys,
// whose rows slide and pair like FP32 (NhwcRows3x2, out of line, two vectors per walk).
struct MaxBf16KeyOp {
    static constexpr bool kAverage = false;
    using T = uint16_t;
    using C = int16_t;
    static constexpr int16_t kOffset = -0x7F;
    template <class D>
    HWY_INLINE hn::Vec<D> Init(D d) const {
        // Key of -inf (0xFF80): 0xFF80 ^ 0x7FFF = -32641, plus the offset: the lowest key.
        return hn::Set(d, int16_t(-32641 + kOffset));
    }
    // Flips the magnitude bits of negative patterns (its own inverse).
    template <class D>
    static HWY_INLINE hn::Vec<D> FlipNegative(D d, hn::Vec<D> v) {
        return hn::Xor(v, hn::And(hn::ShiftRight<15>(v), hn::Set(d, 0x7FFF)));
    }
    template <class D>
    HWY_INLINE hn::Vec<D> Widen(D d, hn::Vec<hn::Rebind<T, D>> v) const {
        // In a register for the shift and the flip (BF16 3x3 s2 p1 64x112x112 NHWC on Zen 5:
        // 23.5-23.9 us loaded for each, 22.7-23.4 once).
        auto bits = hn::BitCast(d, v);
        KeepInRegister(bits);
        return hn::Add(FlipNegative(d, bits), hn::Set(d, kOffset));
    }
    template <class V>
    HWY_INLINE V Fold(V acc, V v) const {
        return hn::Max(acc, v);
    }
    template <class D>
    HWY_INLINE void Store(D d, hn::Vec<D> acc, float, T* p) const {
        const hn::RebindToUnsigned<D> du;
        const auto bits = FlipNegative(d, hn::Sub(acc, hn::Set(d, kOffset)));
        hn::StoreU(hn::BitCast(du, bits), du, p);
    }
    template <class D>
    HWY_INLINE void StoreInverse(D d, hn::Vec<D> acc, float, T* p) const {
        Store(d, acc, 1.0f, p);
    }
    float Area(size_t, size_t) const { return 1.0f; }
};

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
