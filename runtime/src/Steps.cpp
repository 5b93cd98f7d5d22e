// The library steps of a plan: one SimdSynet.h function or context per step.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "Steps.h"

namespace simdsynet_executor {

namespace {

// A step that owns a context of one of the frameworks (released with SimdRelease).
class ContextStep : public Step {
public:
    ContextStep(const std::string& name, const char* kind, void* context, Ref src, Ref dst,
                size_t (*externalBufferSize)(const void*), const char* (*info)(const void*))
        : Step(name, kind, Category::Kernel), context_(context), src_(src), dst_(dst) {
        if (context_ == nullptr) {
            CheckLibrary(name);
            throw ExecutorError(name + ": the library returned no context");
        }
        scratch_ = externalBufferSize(context_);
        info_ = info(context_);
    }
    ~ContextStep() override { SimdRelease(context_); }
    size_t ScratchFloats() const override { return scratch_; }
    std::string Info() const override { return info_; }

protected:
    void* context_;
    Ref src_, dst_;
    size_t scratch_ = 0;
    std::string info_;
};

class ConvolutionStep : public ContextStep {
public:
    ConvolutionStep(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                    const float* weight, const float* bias, const float* params, Ref src, Ref dst,
                    Ref add)
        : ContextStep(name, add.kind == Ref::None ? "convolution" : "convolution+add",
                      SimdSynetConvolution32fInit(batch, &p, nullptr), src, dst,
                      SimdSynetConvolution32fExternalBufferSize, SimdSynetConvolution32fInfo),
          add_(add) {
        SimdSynetConvolution32fSetParams(context_, weight, nullptr, bias, params);
        CheckLibrary(name);
    }
    void Run(const Memory& memory, float* scratch) const override {
        if (add_.kind == Ref::None)
            SimdSynetConvolution32fForward(context_, memory(src_), scratch, memory(dst_));
        else
            SimdSynetConvolution32fForwardAdd(context_, memory(src_), scratch, memory(add_),
                                              memory(dst_));
    }

private:
    Ref add_;
};

// The executor counts scratch in floats; the INT8 framework in bytes.
size_t Convolution8iScratchFloats(const void* context) {
    return (SimdSynetConvolution8iExternalBufferSize(context) + sizeof(float) - 1) / sizeof(float);
}

class Convolution8iStep : public ContextStep {
public:
    Convolution8iStep(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                      const float* weight, const float* bias, const float* params,
                      const float* const* stats, SimdSynetCompatibilityType compatibility, Ref src,
                      Ref dst)
        : ContextStep(name, "int8 convolution",
                      SimdSynetConvolution8iInit(batch, &p, compatibility), src, dst,
                      Convolution8iScratchFloats, SimdSynetConvolution8iInfo) {
        SimdSynetConvolution8iSetParams(context_, weight, bias, params, stats);
        CheckLibrary(name);
    }
    void Run(const Memory& memory, float* scratch) const override {
        SimdSynetConvolution8iForward(context_, reinterpret_cast<const uint8_t*>(memory(src_)),
                                      reinterpret_cast<uint8_t*>(scratch),
                                      reinterpret_cast<uint8_t*>(memory(dst_)));
    }
};

class MergedConvolutionStep : public ContextStep {
public:
    MergedConvolutionStep(const std::string& name, size_t batch,
                          const std::vector<SimdConvolutionParameters>& p,
                          const std::vector<const float*>& weight,
                          const std::vector<const float*>& bias,
                          const std::vector<const float*>& params, bool add, Ref src, Ref dst)
        : ContextStep(name, "merged convolution",
                      SimdSynetMergedConvolution32fInit(batch, p.data(), p.size(),
                                                        add ? SimdTrue : SimdFalse),
                      src, dst, SimdSynetMergedConvolution32fExternalBufferSize,
                      SimdSynetMergedConvolution32fInfo) {
        SimdSynetMergedConvolution32fSetParams(context_, weight.data(), nullptr, bias.data(),
                                               params.data());
        CheckLibrary(name);
    }
    void Run(const Memory& memory, float* scratch) const override {
        SimdSynetMergedConvolution32fForward(context_, memory(src_), scratch, memory(dst_));
    }
};

class DeconvolutionStep : public ContextStep {
public:
    DeconvolutionStep(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                      const float* weight, const float* bias, const float* params, Ref src, Ref dst)
        : ContextStep(name, "deconvolution", SimdSynetDeconvolution32fInit(batch, &p, nullptr), src,
                      dst, SimdSynetDeconvolution32fExternalBufferSize,
                      SimdSynetDeconvolution32fInfo) {
        SimdSynetDeconvolution32fSetParams(context_, weight, nullptr, bias, params);
        CheckLibrary(name);
    }
    void Run(const Memory& memory, float* scratch) const override {
        SimdSynetDeconvolution32fForward(context_, memory(src_), scratch, memory(dst_));
    }
};

class PoolingStep : public Step {
public:
    PoolingStep(const std::string& name, PoolingKind kind, const PoolingShape& shape, Ref src,
                Ref dst)
        : Step(name, kind == PoolingKind::Max ? "max pooling" : "average pooling",
               Category::Kernel),
          kind_(kind),
          s_(shape),
          srcRef_(src),
          dstRef_(dst) {}
    void Run(const Memory& memory, float*) const override {
        const float* src = memory(srcRef_);
        float* dst = memory(dstRef_);
        const size_t srcImage = s_.channels * s_.srcH * s_.srcW;
        const size_t dstImage = s_.channels * s_.dstH * s_.dstW;
        for (size_t b = 0; b < s_.batch; ++b) {
            const float* from = src + b * srcImage;
            float* to = dst + b * dstImage;
            if (kind_ == PoolingKind::Max)
                SimdSynetPoolingMax32f(from, s_.channels, s_.srcH, s_.srcW, 1, s_.kernelY,
                                       s_.kernelX, 1, s_.strideY, s_.strideX, 0, s_.padY, s_.padX,
                                       to, s_.channels, s_.dstH, s_.dstW, SimdTensorFormatNhwc);
            else
                SimdSynetPoolingAverage(
                    from, s_.channels, s_.srcH, s_.srcW, s_.kernelY, s_.kernelX, s_.strideY,
                    s_.strideX, s_.padY, s_.padX, to, s_.dstH, s_.dstW,
                    kind_ == PoolingKind::AverageExcludePad ? SimdTrue : SimdFalse,
                    SimdTensorFormatNhwc);
        }
    }

private:
    PoolingKind kind_;
    PoolingShape s_;
    Ref srcRef_, dstRef_;
};

class ScaleStep : public Step {
public:
    ScaleStep(const std::string& name, Ref src, Ref scale, Ref bias, const ScaleShape& shape,
              Ref dst)
        : Step(name, shape.relu ? "scale+relu" : "scale", Category::Kernel),
          refs_{src, scale, bias, dst},
          s_(shape) {}
    void Run(const Memory& memory, float*) const override {
        const float *src = memory(refs_[0]), *scale = memory(refs_[1]), *bias = memory(refs_[2]);
        float* dst = memory(refs_[3]);
        if (s_.format == SimdTensorFormatNhwc && s_.scaleStride == 0 && s_.biasStride == 0) {
            Call(src, scale, bias, s_.spatial * s_.images, dst);
            return;
        }
        const size_t image = s_.channels * s_.spatial;
        for (size_t b = 0; b < s_.images; ++b)
            Call(src + b * image, scale + b * s_.scaleStride,
                 bias ? bias + b * s_.biasStride : nullptr, s_.spatial, dst + b * image);
    }

private:
    void Call(const float* src, const float* scale, const float* bias, size_t spatial,
              float* dst) const {
        static const float zero = 0.0f;
        if (s_.relu)
            SimdSynetFusedLayerForward2(src, scale, bias, s_.channels, spatial, &zero, dst,
                                        s_.format);
        else
            SimdSynetScaleLayerForward(src, scale, bias, s_.channels, spatial, dst, s_.format);
    }

    Ref refs_[4];
    ScaleShape s_;
};

class ConcatScaleReluStep : public Step {
public:
    ConcatScaleReluStep(const std::string& name, Ref src0, size_t channels0, Ref src1,
                        size_t channels1, size_t spatial, Ref scale, Ref bias, Ref dst0, Ref dst1)
        : Step(name, "concat+scale+relu", Category::Kernel),
          refs_{src0, src1, scale, bias, dst0, dst1},
          channels0_(channels0),
          channels1_(channels1),
          spatial_(spatial) {}
    void Run(const Memory& memory, float*) const override {
        float* p[6];
        for (int i = 0; i < 6; ++i) p[i] = memory(refs_[i]);
        SimdSynetFusedLayerForward9(p[0], p[1], p[2], p[3], channels0_, channels1_, spatial_, p[4],
                                    p[5], SimdTensorFormatNhwc);
    }

private:
    Ref refs_[6];
    size_t channels0_, channels1_, spatial_;
};

// The element-wise function `kind` of `size` floats (params: at least four floats). src and dst
// may be the same array.
void Activate(Activation kind, const float* p, const float* src, size_t size, float* dst) {
    switch (kind) {
        case Activation::Relu:
            SimdSynetRelu32f(src, size, p, dst);
            break;
        case Activation::RestrictRange:
            SimdSynetRestrictRange32f(src, size, p, p + 1, dst);
            break;
        case Activation::Hswish:
            SimdSynetHswish32f(src, size, p, p + 1, dst);
            break;
        case Activation::Elu:
            SimdSynetElu32f(src, size, p, dst);
            break;
        case Activation::Selu:
            SimdSynetElu32f(src, size, p, dst);
            SimdSynetScaleLayerForward(dst, p + 1, nullptr, 1, size, dst, SimdTensorFormatNhwc);
            break;
        case Activation::Sigmoid:
            SimdSynetSigmoid32f(src, size, p, dst);
            break;
        case Activation::HardSigmoid: {
            static const float lower = 0.0f, upper = 1.0f;
            SimdSynetScaleLayerForward(src, p, p + 1, 1, size, dst, SimdTensorFormatNhwc);
            SimdSynetRestrictRange32f(dst, size, &lower, &upper, dst);
            break;
        }
        case Activation::Softplus:
            SimdSynetSoftplus32f(src, size, p, p + 1, dst);
            break;
        case Activation::Tanh:
            SimdSynetTanh32f(src, size, p, dst);
            break;
        case Activation::Abs:
            SimdSynetUnaryOperation32fLayerForward(src, size, SimdSynetUnaryOperation32fAbs, dst);
            break;
        case Activation::Exp:
            SimdSynetUnaryOperation32fLayerForward(src, size, SimdSynetUnaryOperation32fExp, dst);
            break;
        case Activation::Log:
            SimdSynetUnaryOperation32fLayerForward(src, size, SimdSynetUnaryOperation32fLog, dst);
            break;
        case Activation::Neg:
            SimdSynetUnaryOperation32fLayerForward(src, size, SimdSynetUnaryOperation32fNeg, dst);
            break;
        case Activation::Sqrt:
            SimdSynetUnaryOperation32fLayerForward(src, size, SimdSynetUnaryOperation32fSqrt, dst);
            break;
        case Activation::Pow:
            for (size_t i = 0; i < size; ++i) dst[i] = std::pow(src[i], p[0]);
            break;
        case Activation::Gelu:
            SimdSynetGelu32f(src, size, SimdFalse, dst);
            break;
        case Activation::GeluTanh:
            SimdSynetGelu32f(src, size, SimdTrue, dst);
            break;
    }
}

const std::pair<const char*, Activation> kActivationNames[] = {
    {"relu", Activation::Relu},
    {"restrict_range", Activation::RestrictRange},
    {"hswish", Activation::Hswish},
    {"elu", Activation::Elu},
    {"selu", Activation::Selu},
    {"sigmoid", Activation::Sigmoid},
    {"hard_sigmoid", Activation::HardSigmoid},
    {"softplus", Activation::Softplus},
    {"tanh", Activation::Tanh},
    {"abs", Activation::Abs},
    {"exp", Activation::Exp},
    {"log", Activation::Log},
    {"neg", Activation::Neg},
    {"sqrt", Activation::Sqrt},
    {"pow", Activation::Pow},
    {"gelu", Activation::Gelu},
    {"gelu_tanh", Activation::GeluTanh}};

const char* ActivationName(Activation kind) {
    for (const auto& [name, k] : kActivationNames)
        if (k == kind) return name;
    return "?";
}

// The fused activation runs on each chunk right after the chunk's sum, while the chunk is still
// in L1, so the output is written once and never read back from L2 or memory. Measured on
// Sapphire Rapids, 1 thread, Add + Relu of two 256x56x56 tensors (minimum of 300 runs): chunks
// of 256-1024 floats 314-317 us, 2048 321, 4096 332, 16384 356, one call each 420 us, against
// 305 + 105 us for the two steps; 1024x14x14: 512 floats 55.5 us, 1024 58, 4096 63, against
// 55 + 16. Both kernels apply one functor per element on every path, and the size is a multiple
// of every vector group they unroll (at most 64 floats), so each element even takes the path it
// takes in one call over the whole array: the same bits.
constexpr size_t kEltwiseChunkFloats = 512;
// From this size on (the library's split: 32 K floats) and with a budget above 1 thread, the
// eltwise step makes two whole calls instead of chunks.
constexpr size_t kEltwiseSplitFloats = size_t(1) << 15;

// SimdSynetEltwiseLayerForward of `src` into dst, then the activation when there is one, chunk
// by chunk; `chunk` is room for as many pointers as src has.
void EltwiseChunks(SimdSynetEltwiseOperationType type, const std::vector<const float*>& src,
                   const std::vector<float>& weights, size_t size,
                   const std::optional<Activation>& activation, const std::vector<float>& params,
                   std::vector<const float*>& chunk, float* dst) {
    const float* w = weights.empty() ? nullptr : weights.data();
    // With more than one thread the library splits large calls over them (a core's bandwidth
    // each), which chunks too small to split would forgo: two whole passes at 2 threads beat
    // one chunked pass at 1 (resnet50's Add + ReLU at 56x56x256 on Sapphire Rapids, see
    // kEltwiseSplitFloats).
    if (!activation || (size >= kEltwiseSplitFloats && SimdGetThreadNumber() > 1)) {
        SimdSynetEltwiseLayerForward(src.data(), w, src.size(), size, type, dst);
        if (activation) Activate(*activation, params.data(), dst, size, dst);
        return;
    }
    for (size_t start = 0; start < size; start += kEltwiseChunkFloats) {
        const size_t n = std::min(kEltwiseChunkFloats, size - start);
        for (size_t i = 0; i < src.size(); ++i) chunk[i] = src[i] + start;
        SimdSynetEltwiseLayerForward(chunk.data(), w, chunk.size(), n, type, dst + start);
        Activate(*activation, params.data(), dst + start, n, dst + start);
    }
}

class EltwiseStep : public Step {
public:
    EltwiseStep(const std::string& name, SimdSynetEltwiseOperationType type,
                const std::vector<Ref>& sources, const std::vector<float>& weights, size_t size,
                Ref dst, const std::optional<Activation>& activation,
                const std::vector<float>& params)
        : Step(name, activation ? std::string("eltwise+") + ActivationName(*activation) : "eltwise",
               Category::Kernel),
          type_(type),
          refs_(sources),
          weights_(weights),
          size_(size),
          dstRef_(dst),
          activation_(activation),
          params_(params) {
        params_.resize(4, 0.0f);
    }
    void Run(const Memory& memory, float*) const override {
        std::vector<const float*> src, chunk(refs_.size());
        src.reserve(refs_.size());
        for (const Ref& r : refs_) src.push_back(memory(r));
        EltwiseChunks(type_, src, weights_, size_, activation_, params_, chunk, memory(dstRef_));
    }

private:
    SimdSynetEltwiseOperationType type_;
    std::vector<Ref> refs_;
    std::vector<float> weights_;
    size_t size_;
    Ref dstRef_;
    std::optional<Activation> activation_;
    std::vector<float> params_;
};

class ActivationStep : public Step {
public:
    ActivationStep(const std::string& name, Activation kind, const std::vector<float>& params,
                   Ref src, size_t size, Ref dst)
        : Step(name, "activation", Category::Kernel),
          kind_(kind),
          params_(params),
          srcRef_(src),
          dstRef_(dst),
          size_(size) {
        params_.resize(4, 0.0f);
    }
    void Run(const Memory& memory, float*) const override {
        Activate(kind_, params_.data(), memory(srcRef_), size_, memory(dstRef_));
    }

private:
    Activation kind_;
    std::vector<float> params_;
    Ref srcRef_, dstRef_;
    size_t size_;
};

class PreluStep : public Step {
public:
    PreluStep(const std::string& name, Ref src, Ref slope, size_t channels, size_t spatial,
              size_t images, SimdTensorFormatType format, Ref dst)
        : Step(name, "prelu", Category::Kernel),
          refs_{src, slope, dst},
          channels_(channels),
          spatial_(spatial),
          images_(images),
          format_(format) {}
    void Run(const Memory& memory, float*) const override {
        float* p[3];
        for (int i = 0; i < 3; ++i) p[i] = memory(refs_[i]);
        if (format_ == SimdTensorFormatNhwc) {
            SimdSynetPreluLayerForward(p[0], p[1], channels_, spatial_ * images_, p[2], format_);
            return;
        }
        const size_t image = channels_ * spatial_;
        for (size_t b = 0; b < images_; ++b)
            SimdSynetPreluLayerForward(p[0] + b * image, p[1], channels_, spatial_,
                                       p[2] + b * image, format_);
    }

private:
    Ref refs_[3];
    size_t channels_, spatial_, images_;
    SimdTensorFormatType format_;
};

class SoftmaxStep : public Step {
public:
    SoftmaxStep(const std::string& name, Ref src, size_t outer, size_t count, size_t inner, Ref dst)
        : Step(name, "softmax", Category::Kernel),
          refs_{src, dst},
          outer_(outer),
          count_(count),
          inner_(inner) {}
    void Run(const Memory& memory, float*) const override {
        float* p[2];
        for (int i = 0; i < 2; ++i) p[i] = memory(refs_[i]);
        SimdSynetSoftmaxLayerForward(p[0], outer_, count_, inner_, p[1]);
    }

private:
    Ref refs_[2];
    size_t outer_, count_, inner_;
};

class LogSoftmaxStep : public Step {
public:
    LogSoftmaxStep(const std::string& name, Ref src, size_t outer, size_t count, size_t inner,
                   Ref dst)
        : Step(name, "log softmax", Category::Glue),
          refs_{src, dst},
          outer_(outer),
          count_(count),
          inner_(inner) {}
    // The exponentials of one outer slice, then the max and the sum per inner position.
    size_t ScratchFloats() const override { return count_ * inner_ + 2 * inner_; }
    void Run(const Memory& memory, float* scratch) const override {
        float* p[2];
        for (int i = 0; i < 2; ++i) p[i] = memory(refs_[i]);
        const size_t slice = count_ * inner_;
        float* e = scratch;
        float* top = scratch + slice;
        float* sum = top + inner_;
        for (size_t o = 0; o < outer_; ++o) {
            const float* x = p[0] + o * slice;
            float* y = p[1] + o * slice;
            std::memcpy(top, x, inner_ * sizeof(float));
            for (size_t k = 1; k < count_; ++k)
                for (size_t j = 0; j < inner_; ++j) {
                    const float v = x[k * inner_ + j], m = top[j];
                    top[j] = (v > m || v != v) ? v : m;
                }
            for (size_t k = 0; k < count_; ++k)
                for (size_t j = 0; j < inner_; ++j) y[k * inner_ + j] = x[k * inner_ + j] - top[j];
            SimdSynetUnaryOperation32fLayerForward(y, slice, SimdSynetUnaryOperation32fExp, e);
            std::memcpy(sum, e, inner_ * sizeof(float));
            for (size_t k = 1; k < count_; ++k)
                for (size_t j = 0; j < inner_; ++j) sum[j] += e[k * inner_ + j];
            for (size_t j = 0; j < inner_; ++j) sum[j] = std::log(sum[j]);
            for (size_t k = 0; k < count_; ++k)
                for (size_t j = 0; j < inner_; ++j) y[k * inner_ + j] -= sum[j];
        }
    }

private:
    Ref refs_[2];
    size_t outer_, count_, inner_;
};

class LrnStep : public Step {
public:
    LrnStep(const std::string& name, Ref src, size_t half, size_t channels, size_t spatial,
            const std::vector<float>& k, Ref dst)
        : Step(name, "lrn", Category::Kernel),
          refs_{src, dst},
          half_(half),
          channels_(channels),
          spatial_(spatial),
          k_(k) {}
    void Run(const Memory& memory, float*) const override {
        float* p[2];
        for (int i = 0; i < 2; ++i) p[i] = memory(refs_[i]);
        SimdSynetLrnLayerCrossChannels(p[0], half_, channels_, spatial_, k_.data(), p[1],
                                       SimdTensorFormatNhwc);
    }

private:
    Ref refs_[2];
    size_t half_, channels_, spatial_;
    std::vector<float> k_;
};

class NormalizeStep : public Step {
public:
    NormalizeStep(const std::string& name, int version, Ref src, size_t batch, size_t channels,
                  size_t spatial, Ref scale, Ref shift, float eps, SimdTensorFormatType format,
                  Ref dst)
        : Step(name, version == 2 ? "layer normalization" : "instance normalization",
               Category::Kernel),
          version_(version),
          refs_{src, scale, shift, dst},
          batch_(batch),
          channels_(channels),
          spatial_(spatial),
          eps_(eps),
          format_(format) {}
    void Run(const Memory& memory, float*) const override {
        float* p[4];
        for (int i = 0; i < 4; ++i) p[i] = memory(refs_[i]);
        if (version_ == 2)
            SimdSynetNormalizeLayerForwardV2(p[0], batch_, channels_, spatial_, p[1], p[2], &eps_,
                                             format_, nullptr, p[3]);
        else
            SimdSynetNormalizeLayerForwardV3(p[0], batch_, channels_, spatial_, p[1], p[2], &eps_,
                                             format_, nullptr, p[3]);
    }

private:
    int version_;
    Ref refs_[4];
    size_t batch_, channels_, spatial_;
    float eps_;
    SimdTensorFormatType format_;
};

class InnerProductStep : public Step {
public:
    InnerProductStep(const std::string& name, Ref src, Ref weight, Ref bias, size_t rows,
                     size_t count, size_t size, Ref dst)
        : Step(name, "inner product", Category::Kernel),
          refs_{src, weight, bias, dst},
          rows_(rows),
          count_(count),
          size_(size) {}
    void Run(const Memory& memory, float*) const override {
        float* p[4];
        for (int i = 0; i < 4; ++i) p[i] = memory(refs_[i]);
        if (rows_ == 1) {
            SimdSynetInnerProductLayerForward(p[0], p[1], p[2], count_, size_, p[3]);
            return;
        }
        const float one = 1.0f, zero = 0.0f;
        SimdGemm32fNT(rows_, count_, size_, &one, p[0], size_, p[1], size_, &zero, p[3], count_);
        if (p[2]) SimdSynetAddBias(p[2], count_, rows_, p[3], SimdTensorFormatNhwc);
    }

private:
    Ref refs_[4];
    size_t rows_, count_, size_;
};

// Products of matrices the network computed (attention's Q*K^T and weights*V): one
// SimdGemm32fNN per batch item; a stride of 0 shares one matrix between the items.
class MatMulStep : public Step {
public:
    MatMulStep(const std::string& name, Ref a, Ref b, const MatMulShape& shape, Ref dst)
        : Step(name, "matmul", Category::Kernel), refs_{a, b, dst}, shape_(shape) {}
    void Run(const Memory& memory, float*) const override {
        float* p[3];
        for (int i = 0; i < 3; ++i) p[i] = memory(refs_[i]);
        const MatMulShape& s = shape_;
        const float one = 1.0f, zero = 0.0f;
        for (size_t i = 0; i < s.batch; ++i)
            SimdGemm32fNN(s.m, s.n, s.k, &one, p[0] + i * s.strideA, s.k, p[1] + i * s.strideB, s.n,
                          &zero, p[2] + i * s.m * s.n, s.n);
    }

private:
    Ref refs_[3];
    MatMulShape shape_;
};

class ShuffleStep : public Step {
public:
    ShuffleStep(const std::string& name, Ref src0, size_t channels0, Ref src1, size_t channels1,
                size_t spatial, Ref dst0, Ref dst1)
        : Step(name, "shuffle", Category::Kernel),
          refs_{src0, src1, dst0, dst1},
          channels0_(channels0),
          channels1_(channels1),
          spatial_(spatial) {}
    void Run(const Memory& memory, float*) const override {
        float* p[4];
        for (int i = 0; i < 4; ++i) p[i] = memory(refs_[i]);
        SimdSynetShuffleLayerForward(p[0], channels0_, p[1], channels1_, spatial_, p[2], p[3],
                                     (channels0_ + channels1_) / 2, SimdTensorFormatNhwc);
    }

private:
    Ref refs_[4];
    size_t channels0_, channels1_, spatial_;
};

class ConvertImageStep : public Step {
public:
    ConvertImageStep(const std::string& name, Ref src, size_t batch, size_t channels,
                     size_t spatial, bool toNhwc, Ref dst)
        : Step(name, "layout", Category::Layout),
          refs_{src, dst},
          batch_(batch),
          channels_(channels),
          spatial_(spatial),
          toNhwc_(toNhwc) {}
    void Run(const Memory& memory, float*) const override {
        float* p[2];
        for (int i = 0; i < 2; ++i) p[i] = memory(refs_[i]);
        SimdSynetConvertImage(batch_, channels_, spatial_, p[0],
                              toNhwc_ ? SimdTensorFormatNchw : SimdTensorFormatNhwc, p[1],
                              toNhwc_ ? SimdTensorFormatNhwc : SimdTensorFormatNchw);
    }

private:
    Ref refs_[2];
    size_t batch_, channels_, spatial_;
    bool toNhwc_;
};

}  // namespace

StepPtr MakeConvolution(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                        const float* weight, const float* bias, const float* params, Ref src,
                        Ref dst, Ref add) {
    return std::make_unique<ConvolutionStep>(name, batch, p, weight, bias, params, src, dst, add);
}

StepPtr MakeConvolution8i(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                          const float* weight, const float* bias, const float* params,
                          const float* const* stats, SimdSynetCompatibilityType compatibility,
                          Ref src, Ref dst) {
    return std::make_unique<Convolution8iStep>(name, batch, p, weight, bias, params, stats,
                                               compatibility, src, dst);
}

StepPtr MakeMergedConvolution(const std::string& name, size_t batch,
                              const std::vector<SimdConvolutionParameters>& p,
                              const std::vector<const float*>& weight,
                              const std::vector<const float*>& bias,
                              const std::vector<const float*>& params, bool add, Ref src, Ref dst) {
    return std::make_unique<MergedConvolutionStep>(name, batch, p, weight, bias, params, add, src,
                                                   dst);
}

StepPtr MakeDeconvolution(const std::string& name, size_t batch, const SimdConvolutionParameters& p,
                          const float* weight, const float* bias, const float* params, Ref src,
                          Ref dst) {
    return std::make_unique<DeconvolutionStep>(name, batch, p, weight, bias, params, src, dst);
}

StepPtr MakePooling(const std::string& name, PoolingKind kind, const PoolingShape& shape, Ref src,
                    Ref dst) {
    return std::make_unique<PoolingStep>(name, kind, shape, src, dst);
}

StepPtr MakeScale(const std::string& name, Ref src, Ref scale, Ref bias, const ScaleShape& shape,
                  Ref dst) {
    return std::make_unique<ScaleStep>(name, src, scale, bias, shape, dst);
}

StepPtr MakeConcatScaleRelu(const std::string& name, Ref src0, size_t channels0, Ref src1,
                            size_t channels1, size_t spatial, Ref scale, Ref bias, Ref dst0,
                            Ref dst1) {
    return std::make_unique<ConcatScaleReluStep>(name, src0, channels0, src1, channels1, spatial,
                                                 scale, bias, dst0, dst1);
}

Activation ActivationNamed(const std::string& name) {
    for (const auto& [n, k] : kActivationNames)
        if (name == n) return k;
    throw ExecutorError("unknown activation " + name);
}

StepPtr MakeEltwise(const std::string& name, SimdSynetEltwiseOperationType type,
                    const std::vector<Ref>& sources, const std::vector<float>& weights, size_t size,
                    Ref dst, const std::optional<Activation>& activation,
                    const std::vector<float>& params) {
    return std::make_unique<EltwiseStep>(name, type, sources, weights, size, dst, activation,
                                         params);
}

StepPtr MakeActivation(const std::string& name, Activation kind, const std::vector<float>& params,
                       Ref src, size_t size, Ref dst) {
    return std::make_unique<ActivationStep>(name, kind, params, src, size, dst);
}

StepPtr MakePrelu(const std::string& name, Ref src, Ref slope, size_t channels, size_t spatial,
                  size_t images, SimdTensorFormatType format, Ref dst) {
    return std::make_unique<PreluStep>(name, src, slope, channels, spatial, images, format, dst);
}

StepPtr MakeSoftmax(const std::string& name, Ref src, size_t outer, size_t count, size_t inner,
                    Ref dst) {
    return std::make_unique<SoftmaxStep>(name, src, outer, count, inner, dst);
}

StepPtr MakeLogSoftmax(const std::string& name, Ref src, size_t outer, size_t count, size_t inner,
                       Ref dst) {
    return std::make_unique<LogSoftmaxStep>(name, src, outer, count, inner, dst);
}

StepPtr MakeLrn(const std::string& name, Ref src, size_t half, size_t channels, size_t spatial,
                const std::vector<float>& k, Ref dst) {
    return std::make_unique<LrnStep>(name, src, half, channels, spatial, k, dst);
}

StepPtr MakeNormalize(const std::string& name, int version, Ref src, size_t batch, size_t channels,
                      size_t spatial, Ref scale, Ref shift, float eps, SimdTensorFormatType format,
                      Ref dst) {
    return std::make_unique<NormalizeStep>(name, version, src, batch, channels, spatial, scale,
                                           shift, eps, format, dst);
}

StepPtr MakeInnerProduct(const std::string& name, Ref src, Ref weight, Ref bias, size_t rows,
                         size_t count, size_t size, Ref dst) {
    return std::make_unique<InnerProductStep>(name, src, weight, bias, rows, count, size, dst);
}

StepPtr MakeMatMul(const std::string& name, Ref a, Ref b, const MatMulShape& shape, Ref dst) {
    return std::make_unique<MatMulStep>(name, a, b, shape, dst);
}

StepPtr MakeShuffle(const std::string& name, Ref src0, size_t channels0, Ref src1, size_t channels1,
                    size_t spatial, Ref dst0, Ref dst1) {
    return std::make_unique<ShuffleStep>(name, src0, channels0, src1, channels1, spatial, dst0,
                                         dst1);
}

StepPtr MakeConvertImage(const std::string& name, Ref src, size_t batch, size_t channels,
                         size_t spatial, bool toNhwc, Ref dst) {
    return std::make_unique<ConvertImageStep>(name, src, batch, channels, spatial, toNhwc, dst);
}

}  // namespace simdsynet_executor
