// The NCHW form of the NHWC deconvolution algorithms, per Highway target (one group, FP32
// framework, own GEMM): an NHWC algorithm (NhwcGemm, NhwcPhases or NhwcDirect, each
// translation unit instantiates it for its own) between transposes of the image and of the
// output. The NCHW column path gathers every output value from the stride phases of a
// channel-major column matrix, the NHWC ones add whole vectors of channels or sum in registers;
// where the two transposes cost less than that difference is measured in DeconvolutionCreate
// (Deconvolution32f.cpp).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_DECONVOLUTION_NCHW_VIA_NHWC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_DECONVOLUTION_NCHW_VIA_NHWC_INL_H_
#undef SIMD_SYNET_DECONVOLUTION_NCHW_VIA_NHWC_INL_H_
#else
#define SIMD_SYNET_DECONVOLUTION_NCHW_VIA_NHWC_INL_H_
#endif

#include <string>
#include <type_traits>
#include <vector>

#include "SimdSynet.h"
#include "convolution/ImageTranspose-inl.h"
#include "deconvolution/Deconvolution32f.h"
#include "gemm/Gemm-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

// DeconvolutionNhwcDirect.cpp: the one NHWC algorithm that reads and writes NCHW in place.
class NhwcDirect;

template <class Nhwc>
class NchwVia : public Nhwc {
public:
    template <class... Args>
    NchwVia(size_t batch, const SimdConvolutionParameters& p, Args... args)
        : Nhwc(batch, p, args...) {
        const std::string from = "::nhwc-";
        this->info_.replace(this->info_.find(from), from.size(), "::nchw-via-nhwc-");
        if constexpr (kInPlace) this->nchw_ = true;
    }
    size_t ExternalBufferSize() const override {
        if constexpr (kInPlace)
            return Nhwc::ExternalBufferSize();
        else
            return Nhwc::ExternalBufferSize() + this->q_.srcImage + this->q_.dstImage;
    }

protected:
    // [srcC][dstC][kY][kX] -> [srcC][kY][kX][dstC] (SUPPLEMENT.md §9.1 layouts): each input
    // channel's dstC x taps block is an NCHW "image" of dstC planes of taps pixels.
    void PackWeights(const float* weight) override {
        const DeconvGeometry& q = this->q_;
        std::vector<float> nhwc(q.srcC * q.K * q.dstC);
        for (size_t sc = 0; sc < q.srcC; ++sc)
            conv32f::NchwToNhwcImage(weight + sc * q.dstC * q.K, q.dstC, q.K,
                                     nhwc.data() + sc * q.K * q.dstC);
        Nhwc::PackWeights(nhwc.data());
    }
    void Run(const float* src, float* buf, float* dst) const override {
        if constexpr (kInPlace) {
            this->template RunOf<GemmReadF32>(src, buf, dst, this->batch_);
        } else {
            const DeconvGeometry& q = this->q_;
            float* srcT = buf + Nhwc::ExternalBufferSize();
            conv32f::RunNchwViaNhwc(
                src, q.srcC, q.srcPlane, dst, q.dstC, q.dstPlane, this->batch_, srcT,
                srcT + q.srcImage,
                [&](const float* s, float* d, const float*) { this->RunImage(s, buf, d); });
        }
    }

private:
    // The direct algorithm reads and writes the NCHW tensors itself, transposing blocks in L1
    // (NhwcDirect::nchw_), instead of whole NHWC images that leave the cache between passes.
    static constexpr bool kInPlace = std::is_same_v<Nhwc, NhwcDirect>;
};

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
