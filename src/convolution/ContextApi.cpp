// What the convolution-family frameworks (Convolution32f, Deconvolution32f) share around their
// contexts: the common Init checks, and the SetParams and Forward entry-point bodies (argument
// checks, then a call of the context's virtual function). `api` is the framework's name prefix
// ("SimdSynetConvolution32f"), so messages name the public function.
#include "convolution/ContextApi.h"

#include <cstdint>
#include <new>

#include "convolution/Geometry.h"
#include "core/Error.h"
#include "core/Format.h"

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

bool ValidConvolutionShape(size_t batch, const SimdConvolutionParameters& p, const char* f) {
    if (!ValidConvolutionFields(p, f)) return false;
    // Guard the size-rule arithmetic and the later products against overflow.
    const size_t big = size_t(1) << 30;
    if (p.srcH > big || p.srcW > big || p.padY > big || p.padX > big || p.padH > big ||
        p.padW > big || p.kernelY > big || p.kernelX > big || p.dilationY > big ||
        p.dilationX > big)
        return SetLastErrorF("%s: sizes too large", f);
    const size_t dstH = OutputExtent(p.srcH, p.padY, p.padH, p.kernelY, p.dilationY, p.strideY);
    const size_t dstW = OutputExtent(p.srcW, p.padX, p.padW, p.kernelX, p.dilationX, p.strideX);
    if (dstH == 0 || p.dstH != dstH)
        return SetLastErrorF("%s: dstH does not follow the size rule (expected %zu)", f, dstH);
    if (dstW == 0 || p.dstW != dstW)
        return SetLastErrorF("%s: dstW does not follow the size rule (expected %zu)", f, dstW);
    size_t n = 0;
    if (!FitsInMemory(p.srcC, p.srcH * p.srcW, sizeof(float)) ||
        !FitsInMemory(p.dstC, p.dstH * p.dstW, sizeof(float)) ||
        !CheckedMul(p.srcC / p.group * p.kernelY, p.kernelX, &n) ||
        !FitsInMemory(n, p.dstC, sizeof(float)) ||
        !FitsInMemory(n, p.dstH * p.dstW, sizeof(float)) ||
        !FitsInMemory(batch, p.srcC * p.srcH * p.srcW, sizeof(float)) ||
        !FitsInMemory(batch, p.dstC * p.dstH * p.dstW, sizeof(float)))
        return SetLastErrorF("%s: tensor sizes overflow", f);
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

namespace {

// The checks every Forward entry point makes (`call`: "Forward", "ForwardAdd"): a context,
// the arrays (`given` false: `arrays` names them in the message), SetParams called. The context,
// or NULL with the error recorded.
Convolution32f* ForwardContext(void* context, bool given, const char* arrays, const char* api,
                               const char* call) {
    ClearLastError();
    if (context == nullptr) {
        SetLastErrorF("%s%s: context is NULL", api, call);
        return nullptr;
    }
    if (!given) {
        SetLastErrorF("%s%s: %s is NULL", api, call, arrays);
        return nullptr;
    }
    auto* c = static_cast<Convolution32f*>(context);
    if (!c->Ready()) {
        SetLastErrorF("%s%s: SetParams was not called", api, call);
        return nullptr;
    }
    return c;
}

}  // namespace

void ContextForward(void* context, const float* src, float* buf, float* dst, const char* api) {
    Convolution32f* c =
        ForwardContext(context, src != nullptr && dst != nullptr, "src or dst", api, "Forward");
    if (c == nullptr) return;
    try {
        c->Forward(src, buf, dst);
    } catch (const std::bad_alloc&) {
        SetLastErrorF("%sForward: out of memory", api);
    }
}

void ContextForwardAdd(void* context, const float* src, float* buf, const float* add, float* dst,
                       const char* api) {
    Convolution32f* c = ForwardContext(context, src != nullptr && add != nullptr && dst != nullptr,
                                       "src, add or dst", api, "ForwardAdd");
    if (c == nullptr) return;
    if (!c->TakesResidual()) {
        SetLastErrorF("%sForwardAdd: the context is not a convolution context", api);
        return;
    }
    // Both tensors hold batch*dstC*dstH*dstW floats; overlapping ones would read outputs back
    // as residuals (row tiles store their overlap twice).
    const SimdConvolutionParameters& p = c->p_;
    const uintptr_t bytes = c->batch_ * p.dstC * p.dstH * p.dstW * sizeof(float);
    const uintptr_t a = reinterpret_cast<uintptr_t>(add), d = reinterpret_cast<uintptr_t>(dst);
    if (a < d + bytes && d < a + bytes) {
        SetLastErrorF("%sForwardAdd: add overlaps dst", api);
        return;
    }
    try {
        c->ForwardAdd(src, buf, add, dst);
    } catch (const std::bad_alloc&) {
        SetLastErrorF("%sForwardAdd: out of memory", api);
    }
}

}  // namespace simd
