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
#include "convolution8i/Dot8i-inl.h"  // SIMD_SYNET_INT8_X86
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

// The activations written out at compile time; kOther switches at run time over the rest (the
// transcendental ones, whose exponentials cost more than the switch). A switch per vector made
// ReLU6 (RestrictRange) into UINT8 2-2.5x slower than ReLU: depthwise 3x3 256 channels 56x56 on
// Zen 5, 205 against 83 us a call.
enum class Act8iKind { kIdentity, kRelu, kSlope, kRange, kHswish, kHardSigmoid, kOther };

inline Act8iKind Act8iKindOf(SimdConvolutionActivationType type) {
    switch (type) {
        case SimdConvolutionActivationIdentity:
            return Act8iKind::kIdentity;
        case SimdConvolutionActivationRelu:
            return Act8iKind::kRelu;
        case SimdConvolutionActivationLeakyRelu:
        case SimdConvolutionActivationPrelu:
            return Act8iKind::kSlope;
        case SimdConvolutionActivationRestrictRange:
            return Act8iKind::kRange;
        case SimdConvolutionActivationHswish:
            return Act8iKind::kHswish;
        case SimdConvolutionActivationHardSigmoid:
            return Act8iKind::kHardSigmoid;
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
    } else if constexpr (kKind == Act8iKind::kRange) {
        return hn::Min(hn::Max(hn::Set(d, act.p0), x), hn::Set(d, act.p1));
    } else if constexpr (kKind == Act8iKind::kHswish) {
        const V shift = hn::Set(d, act.p0);
        return hn::Mul(
            hn::Mul(hn::Max(hn::Add(hn::Min(x, shift), shift), zero), hn::Set(d, act.p1)), x);
    } else if constexpr (kKind == Act8iKind::kHardSigmoid) {
        return hn::Max(zero, hn::Min(hn::Add(hn::Mul(x, hn::Set(d, act.p0)), hn::Set(d, act.p1)),
                                     hn::Set(d, 1.0f)));
    } else {
        return conv32f::Activate(d, x, zero, act);
    }
}

template <Act8iKind kKind>
using Act8iKindConstant = std::integral_constant<Act8iKind, kKind>;

// f(Act8iKindConstant<kind of type>()): the one switch from an activation to the code written
// out for its kind (epilogues, fused rings, Activate8iAny).
template <class F>
HWY_INLINE decltype(auto) WithAct8iKind(SimdConvolutionActivationType type, const F& f) {
    switch (Act8iKindOf(type)) {
        case Act8iKind::kIdentity:
            return f(Act8iKindConstant<Act8iKind::kIdentity>());
        case Act8iKind::kRelu:
            return f(Act8iKindConstant<Act8iKind::kRelu>());
        case Act8iKind::kSlope:
            return f(Act8iKindConstant<Act8iKind::kSlope>());
        case Act8iKind::kRange:
            return f(Act8iKindConstant<Act8iKind::kRange>());
        case Act8iKind::kHswish:
            return f(Act8iKindConstant<Act8iKind::kHswish>());
        case Act8iKind::kHardSigmoid:
            return f(Act8iKindConstant<Act8iKind::kHardSigmoid>());
        default:
            return f(Act8iKindConstant<Act8iKind::kOther>());
    }
}

// Activate8i with the kind chosen at run time (for code that applies it once per vector).
template <class D, class V>
HWY_INLINE V Activate8iAny(D d, V x, V slope, const conv32f::Act& act) {
    return WithAct8iKind(act.type, [&](auto kind) HWY_ATTR {
        return Activate8i<decltype(kind)::value>(d, x, slope, act);
    });
}

// §7.4 for values that went through an activation: v = x*scale + zero, NaN and negatives to 0,
// at most upper, rounded to nearest even; the integers in 32-bit lanes.
template <bool kShift = true, class D, class V>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> QuantizeOutput(D d, V x, V scale, V zero, V upper) {
    // !kShift: the zero point is 0, and adding +0 changes no value but -0, which rounds to 0.
    const V v = kShift ? hn::Add(hn::Mul(x, scale), zero) : hn::Mul(x, scale);
#if SIMD_SYNET_INT8_X86
    // MINPS returns its second operand when either is NaN, so NaN stays NaN, and CVTPS2DQ (which
    // rounds to nearest even) turns NaN and -inf into INT_MIN; the saturating demotion or packs
    // that follow map it and every negative value to 0. Highway's NearestInt would add a
    // correction of out-of-range values that costs four more operations per vector.
    (void)d;
    const V clamped = hn::Min(upper, v);
#if HWY_TARGET == HWY_AVX3
    return hn::Vec512<int32_t>{_mm512_cvtps_epi32(clamped.raw)};
#elif HWY_TARGET == HWY_AVX2
    return hn::Vec256<int32_t>{_mm256_cvtps_epi32(clamped.raw)};
#else
    return hn::Vec128<int32_t>{_mm_cvtps_epi32(clamped.raw)};
#endif
#else
    return hn::NearestInt(hn::Min(hn::IfThenElseZero(hn::Ge(v, hn::Zero(d)), v), upper));
#endif
}

#if SIMD_SYNET_INT8_X86
// Four vectors of QuantizeOutput (lanes 0..L-1 of each, in order) as 4*L consecutive bytes, of
// which the first `n` are stored: PACKSSDW and PACKUSWB (saturating, so negatives become 0) work
// within 128-bit blocks, then a 32-bit lane permutation restores the order across blocks.
// kBlockOrder: the four vectors hold their values in block order (value 16*b + 4*k + i in lane
// 4*b + i of vector k, see BlockOrderChannel), which the packs alone put in order.
template <bool kBlockOrder = false, class VI>
HWY_INLINE void StoreBytes4(VI a, VI b, VI c, VI e, uint8_t* to, size_t n) {
#if HWY_TARGET == HWY_AVX3
    const __m512i packed =
        _mm512_packus_epi16(_mm512_packs_epi32(a.raw, b.raw), _mm512_packs_epi32(c.raw, e.raw));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i bytes = kBlockOrder ? packed : _mm512_permutexvar_epi32(order, packed);
    if (n == 64) return _mm512_storeu_si512(to, bytes);
    if (n == 32)
        return _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm512_castsi512_si256(bytes));
    if (n == 16)
        return _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm512_castsi512_si128(bytes));
    alignas(64) uint8_t part[64];
    _mm512_store_si512(part, bytes);
#elif HWY_TARGET == HWY_AVX2
    const __m256i packed =
        _mm256_packus_epi16(_mm256_packs_epi32(a.raw, b.raw), _mm256_packs_epi32(c.raw, e.raw));
    const __m256i bytes = kBlockOrder ? packed
                                      : _mm256_permutevar8x32_epi32(
                                            packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    if (n == 32) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), bytes);
    if (n == 16)
        return _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm256_castsi256_si128(bytes));
    alignas(32) uint8_t part[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(part), bytes);
#else
    const __m128i bytes =
        _mm_packus_epi16(_mm_packs_epi32(a.raw, b.raw), _mm_packs_epi32(c.raw, e.raw));
    if (n == 16) return _mm_storeu_si128(reinterpret_cast<__m128i*>(to), bytes);
    if (n == 8) return _mm_storel_epi64(reinterpret_cast<__m128i*>(to), bytes);
    alignas(16) uint8_t part[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(part), bytes);
#endif
    std::memcpy(to, part, n);
}
#endif

// Block order of 4*L values (L int32 lanes): index k*L + j holds value 16*(j/4) + 4*k + j%4, the
// order in which the depthwise kernels' in-block interleaves of four rows leave the channels of
// a block stored in order (Kernels8i.h), and which StoreBytes4<true> restores. The identity for
// L = 4.
inline size_t BlockOrderChannel(size_t index, size_t L) {
    const size_t k = index / L, j = index % L;
    return 16 * (j / 4) + 4 * k + j % 4;
}

// Output values of `rows` x `cols` sums (tile rows `tileStride` int32 apart) into out (rows
// `outStride` elements apart; FP32 or UINT8 by kDst8). Parameters are loaded once per vector
// of channels and reused down the rows; on x86 UINT8 outputs go four vectors at a time.
// kBlockOrder (x86 UINT8 only): each group of 4*L sums and parameters in block order
// (BlockOrderChannel), `cols` counted in output channels.
template <Act8iKind kKind, bool kDst8, bool kShift, bool kBlockOrder = false>
HWY_INLINE void EpilogueRows8i(const int32_t* tile, size_t tileStride, size_t rows, size_t cols,
                               const OutputParams& op, uint8_t* out, size_t outStride) {
    const hn::ScalableTag<float> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<uint8_t, decltype(d)> du8;
    const size_t L = hn::Lanes(d);
    using T = std::conditional_t<kDst8, uint8_t, float>;
    T* o = reinterpret_cast<T*>(out);
    const auto zero = hn::Set(d, op.zero), upper = hn::Set(d, op.upper);
    // y of channels [j, j + L) of tile row r; parameter vectors as loaded at j.
    struct Params {
        hn::Vec<decltype(d)> norm, bias, slope, scale;
    };
    const auto paramsAt = [&](size_t j) HWY_ATTR {
        // Whole vectors: the arrays are padded past every block.
        return Params{hn::LoadU(d, op.norm + j), hn::LoadU(d, op.bias + j),
                      op.slope ? hn::LoadU(d, op.slope + j) : hn::Zero(d),
                      kDst8 ? hn::LoadU(d, op.scale + j) : hn::Zero(d)};
    };
    const auto value = [&](const Params& p, size_t r, size_t j) HWY_ATTR {
        const auto sum = hn::ConvertTo(d, hn::LoadU(di, tile + r * tileStride + j));
        return Activate8i<kKind>(d, hn::Add(hn::Mul(sum, p.norm), p.bias), p.slope, op.act);
    };
    size_t j = 0;
#if SIMD_SYNET_INT8_X86
    if constexpr (kDst8) {
        // Channels [j, j + 4L) of every row, n of them stored.
        const auto group = [&](size_t j, size_t n) HWY_ATTR {
            const Params p0 = paramsAt(j), p1 = paramsAt(j + L), p2 = paramsAt(j + 2 * L),
                         p3 = paramsAt(j + 3 * L);
            for (size_t r = 0; r < rows; ++r)
                StoreBytes4<kBlockOrder>(
                    QuantizeOutput<kShift>(d, value(p0, r, j), p0.scale, zero, upper),
                    QuantizeOutput<kShift>(d, value(p1, r, j + L), p1.scale, zero, upper),
                    QuantizeOutput<kShift>(d, value(p2, r, j + 2 * L), p2.scale, zero, upper),
                    QuantizeOutput<kShift>(d, value(p3, r, j + 3 * L), p3.scale, zero, upper),
                    o + r * outStride + j, n);
        };
        // Rows of L or 2L channels stored back to back in the tile and in out (NHWC outputs of
        // a layer with that many channels): one run of rows * cols values, four vectors at a
        // time, their parameters repeating every cols / L vectors; one pack and store per 4L
        // values instead of per row (e_3x3s2_3-32_224, 32 channels, on Zen 5: 72.4 -> 69.9 us a
        // call).
        if (!kBlockOrder && cols == tileStride && cols == outStride && cols % L == 0 &&
            cols < 4 * L && (4 * L) % cols == 0) {
            // cols is L or 2L: vectors 0 and 2 of a group take the parameters of channel 0,
            // vectors 1 and 3 those of channel cols - L (0 or L).
            const size_t n = rows * cols;
            const Params p0 = paramsAt(0), p1 = paramsAt(cols - L);
            const Params &q1 = p1, &q2 = p0, &q3 = p1;
            size_t i = 0;
            for (; i + 4 * L <= n; i += 4 * L)
                StoreBytes4(
                    QuantizeOutput<kShift>(d, value(p0, 0, i), p0.scale, zero, upper),
                    QuantizeOutput<kShift>(d, value(q1, 0, i + L), q1.scale, zero, upper),
                    QuantizeOutput<kShift>(d, value(q2, 0, i + 2 * L), q2.scale, zero, upper),
                    QuantizeOutput<kShift>(d, value(q3, 0, i + 3 * L), q3.scale, zero, upper),
                    o + i, 4 * L);
            // The last rows (fewer than 4L values, whole vectors), the first vector repeated in
            // the unused places.
            if (i < n) {
                const size_t m = n - i;
                const auto v0 = QuantizeOutput<kShift>(d, value(p0, 0, i), p0.scale, zero, upper);
                const auto v1 =
                    m > L ? QuantizeOutput<kShift>(d, value(q1, 0, i + L), q1.scale, zero, upper)
                          : v0;
                const auto v2 = m > 2 * L ? QuantizeOutput<kShift>(d, value(q2, 0, i + 2 * L),
                                                                   q2.scale, zero, upper)
                                          : v0;
                StoreBytes4(v0, v1, v2, v0, o + i, m);
            }
            return;
        }
        for (; j + 4 * L <= cols; j += 4 * L) group(j, 4 * L);
        // The last partial group (up to 4*L - 1 channels) through the same packs, the first
        // vector repeated in the unused places (block order: every vector holds some of the
        // first channels, and the padded sums and parameters are zero).
        if (j < cols && kBlockOrder) return group(j, cols - j);
        if (j < cols) {
            const size_t n = cols - j;
            const Params p0 = paramsAt(j), p1 = paramsAt(n > L ? j + L : j),
                         p2 = paramsAt(n > 2 * L ? j + 2 * L : j),
                         p3 = paramsAt(n > 3 * L ? j + 3 * L : j);
            for (size_t r = 0; r < rows; ++r) {
                const auto q0 = QuantizeOutput<kShift>(d, value(p0, r, j), p0.scale, zero, upper);
                const auto q1 =
                    n > L ? QuantizeOutput<kShift>(d, value(p1, r, j + L), p1.scale, zero, upper)
                          : q0;
                const auto q2 = n > 2 * L ? QuantizeOutput<kShift>(d, value(p2, r, j + 2 * L),
                                                                   p2.scale, zero, upper)
                                          : q0;
                const auto q3 = n > 3 * L ? QuantizeOutput<kShift>(d, value(p3, r, j + 3 * L),
                                                                   p3.scale, zero, upper)
                                          : q0;
                StoreBytes4(q0, q1, q2, q3, o + r * outStride + j, n);
            }
            return;
        }
    }
#endif
    static_assert(!kBlockOrder || (kDst8 && SIMD_SYNET_INT8_X86), "block order: x86 UINT8 only");
    for (; j < cols; j += L) {
        const size_t n = cols - j < L ? cols - j : L;
        const Params p = paramsAt(j);
        for (size_t r = 0; r < rows; ++r) {
            const auto y = value(p, r, j);
            T* to = o + r * outStride + j;
            if constexpr (kDst8) {
                const auto bytes = hn::DemoteTo(du8, QuantizeOutput(d, y, p.scale, zero, upper));
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

template <Act8iKind kKind, bool kDst8, bool kBlockOrder = false>
HWY_NOINLINE void Epilogue8i(const int32_t* tile, size_t tileStride, size_t rows, size_t cols,
                             const OutputParams& op, uint8_t* out, size_t outStride) {
#if SIMD_SYNET_INT8_X86
    // ReLU into UINT8 with zero point 0: max(y, 0) * scale and y * scale quantize alike, as
    // CVTPS2DQ and the saturating packs take negatives, -inf and NaN (MINPS keeps it) to 0; so
    // no max and no add of the zero point: 7 operations per vector instead of 9
    // (e_3x3s2_3-32_224 NHWC UINT8 on Zen 5, 1 thread: 86 -> 75 us a call).
    if constexpr (kKind == Act8iKind::kRelu && kDst8)
        if (op.zero == 0.0f)
            return EpilogueRows8i<Act8iKind::kIdentity, true, false, kBlockOrder>(
                tile, tileStride, rows, cols, op, out, outStride);
#endif
    EpilogueRows8i<kKind, kDst8, true, kBlockOrder>(tile, tileStride, rows, cols, op, out,
                                                    outStride);
}

}  // namespace conv8i
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
