// UINT8 <-> FP32 conversions with per-channel scale and shift: SimdSynetConvert32fTo8u
// (SUPPLEMENT.md §7.4) and SimdSynetConvert8uTo32f (§7.5).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conversion/Quantize.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// restrict(round(x*scale + shift), 0, upper) as a float holding a whole number.
//
// The product and the sum are separate FP32 operations (no FMA), so the result is bit-exact.
// Clamping before rounding gives the same result as rounding first (0 and upper are whole
// numbers and rounding is monotonic) and leaves only values in [0, upper] to round:
//  - Ge(v, 0) is false for NaN and negatives, so both become 0; +inf and huge values are
//    caught by the Min (saturation to upper, as §7.4 asks).
//  - For 0 <= v < 2^22, (v + 2^23) - 2^23 rounds v to the nearest whole number with ties to
//    even, because the addition itself rounds to the nearest representable value (spacing 1
//    in [2^23, 2^24)) in the IEEE default mode. This is exact on every target, unlike a
//    round instruction emulated with "add 0.5 and truncate".
struct Convert32fTo8uOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 2;
    float upper;
    template <class D, class V>
    HWY_INLINE V operator()(D d, V x, V, V scale, V shift, V) const {
        const V value = hn::Add(hn::Mul(x, scale), shift);
        const V nonNegative = hn::IfThenElseZero(hn::Ge(value, hn::Zero(d)), value);
        const V clamped = hn::Min(nonNegative, hn::Set(d, upper));
        const V magic = hn::Set(d, 8388608.0f);  // 2^23
        return hn::Sub(hn::Add(clamped, magic), magic);
    }
};

// float(src)*scale + shift; the LIN class allows the fused form.
struct Convert8uTo32fOp {
    static constexpr int kInputs = 1;
    static constexpr int kParams = 2;
    template <class D, class V>
    HWY_INLINE V operator()(D, V x, V, V scale, V shift, V) const {
        return hn::MulAdd(x, scale, shift);
    }
};

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

void Convert32fTo8u(const float* src, size_t batch, size_t channels, size_t spatial, bool nhwc,
                    const float* scale, const float* shift, float upper, uint8_t* dst) {
    BatchPerChannel(Convert32fTo8uOp{upper}, src, batch, channels, spatial, nhwc, scale, shift,
                    dst);
}

void Convert8uTo32f(const uint8_t* src, size_t batch, size_t channels, size_t spatial, bool nhwc,
                    const float* scale, const float* shift, float* dst) {
    BatchPerChannel(Convert8uTo32fOp{}, src, batch, channels, spatial, nhwc, scale, shift, dst);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
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
    HWY_DYNAMIC_DISPATCH(simd::Convert32fTo8u)
    (src, batch, channels, spatial, format == SimdTensorFormatNhwc, scale, shift,
     narrowed ? 180.0f : 255.0f, dst);
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
    HWY_DYNAMIC_DISPATCH(simd::Convert8uTo32f)
    (src, batch, channels, spatial, format == SimdTensorFormatNhwc, scale, shift, dst);
}
#endif  // HWY_ONCE
