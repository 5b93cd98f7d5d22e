// The stride-phase algorithm of the FP32 deconvolution framework (Info "nhwc-phases-...",
// "nchw-via-nhwc-phases-..."), described at NhwcPhases below.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deconvolution/DeconvolutionNhwcPhases.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "deconvolution/Algorithms.h"
#include "convolution/Geometry.h"
#include "convolution/Im2col-inl.h"
#include "convolution/NhwcDirect.h"
#include "deconvolution/ElementTypes-inl.h"
#include "deconvolution/NchwViaNhwc-inl.h"
#include "gemm/Gemm-inl.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

using conv32f::CopyRun;

// NHWC by stride phases (FP32 framework, one group, no dilation, kernel a multiple of the
// stride): the outputs of one phase (dy % sY, dx % sX) take the taps ky = ry + m*sY,
// kx = rx + n*sX from the source pixels (y + by - m, x + bx - n), so they form a dense image that
// is a plain stride-1 convolution of the source with those kY/sY x kX/sX taps, flipped. Each
// phase runs as the convolution framework's NHWC direct convolution (bias and activation in its
// store) into a scratch image that is then interleaved into the output. Every output value is
// summed in registers, with no column matrix to write and gather back (on Zen 5 the gather was
// a fifth of 4x4 s2 p1 64->32 28x28).

// One axis of one phase as a convolution: `out` outputs from `taps` taps with the given pads
// over the source rows (or columns) [offset, offset + length).
struct PhaseAxis {
    size_t out, taps, first, offset, length, padBefore, padAfter;
    bool ok;  // false: the phase cannot be expressed as such a convolution
};

// Output positions phase, phase + stride, ... of an axis of `dst` outputs over `src` inputs.
// cropEnd: the convolution may see fewer source positions than there are (rows: yes; columns:
// no, they set the row stride of the NHWC image).
inline PhaseAxis MakePhaseAxis(size_t dst, size_t src, size_t kernel, size_t stride, size_t pad,
                               size_t phase, bool cropEnd) {
    PhaseAxis a{};
    a.out = dst > phase ? (dst - phase + stride - 1) / stride : 0;
    a.taps = kernel / stride;
    a.first = (phase + pad) % stride;  // tap of the last kernel index (m = 0)
    // Output i reads source i + shift + j for kernel index j = taps - 1 - m.
    const ptrdiff_t shift = ptrdiff_t((phase + pad) / stride) - ptrdiff_t(a.taps - 1);
    const ptrdiff_t end = ptrdiff_t(a.out) + shift + ptrdiff_t(a.taps) - 1;  // one past the last
    a.offset = shift > 0 ? size_t(shift) : 0;
    a.padBefore = shift < 0 ? size_t(-shift) : 0;
    a.padAfter = end > ptrdiff_t(src) ? size_t(end - ptrdiff_t(src)) : 0;
    const ptrdiff_t last = std::min(end, ptrdiff_t(src));
    a.length = last > ptrdiff_t(a.offset) ? size_t(last) - a.offset : 0;
    a.ok = a.out > 0 && a.length > 0 && (cropEnd || (a.offset == 0 && a.length == src));
    return a;
}

class NhwcPhases : public Deconvolution32f {
public:
    NhwcPhases(size_t batch, const SimdConvolutionParameters& p)
        : Deconvolution32f(batch, p, nullptr, false), q_(p) {
        for (size_t py = 0; py < q_.sY; ++py)
            for (size_t px = 0; px < q_.sX; ++px) {
                Phase ph;
                ph.py = py;
                ph.px = px;
                ph.y = MakePhaseAxis(q_.dstH, q_.srcH, q_.kY, q_.sY, q_.padY, py, true);
                ph.x = MakePhaseAxis(q_.dstW, q_.srcW, q_.kX, q_.sX, q_.padX, px, false);
                SimdConvolutionParameters c = p;
                c.srcF = c.dstF = SimdTensorFormatNhwc;  // also for the NCHW wrapper
                c.srcH = ph.y.length;
                c.dstH = ph.y.out;
                c.dstW = ph.x.out;
                c.kernelY = ph.y.taps;
                c.kernelX = ph.x.taps;
                c.strideY = c.strideX = 1;
                c.padY = ph.y.padBefore;
                c.padH = ph.y.padAfter;
                c.padX = ph.x.padBefore;
                c.padW = ph.x.padAfter;
                ph.conv.reset(NhwcDirectConvolutionCreate(1, c));
                // Scratch: the largest phase convolution's, then the largest phase image.
                convFloats_ =
                    std::max(convFloats_, RoundUp(ph.conv->ExternalBufferSize(), kLineFloats));
                imageFloats_ = std::max(imageFloats_, ph.y.out * ph.x.out * q_.dstC);
                phases_.push_back(std::move(ph));
            }
        const std::string& first = phases_.front().conv->info_;
        info_ =
            std::string(TargetIsa()) + "::nhwc-phases-" + first.substr(first.find("::nhwc-") + 7);
    }
    // The phases cover every output with convolutions of this form (checked before construction).
    static bool Applies(const SimdConvolutionParameters& p) {
        const DeconvGeometry q(p);
        if (q.G != 1 || q.dY != 1 || q.dX != 1 || q.kY % q.sY != 0 || q.kX % q.sX != 0 ||
            q.DisjointPatches())
            return false;
        for (size_t py = 0; py < q.sY; ++py)
            if (!MakePhaseAxis(q.dstH, q.srcH, q.kY, q.sY, q.padY, py, true).ok) return false;
        for (size_t px = 0; px < q.sX; ++px)
            if (!MakePhaseAxis(q.dstW, q.srcW, q.kX, q.sX, q.padX, px, false).ok) return false;
        return true;
    }
    // Applies, and measured faster than the column GEMM (Zen 5, AVX-512): 4x4 s2 p1 64->32 28x28
    // 258 -> 229 us, 3x3 s1 32->32 56x56 372 -> 253 us, 7x7 s1 3->16 28x28 112 -> 37 us. Not
    // where the tile's columns would be mostly padding (the phase convolution pads dstC to its
    // tile width as NhwcGemm of Convolution32f.cpp chooses it; 4x4 s2 17->33 28x28 128 vs
    // 157 us, 16->16 70 vs 75 us) unless the source has so few channels that the column GEMM
    // is worse still (8->8 56x56 334 vs 297 us), nor for phase images narrower than 8 pixels,
    // whose tiles are nearly all border tiles (4x4 s2 512->256 7x7 947 vs 1011 us).
    static bool Preferred(const SimdConvolutionParameters& p) {
        if (!Applies(p)) return false;
        using T = GemmTraits<hn::ScalableTag<float>>;
        const DeconvGeometry q(p);
        // The tile width as it was measured, before the 14 x 1-vector tile for at most 16
        // channels (GemmTileShape): with it, 9-16 channels would count as dense. Not
        // re-measured yet, so those layers keep the column GEMM.
        const bool narrow = T::kVecs == 4 && q.dstC <= 2 * T::kLanes;
        const size_t tile = narrow ? 2 * T::kLanes : T::kCols;
        const bool dense = 4 * RoundUp(q.dstC, tile) <= 5 * q.dstC;
        for (size_t px = 0; px < q.sX; ++px)
            if (MakePhaseAxis(q.dstW, q.srcW, q.kX, q.sX, q.padX, px, false).out < 8) return false;
        return dense || q.srcC < 16;
    }
    size_t ExternalBufferSize() const override { return convFloats_ + imageFloats_; }
    size_t InternalBufferSize() const override {
        size_t n = 0;
        for (const Phase& ph : phases_) n += ph.conv->InternalBufferSize();
        return n;
    }

protected:
    // [srcC][kY][kX][dstC] -> per phase [kY/sY][kX/sX][srcC][dstC], taps flipped; each phase
    // convolution gets the layer's bias and activation.
    void PackWeights(const float* weight) override {
        std::vector<float> params;
        switch (p_.activation) {
            case SimdConvolutionActivationPrelu:
                params = slope_;
                break;
            case SimdConvolutionActivationLeakyRelu:
                params = {slope_[0]};
                break;
            default:
                params = {param0_, param1_};
        }
        for (Phase& ph : phases_) {
            const size_t ty = ph.y.taps, tx = ph.x.taps;
            std::vector<float> w(ty * tx * q_.srcC * q_.dstC);
            for (size_t j = 0; j < ty; ++j)
                for (size_t i = 0; i < tx; ++i) {
                    const size_t ky = ph.y.first + (ty - 1 - j) * q_.sY;
                    const size_t kx = ph.x.first + (tx - 1 - i) * q_.sX;
                    for (size_t sc = 0; sc < q_.srcC; ++sc)
                        std::copy_n(weight + ((sc * q_.kY + ky) * q_.kX + kx) * q_.dstC, q_.dstC,
                                    w.data() + ((j * tx + i) * q_.srcC + sc) * q_.dstC);
                }
            ph.conv->SetParams(w.data(), bias_.data(), params.data());
        }
    }
    void Run(const float* src, float* buf, float* dst) const override {
        for (size_t b = 0; b < batch_; ++b)
            RunImage(src + b * q_.srcImage, buf, dst + b * q_.dstImage);
    }
    // One NHWC image; buf holds ExternalBufferSize() floats.
    void RunImage(const float* src, float* buf, float* dst) const {
        float* image = buf + convFloats_;
        const size_t C = q_.dstC;
        for (const Phase& ph : phases_) {
            ph.conv->Forward(src + ph.y.offset * q_.srcW * q_.srcC, buf, image);
            // Interleave: phase pixel (y, x) is output pixel (y*sY + py, x*sX + px).
            for (size_t y = 0; y < ph.y.out; ++y) {
                const float* from = image + y * ph.x.out * C;
                float* row = dst + ((y * q_.sY + ph.py) * q_.dstW + ph.px) * C;
                for (size_t x = 0; x < ph.x.out; ++x) CopyRun(from + x * C, C, row + x * q_.sX * C);
            }
        }
    }

    static constexpr size_t kLineFloats = 16;
    struct Phase {
        size_t py, px;
        PhaseAxis y, x;
        std::unique_ptr<Convolution32f> conv;
    };
    DeconvGeometry q_;
    std::vector<Phase> phases_;
    size_t convFloats_ = 1, imageFloats_ = 0;
};

bool NhwcPhasesPreferred(const SimdConvolutionParameters& p) {
    return NhwcPhases::Preferred(p);
}

Deconvolution32f* CreateNhwcPhases(size_t batch, const SimdConvolutionParameters& p, bool nchw) {
    if (nchw) return new NchwVia<NhwcPhases>(batch, p);
    return new NhwcPhases(batch, p);
}

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();
