// Data movement of the FP32 convolution family, per Highway target: short copies and zero
// fills, shifted (strided, padded) rows of im2col and segments of im2row rows.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_CONVOLUTION_IM2COL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_CONVOLUTION_IM2COL_INL_H_
#undef SIMD_SYNET_CONVOLUTION_IM2COL_INL_H_
#else
#define SIMD_SYNET_CONVOLUTION_IM2COL_INL_H_
#endif

#include <algorithm>
#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Geometry.h"
#include "gemm/Gemm-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {
namespace hn = hwy::HWY_NAMESPACE;

// Copies n floats with the widest vectors, then halves of them, then single lanes (short runs
// such as the 3-channel pixels of a first layer).
HWY_INLINE void CopyRun(const float* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
#if HWY_TARGET != HWY_SCALAR
    const hn::CappedTag<float, 8> d8;
    const hn::CappedTag<float, 4> d4;
    if (L > 8 && i + 8 <= n) {
        hn::StoreU(hn::LoadU(d8, src + i), d8, dst + i);
        i += 8;
    }
    if (L > 4 && i + 4 <= n) {
        hn::StoreU(hn::LoadU(d4, src + i), d4, dst + i);
        i += 4;
    }
#endif
    const hn::CappedTag<float, 1> d1;
    for (; i < n; ++i) hn::StoreU(hn::LoadU(d1, src + i), d1, dst + i);
}

HWY_INLINE void ZeroRun(size_t n, float* dst) {
    GemmZero(hn::ScalableTag<float>(), n, dst);
}

// out[t] = row[sx0 + t*sX] where 0 <= sx0 + t*sX < srcW, else 0 (t < n); row NULL: all zero.
inline void FillShifted(const float* row, ptrdiff_t sx0, size_t sX, size_t srcW, size_t n,
                        float* out) {
    if (row == nullptr) {
        ZeroRun(n, out);
        return;
    }
    const ptrdiff_t s = ptrdiff_t(sX), w = ptrdiff_t(srcW);
    size_t lo = sx0 >= 0 ? 0 : size_t((-sx0 + s - 1) / s);
    size_t hi = sx0 >= w ? 0 : size_t((w - sx0 + s - 1) / s);
    lo = std::min(lo, n);
    hi = std::max(std::min(hi, n), lo);
    ZeroRun(lo, out);
    if (sX == 1) {
        CopyRun(row + sx0 + ptrdiff_t(lo), hi - lo, out + lo);
    } else {
        const hn::ScalableTag<float> d;
        const hn::RebindToSigned<decltype(d)> di;
        const size_t L = hn::Lanes(d);
        const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(sX)));
        size_t t = lo;
        for (; t + L <= hi; t += L)
            hn::StoreU(hn::GatherIndex(d, row + sx0 + ptrdiff_t(t) * s, offsets), d, out + t);
        const hn::CappedTag<float, 1> d1;
        for (; t < hi; ++t) hn::StoreU(hn::LoadU(d1, row + sx0 + ptrdiff_t(t) * s), d1, out + t);
    }
    ZeroRun(n - hi, out + hi);
}

// The values [k0, k1) of the im2row row of output pixel (dy, dx) of group g: index
// k = (ky*kX + kx)*Cg + ci, zero where the tap falls in the padding. Only k0 is split into
// (ky, kx, ci) by division: every run ends at the end of a tap (or at k1), so the position of
// the next run follows without dividing. (The divisions took about a fifth of the packing
// time of a 3-channel first layer, whose border tiles are all packed.)
inline void Im2rowSegment(const ConvGeometry& q, const float* image, size_t g, size_t dy, size_t dx,
                          size_t k0, size_t k1, float* out) {
    if (k0 >= k1) return;
    const size_t tap0 = k0 / q.Cg;
    size_t ci = k0 % q.Cg, ky = tap0 / q.kX, kx = tap0 % q.kX;
    // Following taps of the same kernel row are the next pixels: one run.
    const bool rowRuns = q.G == 1 && q.dX == 1;
    for (size_t k = k0; k < k1;) {
        size_t len = std::min(q.Cg - ci, k1 - k), lastKx = kx;
        const ptrdiff_t sy = q.SrcY(dy, ky);
        const ptrdiff_t sx = q.SrcX0(dx, kx);
        if (sy < 0 || sx < 0 || sx >= ptrdiff_t(q.srcW)) {
            ZeroRun(len, out);
        } else {
            if (rowRuns) {
                lastKx = std::min(q.kX - 1, kx + (q.srcW - 1 - size_t(sx)));
                len = std::min((lastKx - kx + 1) * q.Cg - ci, k1 - k);
            }
            CopyRun(image + (size_t(sy) * q.srcW + size_t(sx)) * q.srcC + g * q.Cg + ci, len, out);
        }
        out += len;
        k += len;
        ci = 0;
        if (++lastKx == q.kX) {
            kx = 0;
            ++ky;
        } else {
            kx = lastKx;
        }
    }
}

}  // namespace conv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
