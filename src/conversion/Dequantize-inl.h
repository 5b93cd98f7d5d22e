// Row kernel shared by SimdSynetConvert8uTo32f and SimdSynetSetInput: dst[i] = float(src[i]) *
// k(i) + b(i), where the per-element parameters k, b repeat with a short period (a single
// channel, or the channel pattern of a pixel-interleaved row).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVERSION_DEQUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVERSION_DEQUANTIZE_INL_H_
#undef SIMD_SYNET_CONVERSION_DEQUANTIZE_INL_H_
#else
#define SIMD_SYNET_CONVERSION_DEQUANTIZE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "core/Loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// Parameters of a row: element i uses k[i % period], b[i % period]. `period` is L, 2L, 3L or 4L
// (L = float lanes) and both arrays hold the pattern twice (2*period floats), so that a vector
// of parameters can be loaded at any phase.
struct DequantizePattern {
    const float* k;
    const float* b;
    size_t period;
};

// Largest pattern: 4 vectors of the widest target, stored twice.
constexpr size_t kMaxDequantizePattern = 2 * 4 * 64;

// Fills a DequantizePattern's arrays with `count` values repeated to 2*period floats (period a
// multiple of count).
HWY_INLINE void FillPattern(const float* values, size_t count, size_t period, float* dst) {
    for (size_t j = 0; j < 2 * period; ++j) dst[j] = values[j % count];
}

template <class D>
HWY_INLINE hn::Vec<D> DequantizeAt(D d, const uint8_t* src, const DequantizePattern& p, size_t i) {
    return hn::MulAdd(LoadAsFloat(d, src + i), hn::LoadU(d, p.k + i % p.period),
                      hn::LoadU(d, p.b + i % p.period));
}

// The row loop. The parameters of the main loop stay in registers: kU vectors per step, with
// kU a multiple of period/L (kU = 4 for periods L, 2L, 4L; kU = 3 for 3L). The last partial
// vector is recomputed as an overlapping whole vector ending at the row end (dst never aliases
// src here), so only rows shorter than a vector take the 1-lane path. With kStream the main
// loop stores non-temporally (aligned; a few leading elements are done one at a time).
template <bool kStream, size_t kU>
HWY_INLINE void DequantizeRow(const uint8_t* src, size_t n, const DequantizePattern& p,
                              float* dst) {
    const DF d;
    const DF1 d1;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    if (n < L) {
        for (; i < n; ++i) hn::StoreU(DequantizeAt(d1, src, p, i), d1, dst + i);
        return;
    }
    for (const size_t head = HeadForAlignment<kStream>(dst, n); i < head; ++i)
        hn::StoreU(DequantizeAt(d1, src, p, i), d1, dst + i);
    if (n - i >= kU * L) {
        const size_t phase = i % p.period;
        const auto at = [&](size_t u) { return (phase + u * L) % p.period; };
        const auto k0 = hn::LoadU(d, p.k + at(0)), b0 = hn::LoadU(d, p.b + at(0));
        const auto k1 = hn::LoadU(d, p.k + at(1)), b1 = hn::LoadU(d, p.b + at(1));
        const auto k2 = hn::LoadU(d, p.k + at(2)), b2 = hn::LoadU(d, p.b + at(2));
        const auto k3 = hn::LoadU(d, p.k + at(3 % kU)), b3 = hn::LoadU(d, p.b + at(3 % kU));
        for (; i <= n - kU * L; i += kU * L) {
            const auto v0 = hn::MulAdd(LoadAsFloat(d, src + i + 0 * L), k0, b0);
            const auto v1 = hn::MulAdd(LoadAsFloat(d, src + i + 1 * L), k1, b1);
            const auto v2 = hn::MulAdd(LoadAsFloat(d, src + i + 2 * L), k2, b2);
            StoreMain<kStream>(d, v0, dst + i + 0 * L);
            StoreMain<kStream>(d, v1, dst + i + 1 * L);
            StoreMain<kStream>(d, v2, dst + i + 2 * L);
            if (kU == 4)
                StoreMain<kStream>(d, hn::MulAdd(LoadAsFloat(d, src + i + 3 * L), k3, b3),
                                   dst + i + 3 * L);
        }
    }
    for (; i + L <= n; i += L) hn::StoreU(DequantizeAt(d, src, p, i), d, dst + i);
    if (i < n) hn::StoreU(DequantizeAt(d, src, p, n - L), d, dst + n - L);
}

// Pattern period (in elements) for `channels` interleaved channels: lcm(channels, L) when it is
// L, 2L, 3L or 4L, else 0 (the caller then needs another path).
HWY_INLINE size_t DequantizePeriod(size_t channels) {
    const size_t L = hn::Lanes(DF());
    const size_t lcm = channels / Gcd(channels, L) * L;
    return lcm <= 4 * L ? lcm : 0;
}

// Dispatches on the unroll the period needs (kStream fixed by the caller).
template <bool kStream>
HWY_INLINE void DequantizeRowAnyPeriod(const uint8_t* src, size_t n, const DequantizePattern& p,
                                       float* dst) {
    if (p.period == 3 * hn::Lanes(DF()))
        DequantizeRow<kStream, 3>(src, n, p, dst);
    else
        DequantizeRow<kStream, 4>(src, n, p, dst);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // SIMD_SYNET_CONVERSION_DEQUANTIZE_INL_H_
