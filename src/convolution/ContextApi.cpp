// What the convolution-family frameworks (Convolution32f, Deconvolution32f) share around their
// contexts: the common Init checks, and the SetParams and Forward entry-point bodies (argument
// checks, then a call of the context's virtual function). `api` is the framework's name prefix
// ("SimdSynetConvolution32f"), so messages name the public function.
#include "convolution/ContextApi.h"

#include <new>

#include "core/Error.h"

namespace simd {

bool ValidConvolutionFields(const SimdConvolutionParameters& p, const char* f) {
    if (p.srcF != SimdTensorFormatNchw && p.srcF != SimdTensorFormatNhwc)
        return SetLastErrorF("%s: srcF is neither Nchw nor Nhwc", f);
    if (p.dstF != p.srcF) return SetLastErrorF("%s: dstF differs from srcF", f);
    if (p.srcC == 0 || p.srcH == 0 || p.srcW == 0)
        return SetLastErrorF("%s: srcC, srcH or srcW is 0", f);
    if (p.dstC == 0) return SetLastErrorF("%s: dstC is 0", f);
    if (p.kernelY == 0 || p.kernelX == 0) return SetLastErrorF("%s: kernelY or kernelX is 0", f);
    if (p.strideY == 0 || p.strideX == 0) return SetLastErrorF("%s: strideY or strideX is 0", f);
    if (p.dilationY == 0 || p.dilationX == 0)
        return SetLastErrorF("%s: dilationY or dilationX is 0", f);
    if (p.group == 0 || p.srcC % p.group != 0 || p.dstC % p.group != 0)
        return SetLastErrorF("%s: group does not divide srcC and dstC", f);
    if (unsigned(p.activation) > unsigned(SimdConvolutionActivationGelu))
        return SetLastErrorF("%s: activation is unknown", f);
    return true;
}

void ContextSetParams(void* context, const float* weight, SimdBool* internal, const float* bias,
                      const float* params, const char* api) {
    ClearLastError();
    if (context == nullptr) {
        SetLastErrorF("%sSetParams: context is NULL", api);
        return;
    }
    if (weight == nullptr) {
        SetLastErrorF("%sSetParams: weight is NULL", api);
        return;
    }
    auto* c = static_cast<Convolution32f*>(context);
    if (params == nullptr && ActivationReadsParams(c->p_.activation)) {
        SetLastErrorF("%sSetParams: params is NULL but the activation reads it", api);
        return;
    }
    try {
        c->SetParams(weight, bias, params);
    } catch (const std::bad_alloc&) {
        SetLastErrorF("%sSetParams: out of memory", api);
        return;
    }
    if (internal) *internal = SimdTrue;
}

void ContextForward(void* context, const float* src, float* buf, float* dst, const char* api) {
    ClearLastError();
    if (context == nullptr) {
        SetLastErrorF("%sForward: context is NULL", api);
        return;
    }
    if (src == nullptr || dst == nullptr) {
        SetLastErrorF("%sForward: src or dst is NULL", api);
        return;
    }
    auto* c = static_cast<Convolution32f*>(context);
    if (!c->Ready()) {
        SetLastErrorF("%sForward: SetParams was not called", api);
        return;
    }
    try {
        c->Forward(src, buf, dst);
    } catch (const std::bad_alloc&) {
        SetLastErrorF("%sForward: out of memory", api);
    }
}

}  // namespace simd
