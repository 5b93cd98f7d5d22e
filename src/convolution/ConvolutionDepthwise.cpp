// Depthwise convolution (group == srcC == dstC) of the FP32 convolution framework
// (SUPPLEMENT.md §8): NHWC vectorised over the channels, NCHW over the output columns; 3x3
// kernels of stride 1 and 2 have register-resident weight kernels, other shapes a general one.
// Forward splits output rows (NHWC) or channel planes (NCHW) over the threads.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "convolution/ConvolutionDepthwise.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "convolution/Activate-inl.h"
#include "convolution/Convolution32f.h"
#include "convolution/ConvolutionDepthwise.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "core/IsaName.h"
#include "core/ThreadPool.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace conv32f {

using Geometry = ConvGeometry;

// ---------------------------------------------------------------------------------------------
// Depthwise, NHWC: vectors along the channels.

// Output pixel (dy, dx), channels [c, c + lanes): any kernel, taps in the padding skipped.
template <class DV>
HWY_INLINE void DepthwiseNhwcPixel(DV dv, const Geometry& q, const float* image, const float* w,
                                   const float* bias, const float* slope, const Act& act, size_t dy,
                                   size_t dx, size_t c, float* out) {
    auto acc = hn::LoadU(dv, bias + c);
    for (size_t ky = 0; ky < q.kY; ++ky) {
        const ptrdiff_t sy = q.SrcY(dy, ky);
        if (sy < 0) continue;
        for (size_t kx = 0; kx < q.kX; ++kx) {
            const ptrdiff_t sx = q.SrcX0(dx, kx);
            if (sx < 0 || sx >= ptrdiff_t(q.srcW)) continue;
            acc = hn::MulAdd(hn::LoadU(dv, image + (size_t(sy) * q.srcW + size_t(sx)) * q.srcC + c),
                             hn::LoadU(dv, w + (ky * q.kX + kx) * q.srcC + c), acc);
        }
    }
    const auto s = slope ? hn::LoadU(dv, slope + c) : hn::Zero(dv);
    hn::StoreU(Activate(dv, acc, s, act), dv, out + c);
}

// Four output pixels of one row (columns dx.. dx + 3, all taps inside the image), 3x3 kernel,
// stride kStride, no dilation: the source columns shared by neighbouring outputs load once.
template <size_t kStride, class DV>
HWY_INLINE void DepthwiseNhwc3x3Quad(DV dv, const Geometry& q, const float* image, const float* w,
                                     const float* bias, const float* slope, const Act& act,
                                     size_t dy, size_t dx, size_t c, float* out) {
    constexpr size_t kCols = 3 * kStride + 3;
    using V = hn::Vec<DV>;
    const V b = hn::LoadU(dv, bias + c);
    V acc[4] = {b, b, b, b};
    const size_t C = q.srcC;
    const size_t sx0 = dx * kStride - q.padX;
    for (size_t ky = 0; ky < 3; ++ky) {
        const float* row = image + ((dy * kStride + ky - q.padY) * q.srcW + sx0) * C + c;
        const V w0 = hn::LoadU(dv, w + (ky * 3 + 0) * C + c);
        const V w1 = hn::LoadU(dv, w + (ky * 3 + 1) * C + c);
        const V w2 = hn::LoadU(dv, w + (ky * 3 + 2) * C + c);
        V s[kCols];
        for (size_t i = 0; i < kCols; ++i) s[i] = hn::LoadU(dv, row + i * C);
        for (size_t o = 0; o < 4; ++o) {
            acc[o] = hn::MulAdd(s[o * kStride + 0], w0, acc[o]);
            acc[o] = hn::MulAdd(s[o * kStride + 1], w1, acc[o]);
            acc[o] = hn::MulAdd(s[o * kStride + 2], w2, acc[o]);
        }
    }
    const V sl = slope ? hn::LoadU(dv, slope + c) : hn::Zero(dv);
    for (size_t o = 0; o < 4; ++o) hn::StoreU(Activate(dv, acc[o], sl, act), dv, out + o * C + c);
}

class DepthwiseNhwc : public Convolution32f {
public:
    DepthwiseNhwc(size_t batch, const SimdConvolutionParameters& p)
        : Convolution32f(batch, p, nullptr), q_(p) {
        fast3x3_ = q_.kY == 3 && q_.kX == 3 && q_.dY == 1 && q_.dX == 1 && q_.sY == q_.sX &&
                   (q_.sX == 1 || q_.sX == 2);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nhwc-depthwise-" +
                (fast3x3_ ? "3x3s" + std::to_string(q_.sX) : std::string("general"));
        // Output columns whose kernel taps are all inside the image.
        dxLo_ = (q_.padX + q_.sX - 1) / q_.sX;
        const ptrdiff_t last =
            ptrdiff_t(q_.srcW) - 1 + ptrdiff_t(q_.padX) - ptrdiff_t((q_.kX - 1) * q_.dX);
        dxHi_ = last < 0 ? 0 : std::min(q_.dstW, size_t(last) / q_.sX + 1);
        dxHi_ = std::max(dxHi_, std::min(dxLo_, q_.dstW));
        dxLo_ = std::min(dxLo_, dxHi_);
    }
    size_t ExternalBufferSize() const override { return 1; }

protected:
    void PackWeights(const float* w) override { weights_.assign(w, w + q_.kY * q_.kX * q_.srcC); }
    // Threads take ranges of output rows of the batch.
    void Run(const float* src, float*, float* dst) const override {
        const size_t rows = batch_ * q_.dstH;
        const size_t parts = std::min(
            rows,
            ThreadPartsFor(2.0 * double(batch_) * double(q_.dstImage) * double(q_.kY * q_.kX)));
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(rows, part, count);
            RunRows(src, dst, r.first, r.second);
        });
    }
    // Output rows [r0, r1) of the batch (row r: image r / dstH, row r % dstH).
    void RunRows(const float* images, float* outputs, size_t r0, size_t r1) const {
        const hn::ScalableTag<float> d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d), C = q_.srcC;
        const Act act{p_.activation, param0_, param1_};
        const float* w = weights_.data();
        const float* bias = bias_.data();
        const float* slope = slope_.empty() ? nullptr : slope_.data();
        for (size_t row = r0; row < r1; ++row) {
            const size_t dy = row % q_.dstH;
            const float* src = images + row / q_.dstH * q_.srcImage;
            float* dst = outputs + row / q_.dstH * q_.dstImage;
            {
                const bool rowInside =
                    dy * q_.sY >= q_.padY && dy * q_.sY + (q_.kY - 1) * q_.dY - q_.padY < q_.srcH;
                float* out = dst + dy * q_.dstW * C;
                size_t dx = 0;
                auto general = [&](size_t x) {
                    size_t c = 0;
                    for (; c + L <= C; c += L)
                        DepthwiseNhwcPixel(d, q_, src, w, bias, slope, act, dy, x, c, out + x * C);
                    for (; c < C; ++c)
                        DepthwiseNhwcPixel(d1, q_, src, w, bias, slope, act, dy, x, c, out + x * C);
                };
                if (fast3x3_ && rowInside) {
                    for (; dx < dxLo_; ++dx) general(dx);
                    for (; dx + 4 <= dxHi_; dx += 4) {
                        size_t c = 0;
                        float* o = out + dx * C;
                        if (q_.sX == 1) {
                            for (; c + L <= C; c += L)
                                DepthwiseNhwc3x3Quad<1>(d, q_, src, w, bias, slope, act, dy, dx, c,
                                                        o);
                            for (; c < C; ++c)
                                DepthwiseNhwc3x3Quad<1>(d1, q_, src, w, bias, slope, act, dy, dx, c,
                                                        o);
                        } else {
                            for (; c + L <= C; c += L)
                                DepthwiseNhwc3x3Quad<2>(d, q_, src, w, bias, slope, act, dy, dx, c,
                                                        o);
                            for (; c < C; ++c)
                                DepthwiseNhwc3x3Quad<2>(d1, q_, src, w, bias, slope, act, dy, dx, c,
                                                        o);
                        }
                    }
                }
                for (; dx < q_.dstW; ++dx) general(dx);
            }
        }
    }

    Geometry q_;
    bool fast3x3_;
    size_t dxLo_, dxHi_;
};

// ---------------------------------------------------------------------------------------------
// Depthwise, NCHW: vectors along the output columns.

// Output columns [dx, dx + lanes) of row dy of one channel; `inside`: every tap column is inside
// the image (else the lanes must be 1 and taps outside are skipped). Stride > 1 gathers.
template <size_t kKernel, class DV>
HWY_INLINE void DepthwiseNchwColumns(DV dv, const Geometry& q, const float* plane, const float* w,
                                     float bias, float slope, const Act& act, size_t dy, size_t dx,
                                     bool inside, float* out) {
    const size_t kY = kKernel ? kKernel : q.kY, kX = kKernel ? kKernel : q.kX;
    const hn::RebindToSigned<DV> di;
    const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(q.sX)));
    auto acc = hn::Set(dv, bias);
    for (size_t ky = 0; ky < kY; ++ky) {
        const ptrdiff_t sy = q.SrcY(dy, ky);
        if (sy < 0) continue;
        const float* row = plane + size_t(sy) * q.srcW;
        for (size_t kx = 0; kx < kX; ++kx) {
            const ptrdiff_t sx = q.SrcX0(dx, kx);
            if (!inside && (sx < 0 || sx >= ptrdiff_t(q.srcW))) continue;
            const auto v =
                q.sX == 1 ? hn::LoadU(dv, row + sx) : hn::GatherIndex(dv, row + sx, offsets);
            acc = hn::MulAdd(v, hn::Set(dv, w[ky * kX + kx]), acc);
        }
    }
    hn::StoreU(Activate(dv, acc, hn::Set(dv, slope), act), dv, out + dx);
}

// One vector of output columns of a 3x3 kernel (all taps inside the image), source column sx of
// the first tap. kLoad: 0 = contiguous loads (stride 1, or a single lane), 1 = stride 2 as the
// even / odd lanes of two loads (reads up to sx + 2*lanes + 1), 2 = stride kStride gathered.
template <int kLoad, size_t kStride, class DV>
HWY_INLINE void DepthwiseNchw3x3Vector(DV dv, const float* const* rows, const float* w, float bias,
                                       float slope, const Act& act, size_t sx, float* out) {
    using V = hn::Vec<DV>;
    const size_t L = hn::Lanes(dv);
    V acc[3];
    for (size_t ky = 0; ky < 3; ++ky) {
        const float* p = rows[ky] + sx;
        V s0, s1, s2;
        if constexpr (kLoad == 0) {
            s0 = hn::LoadU(dv, p);
            s1 = hn::LoadU(dv, p + 1);
            s2 = hn::LoadU(dv, p + 2);
        } else if constexpr (kLoad == 1) {
#if HWY_TARGET != HWY_SCALAR
            const V lo = hn::LoadU(dv, p), hi = hn::LoadU(dv, p + L);
            s0 = hn::ConcatEven(dv, hi, lo);
            s1 = hn::ConcatOdd(dv, hi, lo);
            s2 = hn::ConcatEven(dv, hn::LoadU(dv, p + L + 2), hn::LoadU(dv, p + 2));
#else
            (void)L;
#endif
        } else {
            const hn::RebindToSigned<DV> di;
            const auto offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, int32_t(kStride)));
            s0 = hn::GatherIndex(dv, p, offsets);
            s1 = hn::GatherIndex(dv, p + 1, offsets);
            s2 = hn::GatherIndex(dv, p + 2, offsets);
        }
        acc[ky] = hn::Mul(s0, hn::Set(dv, w[ky * 3]));
        acc[ky] = hn::MulAdd(s1, hn::Set(dv, w[ky * 3 + 1]), acc[ky]);
        acc[ky] = hn::MulAdd(s2, hn::Set(dv, w[ky * 3 + 2]), acc[ky]);
    }
    const V sum = hn::Add(hn::Add(acc[0], hn::Set(dv, bias)), hn::Add(acc[1], acc[2]));
    hn::StoreU(Activate(dv, sum, hn::Set(dv, slope), act), dv, out);
}

// Columns [dx, end) of output row dy (every tap inside the image): full vectors, then 8- and
// 4-lane vectors, then single lanes.
template <size_t kStride>
HWY_NOINLINE void DepthwiseNchw3x3Row(const Geometry& q, const float* plane, const float* w,
                                      float bias, float slope, const Act& act, size_t dy, size_t dx,
                                      size_t end, float* out) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const float* rows[3];
    for (size_t ky = 0; ky < 3; ++ky) rows[ky] = plane + (dy * q.sY + ky - q.padY) * q.srcW;
    auto sx = [&](size_t x) { return x * kStride - q.padX; };
    if (kStride == 1) {
        for (; dx + L <= end; dx += L)
            DepthwiseNchw3x3Vector<0, 1>(d, rows, w, bias, slope, act, sx(dx), out + dx);
    } else {
#if HWY_TARGET != HWY_SCALAR
        for (; dx + L <= end && sx(dx) + 2 * L + 2 <= q.srcW; dx += L)
            DepthwiseNchw3x3Vector<1, kStride>(d, rows, w, bias, slope, act, sx(dx), out + dx);
#endif
        for (; dx + L <= end; dx += L)
            DepthwiseNchw3x3Vector<2, kStride>(d, rows, w, bias, slope, act, sx(dx), out + dx);
    }
#if HWY_TARGET != HWY_SCALAR
    const hn::CappedTag<float, 8> d8;
    const hn::CappedTag<float, 4> d4;
    constexpr int kPart = kStride == 1 ? 0 : 2;
    if (L > 8)
        for (; dx + 8 <= end; dx += 8)
            DepthwiseNchw3x3Vector<kPart, kStride>(d8, rows, w, bias, slope, act, sx(dx), out + dx);
    if (L > 4)
        for (; dx + 4 <= end; dx += 4)
            DepthwiseNchw3x3Vector<kPart, kStride>(d4, rows, w, bias, slope, act, sx(dx), out + dx);
#endif
    const hn::CappedTag<float, 1> d1;
    for (; dx < end; ++dx)
        DepthwiseNchw3x3Vector<0, kStride>(d1, rows, w, bias, slope, act, sx(dx), out + dx);
}

class DepthwiseNchw : public Convolution32f {
public:
    DepthwiseNchw(size_t batch, const SimdConvolutionParameters& p)
        : Convolution32f(batch, p, nullptr), q_(p) {
        fast3x3_ =
            q_.kY == 3 && q_.kX == 3 && q_.dY == 1 && q_.dX == 1 && (q_.sX == 1 || q_.sX == 2);
        info_ = std::string(IsaNameOf(HWY_TARGET)) + "::nchw-depthwise-" +
                (fast3x3_ ? "3x3s" + std::to_string(q_.sX) : std::string("general"));
        dxLo_ = (q_.padX + q_.sX - 1) / q_.sX;
        const ptrdiff_t last =
            ptrdiff_t(q_.srcW) - 1 + ptrdiff_t(q_.padX) - ptrdiff_t((q_.kX - 1) * q_.dX);
        dxHi_ = last < 0 ? 0 : std::min(q_.dstW, size_t(last) / q_.sX + 1);
        dxHi_ = std::max(dxHi_, std::min(dxLo_, q_.dstW));
        dxLo_ = std::min(dxLo_, dxHi_);
    }
    size_t ExternalBufferSize() const override { return 1; }

protected:
    void PackWeights(const float* w) override { weights_.assign(w, w + q_.kY * q_.kX * q_.srcC); }
    // Threads take ranges of the channel planes of the batch.
    void Run(const float* src, float*, float* dst) const override {
        const size_t planes = batch_ * q_.srcC;
        const size_t parts = std::min(
            planes,
            ThreadPartsFor(2.0 * double(batch_) * double(q_.dstImage) * double(q_.kY * q_.kX)));
        ParallelParts(parts, [&](size_t part, size_t count) {
            const auto r = PartRange(planes, part, count);
            RunPlanes(src, dst, r.first, r.second);
        });
    }
    // Planes [p0, p1) of the batch (plane p: image p / srcC, channel p % srcC).
    void RunPlanes(const float* src, float* dst, size_t p0, size_t p1) const {
        const hn::ScalableTag<float> d;
        const hn::CappedTag<float, 1> d1;
        const size_t L = hn::Lanes(d), K = q_.kY * q_.kX;
        const Act act{p_.activation, param0_, param1_};
        const size_t plane = q_.srcH * q_.srcW;
        for (size_t bc = p0; bc < p1; ++bc) {
            const size_t b = bc / q_.srcC, c = bc % q_.srcC;
            {
                const float* in = src + (b * q_.srcC + c) * plane;
                const float* w = weights_.data() + c * K;
                const float bias = bias_[c], slope = slope_.empty() ? 0.0f : slope_[c];
                for (size_t dy = 0; dy < q_.dstH; ++dy) {
                    float* out = dst + ((b * q_.dstC + c) * q_.dstH + dy) * q_.dstW;
                    const bool rowInside = dy * q_.sY >= q_.padY &&
                                           dy * q_.sY + (q_.kY - 1) * q_.dY - q_.padY < q_.srcH;
                    size_t dx = 0;
                    for (; dx < dxLo_; ++dx)
                        DepthwiseNchwColumns<0>(d1, q_, in, w, bias, slope, act, dy, dx, false,
                                                out);
                    if (fast3x3_ && rowInside) {
                        if (q_.sX == 1)
                            DepthwiseNchw3x3Row<1>(q_, in, w, bias, slope, act, dy, dx, dxHi_, out);
                        else
                            DepthwiseNchw3x3Row<2>(q_, in, w, bias, slope, act, dy, dx, dxHi_, out);
                        dx = dxHi_;
                    } else {
                        for (; dx + L <= dxHi_; dx += L)
                            DepthwiseNchwColumns<0>(d, q_, in, w, bias, slope, act, dy, dx, true,
                                                    out);
                        for (; dx < dxHi_; ++dx)
                            DepthwiseNchwColumns<0>(d1, q_, in, w, bias, slope, act, dy, dx, true,
                                                    out);
                    }
                    for (; dx < q_.dstW; ++dx)
                        DepthwiseNchwColumns<0>(d1, q_, in, w, bias, slope, act, dy, dx, false,
                                                out);
                }
            }
        }
    }

    Geometry q_;
    bool fast3x3_;
    size_t dxLo_, dxHi_;
};

}  // namespace conv32f

Convolution32f* DepthwiseNhwcCreate(size_t batch, const SimdConvolutionParameters& p) {
    return new conv32f::DepthwiseNhwc(batch, p);
}

Convolution32f* DepthwiseNchwCreate(size_t batch, const SimdConvolutionParameters& p) {
    return new conv32f::DepthwiseNchw(batch, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
