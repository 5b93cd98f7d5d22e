// What both deconvolution frameworks share per Highway target: the Info prefix, and the element
// types of the FP32 framework and of the BF16 one (SUPPLEMENT.md §9.2). The BF16 framework
// rounds the source to BF16 (srcT 32f) or widens it from BF16 (srcT 16b) while the GEMM packs
// it, rounds the weights to BF16 at SetParams, and sums the exact FP32 products in the FP32
// micro-kernel; a BF16 destination is produced through FP32 staging rows (ColumnBands-inl.h
// Banded::RunStaged, DeconvolutionNhwcDirect.cpp NhwcDirect::RunOf) that get bias and
// activation in FP32 and are rounded once.
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_DECONVOLUTION_ELEMENT_TYPES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_DECONVOLUTION_ELEMENT_TYPES_INL_H_
#undef SIMD_SYNET_DECONVOLUTION_ELEMENT_TYPES_INL_H_
#else
#define SIMD_SYNET_DECONVOLUTION_ELEMENT_TYPES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/Bf16-inl.h"
#include "core/CpuFeatures.h"
#include "core/IsaName.h"
#include "deconvolution/Deconvolution32f.h"
#include "gemm/Gemm-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

inline const char* TargetIsa() {
    return IsaNameOf(HWY_TARGET);
}

// Element types. The GEMM packs its source operand (the image) panel by panel; the readers
// below make that packing the one place where the source is rounded to BF16 (srcT 32f in the
// BF16 framework) or widened from BF16 (srcT 16b), so no FP32 copy of the image is made and the
// FP32 micro-kernel runs unchanged. Highway 1.0.3 has no target with BF16 dot products
// (AVX512_BF16 / AMX are not among its targets), so BF16 operands are widened on every target
// except where the AMX tiles run (below); products of two BF16 values are exact in FP32, so
// the sums equal those of a BF16 kernel with FP32 accumulation up to the summation order.

// FP32 source rounded to BF16, as FP32.
struct ReadF32AsBf16 {
    using Elem = float;
    template <class D>
    static HWY_INLINE hn::Vec<D> Load(D d, const float* p) {
        return RoundToBf16(d, hn::LoadU(d, p));
    }
};
// BF16 source widened to FP32 (exact).
struct ReadBf16 {
    using Elem = uint16_t;
    template <class D>
    static HWY_INLINE hn::Vec<D> Load(D d, const uint16_t* p) {
        return LoadF(d, p);
    }
};

// The BF16 framework's column GEMM runs on the AMX tiles (gemm/GemmAmxBf16.h, raw
// instructions outside Highway) where the CPU and the OS run them; the tile code is reached from
// the AVX3 target only, so every other target keeps the widening readers above.
#undef SIMD_SYNET_DECONV_AMX
#if HWY_TARGET == HWY_AVX3 && HWY_ARCH_X86_64
#define SIMD_SYNET_DECONV_AMX 1
#else
#define SIMD_SYNET_DECONV_AMX 0
#endif
inline bool AmxBf16Usable(bool bf16) {
    return SIMD_SYNET_DECONV_AMX && bf16 && CpuHasAmxBf16();
}

// f(reader) with the reader of this context's source (one branch per band or call).
template <class F>
HWY_INLINE void WithSourceReader(const Deconvolution32f& c, F&& f) {
    if (c.srcBf16_)
        f(ReadBf16());
    else if (c.bf16_)
        f(ReadF32AsBf16());
    else
        f(GemmReadF32());
}

// The weights the GEMM multiplies: the caller's FP32 weights, or (BF16 framework) a copy of
// them rounded to BF16 in `rounded`.
inline const float* FrameworkWeights(const Deconvolution32f& c, const float* w, size_t n,
                                     std::vector<float>& rounded) {
    if (!c.bf16_) return w;
    rounded.resize(n);
    RoundRowToBf16(w, n, rounded.data());
    return rounded.data();
}

// Info suffix of the BF16 framework: "-bf16-<srcT>-<dstT>".
inline std::string TypeSuffix(const Deconvolution32f& c) {
    if (!c.bf16_) return std::string();
    return std::string("-bf16-") + (c.srcBf16_ ? "16b" : "32f") + "-" +
           (c.dstBf16_ ? "16b" : "32f");
}

// Bytes of one source / destination element.
inline size_t SrcSize(const Deconvolution32f& c) {
    return c.srcBf16_ ? sizeof(uint16_t) : sizeof(float);
}
inline size_t DstSize(const Deconvolution32f& c) {
    return c.dstBf16_ ? sizeof(uint16_t) : sizeof(float);
}

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
