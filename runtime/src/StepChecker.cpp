// The field checks of the loader (StepChecker.h).
#include "StepChecker.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "SimdSynet.hpp"

namespace simdsynet_executor {
namespace loader {

SimdTensorFormatType Format(const StepChecker& c, file::TensorFormat f) {
    if (f == file::TensorFormat::Nchw) return SimdTensorFormatNchw;
    if (f == file::TensorFormat::Nhwc) return SimdTensorFormatNhwc;
    c.Fail("unknown tensor format");
}

SimdTensorDataType DataType(const StepChecker& c, file::TensorType t) {
    if (t == file::TensorType::Float32) return SimdTensorData32f;
    if (t == file::TensorType::Uint8) return SimdTensorData8u;
    c.Fail("unknown tensor type");
}

SimdConvolutionParameters Describe(const StepChecker& c, const file::ConvolutionDesc* d) {
    if (d == nullptr) c.Fail("the layer description is missing");
    SimdConvolutionParameters p{};
    p.srcC = c.Size(d->src_c());
    p.srcH = c.Size(d->src_h());
    p.srcW = c.Size(d->src_w());
    p.dstC = c.Size(d->dst_c());
    p.dstH = c.Size(d->dst_h());
    p.dstW = c.Size(d->dst_w());
    p.kernelY = c.Size(d->kernel_y());
    p.kernelX = c.Size(d->kernel_x());
    p.strideY = c.Size(d->stride_y());
    p.strideX = c.Size(d->stride_x());
    p.dilationY = c.Size(d->dilation_y());
    p.dilationX = c.Size(d->dilation_x());
    p.padY = c.Size(d->pad_y());
    p.padX = c.Size(d->pad_x());
    p.padH = c.Size(d->pad_h());
    p.padW = c.Size(d->pad_w());
    p.group = c.Size(d->group());
    if (d->activation() < SimdConvolutionActivationIdentity ||
        d->activation() > SimdConvolutionActivationGelu)
        c.Fail("unknown activation " + std::to_string(d->activation()));
    p.activation = SimdConvolutionActivationType(d->activation());
    p.srcF = p.dstF = Format(c, d->format());
    p.srcT = DataType(c, d->src_type());
    p.dstT = DataType(c, d->dst_type());
    c.Require(p.group != 0 && p.srcC % p.group == 0 && p.dstC % p.group == 0,
              "the group does not divide the channels");
    return p;
}

size_t TensorFloats(const StepChecker& c, size_t values, SimdTensorDataType type) {
    (void)c;
    return type == SimdTensorData8u ? (values + sizeof(float) - 1) / sizeof(float) : values;
}

size_t SrcFloats(const StepChecker& c, size_t batch, const SimdConvolutionParameters& p) {
    return TensorFloats(c, c.Mul({batch, p.srcC, p.srcH, p.srcW}), p.srcT);
}

size_t DstFloats(const StepChecker& c, size_t batch, const SimdConvolutionParameters& p) {
    return TensorFloats(c, c.Mul({batch, p.dstC, p.dstH, p.dstW}), p.dstT);
}

size_t ActivationParams(const SimdConvolutionParameters& p) {
    return Simd::ConvolutionActivationParams(p.activation, p.dstC);
}

const float* ConstantData(const StepChecker& c, const Ref& ref, const std::vector<Floats>& data,
                          const char* field) {
    if (ref.kind != Ref::Constant) c.Fail(std::string(field) + " must be a constant");
    return data[ref.index].data();
}

const float* ConvolutionWeights(const StepChecker& c, const SimdConvolutionParameters& p,
                                const float* oiyx, std::vector<float>& converted) {
    if (p.srcF != SimdTensorFormatNhwc) return oiyx;
    const size_t kernel = p.kernelY * p.kernelX, input = p.srcC / p.group;
    converted.resize(c.Mul({p.dstC, input, kernel}));
    SimdSynetConvertFilter(p.dstC, input, kernel, oiyx, SimdTensorFormatOiyx, converted.data(),
                           SimdTensorFormatYxio);
    CheckLibrary("weights");
    return converted.data();
}

size_t WeightFloats(const StepChecker& c, const SimdConvolutionParameters& p) {
    return c.Mul({p.dstC, p.srcC / p.group, p.kernelY, p.kernelX});
}

PoolingShape Pooling(const StepChecker& c, const file::PoolingShape* s) {
    if (s == nullptr) c.Fail("the pooling shape is missing");
    PoolingShape p{c.Size(s->batch()),    c.Size(s->channels()), c.Size(s->src_h()),
                   c.Size(s->src_w()),    c.Size(s->kernel_y()), c.Size(s->kernel_x()),
                   c.Size(s->stride_y()), c.Size(s->stride_x()), c.Size(s->pad_y()),
                   c.Size(s->pad_x()),    c.Size(s->dst_h()),    c.Size(s->dst_w())};
    c.Require(p.kernelY && p.kernelX && p.strideY && p.strideX, "a zero kernel or stride");
    return p;
}

size_t StepActivationParams(Activation kind) {
    switch (kind) {
        case Activation::Relu:
        case Activation::Elu:
        case Activation::Sigmoid:
        case Activation::Tanh:
        case Activation::Pow:
            return 1;
        case Activation::RestrictRange:
        case Activation::Hswish:
        case Activation::Selu:
        case Activation::HardSigmoid:
        case Activation::Softplus:
            return 2;
        default:
            return 0;
    }
}

Activation StepActivation(const StepChecker& c, file::ActivationKind kind) {
    if (kind > file::ActivationKind::MAX) c.Fail("unknown activation");
    return Activation(int(kind));
}

void CheckDilatedAxis(const StepChecker& c, size_t src, size_t dst, size_t kernel, size_t stride,
                      size_t pad, size_t dilation) {
    c.Require(dilation != 0, "a zero dilation");
    c.Require(kernel != 0, "a zero kernel or stride");
    for (size_t o = 0; o < dst; ++o) {
        // Tap k is at o*stride + k*dilation - pad; the first at or after the image's start:
        const size_t start = c.Mul(o, stride);
        const size_t k =
            start >= pad ? 0 : (pad - start) / dilation + ((pad - start) % dilation != 0);
        const bool inside = k < kernel && c.Add(start, c.Mul(k, dilation)) - pad < src;
        if (!inside) c.Fail("a pooling window holds no pixel of the image");
    }
}

void CheckIndices(const StepChecker& c, const std::vector<size_t>& v, size_t bound,
                  const char* what) {
    for (size_t i : v)
        if (i >= bound) c.Fail(std::string(what) + " is outside the image");
}

LinearTaps Taps(const StepChecker& c, const file::LinearTaps* t, size_t bound, const char* what) {
    if (t == nullptr) c.Fail(std::string(what) + " are missing");
    LinearTaps taps{c.Sizes(t->first(), what), c.Sizes(t->second(), what), {}, {}};
    const size_t n = taps.first.size();
    taps.firstWeight = c.Floats(t->first_weight(), what, n);
    taps.secondWeight = c.Floats(t->second_weight(), what, n);
    c.Require(taps.second.size() == n, "linear taps of different lengths");
    CheckIndices(c, taps.first, bound, what);
    CheckIndices(c, taps.second, bound, what);
    return taps;
}

bool IsPermutation(std::vector<size_t> perm) {
    std::sort(perm.begin(), perm.end());
    for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != i) return false;
    return true;
}

}  // namespace loader
}  // namespace simdsynet_executor
