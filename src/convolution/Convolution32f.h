// FP32 convolution framework (SUPPLEMENT.md §8): the context shared by every algorithm. The
// per-target algorithms (Convolution32f.cpp) derive from it; the entry points call its virtual
// functions, so the target and the algorithm are chosen once, at Init.
#pragma once

#include <cstddef>
#include <vector>

#include "SimdSynet.h"
#include "core/AlignedVector.h"
#include "core/LayerContext.h"

namespace simd {

class Convolution32f : public LayerContext {
public:
    Convolution32f(size_t batch, const SimdConvolutionParameters& conv, SimdGemm32fNNPtr gemm)
        : batch_(batch), p_(conv), gemm_(gemm) {}

    size_t InternalBufferSize() const override {
        return weights_.size() + bias_.size() + slope_.size() + scratch_.size();
    }

    // Copies bias and activation parameters, then lets the algorithm re-order the weights.
    void SetParams(const float* weight, const float* bias, const float* params);
    // buf: caller scratch of ExternalBufferSize() floats, or NULL (context scratch).
    void Forward(const float* src, float* buf, float* dst) { Run(src, Scratch(buf), dst); }
    // dst = activation(convolution + bias + add), add a tensor of dst's shape and layout that
    // does not overlap it (SimdSynetConvolution32fForwardAdd). Only where TakesResidual().
    void ForwardAdd(const float* src, float* buf, const float* add, float* dst) {
        RunAdd(src, Scratch(buf), add, dst);
    }
    // False for the deconvolution contexts, which share this base but have no residual path.
    virtual bool TakesResidual() const { return true; }

protected:
    virtual void PackWeights(const float* weight) = 0;
    virtual void Run(const float* src, float* buf, float* dst) const = 0;
    virtual void RunAdd(const float* src, float* buf, const float* add, float* dst) const = 0;

public:
    const size_t batch_;
    const SimdConvolutionParameters p_;
    const SimdGemm32fNNPtr gemm_;
    // Weights in the algorithm's order; bias (dstC, zeros when NULL); per-channel negative
    // slope (dstC) of LeakyRelu/Prelu; the two scalar parameters of the other activations.
    AlignedFloats weights_;
    std::vector<float> bias_, slope_;
    float param0_ = 0.0f, param1_ = 0.0f;
};

// The activation parameters (§3.1) as the framework contexts keep them: the negative slope of
// each of dstC channels (LeakyRelu: params[0] for all; Prelu: params; otherwise empty) and the
// scalars of the others (0 when unused).
inline void CopyActivationParams(SimdConvolutionActivationType type, const float* params,
                                 size_t dstC, std::vector<float>* slope, float* p0, float* p1) {
    slope->clear();
    *p0 = *p1 = 0.0f;
    switch (type) {
        case SimdConvolutionActivationLeakyRelu:
            slope->assign(dstC, params[0]);
            break;
        case SimdConvolutionActivationPrelu:
            slope->assign(params, params + dstC);
            break;
        case SimdConvolutionActivationRestrictRange:
        case SimdConvolutionActivationHswish:
        case SimdConvolutionActivationHardSigmoid:
            *p0 = params[0];
            *p1 = params[1];
            break;
        case SimdConvolutionActivationElu:
        case SimdConvolutionActivationMish:
        case SimdConvolutionActivationSwish:
            *p0 = params[0];
            break;
        default:
            break;
    }
}

inline void Convolution32f::SetParams(const float* weight, const float* bias, const float* params) {
    const size_t dstC = p_.dstC;
    bias_.assign(dstC, 0.0f);
    if (bias)
        for (size_t c = 0; c < dstC; ++c) bias_[c] = bias[c];
    CopyActivationParams(p_.activation, params, dstC, &slope_, &param0_, &param1_);
    PackWeights(weight);
    ready_ = true;
}

// True when the activation reads `params` (which then must not be NULL).
inline bool ActivationReadsParams(SimdConvolutionActivationType type) {
    return type != SimdConvolutionActivationIdentity && type != SimdConvolutionActivationRelu &&
           type != SimdConvolutionActivationGelu;
}

}  // namespace simd
