// INT8 convolution framework (SUPPLEMENT.md §11): the context every algorithm derives from, and
// the quantization of SetParams, which is the same for all of them (target-independent scalar
// code, Convolution8iParams.cpp).
//
// Quantities (§11; "z" zero point, "q" quantizer step, "s" weight scale):
//   input    u8 = clamp(round(x * srcScale[c] + srcZero), 0, uMax)   srcScale = 1/q_src
//   weights  w8[d][ky][kx][ci] = clamp(round(w * q_src * s_d), iMin, iMax)
//   output   y = float(sum) * norm[d] + bias[d]     norm = 1/s_d, bias = bias - float(corr)/s_d
//            then the activation, then FP32, or u8 = clamp(round(y * dstScale[d] + dstZero), ...)
// where sum is the INT32 sum over the window with padded taps reading srcZero, and corr is the
// sum of w8 * srcZero over the filter. Rules §11 leaves open are fixed in include/SimdSynet.h
// (SimdSynetConvolution8iSetParams).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "SimdSynet.h"
#include "core/LayerContext.h"

namespace simd {

// The integer ranges a compatibility value selects (§11). 8iNarrowed: [0, 180] and [-90, 90],
// so two products always fit int16; otherwise [0, 255] and [-128, 127]. 8iOverflow: the sums of
// the products of input channels 2j and 2j + 1 of one tap saturate to int16 (the PMADDUBSW rule).
struct Int8Mode {
    bool narrowed, overflow;
    int uMax, iMin, iMax;
    explicit Int8Mode(SimdSynetCompatibilityType c)
        : narrowed((c & SimdSynetCompatibility8iMask) == SimdSynetCompatibility8iNarrowed),
          overflow((c & SimdSynetCompatibility8iMask) == SimdSynetCompatibility8iOverflow),
          uMax(narrowed ? 180 : 255),
          iMin(narrowed ? -90 : -128),
          iMax(narrowed ? 90 : 127) {}
};

class Convolution8i : public LayerContext {
public:
    Convolution8i(size_t batch, const SimdConvolutionParameters& p,
                  SimdSynetCompatibilityType compatibility)
        : batch_(batch), p_(p), mode_(compatibility) {}

    // In floats, as LayerContext counts (the entry points report bytes).
    size_t InternalBufferSize() const override;

    // Quantizes the weights and copies bias, activation parameters and quantizers; stats as
    // SimdSynetConvolution8iSetParams (stats[2], stats[3] read only for a UINT8 output).
    void SetParams(const float* weight, const float* bias, const float* params,
                   const float* const* stats);
    // buf: ExternalBufferSize() floats of caller scratch, or NULL (context scratch).
    void Forward(const uint8_t* src, float* buf, uint8_t* dst) {
        Run(src, reinterpret_cast<uint8_t*>(Scratch(buf)), dst);
    }

protected:
    // Re-orders w8_ (and the per-channel arrays) for the algorithm.
    virtual void PackWeights() = 0;
    virtual void Run(const uint8_t* src, uint8_t* buf, uint8_t* dst) const = 0;
    // Bytes of the algorithm's packed weights and parameters (for InternalBufferSize).
    virtual size_t PackedBytes() const = 0;

public:
    const size_t batch_;
    const SimdConvolutionParameters p_;
    const Int8Mode mode_;
    // Input quantizer: 1/q and the zero point per input channel (the scale and shift arrays of
    // the §7.4 rule), and the zero point alone.
    std::vector<float> srcScale_, srcShift_;
    int srcZero_ = 0;
    // Weights in [d][ky][kx][ci] order (ci inside the group), dequantization per output channel.
    std::vector<int8_t> w8_;
    std::vector<float> norm_, bias_;
    // Output quantizer (UINT8 output only): 1/q per output channel and the zero point.
    std::vector<float> dstScale_;
    int dstZero_ = 0;
    // Negative slope per output channel (LeakyRelu, Prelu); the scalars of other activations.
    std::vector<float> slope_;
    float param0_ = 0.0f, param1_ = 0.0f;
};

}  // namespace simd
