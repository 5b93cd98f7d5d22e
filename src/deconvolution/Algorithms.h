// The algorithms of the FP32 and BF16 deconvolution frameworks, one translation unit each, per
// Highway target: the creation functions between which DeconvolutionCreate
// (Deconvolution32f.cpp, compiled for the same targets) chooses. Parameters are validated;
// nchw: the NCHW form of an NHWC algorithm, run between transposes (NchwViaNhwc-inl.h).
//
// Per-target include guard: this header is re-included once per Highway target.
#if defined(SIMD_SYNET_DECONVOLUTION_ALGORITHMS_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMD_SYNET_DECONVOLUTION_ALGORITHMS_H_
#undef SIMD_SYNET_DECONVOLUTION_ALGORITHMS_H_
#else
#define SIMD_SYNET_DECONVOLUTION_ALGORITHMS_H_
#endif

#include <cstddef>

#include "SimdSynet.h"
#include "deconvolution/Deconvolution32f.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {
namespace deconv32f {

// DeconvolutionNchwGemm.cpp: NCHW, any group; gemm: the caller's GEMM or NULL.
Deconvolution32f* CreateNchwGemm(size_t batch, const SimdConvolutionParameters& p,
                                 SimdGemm32fNNPtr gemm, bool bf16);

// DeconvolutionNhwcGemm.cpp: group 1; gemm: the caller's GEMM or NULL (nchw: NULL, FP32).
Deconvolution32f* CreateNhwcGemm(size_t batch, const SimdConvolutionParameters& p,
                                 SimdGemm32fNNPtr gemm, bool bf16, bool nchw);

// DeconvolutionNhwcDirect.cpp: DeconvGeometry::DisjointPatches() shapes (nchw: FP32).
Deconvolution32f* CreateNhwcDirect(size_t batch, const SimdConvolutionParameters& p, bool bf16,
                                   bool nchw);

// DeconvolutionNhwcPhases.cpp (FP32 framework): whether the stride phases apply to `p` and are
// faster than the column GEMM there; the algorithm for such a `p`.
bool NhwcPhasesPreferred(const SimdConvolutionParameters& p);
Deconvolution32f* CreateNhwcPhases(size_t batch, const SimdConvolutionParameters& p, bool nchw);

}  // namespace deconv32f
}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
