// What the convolution-family frameworks (contexts derived from simd::Convolution32f) share:
// the common Init checks and the SetParams and Forward entry-point bodies (ExternalBufferSize,
// InternalBufferSize and Info are core/LayerContext.h's, shared with the merged convolution).
// `api` is the public name prefix used in error messages.
#pragma once

#include <cstddef>

#include "SimdSynet.h"
#include "convolution/Convolution32f.h"

namespace simd {

// The checks the convolution and deconvolution Init functions share: Nchw or Nhwc with
// dstF == srcF, non-zero sizes, kernel, stride and dilation, a group dividing srcC and dstC, a
// known activation. On failure records a message naming the field (prefixed with f, the Init
// function) and returns false.
bool ValidConvolutionFields(const SimdConvolutionParameters& p, const char* f);

// ValidConvolutionFields, then the convolution size rule (§8.1) for dstH and dstW and tensor
// sizes that fit in memory for `batch` images of 4-byte elements (the FP32 and INT8
// convolution frameworks' Init).
bool ValidConvolutionShape(size_t batch, const SimdConvolutionParameters& p, const char* f);

void ContextSetParams(void* context, const float* weight, SimdBool* internal, const float* bias,
                      const float* params, const char* api);
void ContextForward(void* context, const float* src, float* buf, float* dst, const char* api);
// SimdSynetConvolution32fForwardAdd's body: ContextForward's checks, then a context that takes a
// residual and an `add` that does not overlap dst.
void ContextForwardAdd(void* context, const float* src, float* buf, const float* add, float* dst,
                       const char* api);

}  // namespace simd
