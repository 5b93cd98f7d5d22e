// FP32 and BF16 deconvolution frameworks (SUPPLEMENT.md §9.1, §9.2):
// SimdSynetDeconvolution32f* and SimdSynetDeconvolution16b* (Init / ExternalBufferSize /
// InternalBufferSize / SetParams / Forward / Info), one set of algorithms for both.
//
// Init picks one algorithm per shape and target (DeconvolutionCreate below) and returns it as a
// context (a class derived from simd::Deconvolution32f). Each has its own translation unit
// (Algorithms.h) and names itself in Info:
//   nchw-gemm   NCHW, any group: column GEMM per band of source rows, then col2im as a gather
//               (DeconvolutionNchwGemm.cpp, the band driver in ColumnBands-inl.h).
//   nhwc-gemm   NHWC (group 1): the same with pixel-major columns (DeconvolutionNhwcGemm.cpp);
//               nhwc-amx: its BF16 GEMM on AMX tiles, chosen for every NHWC BF16 shape where
//               the tiles run (disjoint patches too: 2x2 s2 128->64 28x28 186 us against 331 us
//               for nhwc-direct, Sapphire Rapids).
//   nhwc-direct NHWC, stride == kernel, dense, no padding: each kernel row one GEMM straight
//               into the output rows (DeconvolutionNhwcDirect.cpp).
//   nhwc-phases NHWC (FP32, group 1, no dilation), kernel a multiple of the stride: one stride-1
//               convolution per stride phase, interleaved (DeconvolutionNhwcPhases.cpp).
//   nchw-via-nhwc-*  NCHW, group 1, FP32: nhwc-phases or nhwc-gemm (patches that overlap) or
//               nhwc-direct (disjoint patches, many FLOP per transposed float) between
//               transposes of the image and the output (NchwViaNhwc-inl.h).
//   *-usergemm  the band GEMM through the caller's SimdGemm32fNNPtr.
// The element types of the BF16 framework: ElementTypes-inl.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deconvolution/Deconvolution32f.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "deconvolution/Algorithms.h"
#include "deconvolution/ElementTypes-inl.h"

#include <cstddef>

#include "deconvolution/Deconvolution32f.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

// The algorithm for this shape on this target (parameters already validated). bf16: the BF16
// framework (gemm is then NULL).
Deconvolution32f* DeconvolutionCreate(size_t batch, const SimdConvolutionParameters* p,
                                      SimdGemm32fNNPtr gemm, bool bf16) {
    const DeconvGeometry q(*p);
    if (p->srcF == SimdTensorFormatNhwc) {
        if (gemm == nullptr && q.DisjointPatches() && !deconv32f::AmxBf16Usable(bf16))
            return deconv32f::CreateNhwcDirect(batch, *p, bf16, false);
        if (gemm == nullptr && !bf16 && deconv32f::NhwcPhasesPreferred(*p))
            return deconv32f::CreateNhwcPhases(batch, *p, false);
        return deconv32f::CreateNhwcGemm(batch, *p, gemm, bf16, false);
    }
    // NCHW, one group, FP32: an NHWC algorithm between transposes. Measured on Zen4 with
    // overlapping patches (4x4 s2 p1 64->32 28x28): 616 us through the NCHW columns, 555 us
    // through the NHWC columns between transposes. With disjoint patches the NCHW gather is a
    // plain interleave and the transposes pay off only with enough FLOP per transposed float.
    // The direct kernel transposes in L1, per block and source row (128->64 28x28 234-244 ->
    // 225-234 us against whole images), which on AVX-512 (16x16 transpose tiles) moved the
    // break-even from 128 to about 55 FLOP per float (Zen 5, 2x2 s2, columns vs transposes:
    // 64->64 28x28 141 vs 126 us, 64->32 56x56 267 vs 262, 32->32 56x56 155 vs 153, 32->16 56x56
    // 82 vs 96, 16->16 112x112 193 vs 347). AVX2 and SSE4 keep 128 (64->64 28x28: AVX2 237 vs
    // 245 us, SSE4 576 vs 649).
    if (p->group == 1 && gemm == nullptr && !bf16) {
        if (q.DisjointPatches()) {
            const double flop = 2.0 * double(q.srcC) * double(q.dstC) * double(q.K);
            constexpr double kFlopPerFloat = HWY_TARGET <= HWY_AVX3 ? 64.0 : 128.0;
            if (flop >= kFlopPerFloat * double(q.srcC + q.dstC * q.K))
                return deconv32f::CreateNhwcDirect(batch, *p, false, true);
        } else if (deconv32f::NhwcPhasesPreferred(*p)) {
            return deconv32f::CreateNhwcPhases(batch, *p, true);
        } else {
            return deconv32f::CreateNhwcGemm(batch, *p, nullptr, false, true);
        }
    }
    return deconv32f::CreateNchwGemm(batch, *p, gemm, bf16);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstdint>
#include <new>

#include "SimdSynet.h"

#include "convolution/ContextApi.h"
#include "core/Dispatch.h"
#include "core/Error.h"
#include "core/Format.h"

namespace simd {
HWY_EXPORT(DeconvolutionCreate);

// Bytes the 16b entry points add to the external buffer size so that a caller's byte buffer of
// any alignment holds the float scratch from its next 64-byte boundary.
constexpr size_t kDeconvBufSlack = 64;

namespace {

// One output extent of the deconvolution size rule (§9.1), or 0 when the crop leaves nothing.
size_t DeconvExtent(size_t src, size_t padBefore, size_t padAfter, size_t kernel, size_t dilation,
                    size_t stride) {
    const size_t full = stride * (src - 1) + dilation * (kernel - 1) + 1;
    if (full <= padBefore + padAfter) return 0;
    return full - padBefore - padAfter;
}

// Checks the configuration of either framework (f: the Init function named in messages;
// bf16: srcT and dstT may also be 16b); on failure records a message naming the field and
// returns false.
bool ValidDeconvolution(size_t batch, const SimdConvolutionParameters* p, const char* f,
                        bool bf16) {
    if (p == nullptr) return SetLastErrorF("%s: conv is NULL", f);
    if (batch == 0) return SetLastErrorF("%s: batch is 0", f);
    auto allowed = [bf16](SimdTensorDataType t) {
        return t == SimdTensorData32f || (bf16 && t == SimdTensorData16b);
    };
    const char* types = bf16 ? "32f or 16b" : "32f";
    if (!allowed(p->srcT)) return SetLastErrorF("%s: srcT is not %s", f, types);
    if (!allowed(p->dstT)) return SetLastErrorF("%s: dstT is not %s", f, types);
    if (!ValidConvolutionFields(*p, f)) return false;
    if (p->srcF == SimdTensorFormatNhwc && p->group != 1)
        return SetLastErrorF("%s: group must be 1 for Nhwc", f);
    // Guard the size-rule arithmetic and the later products against overflow.
    const size_t big = size_t(1) << 30;
    if (p->srcH > big || p->srcW > big || p->padY > big || p->padX > big || p->padH > big ||
        p->padW > big || p->kernelY > big || p->kernelX > big || p->dilationY > big ||
        p->dilationX > big || p->strideY > big || p->strideX > big)
        return SetLastErrorF("%s: sizes too large", f);
    const size_t dstH =
        DeconvExtent(p->srcH, p->padY, p->padH, p->kernelY, p->dilationY, p->strideY);
    const size_t dstW =
        DeconvExtent(p->srcW, p->padX, p->padW, p->kernelX, p->dilationX, p->strideX);
    if (dstH == 0 || p->dstH != dstH)
        return SetLastErrorF("%s: dstH does not follow the size rule (expected %zu)", f, dstH);
    if (dstW == 0 || p->dstW != dstW)
        return SetLastErrorF("%s: dstW does not follow the size rule (expected %zu)", f, dstW);
    size_t n = 0;
    if (!FitsInMemory(p->srcC, p->srcH * p->srcW, sizeof(float)) ||
        !FitsInMemory(p->dstC, p->dstH * p->dstW, sizeof(float)) ||
        !CheckedMul(p->dstC / p->group * p->kernelY, p->kernelX, &n) ||
        !FitsInMemory(n, p->srcC, sizeof(float)) || !FitsInMemory(n, p->srcW, sizeof(float)) ||
        !FitsInMemory(batch, p->srcC * p->srcH * p->srcW, sizeof(float)) ||
        !FitsInMemory(batch, p->dstC * p->dstH * p->dstW, sizeof(float)))
        return SetLastErrorF("%s: tensor sizes overflow", f);
    return true;
}

}  // namespace
}  // namespace simd

extern "C" {

SIMD_API void* SimdSynetDeconvolution32fInit(size_t batch, const SimdConvolutionParameters* conv,
                                             SimdGemm32fNNPtr gemm) {
    simd::ClearLastError();
    if (!simd::ValidDeconvolution(batch, conv, "SimdSynetDeconvolution32fInit", false))
        return nullptr;
    try {
        return SIMD_DISPATCH(simd::DeconvolutionCreate)(batch, conv, gemm, false);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetDeconvolution32fInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetDeconvolution32fExternalBufferSize(const void* context) {
    return simd::LayerExternalBufferSize(context, "SimdSynetDeconvolution32f");
}

SIMD_API size_t SimdSynetDeconvolution32fInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, "SimdSynetDeconvolution32f");
}

SIMD_API void SimdSynetDeconvolution32fSetParams(void* context, const float* weight,
                                                 SimdBool* internal, const float* bias,
                                                 const float* params) {
    simd::ContextSetParams(context, weight, internal, bias, params, "SimdSynetDeconvolution32f");
}

SIMD_API void SimdSynetDeconvolution32fForward(void* context, const float* src, float* buf,
                                               float* dst) {
    simd::ContextForward(context, src, buf, dst, "SimdSynetDeconvolution32f");
}

SIMD_API const char* SimdSynetDeconvolution32fInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetDeconvolution32f");
}

// The BF16 framework: the same contexts (bf16 true) behind byte-based entry points. The
// context works in floats; sizes are converted here, and the caller's byte buffer is aligned
// up to a float boundary (kBufSlack bytes of slack are included in the external size).

SIMD_API void* SimdSynetDeconvolution16bInit(size_t batch, const SimdConvolutionParameters* conv,
                                             SimdSynetCompatibilityType compatibility) {
    (void)compatibility;  // stored by the reference, no effect on results (§9.2)
    simd::ClearLastError();
    if (!simd::ValidDeconvolution(batch, conv, "SimdSynetDeconvolution16bInit", true))
        return nullptr;
    try {
        return SIMD_DISPATCH(simd::DeconvolutionCreate)(batch, conv, nullptr, true);
    } catch (const std::bad_alloc&) {
        simd::SetLastError("SimdSynetDeconvolution16bInit: out of memory");
        return nullptr;
    }
}

SIMD_API size_t SimdSynetDeconvolution16bExternalBufferSize(const void* context) {
    const size_t floats = simd::LayerExternalBufferSize(context, "SimdSynetDeconvolution16b");
    return floats == 0 ? 0 : floats * sizeof(float) + simd::kDeconvBufSlack;
}

SIMD_API size_t SimdSynetDeconvolution16bInternalBufferSize(const void* context) {
    return simd::LayerInternalBufferSize(context, "SimdSynetDeconvolution16b") * sizeof(float);
}

SIMD_API void SimdSynetDeconvolution16bSetParams(void* context, const float* weight,
                                                 const float* bias, const float* params) {
    simd::ContextSetParams(context, weight, nullptr, bias, params, "SimdSynetDeconvolution16b");
}

SIMD_API void SimdSynetDeconvolution16bForward(void* context, const uint8_t* src, uint8_t* buf,
                                               uint8_t* dst) {
    // src and dst travel as float pointers; the context reads and writes them as srcT / dstT.
    float* scratch = nullptr;
    if (buf != nullptr) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(buf);
        scratch = reinterpret_cast<float*>(
            buf + ((simd::kDeconvBufSlack - at % simd::kDeconvBufSlack) % simd::kDeconvBufSlack));
    }
    simd::ContextForward(context, reinterpret_cast<const float*>(src), scratch,
                         reinterpret_cast<float*>(dst), "SimdSynetDeconvolution16b");
}

SIMD_API const char* SimdSynetDeconvolution16bInfo(const void* context) {
    return simd::LayerInfo(context, "SimdSynetDeconvolution16b");
}

}  // extern "C"

#endif  // HWY_ONCE
