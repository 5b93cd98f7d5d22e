// From INT32 sums to the INT8 convolution's output (SUPPLEMENT.md §11), per Highway target:
// y = float(sum) * norm + bias, the activation, then FP32, or UINT8 through the §7.4 rule with
// the output quantizer. Every step is one FP32 operation in the order the reference evaluates
// (no fused multiply-add), so UINT8 outputs of the activations made of +, *, min and max are
// bit-exact on every target; Elu, Mish, Swish and Gelu use the FP32 framework's approximations
// (convolution/Activate-inl.h).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION8I_EPILOGUE8I_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION8I_EPILOGUE8I_INL_H_
#undef SIMD_SYNET_CONVOLUTION8I_EPILOGUE8I_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION8I_EPILOGUE8I_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "SimdSynet.h"
#include "convolution/Activate-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv8i {
namespace hn = hwy::HWY_NAMESPACE;

// The per-output-channel arrays of one run of channels (each starting at its first channel;
// scale and slope may be NULL when unused) and the scalars of the epilogue.
struct OutputParams {
    const float* norm;
    const float* bias;
    const float* scale;  // output quantizer 1/q (UINT8 output)
    const float* slope;  // LeakyRelu, Prelu
    float zero;          // output zero point
    float upper;         // uMax
    conv32f::Act act;
};

// The activations written out at compile time; kOther switches at run time over the rest.
enum class Act8iKind { kIdentity, kRelu, kSlope, kOther };

inline Act8iKind Act8iKindOf(SimdConvolutionActivationType type) {
    switch (type) {
        case SimdConvolutionActivationIdentity:
            return Act8iKind::kIdentity;
        case SimdConvolutionActivationRelu:
            return Act8iKind::kRelu;
        case SimdConvolutionActivationLeakyRelu:
        case SimdConvolutionActivationPrelu:
            return Act8iKind::kSlope;
        default:
            return Act8iKind::kOther;
    }
}

// §3.1 in the reference's FP32 order (unfused) for the cheap activations.
template <Act8iKind kKind, class D, class V>
HWY_INLINE V Activate8i(D d, V x, V slope, const conv32f::Act& act) {
    const V zero = hn::Zero(d);
    if constexpr (kKind == Act8iKind::kIdentity) {
        return x;
    } else if constexpr (kKind == Act8iKind::kRelu) {
        return hn::Max(x, zero);
    } else if constexpr (kKind == Act8iKind::kSlope) {
        return hn::Add(hn::Max(x, zero), hn::Mul(slope, hn::Min(x, zero)));
    } else {
        switch (act.type) {
            case SimdConvolutionActivationRestrictRange:
                return hn::Min(hn::Max(hn::Set(d, act.p0), x), hn::Set(d, act.p1));
            case SimdConvolutionActivationHswish: {
                const V shift = hn::Set(d, act.p0);
                return hn::Mul(
                    hn::Mul(hn::Max(hn::Add(hn::Min(x, shift), shift), zero), hn::Set(d, act.p1)),
                    x);
            }
            case SimdConvolutionActivationHardSigmoid:
                return hn::Max(zero,
                               hn::Min(hn::Add(hn::Mul(x, hn::Set(d, act.p0)), hn::Set(d, act.p1)),
                                       hn::Set(d, 1.0f)));
            default:
                return conv32f::Activate(d, x, zero, act);
        }
    }
}

// §7.4 for values that went through an activation: v = x*scale + zero, NaN and negatives to 0,
// at most upper, rounded to nearest even; returns the integers in 32-bit lanes.
template <class D, class V>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> QuantizeOutput(D d, V x, V scale, V zero, V upper) {
    const V v = hn::Add(hn::Mul(x, scale), zero);
    const V clamped = hn::Min(hn::IfThenElseZero(hn::Ge(v, hn::Zero(d)), v), upper);
    return hn::NearestInt(clamped);
}

// Output values of `rows` x `cols` sums (tile rows `tileStride` int32 apart) into out (rows
// `outStride` elements apart; FP32 or UINT8 by kDst8). Parameters are loaded once per vector
// of channels and reused down the rows.
template <Act8iKind kKind, bool kDst8>
HWY_NOINLINE void Epilogue8i(const int32_t* tile, size_t tileStride, size_t rows, size_t cols,
                             const OutputParams& op, uint8_t* out, size_t outStride) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<uint8_t, decltype(d)> du8;
    const size_t L = hn::Lanes(d);
    using T = std::conditional_t<kDst8, uint8_t, float>;
    T* o = reinterpret_cast<T*>(out);
    const auto zero = hn::Set(d, op.zero), upper = hn::Set(d, op.upper);
    for (size_t j = 0; j < cols; j += L) {
        const size_t n = cols - j < L ? cols - j : L;
        // Whole vectors of parameters: the arrays are padded to whole panels.
        const auto norm = hn::LoadU(d, op.norm + j), bias = hn::LoadU(d, op.bias + j);
        const auto slope = op.slope ? hn::LoadU(d, op.slope + j) : hn::Zero(d);
        const auto scale = kDst8 ? hn::LoadU(d, op.scale + j) : hn::Zero(d);
        for (size_t r = 0; r < rows; ++r) {
            const auto sum = hn::ConvertTo(d, hn::LoadU(di, tile + r * tileStride + j));
            const auto y = Activate8i<kKind>(d, hn::Add(hn::Mul(sum, norm), bias), slope, op.act);
            T* to = o + r * outStride + j;
            if constexpr (kDst8) {
                const auto bytes = hn::DemoteTo(du8, QuantizeOutput(d, y, scale, zero, upper));
                if (n == L) {
                    hn::StoreU(bytes, du8, to);
                } else {
                    HWY_ALIGN uint8_t part[hn::MaxLanes(du8)];
                    hn::StoreU(bytes, du8, part);
                    std::memcpy(to, part, n);
                }
            } else {
                if (n == L) {
                    hn::StoreU(y, d, to);
                } else {
                    HWY_ALIGN float part[hn::MaxLanes(d)];
                    hn::StoreU(y, d, part);
                    std::memcpy(to, part, n * sizeof(float));
                }
            }
        }
    }
}

}  // namespace conv8i
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
