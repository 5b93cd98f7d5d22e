// FP32 merged convolution (SUPPLEMENT.md §10): the context every target's algorithm derives
// from. It keeps, per stage, the parameters, bias and activation values; the per-target class
// (MergedConvolution32f.cpp) packs the weights and runs the band algorithm.
#pragma once

#include <cstddef>
#include <vector>

#include "SimdSynet.h"
#include "core/AlignedVector.h"
#include "core/LayerContext.h"

namespace simd {

class MergedConvolution32f : public LayerContext {
public:
    static constexpr size_t kMaxStages = 3;

    MergedConvolution32f(size_t batch, const SimdConvolutionParameters* convs, size_t count,
                         bool add)
        : batch_(batch), count_(count), add_(add) {
        for (size_t i = 0; i < count; ++i) p_[i] = convs[i];
    }

    size_t InternalBufferSize() const override {
        size_t n = scratch_.size();
        for (size_t i = 0; i < count_; ++i)
            n += weights_[i].size() + bias_[i].size() + slope_[i].size() + zeros_[i].size();
        return n;
    }

    // Copies the bias (NULL: zeros) and the activation values of every stage, then lets the
    // algorithm pack the weights. `params[i]` is only read when stage i's activation needs it.
    void SetParams(const float* const* weight, const float* const* bias,
                   const float* const* params) {
        for (size_t i = 0; i < count_; ++i) {
            const SimdConvolutionParameters& p = p_[i];
            const float* b = bias ? bias[i] : nullptr;
            const float* a = params ? params[i] : nullptr;
            bias_[i].assign(p.dstC, 0.0f);
            if (b)
                for (size_t c = 0; c < p.dstC; ++c) bias_[i][c] = b[c];
            zeros_[i].assign(p.dstC, 0.0f);
            slope_[i].clear();
            param0_[i] = param1_[i] = 0.0f;
            switch (p.activation) {
                case SimdConvolutionActivationLeakyRelu:
                    slope_[i].assign(p.dstC, a[0]);
                    break;
                case SimdConvolutionActivationPrelu:
                    slope_[i].assign(a, a + p.dstC);
                    break;
                case SimdConvolutionActivationRestrictRange:
                case SimdConvolutionActivationHswish:
                case SimdConvolutionActivationHardSigmoid:
                    param0_[i] = a[0];
                    param1_[i] = a[1];
                    break;
                case SimdConvolutionActivationElu:
                case SimdConvolutionActivationMish:
                case SimdConvolutionActivationSwish:
                    param0_[i] = a[0];
                    break;
                default:
                    break;
            }
            PackWeights(i, weight[i]);
        }
        ready_ = true;
    }

    // buf: caller scratch of ExternalBufferSize() floats, or NULL (context scratch).
    // Returns false when the scratch of extra threads could not be allocated.
    bool Forward(const float* src, float* buf, float* dst) { return Run(src, Scratch(buf), dst); }

protected:
    virtual void PackWeights(size_t stage, const float* weight) = 0;
    virtual bool Run(const float* src, float* buf, float* dst) const = 0;

public:
    const size_t batch_, count_;
    const bool add_;
    SimdConvolutionParameters p_[kMaxStages];
    // Per stage: weights in the algorithm's order; bias (dstC, zeros when NULL); per-channel
    // negative slope (LeakyRelu, Prelu); dstC zeros (the bias of a second activation pass);
    // the scalar parameters of the other activations.
    AlignedFloats weights_[kMaxStages];
    std::vector<float> bias_[kMaxStages], slope_[kMaxStages], zeros_[kMaxStages];
    float param0_[kMaxStages] = {}, param1_[kMaxStages] = {};
};

}  // namespace simd
