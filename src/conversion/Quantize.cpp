// UINT8 <-> FP32 conversions with per-channel scale and shift: SimdSynetConvert32fTo8u
// (SUPPLEMENT.md §7.4) and SimdSynetConvert8uTo32f (§7.5).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conversion/Quantize.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "core/Loops-inl.h"
#include "core/PerChannel-inl.h"
#include "conversion/Layout-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Helpers have internal linkage: other families may name theirs alike.
namespace {

// ----------------------------------------------------------------------------------------------
// FP32 -> UINT8: restrict(round(x*scale + shift), 0, upper), bit-exact.
//
// The product and the sum are separate FP32 operations (no FMA). Clamping at 0 before rounding
// and at upper after it gives the rule's result (0 and upper are whole numbers and rounding is
// monotonic). Rounding uses the FP adder: for 0 <= v < 2^22, v + 2^23 is rounded by the
// addition itself to the nearest whole number, ties to even (the spacing of floats in
// [2^23, 2^24) is 1), and its bit pattern is 0x4B000000 + round(v). Bit patterns of
// non-negative floats order like the values, so an unsigned Min against the pattern of
// 2^23 + upper clamps from above, infinities and huge values included. This is exact on every
// target, unlike a "round" emulated with an added 0.5.

// max(v, 0) with NaN -> 0. x86 MAXPS returns its second operand when either is NaN, which
// Highway's Max(a, b) passes through on the x86 SIMD targets; elsewhere compare and select.
template <class D, class V>
HWY_INLINE V ZeroIfNegativeOrNaN(D d, V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
    return hn::Max(v, hn::Zero(d));
#else
    return hn::IfThenElseZero(hn::Ge(v, hn::Zero(d)), v);
#endif
}

// The pattern 0x4B000000 + r of 2^23 + r, r = the quantized value in [0, upper].
template <class D, class V, class VU>
HWY_INLINE VU QuantizedBits(D d, V x, V scale, V shift, VU upperBits) {
    const hn::RebindToUnsigned<D> du;
    const V value = hn::Add(hn::Mul(x, scale), shift);
    const V biased = hn::Add(ZeroIfNegativeOrNaN(d, value), hn::Set(d, 8388608.0f));
    return hn::Min(hn::BitCast(du, biased), upperBits);
}

// Narrows four vectors of QuantizedBits (elements i, i + L, i + 2L, i + 3L of a row) to 4L
// consecutive bytes with two shuffles: the four low bytes are merged into every 32-bit lane
// (shifts and OR; the 0x4B of b0's top byte is cancelled by an XOR), a byte shuffle within each
// 128-bit block transposes the 4x4 bytes of the block, and a 32-bit lane permutation puts the
// blocks' 4-byte groups in order (not needed with a single block).
template <class DU>
class BytePacker {
public:
    explicit BytePacker(DU du) {
        const size_t L = hn::Lanes(du), blocks = L / 4;
        HWY_ALIGN uint32_t order[kMaxLanes];
        // After the byte shuffle, lane 4*b + k holds elements 4b..4b+3 of vector k; they go to
        // lane k*blocks + b.
        for (size_t lane = 0; lane < L && lane < kMaxLanes; ++lane)
            order[lane] = blocks > 0 ? uint32_t(4 * (lane % blocks) + lane / blocks) : 0;
        indices_ = hn::SetTableIndices(du, order);
    }
    template <class VU>
    HWY_INLINE void Store(DU du, VU b0, VU b1, VU b2, VU b3, uint8_t* dst) const {
#if HWY_TARGET == HWY_SCALAR
        (void)du;
        dst[0] = static_cast<uint8_t>(hn::GetLane(b0));  // the low byte of each pattern
        dst[1] = static_cast<uint8_t>(hn::GetLane(b1));
        dst[2] = static_cast<uint8_t>(hn::GetLane(b2));
        dst[3] = static_cast<uint8_t>(hn::GetLane(b3));
#else
        const hn::Repartition<uint8_t, DU> du8;
        const VU merged = hn::Or3(hn::Xor3(b0, hn::ShiftLeft<24>(b3), hn::Set(du, 0x4B000000u)),
                                  hn::ShiftLeft<8>(b1), hn::ShiftLeft<16>(b2));
        const size_t L = hn::Lanes(du);
        alignas(16) static constexpr uint8_t kTranspose[16] = {0, 4, 8,  12, 1, 5, 9,  13,
                                                               2, 6, 10, 14, 3, 7, 11, 15};
        const auto bytes =
            hn::TableLookupBytes(hn::BitCast(du8, merged), hn::LoadDup128(du8, kTranspose));
        if (L == 4) {
            hn::StoreU(bytes, du8, dst);
            return;
        }
        hn::StoreU(hn::BitCast(du8, hn::TableLookupLanes(hn::BitCast(du, bytes), indices_)), du8,
                   dst);
#endif
    }

    // The 32-bit lane permutation alone (lane 4*b + k to lane k*blocks + b).
    template <class VU>
    HWY_INLINE VU Reorder(VU v) const {
        return hn::TableLookupLanes(v, indices_);
    }

private:
    static constexpr size_t kMaxLanes = 64;
    decltype(hn::SetTableIndices(DU(), static_cast<const uint32_t*>(nullptr))) indices_;
};

// AVX2 and AVX-512 only: the SSE4 target keeps the portable path, so that the x86 test runs
// exercise it too (it is what NEON and SVE run). Re-evaluated for every target.
#undef SIMD_SYNET_QUANTIZE_X86
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define SIMD_SYNET_QUANTIZE_X86 1
#else
#define SIMD_SYNET_QUANTIZE_X86 0
#endif

#if SIMD_SYNET_QUANTIZE_X86
// x86 main loop: four vectors of v = x*scale + shift become 4L bytes with
//     r = CVTPS2DQ(MINPS(255, v))  -> PACKSSDW (pairs) -> PACKUSWB -> 32-bit lane permutation
// 20 operations where the portable path needs 27. CVTPS2DQ rounds in the current mode (nearest,
// ties to even, as the rule wants) and returns INT_MIN for NaN and out-of-range values; MINPS
// returns its second operand when either is NaN, so NaN stays NaN until then, and +inf and huge
// values become 255. The saturating packs map everything negative (INT_MIN included) to 0 and
// clamp at 255. Highway's NearestInt would "fix" a positive NaN to INT_MAX and its 2-input
// narrowing to bytes does not exist in 1.0.3, hence the two raw intrinsics.
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> RoundToInt(hn::Vec<DF> v) {
#if HWY_TARGET == HWY_AVX2
    return hn::Vec256<int32_t>{_mm256_cvtps_epi32(v.raw)};
#else
    return hn::Vec512<int32_t>{_mm512_cvtps_epi32(v.raw)};
#endif
}

// PACKUSWB: each 128-bit block holds a's 8 lanes then b's 8 lanes, saturated to [0, 255].
HWY_INLINE hn::Vec<hn::Repartition<uint8_t, DF>> PackUnsignedSaturate(
    hn::Vec<hn::Repartition<int16_t, DF>> a, hn::Vec<hn::Repartition<int16_t, DF>> b) {
#if HWY_TARGET == HWY_AVX2
    return hn::Vec256<uint8_t>{_mm256_packus_epi16(a.raw, b.raw)};
#else
    return hn::Vec512<uint8_t>{_mm512_packus_epi16(a.raw, b.raw)};
#endif
}

// 4L bytes from the four vectors of x*scale + shift (before any clamping).
template <class VF>
HWY_INLINE void StoreQuantized4(VF v0, VF v1, VF v2, VF v3,
                                hn::Vec<hn::Repartition<uint8_t, DF>> upper,
                                const BytePacker<hn::RebindToUnsigned<DF>>& packer, uint8_t* dst) {
    const DF d;
    const hn::Repartition<int16_t, DF> di16;
    const hn::Repartition<uint8_t, DF> du8;
    const hn::RebindToUnsigned<DF> du;
    const auto limit = hn::Set(d, 255.0f);
    const auto r0 = RoundToInt(hn::Min(limit, v0)), r1 = RoundToInt(hn::Min(limit, v1));
    const auto r2 = RoundToInt(hn::Min(limit, v2)), r3 = RoundToInt(hn::Min(limit, v3));
    // Block q now holds 4-byte groups r0[4q..], r1[4q..], r2[4q..], r3[4q..].
    auto bytes = PackUnsignedSaturate(hn::ReorderDemote2To(di16, r0, r1),
                                      hn::ReorderDemote2To(di16, r2, r3));
    bytes = hn::BitCast(du8, packer.Reorder(hn::BitCast(du, bytes)));
    hn::StoreU(hn::Min(bytes, upper), du8, dst);
}
#endif

// Quantizes n consecutive elements. With kPattern, scale[i]/shift[i] belong to element i;
// otherwise scale[0]/shift[0] apply to all.
template <bool kPattern>
HWY_INLINE void QuantizeRow(const float* src, size_t n, const float* scale, const float* shift,
                            uint32_t upper, const BytePacker<hn::RebindToUnsigned<DF>>& packer,
                            uint8_t* dst) {
    const DF d;
    const hn::RebindToUnsigned<DF> du;
    const size_t L = hn::Lanes(d);
    const auto upperBits = hn::Set(du, 0x4B000000u + upper);
    const auto scaleAll = hn::Set(d, scale[0]), shiftAll = hn::Set(d, shift[0]);
    const auto bitsAt = [&](auto dd, size_t i, auto upperB) {
        if (kPattern)
            return QuantizedBits(dd, hn::LoadU(dd, src + i), hn::LoadU(dd, scale + i),
                                 hn::LoadU(dd, shift + i), upperB);
        return QuantizedBits(dd, hn::LoadU(dd, src + i), hn::Set(dd, scale[0]),
                             hn::Set(dd, shift[0]), upperB);
    };
    size_t i = 0;
#if SIMD_SYNET_QUANTIZE_X86
    const auto upper8 = hn::Set(hn::Repartition<uint8_t, DF>(), static_cast<uint8_t>(upper));
    const auto valueAt = [&](size_t j) {
        if (kPattern)
            return hn::Add(hn::Mul(hn::LoadU(d, src + j), hn::LoadU(d, scale + j)),
                           hn::LoadU(d, shift + j));
        return hn::Add(hn::Mul(hn::LoadU(d, src + j), scaleAll), shiftAll);
    };
    if (n >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L)
            StoreQuantized4(valueAt(i), valueAt(i + L), valueAt(i + 2 * L), valueAt(i + 3 * L),
                            upper8, packer, dst + i);
    }
#endif
    if (n >= 4 * L) {
        for (; i <= n - 4 * L; i += 4 * L) {
            if (kPattern) {
                packer.Store(du, bitsAt(d, i, upperBits), bitsAt(d, i + L, upperBits),
                             bitsAt(d, i + 2 * L, upperBits), bitsAt(d, i + 3 * L, upperBits),
                             dst + i);
            } else {
                const auto at = [&](size_t j) {
                    return QuantizedBits(d, hn::LoadU(d, src + j), scaleAll, shiftAll, upperBits);
                };
                packer.Store(du, at(i), at(i + L), at(i + 2 * L), at(i + 3 * L), dst + i);
            }
        }
    }
    // Single vectors, then single lanes: the value is the low byte of the pattern.
    const hn::Rebind<uint8_t, DF> du8;
    for (; i + L <= n; i += L) {
        const auto bits = hn::And(bitsAt(d, i, upperBits), hn::Set(du, 0xFFu));
        hn::StoreU(hn::U8FromU32(bits), du8, dst + i);
    }
    const DF1 d1;
    const hn::RebindToUnsigned<DF1> du1;
    const hn::Rebind<uint8_t, DF1> du81;
    for (; i < n; ++i) {
        const auto bits =
            hn::And(bitsAt(d1, i, hn::Set(du1, 0x4B000000u + upper)), hn::Set(du1, 0xFFu));
        hn::StoreU(hn::U8FromU32(bits), du81, dst + i);
    }
}

#if SIMD_SYNET_QUANTIZE_X86
// NHWC whose channel pattern repeats every kP vectors (kP = lcm(C, L)/L <= 4; `scale`/`shift`
// hold the pattern from phase 0 at src): the kP distinct parameter vectors stay in registers
// and the loop loads only the data. A step is lcm(kP, 4) vectors (12 for kP = 3, else 4), so
// every vector's parameters are known at compile time. Returns the elements done.
template <size_t kP>
HWY_INLINE size_t QuantizeRegisterPattern(const float* src, size_t n, const float* scale,
                                          const float* shift, uint32_t upper,
                                          const BytePacker<hn::RebindToUnsigned<DF>>& packer,
                                          uint8_t* dst) {
    const DF d;
    constexpr size_t kVectors = kP == 3 ? 12 : 4;
    const size_t L = hn::Lanes(d), step = kVectors * L;
    const auto upper8 = hn::Set(hn::Repartition<uint8_t, DF>(), static_cast<uint8_t>(upper));
    hn::Vec<DF> k[kP], b[kP];
    for (size_t j = 0; j < kP; ++j) {
        k[j] = hn::LoadU(d, scale + j * L);
        b[j] = hn::LoadU(d, shift + j * L);
    }
    const auto value = [&](const float* x, size_t j) {
        return hn::Add(hn::Mul(hn::LoadU(d, x + j * L), k[j % kP]), b[j % kP]);
    };
    size_t i = 0;
    for (; i + step <= n; i += step) {
#pragma GCC unroll 3
        for (size_t t = 0; t < kVectors; t += 4)
            StoreQuantized4(value(src + i, t), value(src + i, t + 1), value(src + i, t + 2),
                            value(src + i, t + 3), upper8, packer, dst + i + t * L);
    }
    return i;
}
#endif

// dst[j] = values[j % count] for j < total (a multiple of count): the first copy, then
// doubling copies (an element-by-element loop with a wrapping index, or memcpy calls, cost as
// much as quantizing a small tensor).
HWY_INLINE void RepeatPattern(const float* values, size_t count, size_t total, float* dst) {
    CopyFloats(values, count, dst);
    for (size_t filled = count; filled < total;) {
        const size_t chunk = filled < total - filled ? filled : total - filled;
        CopyFloats(dst, chunk, dst + filled);  // inline copies: these are short
        filled += chunk;
    }
}

}  // namespace

void Convert32fTo8u(const float* src, size_t batch, size_t channels, size_t spatial, bool nhwc,
                    const float* scale, const float* shift, uint32_t upper, uint8_t* dst) {
    const hn::RebindToUnsigned<DF> du;
    const BytePacker<hn::RebindToUnsigned<DF>> packer(du);
    if (!nhwc) {
        for (size_t b = 0; b < batch; ++b)
            for (size_t c = 0; c < channels; ++c, src += spatial, dst += spatial)
                QuantizeRow<false>(src, spatial, scale + c, shift + c, upper, packer, dst);
        return;
    }
    // NHWC: the tensor is one stream whose parameters repeat with period C. Spread them over a
    // pattern of whole 4-vector steps (and whole pixels) so the main loop loads them directly.
    const size_t step = 4 * hn::Lanes(du), n = batch * spatial * channels;
    constexpr size_t kMaxPattern = 1024;
    const size_t lcm = channels / Gcd(channels, step) * step;
    if (lcm > kMaxPattern) {  // wide pixels: the parameter arrays are the pattern of one pixel
        for (size_t s = 0; s < batch * spatial; ++s)
            QuantizeRow<true>(src + s * channels, channels, scale, shift, upper, packer,
                              dst + s * channels);
        return;
    }
    HWY_ALIGN float scales[kMaxPattern], shifts[kMaxPattern];
#if SIMD_SYNET_QUANTIZE_X86
    // Channel patterns of up to 4 vectors (C = 1, 2, 3, 4, 6, 8, 12, 16, ... on AVX-512).
    const size_t vectors = channels / Gcd(channels, hn::Lanes(du));
    if (vectors <= 4) {
        RepeatPattern(scale, channels, lcm, scales);
        RepeatPattern(shift, channels, lcm, shifts);
        size_t done;
        if (vectors == 1)
            done = QuantizeRegisterPattern<1>(src, n, scales, shifts, upper, packer, dst);
        else if (vectors == 2)
            done = QuantizeRegisterPattern<2>(src, n, scales, shifts, upper, packer, dst);
        else if (vectors == 3)
            done = QuantizeRegisterPattern<3>(src, n, scales, shifts, upper, packer, dst);
        else
            done = QuantizeRegisterPattern<4>(src, n, scales, shifts, upper, packer, dst);
        QuantizeRow<true>(src + done, n - done, scales, shifts, upper, packer, dst + done);
        return;
    }
#endif
    // Whole periods of C channels and 4 vectors, as many as fit, but no more than the tensor
    // needs (filling the pattern costs as much as quantizing it).
    const size_t periods = (n + lcm - 1) / lcm;
    const size_t period = lcm * (periods < kMaxPattern / lcm ? periods : kMaxPattern / lcm);
    RepeatPattern(scale, channels, period, scales);
    RepeatPattern(shift, channels, period, shifts);
    for (size_t i = 0; i < n; i += period) {
        const size_t m = n - i < period ? n - i : period;
        QuantizeRow<true>(src + i, m, scales, shifts, upper, packer, dst + i);
    }
}

namespace {

// Runs `op` over `batch` images of channels x spatial. NHWC images of a batch form one long
// pixel-interleaved stream (the channel pattern continues across images); NCHW images are
// processed one after the other.
template <class Op, class TS, class TD>
HWY_INLINE void BatchPerChannel(const Op& op, const TS* src, size_t batch, size_t channels,
                                size_t spatial, bool nhwc, const float* scale, const float* shift,
                                TD* dst) {
    if (nhwc) {
        ChannelArgs<TS, TD> args{src, nullptr, {scale, shift, nullptr}, dst};
        PerChannel(op, channels, spatial * batch, 1, true, args);
        return;
    }
    const size_t image = channels * spatial;
    for (size_t b = 0; b < batch; ++b) {
        ChannelArgs<TS, TD> args{
            src + b * image, nullptr, {scale, shift, nullptr}, dst + b * image};
        PerChannel(op, channels, spatial, 1, false, args);
    }
}

}  // namespace

void Convert8uTo32f(const uint8_t* src, size_t batch, size_t channels, size_t spatial, bool nhwc,
                    const float* scale, const float* shift, float* dst) {
    // float(src)*scale + shift; the LIN class allows the fused form.
    BatchPerChannel(AffineOp{}, src, batch, channels, spatial, nhwc, scale, shift, dst);
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
HWY_EXPORT(Convert32fTo8u);
HWY_EXPORT(Convert8uTo32f);

namespace {

// Shared checks of the two quantization entry points: format, sizes (returns false with the
// error recorded, or with *empty set when there is nothing to do), then pointers.
bool ValidateQuantize(const char* function, const void* src, size_t batch, size_t channels,
                      size_t height, size_t width, SimdTensorFormatType format, const float* scale,
                      const float* shift, const void* dst, size_t* spatial, bool* empty) {
    if (format != SimdTensorFormatNchw && format != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: format %d is not Nchw or Nhwc", function,
                             static_cast<int>(format));
    *empty = batch == 0 || channels == 0 || height == 0 || width == 0;
    if (*empty) return true;
    size_t images;
    if (!CheckedMul(height, width, spatial) || !CheckedMul(batch, channels, &images) ||
        !FitsInMemory(images, *spatial, sizeof(float)))
        return SetLastErrorF("%s: batch * channels * height * width is too large for memory",
                             function);
    if (!src || !scale || !shift || !dst)
        return SetLastErrorF("%s: src, scale, shift and dst must not be NULL", function);
    return true;
}

}  // namespace
}  // namespace simd

SIMD_API void SimdSynetConvert32fTo8u(const float* src, size_t batch, size_t channels,
                                      size_t height, size_t width, SimdTensorFormatType format,
                                      const float* scale, const float* shift, uint8_t* dst,
                                      SimdSynetCompatibilityType compatibility) {
    simd::ClearLastError();
    size_t spatial = 0;
    bool empty = true;
    if (!simd::ValidateQuantize("SimdSynetConvert32fTo8u", src, batch, channels, height, width,
                                format, scale, shift, dst, &spatial, &empty) ||
        empty)
        return;
    const bool narrowed =
        (compatibility & SimdSynetCompatibility8iMask) == SimdSynetCompatibility8iNarrowed;
    SIMD_DISPATCH(simd::Convert32fTo8u)
    (src, batch, channels, spatial, format == SimdTensorFormatNhwc, scale, shift,
     narrowed ? 180u : 255u, dst);
}

SIMD_API void SimdSynetConvert8uTo32f(const uint8_t* src, size_t batch, size_t channels,
                                      size_t height, size_t width, SimdTensorFormatType format,
                                      const float* scale, const float* shift, float* dst,
                                      SimdSynetCompatibilityType /*compatibility*/) {
    simd::ClearLastError();
    size_t spatial = 0;
    bool empty = true;
    if (!simd::ValidateQuantize("SimdSynetConvert8uTo32f", src, batch, channels, height, width,
                                format, scale, shift, dst, &spatial, &empty) ||
        empty)
        return;
    SIMD_DISPATCH(simd::Convert8uTo32f)
    (src, batch, channels, spatial, format == SimdTensorFormatNhwc, scale, shift, dst);
}
#endif  // HWY_ONCE
